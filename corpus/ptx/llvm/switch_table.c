/* Switches, driven by a small bytecode interpreter loop: a dense 13-way switch whose cases compute
 * different things, and a dense switch returning constants (lut). clang-19's NVPTX back end has
 * no jump tables (no brx.idx): both become trees of setp/bra and mov. A constant table in the
 * .const space (CONSTANT: address_space(4), an initialized array read with ld.const) stands in
 * for the lookup table. */
#include "ptxk.h"

static uint32_t lut(uint32_t k) {
  switch (k) {
  case 0: return 0x3c6ef372u;
  case 1: return 0xa54ff53au;
  case 2: return 0x510e527fu;
  case 3: return 0x9b05688cu;
  case 4: return 0x1f83d9abu;
  case 5: return 0x5be0cd19u;
  case 6: return 0x6a09e667u;
  case 7: return 0xbb67ae85u;
  default: return 0;
  }
}

static CONSTANT const uint32_t ktab[16] = {
    0x428a2f98u, 0x71374491u, 0xb5c0fbcfu, 0xe9b5dba5u, 0x3956c25bu, 0x59f111f1u,
    0x923f82a4u, 0xab1c5ed5u, 0xd807aa98u, 0x12835b01u, 0x243185beu, 0x550c7dc3u,
    0x72be5d74u, 0x80deb1feu, 0x9bdc06a7u, 0xc19bf174u};

KERNEL void switch_table(uint32_t *out, const uint8_t *code, uint32_t n, uint32_t len) {
  uint32_t i = CTAID_X * NTID_X + TID_X;
  if (i >= n) return;
  uint32_t acc = i * 2654435761u, x = i;
  for (uint32_t pc = 0; pc < len; pc++) {
    uint8_t op = code[(i + pc * 5) % (len * 4)];
    switch (op % 13) {
    case 0: acc += x; break;
    case 1: acc ^= acc >> 7; break;
    case 2: acc *= 0x01000193u; break;
    case 3: x = acc - x; break;
    case 4: acc = (acc << 5) | (acc >> 27); break;
    case 5: acc += lut(op >> 4); break;
    case 6: x ^= lut(acc & 7); break;
    case 7: acc -= x * 3; break;
    case 8: acc = ~acc; break;
    case 9: x = x * x + 1; break;
    case 10: acc = acc > x ? acc - x : x - acc; break;
    case 11: acc = (uint32_t)((int32_t)acc >> 3); break;
    default: x += op + ktab[(acc ^ op) & 15]; break;
    }
  }
  out[2 * i] = acc;
  out[2 * i + 1] = x;
}

#ifdef PTXK_HOST
#define N 200
#define LEN 24
static uint32_t *g_out;
static uint8_t *g_code;
static void body(void) { switch_table(g_out, g_code, N, LEN); }
int main(int argc, char **argv) {
  ptxk_begin(argc, argv, "switch_table", 4, 1, 1, 64, 1, 1);
  g_code = ptxk_in("code", LEN * 4);
  for (int i = 0; i < LEN * 4; i++) g_code[i] = (uint8_t)ptxk_mix64(i + 4242);
  g_out = ptxk_out("out", N * 2 * 4);
  ptxk_param_buf("out");
  ptxk_param_buf("code");
  ptxk_param_scalar("u32", N);
  ptxk_param_scalar("u32", LEN);
  return ptxk_launch(body);
}
#endif
