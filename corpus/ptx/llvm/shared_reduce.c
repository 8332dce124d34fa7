/* Shared memory with barriers across warps (256 threads = 8 warps per block, 4 blocks): a tree
 * sum reduction, a block-wide reversal through shared memory, and a Hillis-Steele inclusive
 * prefix scan with double buffering. Each step is separated by __syncthreads (bar.sync 0). */
#include "ptxk.h"

#define B 256
static SHARED uint32_t s_red[B];
static SHARED uint32_t s_rev[B];
static SHARED uint32_t s_scan[2][B];

KERNEL void shared_reduce(uint32_t *sums, uint32_t *rev, uint32_t *scan, const uint32_t *in) {
  uint32_t t = TID_X, g = CTAID_X * B + t;
  uint32_t x = in[g];
  s_red[t] = x;
  s_rev[t] = x ^ (t << 24);
  s_scan[0][t] = x & 0xffff;
  BARRIER();
  for (uint32_t s = B / 2; s > 0; s >>= 1) {
    if (t < s) s_red[t] += s_red[t + s];
    BARRIER();
  }
  if (t == 0) sums[CTAID_X] = s_red[0];
  rev[g] = s_rev[B - 1 - t];
  uint32_t cur = 0;
  for (uint32_t off = 1; off < B; off <<= 1) {
    uint32_t v = s_scan[cur][t];
    if (t >= off) v += s_scan[cur][t - off];
    s_scan[cur ^ 1][t] = v;
    cur ^= 1;
    BARRIER();
  }
  scan[g] = s_scan[cur][t];
}

#ifdef PTXK_HOST
#define G 4
static uint32_t *g_sums, *g_rev, *g_scan, *g_in;
static void body(void) { shared_reduce(g_sums, g_rev, g_scan, g_in); }
int main(int argc, char **argv) {
  ptxk_begin(argc, argv, "shared_reduce", G, 1, 1, B, 1, 1);
  g_in = ptxk_in("in", G * B * 4);
  for (int i = 0; i < G * B; i++) g_in[i] = (uint32_t)ptxk_mix64(i + 77);
  g_sums = ptxk_out("sums", G * 4);
  g_rev = ptxk_out("rev", G * B * 4);
  g_scan = ptxk_out("scan", G * B * 4);
  ptxk_param_buf("sums");
  ptxk_param_buf("rev");
  ptxk_param_buf("scan");
  ptxk_param_buf("in");
  return ptxk_launch(body);
}
#endif
