// Recursion through __noinline__ device functions (the call stack lives in local memory):
// Fibonacci (two recursive calls), a divide-and-conquer sum over an array with a
// non-commutative combine, and the Towers of Hanoi producing a hash of the move sequence.
__device__ __noinline__ unsigned fib(unsigned n)
{
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

__device__ __noinline__ int dc_sum(const int *a, int lo, int hi)
{
    if (hi - lo == 1)
        return a[lo];
    int mid = (lo + hi) / 2;
    int l = dc_sum(a, lo, mid);
    int r = dc_sum(a, mid, hi);
    return l * 3 - r;
}

__device__ __noinline__ unsigned hanoi(int n, int from, int to, int via, unsigned h)
{
    if (n == 0)
        return h;
    h = hanoi(n - 1, from, via, to, h);
    h = h * 31u + (unsigned)(from * 4 + to);
    return hanoi(n - 1, via, to, from, h);
}

extern "C" __global__ void recursion(const int *a, unsigned *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    out[3 * i] = fib(i % 13);
    int len = 1 + i % 16;
    out[3 * i + 1] = (unsigned)dc_sum(a, i, i + len);
    out[3 * i + 2] = hanoi(i % 7, 0, 2, 1, (unsigned)i);
}
