/* C twin of block_reduce.cu: the same trees in the same order. */
#include "twin.h"

static void warp_down_sum(double *v) {
  double nv[32];
  for (int off = 16; off > 0; off /= 2) {
    for (int l = 0; l < 32; l++) nv[l] = v[l] + (l + off < 32 ? v[l + off] : v[l]);
    memcpy(v, nv, sizeof nv);
  }
}

int main(void) {
  twin_begin();
  if (twin_is("block_reduce_tree")) {
    const float *in = twin_buf("in");
    float *out = twin_buf("out");
    int32_t *imax = twin_buf("imax");
    int n = (int)twin_param(3);
    for (uint32_t b = 0; b < grid[0]; b++) {
      float s[1024];
      int32_t m[1024];
      for (uint32_t t = 0; t < block[0]; t++) {
        int i = b * block[0] + t;
        s[t] = i < n ? in[i] : 0.0f;
        m[t] = i < n ? (int32_t)f32_bits(in[i]) : INT32_MIN;
      }
      for (uint32_t stride = block[0] / 2; stride > 0; stride >>= 1)
        for (uint32_t t = 0; t < stride; t++) {
          s[t] += s[t + stride];
          m[t] = m[t] > m[t + stride] ? m[t] : m[t + stride];
        }
      out[b] = s[0];
      imax[b] = m[0];
    }
  } else {
    const double *in = twin_buf("in");
    double *out = twin_buf("out");
    int n = (int)twin_param(2);
    for (uint32_t b = 0; b < grid[0]; b++) {
      double sums[32], v[32];
      int nwarps = block[0] / 32;
      for (int w = 0; w < nwarps; w++) {
        for (int l = 0; l < 32; l++) {
          int i = b * block[0] + w * 32 + l;
          v[l] = i < n ? in[i] : 0.0;
        }
        warp_down_sum(v);
        sums[w] = v[0];
      }
      for (int l = 0; l < 32; l++) v[l] = l < nwarps ? sums[l] : 0.0;
      warp_down_sum(v);
      out[b] = v[0];
    }
  }
  twin_end();
  return 0;
}
