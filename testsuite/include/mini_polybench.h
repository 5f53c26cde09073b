/* The PolyBench/C conventions gpucc's tests rely on, written for gpucc's testsuite. */
#ifndef MINI_POLYBENCH_H
#define MINI_POLYBENCH_H

#ifndef DATA_TYPE_IS_FLOAT
# define DATA_TYPE double
# define SCALAR_VAL(x) x
#else
# define DATA_TYPE float
# define SCALAR_VAL(x) x##f
#endif

#define POLYBENCH_PADDING_FACTOR 0
#ifdef POLYBENCH_USE_C99_PROTO
# define POLYBENCH_C99_SELECT(x, y) y
#else
# define POLYBENCH_C99_SELECT(x, y) x
#endif
#define POLYBENCH_1D(var, dim1, ddim1) var[POLYBENCH_C99_SELECT(dim1, ddim1) + POLYBENCH_PADDING_FACTOR]
#define POLYBENCH_2D(var, dim1, dim2, ddim1, ddim2) \
  var[POLYBENCH_C99_SELECT(dim1, ddim1) + POLYBENCH_PADDING_FACTOR][POLYBENCH_C99_SELECT(dim2, ddim2) + POLYBENCH_PADDING_FACTOR]

#ifdef POLYBENCH_USE_SCALAR_LB
# define _PB_M m
# define _PB_N n
#else
# define _PB_M M
# define _PB_N N
#endif

#endif
