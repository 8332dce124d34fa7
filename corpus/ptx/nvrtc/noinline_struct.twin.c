/* C twin of noinline_struct.cu: the same functions in C (fmaf where the source calls fmaf). */
#include "twin.h"

typedef struct {
  int32_t i;
  float f;
  double d;
  uint64_t u;
} Res;

static Res mix(uint8_t a, int16_t b, uint32_t c, int64_t d, float e, double f, const int32_t *p, int k) {
  Res r;
  r.i = (int32_t)((uint32_t)((int32_t)a * b) + (uint32_t)(c >> 3) + (uint32_t)p[k & 7]);
  r.f = fmaf(e, (float)b, (float)a);
  r.d = f / (double)(c | 1u) - (double)d;
  r.u = ((uint64_t)c << 32) ^ (uint64_t)d ^ a;
  return r;
}

int main(void) {
  twin_begin();
  const uint32_t *in = twin_buf("in");
  const int32_t *tab = twin_buf("tab");
  int32_t *oi = twin_buf("oi");
  float *of = twin_buf("of");
  double *od = twin_buf("od");
  uint64_t *ou = twin_buf("ou");
  int32_t *o4 = twin_buf("o4");
  int n = (int)twin_param(7);
  for (int i = 0; i < n; i++) {
    uint32_t w = in[i], v = in[n + i];
    int64_t d = (int64_t)(((uint64_t)v << 32) | w);
    float e = (float)(int32_t)(w & 0xffff) * 0.015625f - 512.0f; /* exact product: = the fma NVVM forms */
    double f = (double)(int32_t)v * 0.25;
    Res r = mix((uint8_t)w, (int16_t)(w >> 8), v, d, e, f, tab, (int)(v >> 5));
    oi[i] = r.i;
    of[i] = r.f;
    od[i] = r.d;
    ou[2 * i] = r.u;
    ou[2 * i + 1] = ~r.u;
    int16_t lo = (int16_t)(v >> 16), hi = (int16_t)w;
    o4[4 * i + 0] = lo;
    o4[4 * i + 1] = hi;
    o4[4 * i + 2] = (int32_t)(e * 8.0f); /* |e * 8| < 2^13: in range, truncation */
    o4[4 * i + 3] = (int32_t)((w ^ v) % 1000u) - lo;
  }
  twin_end();
  return 0;
}
