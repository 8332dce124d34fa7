/* C twin of f64_arith.cu: the host's IEEE double arithmetic (SSE2, no x87), directed rounding
 * through fesetround (built with -frounding-math), fma from libm; fmin/fmax written out with
 * the CUDA rules (a NaN operand gives the other operand, -0 < +0). */
#include <fenv.h>
#include "twin.h"

static double in_mode(int mode, double (*f)(double, double, double), double x, double y, double z) {
  volatile double vx = x, vy = y, vz = z; /* read after fesetround, see f32_convert.twin.c */
  fesetround(mode);
  volatile double r = f(vx, vy, vz);
  fesetround(FE_TONEAREST);
  return r;
}
static double op_add(double x, double y, double z) { (void)z; return x + y; }
static double op_sub(double x, double y, double z) { (void)z; return x - y; }
static double op_mul(double x, double y, double z) { (void)z; return x * y; }
static double op_div(double x, double y, double z) { (void)z; return x / y; }
static double op_sqrt(double x, double y, double z) { (void)y, (void)z; return sqrt(x); }
static double op_fma(double x, double y, double z) { return fma(x, y, z); }
static double op_rcp(double x, double y, double z) { (void)y, (void)z; return 1.0 / x; }

static double cuda_fmin(double x, double y) {
  if (isnan(x)) return y;
  if (isnan(y)) return x;
  if (x == 0 && y == 0) return signbit(x) ? x : y;
  return x < y ? x : y;
}
static double cuda_fmax(double x, double y) {
  if (isnan(x)) return y;
  if (isnan(y)) return x;
  if (x == 0 && y == 0) return signbit(x) ? y : x;
  return x > y ? x : y;
}

int main(void) {
  twin_begin();
  const double *a = twin_buf("a"), *b = twin_buf("b"), *c = twin_buf("c");
  double *out = twin_buf("out");
  int n = (int)twin_param(4);
  for (int i = 0; i < n; i++) {
    volatile double x = a[i], y = b[i], z = c[i];
    double *o = out + 24 * i;
    o[0] = x + y;
    o[1] = x - y;
    o[2] = x * y;
    o[3] = x / y;
    o[4] = sqrt(x);
    o[5] = fma(x, y, z);
    o[6] = x * y + z; /* built with --fmad=false: no contraction */
    o[7] = in_mode(FE_TOWARDZERO, op_add, x, y, z);
    o[8] = in_mode(FE_UPWARD, op_add, x, y, z);
    o[9] = in_mode(FE_DOWNWARD, op_sub, x, y, z);
    o[10] = in_mode(FE_UPWARD, op_mul, x, y, z);
    o[11] = in_mode(FE_TOWARDZERO, op_mul, x, y, z);
    o[12] = in_mode(FE_DOWNWARD, op_div, x, y, z);
    o[13] = in_mode(FE_UPWARD, op_div, x, y, z);
    o[14] = in_mode(FE_UPWARD, op_sqrt, x, y, z);
    o[15] = in_mode(FE_TOWARDZERO, op_sqrt, x, y, z);
    o[16] = in_mode(FE_TOWARDZERO, op_fma, x, y, z);
    o[17] = in_mode(FE_DOWNWARD, op_fma, x, y, z);
    o[18] = op_rcp(x, y, z);
    o[19] = cuda_fmin(x, y);
    o[20] = cuda_fmax(x, y);
    o[21] = (double)(float)x;
    o[22] = nearbyint(x) + floor(y) * 0.5;
    o[23] = trunc(x) - ceil(y);
  }
  twin_end();
  return 0;
}
