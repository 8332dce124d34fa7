// Bitonic sort of 256 (key, value) pairs per block in shared memory, 128 threads, each doing
// one compare-exchange per stage; keys ascending, values travel with their keys. The network is
// fixed, so equal keys end in a fixed order too.
#define N 256

extern "C" __global__ void bitonic_sort(unsigned *keys, unsigned *vals)
{
    __shared__ unsigned k[N];
    __shared__ unsigned v[N];
    unsigned t = threadIdx.x;
    unsigned base = blockIdx.x * N;
    k[t] = keys[base + t];
    k[t + N / 2] = keys[base + t + N / 2];
    v[t] = vals[base + t];
    v[t + N / 2] = vals[base + t + N / 2];
    for (unsigned size = 2; size <= N; size <<= 1) {
        for (unsigned stride = size / 2; stride > 0; stride >>= 1) {
            __syncthreads();
            unsigned pos = 2 * t - (t & (stride - 1));
            bool up = ((pos & size) == 0);
            unsigned a = k[pos], b = k[pos + stride];
            if ((a > b) == up) {
                k[pos] = b;
                k[pos + stride] = a;
                unsigned tmp = v[pos];
                v[pos] = v[pos + stride];
                v[pos + stride] = tmp;
            }
        }
    }
    __syncthreads();
    keys[base + t] = k[t];
    keys[base + t + N / 2] = k[t + N / 2];
    vals[base + t] = v[t];
    vals[base + t + N / 2] = v[t + N / 2];
}
