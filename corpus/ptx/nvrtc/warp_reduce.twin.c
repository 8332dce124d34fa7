/* C twin of warp_reduce.cu: each warp as a 32-lane array; shfl.down from a lane past 31 returns
 * the lane's own value (the source lane is out of range, CUDA returns the caller's variable). */
#include "twin.h"

int main(void) {
  twin_begin();
  const float *in = twin_buf("in");
  const int32_t *iv = twin_buf("iv");
  float *fsum = twin_buf("fsum");
  int32_t *isum = twin_buf("isum");
  uint32_t *umax = twin_buf("umax");
  float *bcast = twin_buf("bcast");
  int n = (int)twin_param(6);
  int threads = grid[0] * block[0];
  for (int w = 0; w < threads / 32; w++) {
    float v[32], nv[32];
    int32_t x[32], nx[32];
    uint32_t u[32], nu[32];
    for (int l = 0; l < 32; l++) {
      int i = w * 32 + l;
      v[l] = i < n ? in[i] : 0.0f;
      x[l] = i < n ? iv[i] : 0;
      u[l] = i < n ? (uint32_t)iv[i] * 2654435761u : 0u;
    }
    for (int off = 16; off > 0; off >>= 1) {
      for (int l = 0; l < 32; l++) nv[l] = v[l] + (l + off < 32 ? v[l + off] : v[l]);
      memcpy(v, nv, sizeof v);
    }
    for (int off = 1; off < 32; off <<= 1) {
      for (int l = 0; l < 32; l++) nx[l] = (int32_t)((uint32_t)x[l] + (uint32_t)x[l ^ off]);
      memcpy(x, nx, sizeof x);
    }
    for (int off = 1; off < 32; off <<= 1) {
      for (int l = 0; l < 32; l++) nu[l] = u[l] > u[l ^ off] ? u[l] : u[l ^ off];
      memcpy(u, nu, sizeof u);
    }
    fsum[w] = v[0];
    umax[w] = u[0];
    for (int l = 0; l < 32; l++) {
      isum[w * 32 + l] = x[l];
      bcast[w * 32 + l] = v[0] * (float)(l + 1);
    }
  }
  twin_end();
  return 0;
}
