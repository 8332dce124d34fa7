/* Local memory: per-thread arrays indexed by data so they stay in the local depot (.local):
 * a 16-bin histogram of nibbles, an insertion sort of 12 values, and a permutation walk. */
#include "ptxk.h"

KERNEL void local_array(uint32_t *out, const uint32_t *in, uint32_t n) {
  uint32_t i = CTAID_X * NTID_X + TID_X;
  if (i >= n) return;
  uint32_t hist[16];
  uint32_t v[12];
  uint8_t perm[16];
  for (int k = 0; k < 16; k++) hist[k] = 0;
  for (int k = 0; k < 12; k++) v[k] = in[(i * 12 + k) % (n * 4)];
  for (int k = 0; k < 12; k++)
    for (int s = 0; s < 32; s += 4) hist[(v[k] >> s) & 15]++;
  for (int k = 1; k < 12; k++) { /* insertion sort */
    uint32_t x = v[k];
    int j = k - 1;
    while (j >= 0 && v[j] > x) {
      v[j + 1] = v[j];
      j--;
    }
    v[j + 1] = x;
  }
  for (int k = 0; k < 16; k++) perm[k] = (uint8_t)((k * 7 + v[0]) & 15);
  uint32_t p = v[11] & 15, walk = 0;
  for (int k = 0; k < 20; k++) {
    p = perm[p] ^ (hist[p] & 15);
    walk = walk * 17u + p;
  }
  uint32_t *o = out + 30 * i;
  for (int k = 0; k < 16; k++) o[k] = hist[k];
  for (int k = 0; k < 12; k++) o[16 + k] = v[k];
  o[28] = walk;
  o[29] = hist[v[5] & 15] + v[hist[3] % 12];
}

#ifdef PTXK_HOST
#define N 128
static uint32_t *g_out, *g_in;
static void body(void) { local_array(g_out, g_in, N); }
int main(int argc, char **argv) {
  ptxk_begin(argc, argv, "local_array", 2, 1, 1, 64, 1, 1);
  g_in = ptxk_in("in", N * 4 * 4);
  for (int i = 0; i < N * 4; i++) g_in[i] = (uint32_t)ptxk_mix64(31 * i + 5) >> (i % 9);
  g_out = ptxk_out("out", N * 30 * 4);
  ptxk_param_buf("out");
  ptxk_param_buf("in");
  ptxk_param_scalar("u32", N);
  return ptxk_launch(body);
}
#endif
