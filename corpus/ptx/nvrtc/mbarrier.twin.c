/* C twin of mbarrier.cu: each barrier phase as a step over the whole block. */
#include "twin.h"
#define T 128

int main(void) {
  twin_begin();
  for (uint32_t b = 0; b < grid[0]; b++) {
    if (twin_is("barrier_phases")) {
      const uint32_t *in = twin_buf("in");
      uint32_t *out = twin_buf("out");
      uint32_t v[T], s[T];
      for (int t = 0; t < T; t++) v[t] = in[b * T + t];
      for (int phase = 0; phase < 4; phase++) {
        memcpy(s, v, sizeof s);
        for (int t = 0; t < T; t++) v[t] = v[t] * 3u + s[(t + 1 + phase * 7) % T];
      }
      for (int t = 0; t < T; t++) out[b * T + t] = (v[t] ^ 0x5bd1e995u) + v[T - 1 - t];
    } else if (twin_is("barrier_memcpy")) {
      const float *in = twin_buf("in");
      float *out = twin_buf("out");
      for (int t = 0; t < T; t++) {
        const float *x = in + 4 * (b * T + (t * 3) % T);
        /* x[2] * 0.5f is exact (no subnormals here), so NVVM's fma.rn(x[2], 0.5, x0 - x1) is
         * the separate multiply and add */
        volatile float a = x[0] - x[1];
        volatile float h = x[2] * 0.5f;
        volatile float c = a + h;
        out[b * T + t] = c - x[3];
      }
    } else {
      const int32_t *in = twin_buf("in");
      int32_t *out = twin_buf("out");
      int32_t v[T], s[T];
      for (int t = 0; t < T; t++) v[t] = in[b * T + t];
      for (int phase = 0; phase < 3; phase++) {
        memcpy(s, v, sizeof s);
        for (int t = 0; t < T; t++) {
          int32_t o = s[(t + 17) % T];
          v[t] = (v[t] > o ? v[t] : o) - phase;
        }
      }
      for (int t = 0; t < T; t++) out[b * T + t] = v[t];
    }
  }
  twin_end();
  return 0;
}
