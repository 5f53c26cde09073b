// gpucc-args: --function kernel
void compute(float A[4]) { for (int i = 0; i < 4; i++) A[i] = 0; }
