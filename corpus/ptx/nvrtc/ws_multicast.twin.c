/* C twin of ws_multicast.cu, from the CUDA source's meaning: the two CTAs of cluster c
 * (blocks 2c and 2c + 1, rank = block % 2) both see the cluster's tiles 0..TILES-1 of `in`
 * whole and in order (each half arrives by one CTA's multicast), and each consumer thread folds
 * them into its accumulator. */
#include "twin.h"
#define TILE 64
#define TILES 6

int main(void) {
  twin_begin();
  const uint32_t *in = twin_buf("in");
  uint32_t *out = twin_buf("out");
  if (grid[0] % 2 || block[0] != 96) twin_die("unexpected launch", NULL);
  for (uint32_t b = 0; b < grid[0]; b++) {
    uint32_t rank = b % 2;
    const uint32_t *src = in + (b / 2) * TILES * TILE;
    for (uint32_t t = 0; t < TILE; t++) {
      uint32_t acc = (t + TILE * rank) * 0x9e3779b9u;
      for (uint32_t i = 0; i < TILES; i++) {
        uint32_t x = src[i * TILE + t], y = src[i * TILE + (t * 7u + 3u * i + rank) % TILE];
        acc = (acc ^ x) * 0x01000193u + (y >> (i + 1));
      }
      out[b * TILE + t] = acc;
    }
  }
  twin_end();
  return 0;
}
