"""gather_scatter: indexed memory access over n = 500 int32 elements in 4 programs of 128:
g[i] = src[idx[i]] (gather through a pointer tensor), dst[perm[i]] = src[i] + i (scatter through
a permutation), and an in-register tl.gather of each program's block of src by
j = (7 i + 3) mod 128 (a shuffle/shared-memory gather) into t."""
import triton
import triton.language as tl


@triton.jit
def gather_scatter(src_ptr, idx_ptr, perm_ptr, g_ptr, dst_ptr, t_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    lanes = tl.arange(0, BLOCK)
    offs = pid * BLOCK + lanes
    mask = offs < n
    idx = tl.load(idx_ptr + offs, mask=mask, other=0)
    g = tl.load(src_ptr + idx, mask=mask)
    tl.store(g_ptr + offs, g, mask=mask)
    src = tl.load(src_ptr + offs, mask=mask, other=-1)
    perm = tl.load(perm_ptr + offs, mask=mask, other=0)
    tl.store(dst_ptr + perm, src + offs, mask=mask)
    j = (lanes * 7 + 3) % BLOCK
    tl.store(t_ptr + offs, tl.gather(src, j, 0))


ARCHS = (80, 90)
N, BLOCK, SIZE = 500, 128, 512


def case(cap):
    import numpy as np
    from common import mixes
    src = np.array([m >> 32 for m in mixes(SIZE, 80)], dtype=np.uint64).astype(np.uint32)
    src = src.view(np.int32)
    idx = np.array([(m >> 33) % N for m in mixes(SIZE, 81)], dtype=np.int32)
    idx[N:] = 1 << 30                                   # past n: masked, never dereferenced
    perm = np.arange(SIZE, dtype=np.int32)
    order = sorted(range(N), key=lambda i: mixes(1, 82 + i)[0])
    perm[:N] = np.array(order, dtype=np.int32)          # a permutation of 0..n-1
    perm[N:] = 1 << 30
    g = np.zeros(SIZE, np.int32)
    g[:N] = src[idx[:N]]
    dst = np.zeros(SIZE, np.int64)
    dst[perm[:N]] = src[:N].astype(np.int64) + np.arange(N)
    dst = dst.astype(np.uint64).astype(np.uint32).view(np.int32)  # int32 add wraps
    t = np.zeros(SIZE, np.int32)
    lanes = np.arange(BLOCK)
    j = (lanes * 7 + 3) % BLOCK
    for p in range(SIZE // BLOCK):
        blk = np.where(p * BLOCK + lanes < N, src[p * BLOCK + lanes], -1)
        t[p * BLOCK + lanes] = blk[j]
    return dict(
        kernel=gather_scatter, num_warps=4, grid=[SIZE // BLOCK],
        args=[("src_ptr", "*i32", "src"), ("idx_ptr", "*i32", "idx"), ("perm_ptr", "*i32", "perm"),
              ("g_ptr", "*i32", "g"), ("dst_ptr", "*i32", "dst"), ("t_ptr", "*i32", "t"),
              ("n", "i32", N), ("BLOCK", "constexpr", BLOCK)],
        buffers=[("src", src), ("idx", idx), ("perm", perm), ("g", SIZE * 4), ("dst", SIZE * 4),
                 ("t", SIZE * 4)],
        expected={"g": g, "dst": dst, "t": t},
    )
