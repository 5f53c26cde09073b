/* PolyBench's way with sizes (atax.h and polybench.h), for
   testsuite/reliability/sizes_through_a_function_like_macro.c: the sizes are defined in
   a header unless already defined, the loop bounds and the parameters' dimensions
   through function-like macros. */
#if !defined(M) && !defined(N)
# define M 1900
# define N 2100
#endif
#define LOOP_BOUND(x, y) x
#define _PB_M LOOP_BOUND(M, m)
#define _PB_N LOOP_BOUND(N, n)
#define ARRAY_1D(var, d1, dd1) var[d1]
#define ARRAY_2D(var, d1, d2, dd1, dd2) var[d1][d2]
