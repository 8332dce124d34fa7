/* C twin of cp_async.cu: the copies complete before the reads (the kernel waits for them), so
 * the result is the plain data movement. */
#include "twin.h"
#define T 128

int main(void) {
  twin_begin();
  if (twin_is("cp_async_pipeline")) {
    const uint32_t *in = twin_buf("in");
    uint32_t *out = twin_buf("out");
    int ntiles = (int)twin_param(2);
    for (uint32_t b = 0; b < grid[0]; b++)
      for (int t = 0; t < T; t++) {
        uint32_t acc = 0;
        for (int k = 0; k < ntiles; k++) {
          const uint32_t *v = in + 4 * ((b * ntiles + k) * T + (t * 5 + k) % T);
          acc = (acc * 31u) ^ (v[0] + v[1] * 3u + v[2] * 5u + v[3] * 7u);
        }
        out[b * T + t] = acc;
      }
  } else if (twin_is("cp_async_sizes")) {
    const uint32_t *in = twin_buf("in");
    uint32_t *out = twin_buf("out");
    for (uint32_t b = 0; b < grid[0]; b++) {
      const uint32_t *src = in + b * 8 * T;
      uint32_t s4[T], s8[T][2], s16[T][4];
      for (int t = 0; t < T; t++) {
        s4[t] = src[t];
        s8[t][0] = src[T + 2 * t], s8[t][1] = src[T + 2 * t + 1];
        s16[t][0] = src[4 * T + 4 * t], s16[t][1] = src[4 * T + 4 * t + 1];
        s16[t][2] = s16[t][3] = 0; /* src-size 8 of 16: zero-filled */
      }
      for (int t = 0; t < T; t++) {
        int u = T - 1 - t;
        uint32_t *o = out + b * 8 * T + 8 * t;
        o[0] = s4[u];
        o[1] = s8[u][0], o[2] = s8[u][1];
        for (int k = 0; k < 4; k++) o[3 + k] = s16[u][k];
        o[7] = s4[(u + 1) % T] ^ s16[(u + 7) % T][3];
      }
    }
  } else {
    const float *in = twin_buf("in");
    float *out = twin_buf("out");
    int n = (int)twin_param(2);
    for (uint32_t b = 0; b < grid[0]; b++)
      for (int j = 0; j < n; j++) out[b * n + j] = in[b * n + n - 1 - j] * 2.0f;
  }
  twin_end();
  return 0;
}
