/* C twin of coop_groups.cu: every group as an array of lanes; the group operations from the
 * Cooperative Groups API description (shuffles past the end of a tile return the caller's own
 * value, coalesced_group ranks count the group's lanes in lane order, a coalesced_group's
 * ballot is packed by rank). */
#include "twin.h"

int main(void) {
  twin_begin();
  const int32_t *in = twin_buf("in");
  const float *fin = twin_buf("fin");
  int32_t *out = twin_buf("out");
  float *fout = twin_buf("fout");
  uint32_t *counts = twin_buf("counts");
  uint32_t nt = block[0];
  for (uint32_t b = 0; b < grid[0]; b++) {
    for (uint32_t w = 0; w < nt / 32; w++) {
      const int32_t *v = in + b * nt + w * 32;
      int32_t *o[32];
      for (int l = 0; l < 32; l++) o[l] = out + 20 * (b * nt + w * 32 + l);
      int32_t sum = 0, run = 0;
      uint32_t bal = 0;
      for (int l = 0; l < 32; l++) sum += v[l], bal |= (uint32_t)(v[l] & 1) << l;
      for (int l = 0; l < 32; l++) {
        int t0 = l & ~7, r = l & 7;
        int32_t mx = INT32_MIN, sc = 0;
        uint32_t x = 0;
        int any = 0, all = 1;
        for (int k = 0; k < 8; k++) {
          int32_t u = v[t0 + k];
          mx = u > mx ? u : mx;
          x ^= (uint32_t)u;
          if (k <= r) sc += u;
          any |= u < -900;
          all &= u > -900;
        }
        o[l][0] = sum;
        o[l][1] = mx;
        o[l][2] = (int32_t)x;
        o[l][3] = sc;
        o[l][4] = run;
        run += v[l];
        o[l][5] = l + 3 < 32 ? v[l + 3] : v[l];
        o[l][6] = v[t0 + (r + 3) % 8];
        o[l][7] = (int32_t)bal;
        o[l][8] = any + 2 * all;
        uint32_t rank = w * 32 + l;
        o[l][9] = (int32_t)((rank / 32) * 100 + (rank / 8) * 10 + rank % 8);
        o[l][10] = (int32_t)(nt + (nt / 8) * 1000);
        /* binary_partition by v % 3 == 0 */
        int p = v[l] % 3 == 0, size = 0, myrank = 0, first = -1, gsum = 0;
        uint32_t gbal = 0;
        for (int k = 0; k < 32; k++) {
          if ((v[k] % 3 == 0) != p) continue;
          if (first < 0) first = k;
          if (k < l) myrank++;
          gsum += v[k];
          gbal |= (uint32_t)(v[k] > 0) << size;
          size++;
        }
        o[l][11] = size;
        o[l][12] = myrank;
        o[l][13] = v[first];
        o[l][14] = gsum;
        o[l][15] = (int32_t)gbal;
        /* labeled_partition by v & 3 */
        int lab = v[l] & 3, hsize = 0, hrank = 0, last = -1;
        int32_t hmin = INT32_MAX;
        for (int k = 0; k < 32; k++) {
          if ((v[k] & 3) != lab) continue;
          if (k < l) hrank++;
          hsize++;
          last = k;
          hmin = v[k] < hmin ? v[k] : hmin;
        }
        o[l][17] = hsize * 100 + hrank;
        o[l][18] = hmin;
        o[l][19] = v[last];
        o[l][16] = l;
      }
      /* invoke_one: one lane of the warp adds 1; one lane of each partition adds its size */
      counts[w] += 1;
      counts[8 + w] += 32;
    }
    for (uint32_t t = 0; t < nt; t += 8) {
      float f[8], g[8];
      for (int k = 0; k < 8; k++) f[k] = fin[b * nt + t + k];
      for (int off = 4; off > 0; off /= 2) {
        for (int k = 0; k < 8; k++) g[k] = f[k] + (k + off < 8 ? f[k + off] : f[k]);
        memcpy(f, g, sizeof f);
      }
      fout[(b * nt + t) / 8] = f[0];
    }
  }
  twin_end();
  return 0;
}
