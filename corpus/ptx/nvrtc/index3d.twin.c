/* C twin of index3d.cu: a thread's lane is its linear index in the block modulo 32 (warps are
 * formed from consecutive linear thread indices, x fastest). */
#include "twin.h"

int main(void) {
  twin_begin();
  const uint32_t *in = twin_buf("in");
  uint32_t *out = twin_buf("out");
  uint32_t X = grid[0] * block[0], Y = grid[1] * block[1], Z = grid[2] * block[2];
  uint32_t nt = block[0] * block[1] * block[2];
  for (uint32_t bz = 0; bz < grid[2]; bz++)
    for (uint32_t by = 0; by < grid[1]; by++)
      for (uint32_t bx = 0; bx < grid[0]; bx++)
        for (uint32_t tz = 0; tz < block[2]; tz++)
          for (uint32_t ty = 0; ty < block[1]; ty++)
            for (uint32_t tx = 0; tx < block[0]; tx++) {
              uint32_t tlin = (tz * block[1] + ty) * block[0] + tx;
              uint32_t blin = (bz * grid[1] + by) * grid[0] + bx;
              uint32_t g = blin * nt + tlin;
              uint32_t *o = out + 8 * g;
              o[0] = tx | ty << 8 | tz << 16;
              o[1] = block[0] | block[1] << 8 | block[2] << 16;
              o[2] = bx | by << 8 | bz << 16;
              o[3] = grid[0] | grid[1] << 8 | grid[2] << 16;
              o[4] = (tlin % 32) | (tlin / 32) << 8;
              o[5] = g;
              uint32_t x = bx * block[0] + tx, y = by * block[1] + ty, z = bz * block[2] + tz;
              o[6] = in[((z + 1) % Z * Y + (Y - 1 - y)) * X + (x * 3) % X];
              o[7] = X * Y * Z;
            }
  twin_end();
  return 0;
}
