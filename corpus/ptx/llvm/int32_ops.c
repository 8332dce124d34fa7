/* 32-bit integer arithmetic: add/sub/mul.lo, mul.hi (signed and unsigned, via a widening
 * multiply), div/rem signed and unsigned (divisor 0 and INT_MIN/-1 avoided: C leaves them
 * undefined), shifts by data-dependent amounts (masked to 0..31), arithmetic right shift of
 * negatives, bit ops, popc/clz/ffs/bswap/rotate via builtins, min/max/abs, comparisons. */
#include "ptxk.h"

#define NOUT 24

KERNEL void int32_ops(uint32_t *out, const uint32_t *in, uint32_t n) {
  uint32_t i = CTAID_X * NTID_X + TID_X;
  if (i >= n) return;
  uint32_t a = in[2 * i], b = in[2 * i + 1];
  int32_t sa = (int32_t)a, sb = (int32_t)b;
  uint32_t *o = out + NOUT * i;
  uint32_t ub = b ? b : 7u;
  int32_t sd = (sb == 0 || (sb == -1 && sa == INT32_MIN)) ? 3 : sb;
  uint32_t sh = b & 31;
  o[0] = a + b;
  o[1] = a - b;
  o[2] = a * b;
  o[3] = (uint32_t)(((uint64_t)a * b) >> 32);
  o[4] = (uint32_t)(((int64_t)sa * sb) >> 32);
  o[5] = a / ub;
  o[6] = a % ub;
  o[7] = (uint32_t)(sa / sd);
  o[8] = (uint32_t)(sa % sd);
  o[9] = a << sh;
  o[10] = a >> sh;
  o[11] = (uint32_t)(sa >> sh);
  o[12] = (a & b) ^ (~a | (b >> 3));
  o[13] = (uint32_t)__builtin_popcount(a) + ((uint32_t)__builtin_popcount(b) << 8);
  o[14] = a ? (uint32_t)__builtin_clz(a) : 32u;
  o[15] = (uint32_t)__builtin_ffs(sb);
  o[16] = __builtin_bswap32(a);
  o[17] = (a << sh) | (a >> ((32 - sh) & 31));
  o[18] = a < b ? a : b;
  o[19] = sa > sb ? (uint32_t)sa : (uint32_t)sb;
  o[20] = sa == INT32_MIN ? a : (uint32_t)(sa < 0 ? -sa : sa);
  o[21] = (uint32_t)(a < b) | (uint32_t)(sa < sb) << 1 | (uint32_t)(a == b) << 2 |
          (uint32_t)(sa >= sb) << 3;
  o[22] = (a * 0x9e3779b9u + b) * (a | 1u) - (b >> 1) * 3u;
  o[23] = (uint32_t)(int32_t)(int16_t)a + (uint32_t)(int32_t)(int8_t)b;
}

#ifdef PTXK_HOST
#define NT 256
static uint32_t *g_out, *g_in;
static void body(void) { int32_ops(g_out, g_in, NT - 3); }
int main(int argc, char **argv) {
  ptxk_begin(argc, argv, "int32_ops", 4, 1, 1, 64, 1, 1);
  g_in = ptxk_in("in", NT * 2 * 4);
  static const uint32_t edge[] = {0,          1,          2,          3,          7,
                                  31,         32,         33,         0x7fffffff, 0x80000000,
                                  0x80000001, 0xffffffff, 0xfffffffe, 0x55555555, 0xaaaaaaaa,
                                  0x10000,    0xffff,     12345,      0xfffffff9};
  const int ne = sizeof edge / sizeof edge[0];
  for (int i = 0; i < NT; i++) {
    uint64_t r = ptxk_mix64(i);
    if (i < ne * ne && i < 200) { /* pairs of edge values first */
      g_in[2 * i] = edge[i % ne];
      g_in[2 * i + 1] = edge[i / ne % ne];
    } else {
      g_in[2 * i] = (uint32_t)r;
      g_in[2 * i + 1] = (uint32_t)(r >> 32) >> (r & 15);
    }
  }
  g_out = ptxk_out("out", NT * NOUT * 4);
  ptxk_param_buf("out");
  ptxk_param_buf("in");
  ptxk_param_scalar("u32", NT - 3);
  return ptxk_launch(body);
}
#endif
