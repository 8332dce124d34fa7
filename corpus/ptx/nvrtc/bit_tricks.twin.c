/* C twin of bit_tricks.cu, from the CUDA Math API descriptions of each integer intrinsic. */
#include "twin.h"

static uint32_t brev32(uint32_t x) {
  uint32_t r = 0;
  for (int k = 0; k < 32; k++) r |= ((x >> k) & 1u) << (31 - k);
  return r;
}
static uint64_t brev64(uint64_t x) {
  uint64_t r = 0;
  for (int k = 0; k < 64; k++) r |= ((x >> k) & 1u) << (63 - k);
  return r;
}
static uint32_t byte_perm(uint32_t x, uint32_t y, uint32_t s) {
  uint64_t v = (uint64_t)y << 32 | x;
  uint32_t r = 0;
  for (int k = 0; k < 4; k++) r |= (uint32_t)((v >> (8 * ((s >> (4 * k)) & 7))) & 0xff) << (8 * k);
  return r;
}
static uint32_t fshl(uint32_t lo, uint32_t hi, uint32_t s) { return (uint32_t)((((uint64_t)hi << 32 | lo) << s) >> 32); }
static uint32_t fshr(uint32_t lo, uint32_t hi, uint32_t s) { return (uint32_t)((((uint64_t)hi << 32 | lo) >> s)); }
static int32_t sext24(uint32_t x) { return (int32_t)(x << 8) >> 8; }
static uint32_t absdiff(uint32_t a, uint32_t b) { return a > b ? a - b : b - a; }

int main(void) {
  twin_begin();
  const uint32_t *a = twin_buf("a"), *b = twin_buf("b");
  const uint64_t *c = twin_buf("c");
  uint32_t *out = twin_buf("out");
  uint64_t *out64 = twin_buf("out64");
  int n = (int)twin_param(5);
  for (int i = 0; i < n; i++) {
    uint32_t x = a[i], y = b[i];
    uint64_t z = c[i], w = c[n + i];
    uint32_t *o = out + 32 * i;
    o[0] = __builtin_popcount(x);
    o[1] = x ? __builtin_clz(x) : 32;
    o[2] = x ? __builtin_ctz(x) + 1 : 0;
    o[3] = brev32(x);
    o[4] = byte_perm(x, y, y & 0x7777);
    o[5] = fshl(x, y, (x ^ y) & 31);
    o[6] = fshl(x, y, (y & 63) < 32 ? (y & 63) : 32);
    o[7] = fshr(x, y, (x + y) & 31);
    o[8] = fshr(x, y, (x & 63) < 32 ? (x & 63) : 32);
    o[9] = (uint32_t)((int64_t)sext24(x) * sext24(y));
    o[10] = (uint32_t)((uint64_t)(x & 0xffffff) * (y & 0xffffff));
    o[11] = (uint32_t)(((int64_t)(int32_t)x * (int32_t)y) >> 32);
    o[12] = (uint32_t)(((uint64_t)x * y) >> 32);
    o[13] = absdiff(x, y) + (uint32_t)z;
    o[14] = ((int32_t)x > (int32_t)y ? x - y : y - x) + (uint32_t)(z >> 32);
    o[15] = (uint32_t)(int32_t)(((int64_t)(int32_t)x + (int32_t)y) >> 1);
    o[16] = (uint32_t)(int32_t)(((int64_t)(int32_t)x + (int32_t)y + 1) >> 1);
    o[17] = (uint32_t)(((uint64_t)x + y) >> 1);
    o[18] = (uint32_t)(((uint64_t)x + y + 1) >> 1);
    uint32_t r19 = 0, r20 = 0, r21 = 0, r22 = 0, r23 = 0, r24 = 0, r25 = 0;
    for (int k = 0; k < 4; k++) {
      uint32_t xa = (x >> (8 * k)) & 0xff, yb = (y >> (8 * k)) & 0xff;
      r19 |= absdiff(xa, yb) << (8 * k);
      r20 |= ((xa + yb) & 0xff) << (8 * k);
      r22 |= (xa > yb ? 0xffu : 0u) << (8 * k);
      r24 |= ((xa + yb + 1) >> 1) << (8 * k);
      r25 += absdiff(xa, yb);
    }
    for (int k = 0; k < 2; k++) {
      uint32_t xh = (x >> (16 * k)) & 0xffff, yh = (y >> (16 * k)) & 0xffff;
      r21 |= ((xh - yh) & 0xffff) << (16 * k);
      int16_t xs = (int16_t)xh, ys = (int16_t)yh;
      r23 |= (uint32_t)(uint16_t)(xs > ys ? xs : ys) << (16 * k);
    }
    o[19] = r19, o[20] = r20, o[21] = r21, o[22] = r22, o[23] = r23, o[24] = r24, o[25] = r25;
    uint32_t d4s = (uint32_t)z, d4u = (uint32_t)(z >> 32), d2 = (uint32_t)z;
    for (int k = 0; k < 4; k++) {
      d4s += (uint32_t)((int32_t)(int8_t)(x >> (8 * k)) * (int32_t)(int8_t)(y >> (8 * k)));
      d4u += ((x >> (8 * k)) & 0xff) * ((y >> (8 * k)) & 0xff);
    }
    for (int k = 0; k < 2; k++)
      d2 += (uint32_t)((int32_t)(int16_t)(x >> (16 * k)) * (int32_t)(int8_t)(y >> (8 * k)));
    o[26] = d4s, o[27] = d4u, o[28] = d2;
    o[29] = byte_perm(x, y, 0x3715);
    o[30] = (x << (y & 31)) | (x >> (32 - (y & 31)) % 32);
    o[31] = (uint32_t)((int32_t)x >> (y & 31));
    uint64_t *o6 = out64 + 8 * i;
    o6[0] = __builtin_popcountll(z);
    o6[1] = z ? __builtin_clzll(z) : 64;
    o6[2] = z ? __builtin_ctzll(z) + 1 : 0;
    o6[3] = brev64(z);
    o6[4] = (uint64_t)(((__int128)(int64_t)z * (int64_t)w) >> 64);
    o6[5] = (uint64_t)(((unsigned __int128)z * w) >> 64);
    o6[6] = (z << (x & 63)) ^ (uint64_t)((int64_t)w >> (y & 63));
    o6[7] = z / (w >> 40 | 1) + (uint64_t)((int64_t)w % (int64_t)(z >> 36 | 1));
  }
  twin_end();
  return 0;
}
