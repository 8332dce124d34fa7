// __constant__ and __device__ module variables: a CRC-32 table built by a constexpr function
// into a __constant__ array (ld.const at data-dependent indices), __constant__ polynomial
// coefficients evaluated by Horner's rule with explicit fmaf, and a __device__ (.global)
// initialised array and scalar read with ld.global.
struct CrcTable {
    unsigned v[256];
};

__host__ __device__ constexpr CrcTable make_crc_table()
{
    CrcTable t{};
    for (unsigned n = 0; n < 256; n++) {
        unsigned c = n;
        for (int k = 0; k < 8; k++)
            c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        t.v[n] = c;
    }
    return t;
}

__constant__ CrcTable crc_table = make_crc_table();
__constant__ float poly[6] = {1.0f, -0.5f, 0.125f, -0.0208333f, 0.00260417f, -0.000260417f};
__device__ unsigned short salt[7] = {3, 1, 4, 1, 5, 9, 2};
__device__ unsigned seed = 0xFFFFFFFFu;

extern "C" __global__ void const_crc(const unsigned char *msg, const float *x, unsigned *crc,
                                     float *px, int len, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned c = seed ^ salt[i % 7];
    const unsigned char *m = msg + i * len;
    for (int k = 0; k < len; k++)
        c = crc_table.v[(c ^ m[k]) & 0xFFu] ^ (c >> 8);
    crc[i] = ~c;
    float v = x[i], acc = poly[5];
    for (int k = 4; k >= 0; k--)
        acc = fmaf(acc, v, poly[k]);
    px[i] = acc;
}
