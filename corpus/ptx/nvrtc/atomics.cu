// Global atomics whose final values do not depend on the order: atomicAdd (u32, u64, and f32
// on small integers, where every partial sum is exact), atomicSub, atomicMin/Max (signed,
// unsigned, 64-bit), atomicAnd/Or/Xor, atomicInc/atomicDec with a wrap bound, atomicExch and
// atomicCAS on a thread's own word, and a float atomicMax built from an atomicCAS loop.
__device__ float atomic_max_float(float *addr, float v)
{
    int *ia = (int *)addr;
    int old = *ia;
    while (__int_as_float(old) < v) {
        int assumed = old;
        old = atomicCAS(ia, assumed, __float_as_int(v));
        if (old == assumed)
            break;
    }
    return __int_as_float(old);
}

extern "C" __global__ void atomics(const int *in, unsigned *u, unsigned long long *u64, int *s,
                                   float *f, unsigned *own)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[i];
    atomicAdd(&u[0], (unsigned)v);
    atomicSub(&u[1], (unsigned)i);
    atomicMax(&u[2], (unsigned)v);
    atomicMin(&u[3], (unsigned)v);
    atomicAnd(&u[4], (unsigned)v | 0x00ff00ffu);
    atomicOr(&u[5], (unsigned)v & 0x11111111u);
    atomicXor(&u[6], (unsigned)v);
    atomicInc(&u[7], 99u);
    atomicDec(&u[8], 1000u);
    atomicAdd(&u64[0], (unsigned long long)(unsigned)v << 20);
    atomicMax(&u64[1], (unsigned long long)(long long)v * 0x10001ull);
    atomicMin((long long *)&u64[2], (long long)v * -3);
    atomicMax(&s[0], v);
    atomicMin(&s[1], v);
    atomicAdd(&f[0], (float)(v & 0xff));
    atomic_max_float(&f[1], (float)v * 0.25f);
    unsigned old = atomicExch(&own[2 * i], (unsigned)v);
    atomicCAS(&own[2 * i + 1], old, old + 1u);
}
