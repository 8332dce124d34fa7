"""dropout: out[i] = x[i] * scale where tl.rand(seed, i) > p, else 0, over n = 1000 f32
elements in 4 programs of 256 (the Triton tutorial's seeded dropout); the uniform numbers
themselves are stored too. tl.rand is Philox-4x32 with 10 rounds (umulhi, xor, key schedule)
followed by an int -> float conversion: integer math, so every output is bit-exact."""
import triton
import triton.language as tl


@triton.jit
def dropout(x_ptr, out_ptr, rand_ptr, n, p, scale, seed, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    r = tl.rand(seed, offs)
    keep = r > p
    out = tl.where(keep, x * scale, 0.0)
    tl.store(out_ptr + offs, out, mask=mask)
    tl.store(rand_ptr + offs, r, mask=mask)


ARCHS = (80, 90)
N, BLOCK, SIZE, P, SEED = 1000, 256, 1024, 0.3, 0x1234567890ABCDEF

M32 = 0xFFFFFFFF


def philox_randint(seed, offsets):
    """triton.language.random.randint: Philox-4x32-10 of counter (offset, 0, 0, 0) and key
    (seed lo, seed hi), first output word."""
    out = []
    for c in offsets:
        c0, c1, c2, c3 = c & M32, 0, 0, 0
        k0, k1 = seed & M32, (seed >> 32) & M32
        for _ in range(10):
            A, B = 0xD2511F53, 0xCD9E8D57
            _c0, _c2 = c0, c2
            c0 = ((B * _c2) >> 32) ^ c1 ^ k0
            c2 = ((A * _c0) >> 32) ^ c3 ^ k1
            c1 = (B * _c2) & M32
            c3 = (A * _c0) & M32
            k0 = (k0 + 0x9E3779B9) & M32
            k1 = (k1 + 0xBB67AE85) & M32
        out.append(c0)
    return out


def case(cap):
    import numpy as np
    from common import uniform_f32
    x = uniform_f32(SIZE, 40, -4.0, 4.0)
    u = np.array(philox_randint(SEED, range(N)), dtype=np.uint32).view(np.int32)
    # uint_to_uniform_float: x < 0 -> -x - 1 (int32), then float(x) * 4.6566127342e-10 in f32
    # (cvt.rn.f32.s32, mul.rn.f32 by the f32 constant).
    v = np.where(u < 0, -u - 1, u).astype(np.int32)
    r = v.astype(np.float32) * np.float32(4.6566127342e-10)
    scale = np.float32(1.0) / np.float32(1.0 - np.float32(P))
    out = np.zeros(SIZE, dtype=np.float32)
    out[:N] = np.where(r > np.float32(P), x[:N] * scale, np.float32(0.0))
    rand = np.zeros(SIZE, dtype=np.float32)
    rand[:N] = r
    return dict(
        kernel=dropout, num_warps=4, grid=[SIZE // BLOCK],
        args=[("x_ptr", "*fp32", "x"), ("out_ptr", "*fp32", "out"), ("rand_ptr", "*fp32", "rand"),
              ("n", "i32", N), ("p", "fp32", P), ("scale", "fp32", scale), ("seed", "i64", SEED),
              ("BLOCK", "constexpr", BLOCK)],
        buffers=[("x", x), ("out", SIZE * 4), ("rand", SIZE * 4)],
        expected={"out": out, "rand": rand},
    )
