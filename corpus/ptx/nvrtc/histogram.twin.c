/* C twin of histogram.cu: the sums do not depend on the order of the atomics. */
#include "twin.h"

int main(void) {
  twin_begin();
  const uint8_t *data = twin_buf("data");
  int nwords = (int)twin_param(1);
  uint32_t *bins = twin_buf("bins");
  uint64_t *wbins = twin_buf("wbins");
  for (int i = 0; i < nwords; i++) {
    const uint8_t *w = data + 4 * i;
    for (int k = 0; k < 4; k++) bins[w[k]]++;
    wbins[w[0] >> 2] += (uint64_t)w[1] * 0x100000001ull;
  }
  twin_end();
  return 0;
}
