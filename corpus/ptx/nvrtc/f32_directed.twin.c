/* C twin of f32_directed.cu: host IEEE single arithmetic (SSE, no FTZ/DAZ), directed rounding
 * with fesetround (-frounding-math), fmaf and sqrtf from libm; fminf/fmaxf and __saturatef
 * written out with the CUDA rules. */
#include <fenv.h>
#include "twin.h"

typedef float (*op3)(float, float, float);
static float in_mode(int mode, op3 f, float x, float y, float z) {
  volatile float vx = x, vy = y, vz = z; /* read after fesetround, see f32_convert.twin.c */
  fesetround(mode);
  volatile float r = f(vx, vy, vz);
  fesetround(FE_TONEAREST);
  return r;
}
static float op_add(float x, float y, float z) { (void)z; return x + y; }
static float op_sub(float x, float y, float z) { (void)z; return x - y; }
static float op_mul(float x, float y, float z) { (void)z; return x * y; }
static float op_div(float x, float y, float z) { (void)z; return x / y; }
static float op_sqrt(float x, float y, float z) { (void)y, (void)z; return sqrtf(x); }
static float op_fma(float x, float y, float z) { return fmaf(x, y, z); }
static float op_rcp(float x, float y, float z) { (void)y, (void)z; return 1.0f / x; }

static float cuda_fminf(float x, float y) {
  if (isnan(x)) return y;
  if (isnan(y)) return x;
  if (x == 0 && y == 0) return signbit(x) ? x : y;
  return x < y ? x : y;
}
static float cuda_fmaxf(float x, float y) {
  if (isnan(x)) return y;
  if (isnan(y)) return x;
  if (x == 0 && y == 0) return signbit(x) ? y : x;
  return x > y ? x : y;
}
static float saturate(float x) { /* [0, 1], NaN -> +0 */
  if (isnan(x) || x <= 0) return 0.0f;
  return x > 1 ? 1.0f : x;
}

int main(void) {
  twin_begin();
  const float *a = twin_buf("a"), *b = twin_buf("b"), *c = twin_buf("c");
  float *out = twin_buf("out");
  int n = (int)twin_param(4);
  for (int i = 0; i < n; i++) {
    volatile float x = a[i], y = b[i], z = c[i];
    float *o = out + 24 * i;
    o[0] = x + y;
    o[1] = x - y;
    o[2] = x * y;
    o[3] = x / y;
    o[4] = sqrtf(x);
    o[5] = fmaf(x, y, z);
    o[6] = in_mode(FE_TOWARDZERO, op_add, x, y, z);
    o[7] = in_mode(FE_UPWARD, op_add, x, y, z);
    o[8] = in_mode(FE_DOWNWARD, op_sub, x, y, z);
    o[9] = in_mode(FE_TOWARDZERO, op_mul, x, y, z);
    o[10] = in_mode(FE_DOWNWARD, op_mul, x, y, z);
    o[11] = in_mode(FE_TOWARDZERO, op_div, x, y, z);
    o[12] = in_mode(FE_UPWARD, op_div, x, y, z);
    o[13] = in_mode(FE_DOWNWARD, op_sqrt, x, y, z);
    o[14] = in_mode(FE_UPWARD, op_sqrt, x, y, z);
    o[15] = op_rcp(x, y, z);
    o[16] = in_mode(FE_TOWARDZERO, op_rcp, x, y, z);
    o[17] = in_mode(FE_UPWARD, op_fma, x, y, z);
    o[18] = in_mode(FE_TOWARDZERO, op_fma, x, y, z);
    o[19] = cuda_fminf(x, y);
    o[20] = cuda_fmaxf(x, y);
    volatile float xp = x + 0.0f;
    o[21] = saturate(xp);
    o[22] = copysignf(x, y);
    volatile float p = x * y;
    o[23] = p + z;
  }
  twin_end();
  return 0;
}
