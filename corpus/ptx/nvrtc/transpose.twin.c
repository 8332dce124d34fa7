/* C twin of transpose.cu: out[c][r] = in[r][c]. */
#include "twin.h"

int main(void) {
  twin_begin();
  uint32_t *out = twin_buf("out");
  const uint32_t *in = twin_buf("in");
  int width = (int)twin_param(2), height = (int)twin_param(3);
  for (int r = 0; r < height; r++)
    for (int c = 0; c < width; c++) out[c * height + r] = in[r * width + c];
  twin_end();
  return 0;
}
