/* Loops: a data-dependent while loop (Collatz steps, 64-bit), a counted loop with an early
 * exit (first index whose prefix sum passes a threshold), a nested loop (a polynomial hash
 * over a row of the input), and a grid-stride loop over several blocks. */
#include "ptxk.h"

KERNEL void loops(uint32_t *out, const uint32_t *in, uint32_t n, uint32_t width) {
  for (uint32_t i = CTAID_X * NTID_X + TID_X; i < n; i += NCTAID_X * NTID_X) {
    uint64_t x = in[i] % 100000u + 1u;
    uint32_t steps = 0;
    while (x != 1 && steps < 1000) {
      x = (x & 1) ? 3 * x + 1 : x >> 1;
      steps++;
    }
    uint32_t sum = 0, first = width;
    for (uint32_t k = 0; k < width; k++) {
      sum += in[(i + k) % n] & 0xff;
      if (sum > 1000) {
        first = k;
        break;
      }
    }
    uint32_t h = 0;
    for (uint32_t r = 0; r < 3; r++)
      for (uint32_t k = 0; k < width; k++) h = h * 31u + (in[(i * 3 + r * 7 + k) % n] >> r);
    out[3 * i] = steps;
    out[3 * i + 1] = first;
    out[3 * i + 2] = h;
  }
}

#ifdef PTXK_HOST
#define N 1000
#define W 13
static uint32_t *g_out, *g_in;
static void body(void) { loops(g_out, g_in, N, W); }
int main(int argc, char **argv) {
  ptxk_begin(argc, argv, "loops", 3, 1, 1, 96, 1, 1);
  g_in = ptxk_in("in", N * 4);
  for (int i = 0; i < N; i++) g_in[i] = (uint32_t)ptxk_mix64(7 * i + 1);
  g_out = ptxk_out("out", N * 3 * 4);
  ptxk_param_buf("out");
  ptxk_param_buf("in");
  ptxk_param_scalar("u32", N);
  ptxk_param_scalar("u32", W);
  return ptxk_launch(body);
}
#endif
