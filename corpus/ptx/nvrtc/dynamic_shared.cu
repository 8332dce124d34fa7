// Dynamic shared memory (extern __shared__, the launch's shared_bytes): two arrays carved out
// of one extern buffer (doubles after ints, aligned by hand), a block-wide reversal and a
// neighbour exchange, plus the size read back through %dynamic_smem_size.
extern "C" __global__ void dynamic_shared(const int *in, const double *din, int *out,
                                          double *dout, unsigned *size_out)
{
    extern __shared__ __align__(16) unsigned char smem[];
    int *si = (int *)smem;
    double *sd = (double *)(smem + ((blockDim.x * sizeof(int) + 15) & ~15u));
    unsigned t = threadIdx.x, n = blockDim.x;
    si[t] = in[blockIdx.x * n + t];
    sd[t] = din[blockIdx.x * n + t];
    __syncthreads();
    out[blockIdx.x * n + t] = si[n - 1 - t] - si[(t + 1) % n];
    dout[blockIdx.x * n + t] = sd[(t + n / 2) % n] * 0.5 - sd[t];
    if (t == 0) {
        unsigned sz;
        asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(sz));
        size_out[blockIdx.x] = sz;
    }
}
