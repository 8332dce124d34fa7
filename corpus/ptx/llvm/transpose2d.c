/* 2-D grid and block (tid.y, ntid.y, ctaid.y, nctaid.y): a 64x48 f32 matrix transposed through
 * a padded 16x17 shared tile (block 16x16 = 8 warps, grid 4x3), with a barrier between the
 * tile's write and read, plus a per-element f32 scale-and-add (no contraction). */
#include "ptxk.h"

#define T 16
static SHARED float tile[T][T + 1];

KERNEL void transpose2d(float *out, const float *in, uint32_t w, uint32_t h, float scale) {
  uint32_t x = CTAID_X * T + TID_X, y = CTAID_Y * T + TID_Y;
  if (x < w && y < h) tile[TID_Y][TID_X] = in[y * w + x] * scale + (float)TID_X;
  BARRIER();
  uint32_t tx = CTAID_Y * T + TID_X, ty = CTAID_X * T + TID_Y;
  if (tx < h && ty < w) out[ty * h + tx] = tile[TID_X][TID_Y];
}

#ifdef PTXK_HOST
#define W 64
#define H 48
static float *g_out, *g_in;
static void body(void) { transpose2d(g_out, g_in, W, H, 0.375f); }
int main(int argc, char **argv) {
  ptxk_begin(argc, argv, "transpose2d", W / T, H / T, 1, T, T, 1);
  g_in = ptxk_in("in", W * H * 4);
  for (int i = 0; i < W * H; i++) g_in[i] = (float)(int32_t)(ptxk_mix64(i) >> 40) / 4096.0f;
  g_out = ptxk_out("out", W * H * 4);
  ptxk_param_buf("out");
  ptxk_param_buf("in");
  ptxk_param_scalar("u32", W);
  ptxk_param_scalar("u32", H);
  ptxk_param_scalar("f32", ptxk_f32_bits(0.375f));
  return ptxk_launch(body);
}
#endif
