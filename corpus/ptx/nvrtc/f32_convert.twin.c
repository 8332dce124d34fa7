/* C twin of f32_convert.cu. Float -> integer: the exact value rounded in the mode (in double,
 * which holds every f32 exactly; long double for f64 -> 64-bit), then saturated to the
 * destination range; NaN -> 0, except from a double or into 64 bits, where it is the
 * destination's top bit alone (PTX ISA 9.0's cvt rule, and the H200's). Integer -> float: the
 * integer rounded to 24 or
 * 53 bits by hand. Double -> float: the host's cvtsd2ss under fesetround (-frounding-math). */
#include <fenv.h>
#include "twin.h"

enum { RN, RZ, RD, RU };

/* Rounds the real value x (exact in long double) to an integer in mode m; a NaN stays NaN. */
static long double round_mode(long double x, int m) {
  switch (m) {
  case RN: return nearbyintl(x); /* default rounding: ties to even */
  case RZ: return truncl(x);
  case RD: return floorl(x);
  default: return ceill(x);
  }
}
/* The NaN of a conversion into `bits` bits from a double (`wide`) or a float. */
static uint64_t nan_int(int wide, int bits) {
  return wide || bits == 64 ? 1ull << (bits - 1) : 0;
}
static int64_t to_signed_from(long double x, int m, int bits, int wide) {
  if (isnan(x)) return (int64_t)nan_int(wide, bits);
  long double r = round_mode(x, m);
  long double hi = ldexpl(1.0L, bits - 1) - 1, lo = -ldexpl(1.0L, bits - 1);
  if (r >= hi) return bits == 64 ? INT64_MAX : (int64_t)INT32_MAX;
  if (r <= lo) return bits == 64 ? INT64_MIN : (int64_t)INT32_MIN;
  return (int64_t)r;
}
static uint64_t to_unsigned_from(long double x, int m, int bits, int wide) {
  if (isnan(x)) return nan_int(wide, bits);
  long double r = round_mode(x, m);
  long double hi = ldexpl(1.0L, bits) - 1;
  if (r <= 0) return 0;
  if (r >= hi) return bits == 64 ? UINT64_MAX : (uint64_t)UINT32_MAX;
  return (uint64_t)r;
}

#define to_signed(x, m, bits) to_signed_from((x), (m), (bits), sizeof(x) == sizeof(double))
#define to_unsigned(x, m, bits) to_unsigned_from((x), (m), (bits), sizeof(x) == sizeof(double))

/* |v| (with its sign) rounded to a binary float of p significant bits in mode m, as a double. */
static double int_to_float(uint64_t mag, int neg, int p, int m) {
  if (mag == 0) return 0.0;
  int msb = 63 - __builtin_clzll(mag);
  uint64_t q = mag, rem = 0, half = 0;
  int shift = msb + 1 - p;
  if (shift > 0) {
    q = mag >> shift;
    rem = mag & ((1ull << shift) - 1);
    half = 1ull << (shift - 1);
  } else {
    shift = 0;
  }
  int up = 0;
  if (rem) {
    if (m == RN) up = rem > half || (rem == half && (q & 1));
    else if (m == RU) up = !neg;
    else if (m == RD) up = neg;
  }
  double r = ldexp((double)(q + up), shift); /* q + up < 2^(p+1): exact in double */
  return neg ? -r : r;
}
static float i2f(int64_t v, int m) {
  return (float)int_to_float(v < 0 ? -(uint64_t)v : (uint64_t)v, v < 0, 24, m);
}
static float u2f(uint64_t v, int m) { return (float)int_to_float(v, 0, 24, m); }
static double i2d(int64_t v, int m) {
  return int_to_float(v < 0 ? -(uint64_t)v : (uint64_t)v, v < 0, 53, m);
}
static double u2d(uint64_t v, int m) { return int_to_float(v, 0, 53, m); }

static float d2f(double y, int mode) {
  volatile double yy = y; /* read after fesetround: GCC may move the conversion otherwise */
  fesetround(mode);
  volatile float r = (float)yy;
  fesetround(FE_TONEAREST);
  return r;
}

int main(void) {
  twin_begin();
  const float *f = twin_buf("f");
  const double *d = twin_buf("d");
  const int64_t *ll = twin_buf("ll");
  int32_t *oi = twin_buf("oi");
  uint32_t *ou = twin_buf("ou");
  int64_t *oll = twin_buf("oll");
  uint64_t *oull = twin_buf("oull");
  float *of = twin_buf("of");
  double *od = twin_buf("od");
  int n = (int)twin_param(9);
  for (int i = 0; i < n; i++) {
    float x = f[i];
    double y = d[i];
    int64_t v = ll[i];
    int32_t *p = oi + 8 * i;
    p[0] = (int32_t)to_signed(x, RN, 32);
    p[1] = (int32_t)to_signed(x, RZ, 32);
    p[2] = (int32_t)to_signed(x, RD, 32);
    p[3] = (int32_t)to_signed(x, RU, 32);
    p[4] = (int32_t)to_signed(y, RN, 32);
    p[5] = (int32_t)f32_bits(x);
    p[6] = (int32_t)(f64_bits(y) >> 32);
    p[7] = (int32_t)f64_bits(y);
    uint32_t *q = ou + 4 * i;
    q[0] = (uint32_t)to_unsigned(x, RN, 32);
    q[1] = (uint32_t)to_unsigned(x, RZ, 32);
    q[2] = (uint32_t)to_unsigned(y, RD, 32);
    q[3] = (uint32_t)to_unsigned(y, RU, 32);
    int64_t *r = oll + 4 * i;
    r[0] = to_signed(x, RN, 64);
    r[1] = to_signed(x, RZ, 64);
    r[2] = to_signed(y, RD, 64);
    r[3] = to_signed(y, RU, 64);
    uint64_t *s = oull + 2 * i;
    s[0] = to_unsigned(x, RN, 64);
    s[1] = to_unsigned(y, RZ, 64);
    float *t = of + 24 * i;
    int32_t v32 = (int32_t)v;
    t[0] = i2f(v32, RN);
    t[1] = i2f(v32, RZ);
    t[2] = i2f(v32, RD);
    t[3] = i2f(v32, RU);
    t[4] = u2f((uint32_t)v, RN);
    t[5] = u2f((uint32_t)v, RZ);
    t[6] = i2f(v, RN);
    t[7] = i2f(v, RZ);
    t[8] = i2f(v, RD);
    t[9] = i2f(v, RU);
    t[10] = u2f((uint64_t)v, RN);
    t[11] = u2f((uint64_t)v, RU);
    t[12] = d2f(y, FE_TONEAREST);
    t[13] = d2f(y, FE_TOWARDZERO);
    t[14] = d2f(y, FE_DOWNWARD);
    t[15] = d2f(y, FE_UPWARD);
    t[16] = nearbyintf(x);
    t[17] = floorf(x);
    t[18] = ceilf(x);
    t[19] = truncf(x);
    t[20] = roundf(x);
    t[21] = nearbyintf(x);
    t[22] = bits_f32((uint32_t)v);
    t[23] = u2f((uint32_t)((uint64_t)v >> 32), RD);
    double *u = od + 4 * i;
    u[0] = i2d(v, RN);
    u[1] = i2d(v, RZ);
    u[2] = u2d((uint64_t)v, RD);
    u[3] = u2d((uint64_t)v, RU);
  }
  twin_end();
  return 0;
}
