/* 8- and 16-bit memory: loads of u8/s8/u16/s16 with zero/sign extension, stores of single bytes
 * and halfwords at odd offsets, a packed struct-like record (u8, s8, u16, s16 in 6 bytes read
 * field by field), byte-wise saturating arithmetic, and 16-bit wrap-around. */
#include "ptxk.h"

KERNEL void bytes_shorts(uint8_t *bout, uint16_t *hout, const uint8_t *rec, const int16_t *hin,
                         uint32_t n) {
  uint32_t i = CTAID_X * NTID_X + TID_X;
  if (i >= n) return;
  const uint8_t *r = rec + 6 * i;
  uint8_t u8 = r[0];
  int8_t s8 = (int8_t)r[1];
  uint16_t u16 = (uint16_t)(r[2] | r[3] << 8);
  int16_t s16 = hin[i];
  int16_t s16b = hin[(i * 7 + 1) % n];
  uint32_t sat = (uint32_t)u8 + (uint32_t)(uint8_t)s8;
  bout[5 * i + 0] = (uint8_t)(sat > 255 ? 255 : sat);
  bout[5 * i + 1] = (uint8_t)(s8 < 0 ? -s8 : s8);
  bout[5 * i + 2] = (uint8_t)((int32_t)s8 * 3 >> 2);
  bout[5 * i + 3] = (uint8_t)(u8 * u8);
  bout[5 * i + 4] = (uint8_t)(r[4] ^ r[5]);
  hout[3 * i + 0] = (uint16_t)(u16 + (uint16_t)s16);
  hout[3 * i + 1] = (uint16_t)((int32_t)s16 * s16b >> 7);
  hout[3 * i + 2] = (uint16_t)((int32_t)s8 * (int32_t)s16 + (uint16_t)(u16 >> 3));
}

#ifdef PTXK_HOST
#define N 253
static uint8_t *g_bout, *g_rec;
static uint16_t *g_hout;
static int16_t *g_hin;
static void body(void) { bytes_shorts(g_bout, g_hout, g_rec, g_hin, N); }
int main(int argc, char **argv) {
  ptxk_begin(argc, argv, "bytes_shorts", 4, 1, 1, 64, 1, 1);
  g_rec = ptxk_in("rec", N * 6);
  for (int i = 0; i < N * 6; i++) g_rec[i] = (uint8_t)(ptxk_mix64(i + 17) >> 13);
  g_hin = ptxk_in("hin", N * 2);
  for (int i = 0; i < N; i++) g_hin[i] = (int16_t)(ptxk_mix64(i + 90210) >> 40);
  g_hin[0] = -32768, g_hin[1] = 32767, g_hin[2] = -1;
  g_bout = ptxk_out("bout", N * 5);
  g_hout = ptxk_out("hout", N * 3 * 2);
  ptxk_param_buf("bout");
  ptxk_param_buf("hout");
  ptxk_param_buf("rec");
  ptxk_param_buf("hin");
  ptxk_param_scalar("u32", N);
  return ptxk_launch(body);
}
#endif
