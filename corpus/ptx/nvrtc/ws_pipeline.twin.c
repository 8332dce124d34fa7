/* C twin of ws_pipeline.cu, written from the CUDA source's meaning (not from the PTX): the
 * pipeline delivers tiles 0..TILES-1 of a CTA's slice of `in` in order, so each consumer thread
 * folds them into its accumulator one after another; the bulk-copy push and the
 * map_shared_rank read both see the peer CTA's (rank ^ 1, i.e. block x ^ 1: clusters of 2 tile
 * the grid along x) finished `part` array. */
#include "twin.h"
#define TILE 64
#define TILES 8

static uint32_t acc_of(const uint32_t *in, uint32_t b, uint32_t t) {
  const uint32_t *src = in + b * TILES * TILE;
  uint32_t acc = t * 0x9e3779b9u;
  for (uint32_t i = 0; i < TILES; i++) {
    uint32_t x = src[i * TILE + t], y = src[i * TILE + (t * 5u + i) % TILE];
    acc = acc * 31u + (x ^ (y >> 3)) + i;
  }
  return acc;
}

int main(void) {
  twin_begin();
  const uint32_t *in = twin_buf("in");
  uint32_t *out = twin_buf("out");
  if (grid[0] % 2 || block[0] != 96) twin_die("unexpected launch", NULL);
  for (uint32_t b = 0; b < grid[0]; b++) {
    uint32_t rank = b % 2, peer = b ^ 1u;
    for (uint32_t t = 0; t < TILE; t++) {
      uint32_t g = b * TILE + t;
      out[3 * g] = acc_of(in, b, t);
      out[3 * g + 1] = acc_of(in, peer, TILE - 1 - t);
      out[3 * g + 2] = acc_of(in, peer, (t + 7u) % TILE) ^ (rank << 31);
    }
  }
  twin_end();
  return 0;
}
