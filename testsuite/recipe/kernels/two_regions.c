// Two #pragma scop regions: a recipe describes one, so gpucc refuses the file.
#define N 8
void f(float a[N], float b[N]) {
#pragma scop
 for (int i = 0; i < N; i++) a[i] = 1;
#pragma endscop
#pragma scop
 for (int i = 0; i < N; i++) b[i] = 2;
#pragma endscop
}
