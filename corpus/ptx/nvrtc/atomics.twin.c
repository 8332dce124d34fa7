/* C twin of atomics.cu: the folds of commutative, associative operations in any order.
 * atomicInc(p, m): old >= m ? 0 : old + 1; atomicDec(p, m): (old == 0 || old > m) ? m : old - 1
 * -- with 256 updates from the given start these are fixed whatever the order. */
#include "twin.h"

int main(void) {
  twin_begin();
  const int32_t *in = twin_buf("in");
  uint32_t *u = twin_buf("u");
  uint64_t *u64 = twin_buf("u64");
  int32_t *s = twin_buf("s");
  float *f = twin_buf("f");
  uint32_t *own = twin_buf("own");
  int nthreads = grid[0] * block[0];
  for (int i = 0; i < nthreads; i++) {
    int32_t v = in[i];
    u[0] += (uint32_t)v;
    u[1] -= (uint32_t)i;
    if ((uint32_t)v > u[2]) u[2] = (uint32_t)v;
    if ((uint32_t)v < u[3]) u[3] = (uint32_t)v;
    u[4] &= (uint32_t)v | 0x00ff00ffu;
    u[5] |= (uint32_t)v & 0x11111111u;
    u[6] ^= (uint32_t)v;
    u[7] = u[7] >= 99u ? 0 : u[7] + 1;
    u[8] = (u[8] == 0 || u[8] > 1000u) ? 1000u : u[8] - 1;
    u64[0] += (uint64_t)(uint32_t)v << 20;
    uint64_t m = (uint64_t)(int64_t)v * 0x10001ull;
    if (m > u64[1]) u64[1] = m;
    int64_t mn = (int64_t)v * -3;
    if (mn < (int64_t)u64[2]) u64[2] = (uint64_t)mn;
    if (v > s[0]) s[0] = v;
    if (v < s[1]) s[1] = v;
    f[0] += (float)(v & 0xff);
    float fv = (float)v * 0.25f;
    if (f[1] < fv) f[1] = fv;
    uint32_t old = own[2 * i];
    own[2 * i] = (uint32_t)v;
    if (own[2 * i + 1] == old) own[2 * i + 1] = old + 1u;
  }
  twin_end();
  return 0;
}
