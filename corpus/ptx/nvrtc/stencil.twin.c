/* C twin of stencil.cu: per block, the tile's halo is the neighbour input in the first step and
 * zero afterwards (as the kernel writes it); l + r and (1 - 2w) * c rounded in f32, then fmaf. */
#include "twin.h"
#define B 64

static float load_or_zero(const float *in, int i, int n) { return (i >= 0 && i < n) ? in[i] : 0.0f; }

int main(void) {
  twin_begin();
  float *out = twin_buf("out");
  const float *in = twin_buf("in");
  int n = (int)twin_param(2);
  float w = twin_param_f32(3);
  int steps = (int)twin_param(4);
  for (uint32_t b = 0; b < grid[0]; b++) {
    float v[B], t[B + 2];
    for (int x = 0; x < B; x++) v[x] = load_or_zero(in, b * B + x, n);
    for (int s = 0; s < steps; s++) {
      for (int x = 0; x < B; x++) t[x + 1] = v[x];
      t[0] = s == 0 ? load_or_zero(in, b * B - 1, n) : 0.0f;
      t[B + 1] = s == 0 ? load_or_zero(in, b * B + B, n) : 0.0f;
      for (int x = 0; x < B; x++) {
        volatile float lr = t[x] + t[x + 2];
        volatile float k = 1.0f - 2.0f * w;
        volatile float kc = k * t[x + 1];
        v[x] = fmaf(w, lr, kc);
      }
    }
    for (int x = 0; x < B; x++)
      if ((int)(b * B + x) < n) out[b * B + x] = v[x];
  }
  twin_end();
  return 0;
}
