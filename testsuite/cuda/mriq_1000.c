// gpucc-args: --recipe recipes/mriq.lua --function compute_q -D NUM_X=1000 -D NUM_K=500
// MRI-Q (Parboil; seed 004, Fig. 6.10) as a whole program.
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

#define NUM_K 512
#define NUM_X 4096
#define PIx2 6.2831853071795864769252867665590058f

void compute_q(const float kx[NUM_K], const float ky[NUM_K], const float kz[NUM_K],
               const float phiMag[NUM_K], const float x[NUM_X], const float y[NUM_X],
               const float z[NUM_X], float Qr[NUM_X], float Qi[NUM_X])
{
  for (int i = 0; i < NUM_X; i++) {
    Qr[i] = 0.0f;
    Qi[i] = 0.0f;
    for (int k = 0; k < NUM_K; k++) {
      float expArg = PIx2 * (kx[k] * x[i] + ky[k] * y[i] + kz[k] * z[i]);
      Qr[i] += phiMag[k] * cosf(expArg);
      Qi[i] += phiMag[k] * sinf(expArg);
    }
  }
}

static float *random_array(int n)
{
  float *a = (float *)malloc(n * sizeof(float));
  for (int i = 0; i < n; i++)
    a[i] = (float)rand() / RAND_MAX;
  return a;
}

int main(void)
{
  float *kx = random_array(NUM_K), *ky = random_array(NUM_K), *kz = random_array(NUM_K);
  float *phi = random_array(NUM_K);
  float *x = random_array(NUM_X), *y = random_array(NUM_X), *z = random_array(NUM_X);
  float *qr = (float *)malloc(NUM_X * sizeof(float)), *qi = (float *)malloc(NUM_X * sizeof(float));
  compute_q(kx, ky, kz, phi, x, y, z, qr, qi);
  printf("Qr[0] = %f, Qi[0] = %f\n", qr[0], qi[0]);
  free(kx); free(ky); free(kz); free(phi); free(x); free(y); free(z); free(qr); free(qi);
  return 0;
}
