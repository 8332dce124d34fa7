// FP8 conversions from cuda_fp8.h (E4M3 and E5M2). compute_90 turns the saturating float/half
// to fp8 conversions and fp8 to half into cvt instructions (cvt.rn.satfinite.e4m3x2.f32,
// cvt.rn.f16x2.e5m2x2, ...); compute_80 runs the header's software versions (through f64 bit
// manipulation). The non-saturating conversions are software on both.
#include <cuda_fp8.h>

extern "C" __global__ void fp8_from_float(const float2 *in, const float *special,
                                          unsigned short *e4m3x2, unsigned short *e5m2x2,
                                          unsigned char *e4m3_nosat, unsigned char *e5m2_nosat,
                                          unsigned *e4m3x4, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float2 v = in[i];
    e4m3x2[i] = __nv_cvt_float2_to_fp8x2(v, __NV_SATFINITE, __NV_E4M3);
    e5m2x2[i] = __nv_cvt_float2_to_fp8x2(v, __NV_SATFINITE, __NV_E5M2);
    e4m3_nosat[i] = __nv_cvt_float_to_fp8(special[i], __NV_NOSAT, __NV_E4M3);
    e5m2_nosat[i] = __nv_cvt_float_to_fp8(special[i], __NV_NOSAT, __NV_E5M2);
    __nv_fp8x4_e4m3 q(make_float4(v.x, v.y, -v.y, 0.5f * v.x));
    e4m3x4[i] = q.__x;
}

// Every fp8 byte to half (both formats), and to float through the __nv_fp8_e5m2 class.
extern "C" __global__ void fp8_to_half(unsigned short *h_e4m3, unsigned short *h_e5m2,
                                       float *f_e4m3, float *f_e5m2)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    __nv_fp8_storage_t b = (__nv_fp8_storage_t)i;
    h_e4m3[i] = __nv_cvt_fp8_to_halfraw(b, __NV_E4M3).x;
    h_e5m2[i] = __nv_cvt_fp8_to_halfraw(b, __NV_E5M2).x;
    __nv_fp8_e4m3 x4;
    x4.__x = b;
    __nv_fp8_e5m2 x5;
    x5.__x = b;
    f_e4m3[i] = float(x4);
    f_e5m2[i] = float(x5);
}

// half2 and bfloat162 to fp8x2, saturating.
extern "C" __global__ void fp8_from_16(const unsigned *h2, const unsigned *b2,
                                       unsigned short *h_e4m3x2, unsigned short *h_e5m2x2,
                                       unsigned short *b_e4m3x2, unsigned short *b_e5m2x2, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    __half2_raw h;
    h.x = (unsigned short)h2[i];
    h.y = (unsigned short)(h2[i] >> 16);
    __nv_bfloat162_raw b;
    b.x = (unsigned short)b2[i];
    b.y = (unsigned short)(b2[i] >> 16);
    h_e4m3x2[i] = __nv_cvt_halfraw2_to_fp8x2(h, __NV_SATFINITE, __NV_E4M3);
    h_e5m2x2[i] = __nv_cvt_halfraw2_to_fp8x2(h, __NV_SATFINITE, __NV_E5M2);
    b_e4m3x2[i] = __nv_cvt_bfloat16raw2_to_fp8x2(b, __NV_SATFINITE, __NV_E4M3);
    b_e5m2x2[i] = __nv_cvt_bfloat16raw2_to_fp8x2(b, __NV_SATFINITE, __NV_E5M2);
}
