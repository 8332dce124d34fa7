/* C twin of local_array.cu. */
#include "twin.h"

int main(void) {
  twin_begin();
  const uint32_t *in = twin_buf("in");
  uint32_t *out = twin_buf("out");
  int n = (int)twin_param(2);
  for (int i = 0; i < n; i++) {
    uint32_t keys[24];
    for (int k = 0; k < 24; k++) keys[k] = in[i * 24 + k] % 1000u;
    for (int k = 1; k < 24; k++) {
      uint32_t key = keys[k];
      int j = k - 1;
      while (j >= 0 && keys[j] > key) {
        keys[j + 1] = keys[j];
        j--;
      }
      keys[j + 1] = key;
    }
    uint32_t hist[32] = {0};
    for (int k = 0; k < 24; k++) {
      uint32_t w = in[i * 24 + k];
      hist[w & 31]++;
      hist[(w >> 5) & 31] += 2;
    }
    uint8_t perm[16];
    for (int k = 0; k < 16; k++) perm[k] = (uint8_t)((k * 7 + in[i * 24]) & 15);
    uint32_t p = in[i * 24 + 1] & 15, acc = 0;
    for (int k = 0; k < 20; k++) {
      acc = acc * 17u + perm[p];
      p = perm[p] ^ (k & 15);
    }
    uint32_t *o = out + 40 * i;
    for (int k = 0; k < 24; k++) o[k] = keys[k];
    for (int k = 0; k < 15; k++) o[24 + k] = hist[k] + hist[31 - k] * 256u;
    o[39] = acc;
  }
  twin_end();
  return 0;
}
