/* C twin of vec_types.cu (char/short operands promoted to int). */
#include "twin.h"

int main(void) {
  twin_begin();
  const float *f4 = twin_buf("f4");
  const int32_t *i4 = twin_buf("i4");
  const double *d2 = twin_buf("d2");
  const uint8_t *c4 = twin_buf("c4");
  const int16_t *s2 = twin_buf("s2");
  float *of4 = twin_buf("of4");
  int32_t *oi4 = twin_buf("oi4");
  double *od2 = twin_buf("od2");
  uint8_t *oc4 = twin_buf("oc4");
  uint32_t *ou2 = twin_buf("ou2");
  int n = (int)twin_param(10);
  for (int i = 0; i < n; i++) {
    const float *a = f4 + 4 * i;
    const int32_t *b = i4 + 4 * i;
    const double *d = d2 + 2 * i;
    const uint8_t *c = c4 + 4 * i;
    const int16_t *s = s2 + 2 * i;
    of4[4 * i + 0] = a[3];
    of4[4 * i + 1] = a[2] - a[1];
    of4[4 * i + 2] = a[0] * 2.0f;
    of4[4 * i + 3] = (float)b[0];
    oi4[4 * i + 0] = b[1] ^ b[2];
    oi4[4 * i + 1] = b[3] >> 3;
    oi4[4 * i + 2] = c[0] + c[1] * 256;
    oi4[4 * i + 3] = s[0] * s[1];
    od2[2 * i + 0] = d[1];
    od2[2 * i + 1] = d[0] + (double)a[0];
    oc4[4 * i + 0] = c[3];
    oc4[4 * i + 1] = (uint8_t)(c[2] + 1);
    oc4[4 * i + 2] = (uint8_t)(c[1] ^ 0x5a);
    oc4[4 * i + 3] = (uint8_t)(s[1] >> 4);
    ou2[2 * i + 0] = (uint32_t)b[0] * 3u;
    ou2[2 * i + 1] = (uint32_t)(int32_t)s[0];
  }
  twin_end();
  return 0;
}
