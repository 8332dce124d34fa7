"""histogram: 32-bin histogram of n = 1000 int32 keys in 4 programs of 256: every key does
tl.atomic_add(bins + key, 1) (atom.global.gpu.acq_rel.add, masked tail, keys out of range
skipped by the mask), and each program also builds its block's histogram with tl.histogram and
adds it to bins2 with one vector tl.atomic_add; the number of keys in range goes to count."""
import triton
import triton.language as tl


@triton.jit
def histogram(keys_ptr, bins_ptr, bins2_ptr, count_ptr, n, NBINS: tl.constexpr,
              BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    k = tl.load(keys_ptr + offs, mask=mask, other=0)
    ok = mask & (k >= 0) & (k < NBINS)
    tl.atomic_add(bins_ptr + k, 1, mask=ok)
    h = tl.histogram(tl.where(ok, k, 0), NBINS)
    # the masked-out keys were all counted in bin 0: take them back
    h = h - tl.where(tl.arange(0, NBINS) == 0, tl.sum((~ok).to(tl.int32), axis=0), 0)
    tl.atomic_add(bins2_ptr + tl.arange(0, NBINS), h)
    tl.atomic_add(count_ptr, tl.sum(ok.to(tl.int32), axis=0))


ARCHS = (80, 90)
N, BLOCK, SIZE, NBINS = 1000, 256, 1024, 32


def case(cap):
    import numpy as np
    from common import mixes
    # Skewed keys: bin b drawn with weight ~ 1/(b+1); every 37th key is out of range (-5 or 40).
    ks = []
    for i, m in enumerate(mixes(SIZE, 70)):
        if i % 37 == 36:
            ks.append(-5 if (m & 1) else 40)
        else:
            ks.append(int((m >> 40) % 1024) % (1 + (m >> 20) % NBINS))
    keys = np.array(ks, dtype=np.int32)
    valid = keys[:N][(keys[:N] >= 0) & (keys[:N] < NBINS)]
    bins = np.bincount(valid, minlength=NBINS).astype(np.int32)
    return dict(
        kernel=histogram, num_warps=4, grid=[SIZE // BLOCK],
        args=[("keys_ptr", "*i32", "keys"), ("bins_ptr", "*i32", "bins"),
              ("bins2_ptr", "*i32", "bins2"), ("count_ptr", "*i32", "count"), ("n", "i32", N),
              ("NBINS", "constexpr", NBINS), ("BLOCK", "constexpr", BLOCK)],
        buffers=[("keys", keys), ("bins", NBINS * 4), ("bins2", NBINS * 4), ("count", 4)],
        expected={"bins": bins, "bins2": bins, "count": np.array([len(valid)], np.int32)},
    )
