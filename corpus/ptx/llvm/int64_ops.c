/* 64-bit integer arithmetic: add/sub/mul.lo, mul.hi (unsigned and signed, via 128-bit
 * products), div/rem signed and unsigned (divisor 0 and INT64_MIN/-1 avoided), shifts by
 * data-dependent amounts (masked to 0..63), bit ops, popc/clz/ctz/bswap via builtins,
 * min/max, comparisons, 32<->64 widening and narrowing. */
#include "ptxk.h"

#define NOUT 20

KERNEL void int64_ops(uint64_t *out, const uint64_t *in, uint32_t n) {
  uint32_t i = CTAID_X * NTID_X + TID_X;
  if (i >= n) return;
  uint64_t a = in[2 * i], b = in[2 * i + 1];
  int64_t sa = (int64_t)a, sb = (int64_t)b;
  uint64_t *o = out + NOUT * i;
  uint64_t ub = b ? b : 11u;
  int64_t sd = (sb == 0 || (sb == -1 && sa == INT64_MIN)) ? -5 : sb;
  uint32_t sh = (uint32_t)b & 63;
  o[0] = a + b;
  o[1] = a - b;
  o[2] = a * b;
  o[3] = (uint64_t)(((unsigned __int128)a * b) >> 64);
  o[4] = (uint64_t)(((__int128)sa * sb) >> 64);
  o[5] = a / ub;
  o[6] = a % ub;
  o[7] = (uint64_t)(sa / sd);
  o[8] = (uint64_t)(sa % sd);
  o[9] = a << sh;
  o[10] = a >> sh;
  o[11] = (uint64_t)(sa >> sh);
  o[12] = (a | b) ^ (~a & (b << 5));
  o[13] = (uint64_t)__builtin_popcountll(a) | (uint64_t)__builtin_popcountll(b) << 32;
  o[14] = a ? (uint64_t)__builtin_clzll(a) : 64u;
  o[15] = b ? (uint64_t)__builtin_ctzll(b) : 64u;
  o[16] = __builtin_bswap64(a);
  o[17] = (a < b ? a : b) ^ ((sa > sb ? a : b) << 1);
  o[18] = (uint64_t)(a < b) | (uint64_t)(sa <= sb) << 1 | (uint64_t)(a != b) << 2;
  o[19] = (uint64_t)(int64_t)(int32_t)(uint32_t)a * (uint32_t)(b >> 32) + (uint32_t)(a >> 40);
}

#ifdef PTXK_HOST
#define NT 192
static uint64_t *g_out, *g_in;
static void body(void) { int64_ops(g_out, g_in, NT); }
int main(int argc, char **argv) {
  ptxk_begin(argc, argv, "int64_ops", 3, 1, 1, 64, 1, 1);
  g_in = ptxk_in("in", NT * 2 * 8);
  static const uint64_t edge[] = {0,
                                  1,
                                  2,
                                  63,
                                  64,
                                  65,
                                  0xffffffffull,
                                  0x100000000ull,
                                  0x7fffffffffffffffull,
                                  0x8000000000000000ull,
                                  0xffffffffffffffffull,
                                  0xfffffffffffffff3ull};
  const int ne = sizeof edge / sizeof edge[0];
  for (int i = 0; i < NT; i++) {
    uint64_t r = ptxk_mix64(1000 + i), s = ptxk_mix64(5000 + i);
    if (i < ne * ne) {
      g_in[2 * i] = edge[i % ne];
      g_in[2 * i + 1] = edge[i / ne];
    } else {
      g_in[2 * i] = r;
      g_in[2 * i + 1] = s >> (s & 63);
    }
  }
  g_out = ptxk_out("out", NT * NOUT * 8);
  ptxk_param_buf("out");
  ptxk_param_buf("in");
  ptxk_param_scalar("u32", NT);
  return ptxk_launch(body);
}
#endif
