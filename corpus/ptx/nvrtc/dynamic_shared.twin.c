/* C twin of dynamic_shared.cu (the double expression: x * 0.5 is exact, so the fma NVVM may
 * form equals the separate operations). */
#include "twin.h"

int main(void) {
  twin_begin();
  const int32_t *in = twin_buf("in");
  const double *din = twin_buf("din");
  int32_t *out = twin_buf("out");
  double *dout = twin_buf("dout");
  uint32_t *size_out = twin_buf("size_out");
  uint32_t n = block[0];
  for (uint32_t b = 0; b < grid[0]; b++) {
    for (uint32_t t = 0; t < n; t++) {
      out[b * n + t] = (int32_t)((uint32_t)in[b * n + n - 1 - t] - (uint32_t)in[b * n + (t + 1) % n]);
      volatile double h = din[b * n + (t + n / 2) % n] * 0.5;
      dout[b * n + t] = h - din[b * n + t];
    }
    size_out[b] = shared_bytes;
  }
  twin_end();
  return 0;
}
