// MRI-Q (after Parboil): the magnitude of each k-space sample's phase term, then for every
// voxel the sum over samples of that magnitude times cos / sin of 2 pi k . x.
#include <math.h>

#define NUM_K 2048
#define NUM_X 32768
#define PI2 6.2831853071795864769f

void mriq(const float phiR[NUM_K], const float phiI[NUM_K], float phiMag[NUM_K],
          const float kx[NUM_K], const float ky[NUM_K], const float kz[NUM_K],
          const float x[NUM_X], const float y[NUM_X], const float z[NUM_X],
          float Qr[NUM_X], float Qi[NUM_X])
{
  for (int k = 0; k < NUM_K; k++)
    phiMag[k] = phiR[k] * phiR[k] + phiI[k] * phiI[k];
  for (int v = 0; v < NUM_X; v++) {
    float qr = 0.0f;
    float qi = 0.0f;
    for (int k = 0; k < NUM_K; k++) {
      float arg = PI2 * (kx[k] * x[v] + ky[k] * y[v] + kz[k] * z[v]);
      qr += phiMag[k] * cosf(arg);
      qi += phiMag[k] * sinf(arg);
    }
    Qr[v] = qr;
    Qi[v] = qi;
  }
}
