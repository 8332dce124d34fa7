/* f64 arithmetic on every pair of a table of special and ordinary values (±0, ±subnormal,
 * ±min normal, ±1, 1/3, ±max, ±Inf, NaN, ...): add, sub, mul, div, sqrt, fma (explicit),
 * comparisons, conversions f64->f32 (rounding, overflow to Inf, underflow to subnormal/0),
 * s64->f64, u64->f64, and an uncontracted product-sum. IEEE-determined results only; NaN
 * payloads may differ. */
#include "ptxk.h"

#define NOUT 9

/* out: NOUT f64 results per thread and narrow: a converted to f32 (both may hold NaNs); cmp: one
 * u32 of comparison bits per thread. */
KERNEL void f64_ops(double *out, float *narrow, uint32_t *cmp, const double *vals, uint32_t nv) {
  uint32_t i = CTAID_X * NTID_X + TID_X;
  if (i >= nv * nv) return;
  double a = vals[i % nv], b = vals[i / nv], c = vals[(i * 5 + 1) % nv];
  double r[NOUT];
  r[0] = a + b;
  r[1] = a - b;
  r[2] = a * b;
  r[3] = a / b;
  r[4] = __builtin_sqrt(a);
  r[5] = __builtin_fma(a, b, c);
  r[6] = a * b + c;
  r[7] = (double)(int64_t)((uint64_t)i * 0x9e3779b97f4a7c15ull);
  r[8] = (double)((uint64_t)i * 0x9e3779b97f4a7c15ull);
  for (int k = 0; k < NOUT; k++) out[NOUT * i + k] = r[k];
  narrow[i] = (float)a;
  cmp[i] = (a < b) | (a <= b) << 1 | (a == b) << 2 | (a != b) << 3 | (a > b) << 4 |
             (a >= b) << 5 | (b != b) << 6;
}

#ifdef PTXK_HOST
static double *g_out, *g_vals;
static float *g_narrow;
static uint32_t *g_cmp;
static const uint64_t vbits[] = {
    0x0000000000000000ull, 0x8000000000000000ull, 0x0000000000000001ull, 0x800fffffffffffffull,
    0x0010000000000000ull, 0x3ff0000000000000ull, 0xbff0000000000000ull, 0x3fd5555555555555ull,
    0x4008000000000000ull, 0x3ff0000000000001ull, 0x7fefffffffffffffull, 0xffefffffffffffffull,
    0x7ff0000000000000ull, 0xfff0000000000000ull, 0x7ff8000000000000ull, 0x47efffffe0000000ull,
    0x36a0000000000000ull, 0x3ff0000010000000ull, 0x3810000000000000ull, 0xc34fffffffffffffull,
};
#define NV (sizeof vbits / sizeof vbits[0])
static void body(void) { f64_ops(g_out, g_narrow, g_cmp, g_vals, NV); }
int main(int argc, char **argv) {
  ptxk_begin(argc, argv, "f64_ops", (NV * NV + 127) / 128, 1, 1, 128, 1, 1);
  g_vals = ptxk_in("vals", NV * 8);
  memcpy(g_vals, vbits, sizeof vbits);
  g_out = ptxk_out("out", NV * NV * NOUT * 8);
  g_narrow = ptxk_out("narrow", NV * NV * 4);
  g_cmp = ptxk_out("cmp", NV * NV * 4);
  ptxk_param_buf("out");
  ptxk_param_buf("narrow");
  ptxk_param_buf("cmp");
  ptxk_param_buf("vals");
  ptxk_param_scalar("u32", NV);
  return ptxk_launch(body);
}
#endif
