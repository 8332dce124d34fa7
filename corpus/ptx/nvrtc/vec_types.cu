// CUDA vector types: float4 / int4 / uint2 / double2 / uchar4 / short2 / char4 loads and stores
// (ld.global.v4.f32, ld.global.nc.v4.u32 through __ldg, st.global.v2.f64, ...), make_* and
// member-wise arithmetic.
extern "C" __global__ void vec_types(const float4 *f4, const int4 *i4, const double2 *d2,
                                     const uchar4 *c4, const short2 *s2, float4 *of4, int4 *oi4,
                                     double2 *od2, uchar4 *oc4, uint2 *ou2, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float4 a = f4[i];
    int4 b = __ldg(&i4[i]);
    double2 d = d2[i];
    uchar4 c = c4[i];
    short2 s = s2[i];
    of4[i] = make_float4(a.w, a.z - a.y, a.x * 2.0f, (float)b.x);
    oi4[i] = make_int4(b.y ^ b.z, b.w >> 3, c.x + c.y * 256, s.x * s.y);
    od2[i] = make_double2(d.y, d.x + (double)a.x);
    oc4[i] = make_uchar4(c.w, (unsigned char)(c.z + 1), (unsigned char)(c.y ^ 0x5a), (unsigned char)(s.y >> 4));
    ou2[i] = make_uint2((unsigned)b.x * 3u, (unsigned)s.x);
}
