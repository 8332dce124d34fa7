// Conversions with explicit rounding: float/double -> int, unsigned, long long, unsigned long
// long (saturating, NaN -> 0), int/unsigned/long long -> float and double in the four rounding
// modes, double -> float in the four modes, bit casts, and the C rounding functions rintf,
// floorf, ceilf, truncf, roundf (halfway cases away from zero), nearbyintf.
extern "C" __global__ void f32_convert(const float *f, const double *d, const long long *ll,
                                       int *oi, unsigned *ou, long long *oll,
                                       unsigned long long *oull, float *of, double *od, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float x = f[i];
    double y = d[i];
    long long v = ll[i];
    int *p = oi + 8 * i;
    p[0] = __float2int_rn(x);
    p[1] = __float2int_rz(x);
    p[2] = __float2int_rd(x);
    p[3] = __float2int_ru(x);
    p[4] = __double2int_rn(y);
    p[5] = __float_as_int(x);
    p[6] = __double2hiint(y);
    p[7] = __double2loint(y);
    unsigned *q = ou + 4 * i;
    q[0] = __float2uint_rn(x);
    q[1] = __float2uint_rz(x);
    q[2] = __double2uint_rd(y);
    q[3] = __double2uint_ru(y);
    long long *r = oll + 4 * i;
    r[0] = __float2ll_rn(x);
    r[1] = __float2ll_rz(x);
    r[2] = __double2ll_rd(y);
    r[3] = __double2ll_ru(y);
    unsigned long long *s = oull + 2 * i;
    s[0] = __float2ull_rn(x);
    s[1] = __double2ull_rz(y);
    float *t = of + 24 * i;
    t[0] = __int2float_rn((int)v);
    t[1] = __int2float_rz((int)v);
    t[2] = __int2float_rd((int)v);
    t[3] = __int2float_ru((int)v);
    t[4] = __uint2float_rn((unsigned)v);
    t[5] = __uint2float_rz((unsigned)v);
    t[6] = __ll2float_rn(v);
    t[7] = __ll2float_rz(v);
    t[8] = __ll2float_rd(v);
    t[9] = __ll2float_ru(v);
    t[10] = __ull2float_rn((unsigned long long)v);
    t[11] = __ull2float_ru((unsigned long long)v);
    t[12] = __double2float_rn(y);
    t[13] = __double2float_rz(y);
    t[14] = __double2float_rd(y);
    t[15] = __double2float_ru(y);
    t[16] = rintf(x);
    t[17] = floorf(x);
    t[18] = ceilf(x);
    t[19] = truncf(x);
    t[20] = roundf(x);
    t[21] = nearbyintf(x);
    t[22] = __int_as_float((int)v);
    t[23] = __uint2float_rd((unsigned)(v >> 32));
    double *u = od + 4 * i;
    u[0] = __ll2double_rn(v);
    u[1] = __ll2double_rz(v);
    u[2] = __ull2double_rd((unsigned long long)v);
    u[3] = __ull2double_ru((unsigned long long)v);
}
