/* C twin of warp_vote.cu: each warp as 32 lanes; a collective over a mask sees the lanes of the
 * mask (__shfl_sync(mask, v, 3) reads lane 3 -- an odd lane for the odd half; the xor partner
 * of an even lane is even). */
#include "twin.h"

int main(void) {
  twin_begin();
  const int32_t *in = twin_buf("in");
  uint32_t *out = twin_buf("out");
  int nthreads = grid[0] * block[0];
  for (int w = 0; w < nthreads / 32; w++) {
    const int32_t *v = in + 32 * w;
    uint32_t bal = 0, any7 = 0, all = 1, uni = 1, add = 0, and_ = ~0u, or_ = 0, xor_ = 0;
    int32_t mn = INT32_MAX, mx = INT32_MIN;
    for (int l = 0; l < 32; l++) {
      bal |= (uint32_t)(v[l] > 0) << l;
      any7 |= v[l] == 7;
      all &= v[l] > -1000;
      uni &= (v[l] >= -2000) == (v[0] >= -2000);
      add += (uint32_t)v[l];
      mn = v[l] < mn ? v[l] : mn;
      mx = v[l] > mx ? v[l] : mx;
      and_ &= (uint32_t)v[l] | 0xf0f0f0f0u;
      or_ |= (uint32_t)v[l] & 0x0f0f0f0fu;
      xor_ ^= (uint32_t)v[l];
    }
    int allsame = 1;
    for (int l = 0; l < 32; l++) allsame &= (v[l] >> 10) == (v[0] >> 10);
    uint32_t odd_bal = 0, even_bal = 0, odd_add = 0, even_max = 0, even_any = 0;
    for (int l = 0; l < 32; l++) {
      if (l & 1) {
        odd_bal |= (uint32_t)((v[l] & 1) != 0) << l;
        odd_add += (uint32_t)v[l];
      } else {
        even_bal |= (uint32_t)((v[l] & 2) != 0) << l;
        even_max = (uint32_t)v[l] > even_max ? (uint32_t)v[l] : even_max;
        even_any |= v[l] < -900;
      }
    }
    for (int l = 0; l < 32; l++) {
      uint32_t *o = out + 16 * (32 * w + l);
      uint32_t m7 = 0, m3 = 0;
      for (int k = 0; k < 32; k++) {
        m7 |= (uint32_t)((v[k] & 7) == (v[l] & 7)) << k;
        if ((k & 1) == (l & 1) && (l & 1)) m3 |= (uint32_t)((v[k] & 3) == (v[l] & 3)) << k;
      }
      o[0] = 0xffffffffu;
      o[1] = bal;
      o[2] = any7 | all << 1 | uni << 2;
      o[3] = m7;
      o[4] = allsame ? 0xffffffffu : 0;
      o[5] = (uint32_t)allsame;
      o[6] = add;
      o[7] = (uint32_t)mn;
      o[8] = (uint32_t)mx;
      o[9] = and_;
      o[10] = or_;
      o[11] = xor_;
      if (l & 1) {
        o[12] = odd_bal;
        o[13] = odd_add;
        o[14] = m3;
        o[15] = (uint32_t)v[3];
      } else {
        o[12] = even_bal;
        o[13] = even_max;
        o[14] = even_any;
        o[15] = (uint32_t)v[l ^ 2];
      }
    }
  }
  twin_end();
  return 0;
}
