/* f32 arithmetic on every pair of a table of special and ordinary values (±0, ±subnormal,
 * ±min normal, ±1, 1/3, ±max, ±Inf, NaN, ...): add, sub, mul, div, sqrt, fmaf (explicit), the
 * ordered/unordered comparisons, conversions f32<->f64, s32->f32, u32->f32, and a product-sum
 * that must not be contracted (both builds use -ffp-contract=off). All results are
 * IEEE-determined (round to nearest even, no ftz); NaN payloads may differ. */
#include "ptxk.h"

#define NOUT 11

/* out: NOUT f32 results per thread (may hold NaNs); cmp: one u32 of comparison bits per thread. */
KERNEL void f32_ops(float *out, uint32_t *cmp, const float *vals, uint32_t nv) {
  uint32_t i = CTAID_X * NTID_X + TID_X;
  if (i >= nv * nv) return;
  float a = vals[i % nv], b = vals[i / nv], c = vals[(i * 7 + 3) % nv];
  float r[NOUT];
  r[0] = a + b;
  r[1] = a - b;
  r[2] = a * b;
  r[3] = a / b;
  r[4] = __builtin_sqrtf(a);
  r[5] = __builtin_fmaf(a, b, c);
  r[6] = a * b + c; /* two roundings */
  r[7] = (float)((double)a / 3.0); /* f32->f64, div.f64, f64->f32 */
  r[8] = (float)(int32_t)((uint32_t)i * 0x9e3779b9u);
  r[9] = (float)((uint32_t)i * 0x9e3779b9u);
  r[10] = -a;
  uint32_t c6 = (a < b) | (a <= b) << 1 | (a == b) << 2 | (a != b) << 3 | (a > b) << 4 |
                 (a >= b) << 5 | (a != a) << 6 | !(a < b) << 7;
  for (int k = 0; k < NOUT; k++) out[NOUT * i + k] = r[k];
  cmp[i] = c6;
}

#ifdef PTXK_HOST
static float *g_out, *g_vals;
static uint32_t *g_cmp;
static const uint32_t vbits[] = {
    0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x007fffff, 0x00800000, 0x80800000,
    0x3f800000, 0xbf800000, 0x3eaaaaab, 0x40400000, 0x3f800001, 0x7f7fffff, 0xff7fffff,
    0x7f800000, 0xff800000, 0x7fc00000, 0x34000000, 0x4b800001, 0x5f000000,
};
#define NV (sizeof vbits / sizeof vbits[0])
static void body(void) { f32_ops(g_out, g_cmp, g_vals, NV); }
int main(int argc, char **argv) {
  ptxk_begin(argc, argv, "f32_ops", (NV * NV + 127) / 128, 1, 1, 128, 1, 1);
  g_vals = ptxk_in("vals", NV * 4);
  memcpy(g_vals, vbits, sizeof vbits);
  g_out = ptxk_out("out", NV * NV * NOUT * 4);
  g_cmp = ptxk_out("cmp", NV * NV * 4);
  ptxk_param_buf("out");
  ptxk_param_buf("cmp");
  ptxk_param_buf("vals");
  ptxk_param_scalar("u32", NV);
  return ptxk_launch(body);
}
#endif
