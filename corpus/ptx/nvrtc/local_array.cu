// Per-thread arrays indexed by data, which NVVM keeps in local memory (__local_depot,
// st.local / ld.local): an insertion sort of 24 keys, a 32-bin histogram of nibbles, and a
// permutation walk over a byte array.
extern "C" __global__ void local_array(const unsigned *in, unsigned *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned keys[24];
    for (int k = 0; k < 24; k++)
        keys[k] = in[i * 24 + k] % 1000u;
    for (int k = 1; k < 24; k++) {
        unsigned key = keys[k];
        int j = k - 1;
        while (j >= 0 && keys[j] > key) {
            keys[j + 1] = keys[j];
            j--;
        }
        keys[j + 1] = key;
    }
    unsigned hist[32] = {0};
    for (int k = 0; k < 24; k++) {
        unsigned w = in[i * 24 + k];
        hist[w & 31]++;
        hist[(w >> 5) & 31] += 2;
    }
    unsigned char perm[16];
    for (int k = 0; k < 16; k++)
        perm[k] = (unsigned char)((k * 7 + in[i * 24]) & 15);
    unsigned p = in[i * 24 + 1] & 15, acc = 0;
    for (int k = 0; k < 20; k++) {
        acc = acc * 17u + perm[p];
        p = perm[p] ^ (k & 15);
    }
    unsigned *o = out + 40 * i;
    for (int k = 0; k < 24; k++)
        o[k] = keys[k];
    for (int k = 0; k < 15; k++)
        o[24 + k] = hist[k] + hist[31 - k] * 256u;
    o[39] = acc;
}
