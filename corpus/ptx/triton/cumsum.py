"""cumsum: scans over a 4 x 64 block in one program: tl.cumsum of int32 along the rows
(wrapping), tl.cumsum of f32 along the rows in reverse, tl.cumsum of int32 down the columns
(across warps, through shared memory) and tl.cumprod of int32 along the rows (wrapping)."""
import triton
import triton.language as tl


@triton.jit
def cumsum(x_ptr, f_ptr, row_ptr, rev_ptr, col_ptr, prod_ptr,
           ROWS: tl.constexpr, COLS: tl.constexpr):
    offs = tl.arange(0, ROWS)[:, None] * COLS + tl.arange(0, COLS)[None, :]
    x = tl.load(x_ptr + offs)
    f = tl.load(f_ptr + offs)
    tl.store(row_ptr + offs, tl.cumsum(x, axis=1))
    tl.store(rev_ptr + offs, tl.cumsum(f, axis=1, reverse=True))
    tl.store(col_ptr + offs, tl.cumsum(x, axis=0))
    tl.store(prod_ptr + offs, tl.cumprod(x, axis=1))


ARCHS = (80, 90)
ROWS, COLS = 4, 64


def case(cap):
    import numpy as np
    from common import mixes, small_ints
    # int32 over the whole range: sums and products wrap modulo 2^32, which is associative, so
    # any scan order gives the same bits. f32: multiples of 1/16 in [-64, 64]; partial sums stay
    # multiples of 1/16 below 4096 in magnitude, exact in f32 in any order.
    x = np.array([m >> 32 for m in mixes(ROWS * COLS, 50)], dtype=np.uint64)
    x = x.astype(np.uint32).view(np.int32).reshape(ROWS, COLS)
    x[1, :] = small_ints(COLS, 51, -3, 3)            # a row of small values: readable prefixes
    x[2, 10] = 0                                     # a zero in the product scan
    f = (small_ints(ROWS * COLS, 52, -1024, 1024) / 16.0).astype(np.float32).reshape(ROWS, COLS)
    xi = x.astype(np.int64)
    M = 1 << 32
    row = np.cumsum(xi, axis=1) % M
    col = np.cumsum(xi, axis=0) % M
    prod = np.zeros_like(xi)
    for r in range(ROWS):
        acc = 1
        for c in range(COLS):
            acc = (acc * int(xi[r, c])) % M
            prod[r, c] = acc
    rev = np.cumsum(f[:, ::-1].astype(np.float64), axis=1)[:, ::-1]
    as32 = lambda a: a.astype(np.uint64).astype(np.uint32).view(np.int32)
    nb = ROWS * COLS * 4
    return dict(
        kernel=cumsum, num_warps=4, grid=[1],
        args=[("x_ptr", "*i32", "x"), ("f_ptr", "*fp32", "f"), ("row_ptr", "*i32", "row"),
              ("rev_ptr", "*fp32", "rev"), ("col_ptr", "*i32", "col"), ("prod_ptr", "*i32", "prod"),
              ("ROWS", "constexpr", ROWS), ("COLS", "constexpr", COLS)],
        buffers=[("x", x), ("f", f), ("row", nb), ("rev", nb), ("col", nb), ("prod", nb)],
        expected={"row": as32(row), "rev": rev.astype(np.float32), "col": as32(col),
                  "prod": as32(prod)},
    )
