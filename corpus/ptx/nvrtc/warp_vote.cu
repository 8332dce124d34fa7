// Warp vote and match intrinsics with full and partial member masks: __ballot_sync, __any_sync,
// __all_sync, __uni_sync, __match_any_sync / __match_all_sync (32- and 64-bit), the
// compute_80 redux intrinsics __reduce_add/min/max/and/or/xor_sync, and __activemask() read
// at the top of the kernel (every lane of the warp is there). The second half of the kernel
// runs in lanes split by parity, each half with its own mask (0x55555555 / 0xaaaaaaaa).
extern "C" __global__ void warp_vote(const int *in, unsigned *out)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned lane = threadIdx.x & 31;
    int v = in[i];
    unsigned *o = out + 16 * i;
    o[0] = __activemask();
    o[1] = __ballot_sync(0xffffffffu, v > 0);
    o[2] = __any_sync(0xffffffffu, v == 7) | __all_sync(0xffffffffu, v > -1000) << 1 |
           __uni_sync(0xffffffffu, v >= -2000) << 2;
    o[3] = __match_any_sync(0xffffffffu, v & 7);
    int pred;
    o[4] = __match_all_sync(0xffffffffu, (unsigned long long)(v >> 10), &pred);
    o[5] = (unsigned)pred;
    o[6] = __reduce_add_sync(0xffffffffu, (unsigned)v);
    o[7] = (unsigned)__reduce_min_sync(0xffffffffu, v);
    o[8] = (unsigned)__reduce_max_sync(0xffffffffu, v);
    o[9] = __reduce_and_sync(0xffffffffu, (unsigned)v | 0xf0f0f0f0u);
    o[10] = __reduce_or_sync(0xffffffffu, (unsigned)v & 0x0f0f0f0fu);
    o[11] = __reduce_xor_sync(0xffffffffu, (unsigned)v);
    unsigned mask = (lane & 1) ? 0xaaaaaaaau : 0x55555555u;
    if (lane & 1) {
        o[12] = __ballot_sync(mask, v & 1);
        o[13] = __reduce_add_sync(mask, (unsigned)v);
        o[14] = __match_any_sync(mask, (unsigned long long)(v & 3));
        o[15] = __shfl_sync(mask, (unsigned)v, 3);
    } else {
        o[12] = __ballot_sync(mask, v & 2);
        o[13] = __reduce_max_sync(mask, (unsigned)v);
        o[14] = __any_sync(mask, v < -900);
        o[15] = __shfl_xor_sync(mask, (unsigned)v, 2);
    }
}
