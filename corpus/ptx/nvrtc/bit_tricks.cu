// Integer intrinsics: bit counts and scans, bit reverse, byte permute, funnel shifts (wrapping
// and clamping), 24-bit multiplies, high halves of 32- and 64-bit products, sums of absolute
// differences, halving adds, SIMD-within-a-word video intrinsics and dot products.
extern "C" __global__ void bit_tricks(const unsigned *a, const unsigned *b,
                                      const unsigned long long *c, unsigned *out,
                                      unsigned long long *out64, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned x = a[i], y = b[i];
    unsigned long long z = c[i], w = c[n + i];
    unsigned *o = out + 32 * i;
    o[0] = __popc(x);
    o[1] = __clz(x);
    o[2] = __ffs(x);
    o[3] = __brev(x);
    o[4] = __byte_perm(x, y, y & 0x7777);
    o[5] = __funnelshift_l(x, y, x ^ y);
    o[6] = __funnelshift_lc(x, y, y & 63);
    o[7] = __funnelshift_r(x, y, x + y);
    o[8] = __funnelshift_rc(x, y, x & 63);
    o[9] = __mul24(x, y);
    o[10] = __umul24(x, y);
    o[11] = __mulhi(x, y);
    o[12] = __umulhi(x, y);
    o[13] = __usad(x, y, (unsigned)z);
    o[14] = __sad(x, y, (unsigned)(z >> 32));
    o[15] = __hadd(x, y);
    o[16] = __rhadd(x, y);
    o[17] = __uhadd(x, y);
    o[18] = __urhadd(x, y);
    o[19] = __vabsdiffu4(x, y);
    o[20] = __vadd4(x, y);
    o[21] = __vsub2(x, y);
    o[22] = __vcmpgtu4(x, y);
    o[23] = __vmaxs2(x, y);
    o[24] = __vavgu4(x, y);
    o[25] = __vsadu4(x, y);
    o[26] = __dp4a((int)x, (int)y, (int)z);
    o[27] = __dp4a(x, y, (unsigned)(z >> 32));
    o[28] = __dp2a_lo((int)x, (int)y, (int)z);
    o[29] = __byte_perm(x, y, 0x3715);
    o[30] = (x << (y & 31)) | (x >> (32 - (y & 31)) % 32);
    o[31] = (unsigned)((int)x >> (y & 31));
    unsigned long long *o6 = out64 + 8 * i;
    o6[0] = __popcll(z);
    o6[1] = __clzll(z);
    o6[2] = __ffsll(z);
    o6[3] = __brevll(z);
    o6[4] = __mul64hi((long long)z, (long long)w);
    o6[5] = __umul64hi(z, w);
    o6[6] = (z << (x & 63)) ^ (unsigned long long)((long long)w >> (y & 63));
    o6[7] = z / (w >> 40 | 1) + (unsigned long long)((long long)w % (long long)(z >> 36 | 1));
}
