// Half-precision math from cuda_fp16.h.
// half2_arith: packed f16x2 add, sub, mul, fma, fma with relu, saturating add, max, min and
//   -|x|, one element pair per thread.
// half_convert: f32 -> f16 in the four rounding modes, f16 -> f32, float2 -> half2, f64 -> f16,
//   f16 -> int (nearest, toward zero) and int -> f16, as every conversion intrinsic does it.
#include <cuda_fp16.h>

extern "C" __global__ void half2_arith(const __half2 *a, const __half2 *b, const __half2 *c,
                                       __half2 *add, __half2 *sub, __half2 *mul, __half2 *fma,
                                       __half2 *fma_relu, __half2 *add_sat, __half2 *mx,
                                       __half2 *mn, __half2 *nabs, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    __half2 x = a[i], y = b[i], z = c[i];
    add[i] = __hadd2(x, y);
    sub[i] = __hsub2(x, y);
    mul[i] = __hmul2(x, y);
    fma[i] = __hfma2(x, y, z);
    fma_relu[i] = __hfma2_relu(x, y, z);
    add_sat[i] = __hadd2_sat(x, y);
    mx[i] = __hmax2(x, y);
    mn[i] = __hmin2(x, y);
    nabs[i] = __hneg2(__habs2(x));
}

extern "C" __global__ void half_convert(const float *f, const double *d, const int *iv,
                                        __half *rn, __half *rz, __half *rd, __half *ru,
                                        float *back, __half2 *pair, __half *from_d,
                                        int *to_int_rn, int *to_int_rz, __half *from_int, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float x = f[i];
    rn[i] = __float2half_rn(x);
    rz[i] = __float2half_rz(x);
    rd[i] = __float2half_rd(x);
    ru[i] = __float2half_ru(x);
    back[i] = __half2float(rn[i]);
    pair[i] = __floats2half2_rn(x, -2.0f * x);
    from_d[i] = __double2half(d[i]);
    to_int_rn[i] = __half2int_rn(rn[i]);
    to_int_rz[i] = __half2int_rz(rn[i]);
    from_int[i] = __int2half_rn(iv[i]);
}
