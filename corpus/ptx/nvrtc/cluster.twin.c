/* C twin of cluster.cu: clusters tile the grid in x-major order (__cluster_dims__), a block's
 * rank in its cluster is x + y * cluster_dim_x of its position in the cluster. */
#include "twin.h"
#define T 128

int main(void) {
  twin_begin();
  if (twin_is("cluster_dsmem")) {
    const uint32_t *in = twin_buf("in");
    uint32_t *out = twin_buf("out"), *sums = twin_buf("sums"), *counts = twin_buf("counts");
    const uint32_t C = 4;
    for (uint32_t c = 0; c < grid[0] / C; c++) {
      uint32_t cnt = 0;
      for (uint32_t r = 0; r < C; r++)
        for (uint32_t t = 0; t < T; t++) {
          uint32_t v = in[(c * C + (r + 1) % C) * T + T - 1 - t];
          cnt += v & 0xffu;
          out[(c * C + r) * T + t] = v ^ (r << 24) ^ (C << 28);
        }
      for (uint32_t t = 0; t < T; t++) {
        uint32_t s = 0;
        for (uint32_t b = 0; b < C; b++) s = s * 7u + in[(c * C + b) * T + t];
        sums[c * T + t] = s;
      }
      counts[c] = cnt;
    }
  } else {
    uint32_t *out = twin_buf("out");
    uint32_t nb = block[0] * block[1];
    for (uint32_t by = 0; by < grid[1]; by++)
      for (uint32_t bx = 0; bx < grid[0]; bx++) {
        uint32_t cx = bx % 2, cy = by % 2, rank = cx + 2 * cy;
        uint32_t pr = rank ^ 3u, px = bx - cx + pr % 2, py = by - cy + pr / 2;
        for (uint32_t t = 0; t < nb; t++) {
          uint32_t g = (by * grid[0] + bx) * nb + t;
          out[2 * g] = cx | cy << 4 | rank << 8 | 2u << 12 | 2u << 16 | (4 * nb) << 20;
          uint32_t other = (py * grid[0] + px) * 1000 + (nb - 1 - t);
          out[2 * g + 1] = other + (rank * nb + t) * 100000u;
        }
      }
  }
  twin_end();
  return 0;
}
