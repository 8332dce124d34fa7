// Integer division and remainder: 32- and 64-bit, signed and unsigned, by divisors from data
// (div/rem instructions; NVVM's 64-bit code tests whether both operands fit in 32 bits) and
// by constants (multiply-high and shift sequences); shifts by data masked to the width; 16-
// and 8-bit operands promoted. The inputs have no zero divisor and no INT_MIN / -1, and every
// sum that could overflow is computed in unsigned arithmetic (no undefined behaviour).
extern "C" __global__ void int_div(const int *a, const int *b, const long long *c,
                                   const long long *d, int *o32, long long *o64, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int x = a[i], y = b[i];
    long long p = c[i], q = d[i];
    int *o = o32 + 16 * i;
    o[0] = x / y;
    o[1] = x % y;
    o[2] = (int)((unsigned)x / (unsigned)y);
    o[3] = (int)((unsigned)x % (unsigned)y);
    o[4] = x / 7;
    o[5] = x % 7;
    o[6] = (int)((unsigned)x / 10u);
    o[7] = x / -16;
    o[8] = (int)((unsigned)x % 1000000007u);
    o[9] = x >> (y & 31);
    o[10] = (int)((unsigned)x >> (y & 31));
    o[11] = (int)((unsigned)x << (y & 31));
    o[12] = (short)x / (short)(y | 1);
    o[13] = (signed char)x * (signed char)y;
    o[14] = (unsigned char)x / (unsigned char)(y | 1);
    o[15] = (int)((unsigned)abs(x % 1000) + (unsigned)min(x, y) - (unsigned)max(x, y));
    long long *r = o64 + 8 * i;
    r[0] = p / q;
    r[1] = p % q;
    r[2] = (long long)((unsigned long long)p / (unsigned long long)q);
    r[3] = (long long)((unsigned long long)p % (unsigned long long)q);
    r[4] = p / 1000000007LL;
    r[5] = (long long)((unsigned long long)p % 3ull);
    r[6] = p >> (q & 63);
    r[7] = (long long)(((unsigned long long)p << (q & 63)) + (unsigned long long)llabs(q % 12345));
}
