"""topk: tl.topk(x, 8) of each row of a 4 x 64 f32 block and of a 4 x 64 int32 block, in one
program: the 8 largest of each row in descending order (bitonic sort of 8-element runs, then
max-reductions that halve the rows)."""
import triton
import triton.language as tl


@triton.jit
def topk(f_ptr, i_ptr, ft_ptr, it_ptr, ROWS: tl.constexpr, COLS: tl.constexpr, K: tl.constexpr):
    offs = tl.arange(0, ROWS)[:, None] * COLS + tl.arange(0, COLS)[None, :]
    out = tl.arange(0, ROWS)[:, None] * K + tl.arange(0, K)[None, :]
    tl.store(ft_ptr + out, tl.topk(tl.load(f_ptr + offs), K, dim=1))
    tl.store(it_ptr + out, tl.topk(tl.load(i_ptr + offs), K, dim=1))


ARCHS = (80, 90)
ROWS, COLS, K = 4, 64, 8


def case(cap):
    import numpy as np
    from common import mixes, uniform_f32, small_ints
    f = uniform_f32(ROWS * COLS, 100, -50.0, 50.0).reshape(ROWS, COLS)
    f[1, 10:20] = 49.5                                # the top 8 all equal
    f[2, :] = np.sort(f[2, :])                        # ascending row: top 8 at the end
    f[3, 0] = np.inf
    f[f == 0] = 0.25
    i = np.array([m >> 32 for m in mixes(ROWS * COLS, 101)], dtype=np.uint64)
    i = i.astype(np.uint32).view(np.int32).reshape(ROWS, COLS)
    i[1, :] = small_ints(COLS, 102, -5, 5)
    i[2, 0] = 2**31 - 1
    ft = -np.sort(-f, axis=1)[:, :K]
    it = np.sort(i, axis=1)[:, ::-1][:, :K].copy()
    return dict(
        kernel=topk, num_warps=2, grid=[1],
        args=[("f_ptr", "*fp32", "f"), ("i_ptr", "*i32", "i"), ("ft_ptr", "*fp32", "ft"),
              ("it_ptr", "*i32", "it"), ("ROWS", "constexpr", ROWS), ("COLS", "constexpr", COLS),
              ("K", "constexpr", K)],
        buffers=[("f", f), ("i", i), ("ft", ROWS * K * 4), ("it", ROWS * K * 4)],
        expected={"ft": ft.astype(np.float32), "it": it.astype(np.int32)},
    )
