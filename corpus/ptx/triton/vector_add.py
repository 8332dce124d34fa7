"""vector_add: out[i] = x[i] + y[i] over n = 1008 f32 elements, 4 programs of BLOCK = 256
(the Triton tutorial's first kernel). n is a multiple of 16, so Triton vectorizes the masked
loads and stores (ld.global.v4.b32 under a predicate); the last program's tail is masked."""
import triton
import triton.language as tl


@triton.jit
def vector_add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(axis=0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


ARCHS = (80, 90)
N, BLOCK, SIZE = 1008, 256, 1024


def inputs():
    import numpy as np
    from common import mixes, bits_f32
    # Random f32 bit patterns with exponents spread over the whole range, finite, plus edges.
    def pick(salt):
        out = []
        for m in mixes(SIZE, salt):
            sign = (m >> 63) << 31
            exp = 1 + (m >> 32) % 254 if (m >> 8) % 4 else 100 + (m >> 32) % 54  # half near 1
            out.append(sign | (exp << 23) | (m & 0x7FFFFF))
        return np.array(out, dtype=np.uint32)
    xb, yb = pick(1), pick(2)
    edges = [0x00000000, 0x80000000, 0x00000001, 0x807FFFFF, 0x7F800000, 0xFF800000,
             0x7F7FFFFF, 0x3F800000, 0x00800000, 0x33800000]
    yedg = [0x80000000, 0x80000000, 0x00000001, 0x00000001, 0x3F800000, 0xFF800000,
            0x7F7FFFFF, 0x33800000, 0x80000001, 0x3F800000]
    xb[:len(edges)] = edges
    yb[:len(yedg)] = yedg
    # Make some pairs cancel exactly or nearly.
    yb[10:40] = xb[10:40] ^ 0x80000000
    yb[40:70] = (xb[40:70] ^ 0x80000000) + 1
    return bits_f32(xb), bits_f32(yb)


def case(cap):
    import numpy as np
    x, y = inputs()
    out = np.zeros(SIZE, dtype=np.float32)
    with np.errstate(over="ignore"):
        out[:N] = x[:N] + y[:N]      # numpy f32 addition: IEEE RNE, subnormals kept
    return dict(
        kernel=vector_add, num_warps=4, grid=[SIZE // BLOCK],
        args=[("x_ptr", "*fp32", "x"), ("y_ptr", "*fp32", "y"), ("out_ptr", "*fp32", "out"),
              ("n", "i32", N), ("BLOCK", "constexpr", BLOCK)],
        buffers=[("x", x), ("y", y), ("out", SIZE * 4)],
        expected={"out": out},
    )
