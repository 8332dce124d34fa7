/* C twin of const_crc.cu: CRC-32 (reflected, polynomial 0xEDB88320) and the same Horner loop
 * with fmaf and the same float literals. */
#include "twin.h"

static const float poly[6] = {1.0f, -0.5f, 0.125f, -0.0208333f, 0.00260417f, -0.000260417f};
static const uint16_t salt[7] = {3, 1, 4, 1, 5, 9, 2};

int main(void) {
  twin_begin();
  uint32_t table[256];
  for (uint32_t n = 0; n < 256; n++) {
    uint32_t c = n;
    for (int k = 0; k < 8; k++) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    table[n] = c;
  }
  const uint8_t *msg = twin_buf("msg");
  const float *x = twin_buf("x");
  uint32_t *crc = twin_buf("crc");
  float *px = twin_buf("px");
  int len = (int)twin_param(4), n = (int)twin_param(5);
  for (int i = 0; i < n; i++) {
    uint32_t c = 0xFFFFFFFFu ^ salt[i % 7];
    for (int k = 0; k < len; k++) c = table[(c ^ msg[i * len + k]) & 0xFFu] ^ (c >> 8);
    crc[i] = ~c;
    float v = x[i], acc = poly[5];
    for (int k = 4; k >= 0; k--) acc = fmaf(acc, v, poly[k]);
    px[i] = acc;
  }
  twin_end();
  return 0;
}
