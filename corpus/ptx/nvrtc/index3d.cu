// Special registers of a 3-D launch: %tid, %ntid, %ctaid, %nctaid in x, y and z, %laneid, the
// linear thread index, and a 3-D stencil-free gather indexed by all of them.
extern "C" __global__ void index3d(const unsigned *in, unsigned *out)
{
    unsigned tlin = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
    unsigned blin = (blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
    unsigned nthreads = blockDim.x * blockDim.y * blockDim.z;
    unsigned g = blin * nthreads + tlin;
    unsigned lane;
    asm("mov.u32 %0, %%laneid;" : "=r"(lane));
    unsigned *o = out + 8 * g;
    o[0] = threadIdx.x | threadIdx.y << 8 | threadIdx.z << 16;
    o[1] = blockDim.x | blockDim.y << 8 | blockDim.z << 16;
    o[2] = blockIdx.x | blockIdx.y << 8 | blockIdx.z << 16;
    o[3] = gridDim.x | gridDim.y << 8 | gridDim.z << 16;
    o[4] = lane | (tlin / 32) << 8;
    o[5] = g;
    unsigned x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y,
             z = blockIdx.z * blockDim.z + threadIdx.z;
    unsigned X = gridDim.x * blockDim.x, Y = gridDim.y * blockDim.y, Z = gridDim.z * blockDim.z;
    o[6] = in[((z + 1) % Z * Y + (Y - 1 - y)) * X + (x * 3) % X];
    o[7] = X * Y * Z;
}
