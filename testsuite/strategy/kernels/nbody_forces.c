// All-pairs gravitational acceleration (n-body step without the position update): for each
// body i, the sum over all j of m[j] * d / (|d|^2 + eps^2)^(3/2) with d = p[j] - p[i]; the
// softening term eps^2 makes the j == i term zero instead of a division by zero.
#include <math.h>

#define NBODIES 16384
#define SOFTENING2 0.0001f

void nbody_forces(const float px[NBODIES], const float py[NBODIES], const float pz[NBODIES],
                  const float mass[NBODIES], float ax[NBODIES], float ay[NBODIES],
                  float az[NBODIES])
{
  for (int i = 0; i < NBODIES; i++) {
    float fx = 0.0f;
    float fy = 0.0f;
    float fz = 0.0f;
    for (int j = 0; j < NBODIES; j++) {
      float dx = px[j] - px[i];
      float dy = py[j] - py[i];
      float dz = pz[j] - pz[i];
      float inv_r = 1.0f / sqrtf(dx * dx + dy * dy + dz * dz + SOFTENING2);
      float s = mass[j] * inv_r * inv_r * inv_r;
      fx += s * dx;
      fy += s * dy;
      fz += s * dz;
    }
    ax[i] = fx;
    ay[i] = fy;
    az[i] = fz;
  }
}
