/* C twin of scan.cu: the same rounds in the same order (each round reads the previous round's
 * values: the double buffer / the shuffle's snapshot). */
#include "twin.h"
#define PAD(i) ((i) + ((i) >> 5))

static void warp_scan(float *v) {
  float nv[32];
  for (int off = 1; off < 32; off <<= 1) {
    for (int l = 0; l < 32; l++) nv[l] = l >= off ? v[l] + v[l - off] : v[l];
    memcpy(v, nv, sizeof nv);
  }
}

int main(void) {
  twin_begin();
  if (twin_is("scan_hillis")) {
    const uint32_t *in = twin_buf("in");
    uint32_t *out = twin_buf("out");
    for (uint32_t b = 0; b < grid[0]; b++) {
      uint32_t cur[256], nxt[256];
      memcpy(cur, in + b * 256, sizeof cur);
      for (int off = 1; off < 256; off <<= 1) {
        for (int t = 0; t < 256; t++) nxt[t] = t >= off ? cur[t] + cur[t - off] : cur[t];
        memcpy(cur, nxt, sizeof cur);
      }
      memcpy(out + b * 256, cur, sizeof cur);
    }
  } else if (twin_is("scan_blelloch")) {
    const int32_t *in = twin_buf("in");
    int32_t *out = twin_buf("out");
    int32_t *totals = twin_buf("totals");
    for (uint32_t b = 0; b < grid[0]; b++) {
      uint32_t s[PAD(512) + 1];
      for (int j = 0; j < 512; j++) s[PAD(j)] = (uint32_t)in[b * 512 + j];
      int off = 1;
      for (int d = 256; d > 0; d >>= 1) {
        for (int t = 0; t < d; t++) {
          int a = off * (2 * t + 1) - 1, c = off * (2 * t + 2) - 1;
          s[PAD(c)] += s[PAD(a)];
        }
        off *= 2;
      }
      totals[b] = (int32_t)s[PAD(511)];
      s[PAD(511)] = 0;
      for (int d = 1; d < 512; d *= 2) {
        off >>= 1;
        for (int t = 0; t < d; t++) {
          int a = off * (2 * t + 1) - 1, c = off * (2 * t + 2) - 1;
          uint32_t x = s[PAD(a)];
          s[PAD(a)] = s[PAD(c)];
          s[PAD(c)] += x;
        }
      }
      for (int j = 0; j < 512; j++) out[b * 512 + j] = (int32_t)s[PAD(j)];
    }
  } else {
    const float *in = twin_buf("in");
    float *out = twin_buf("out");
    int nw = block[0] / 32;
    for (uint32_t b = 0; b < grid[0]; b++) {
      float v[32][32], w[32];
      for (int k = 0; k < nw; k++) {
        for (int l = 0; l < 32; l++) v[k][l] = in[b * block[0] + k * 32 + l];
        warp_scan(v[k]);
      }
      for (int l = 0; l < 32; l++) w[l] = l < nw ? v[l][31] : 0.0f;
      warp_scan(w);
      for (int k = 0; k < nw; k++)
        for (int l = 0; l < 32; l++) out[b * block[0] + k * 32 + l] = k > 0 ? v[k][l] + w[k - 1] : v[k][l];
    }
  }
  twin_end();
  return 0;
}
