"""Helpers shared by the kernel modules of corpus/ptx/triton (inputs and reference values).

Nothing here runs PTX: every expected value is computed on the host with numpy (IEEE binary32
arithmetic with round-to-nearest-even, subnormals kept) or with exact integer arithmetic.
"""
import numpy as np

M64 = (1 << 64) - 1


def mix64(x):
    """splitmix64 finaliser of x + golden ratio (ptxk_mix64 in corpus/ptx/llvm/ptxk.h)."""
    x = (x + 0x9E3779B97F4A7C15) & M64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & M64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & M64
    return x ^ (x >> 31)


def mixes(n, salt):
    """n values mix64(salt * 2^32 + i), i = 0..n-1, as Python ints."""
    return [mix64((salt << 32) + i) for i in range(n)]


def small_ints(n, salt, lo, hi):
    """n integers in [lo, hi] from splitmix64."""
    span = hi - lo + 1
    return np.array([lo + (m >> 11) % span for m in mixes(n, salt)], dtype=np.int64)


def uniform_f32(n, salt, lo, hi):
    """n f32 values lo + (hi - lo) * k / 2^24, k a 24-bit integer: exactly representable when
    hi - lo is a power of two and lo a multiple of (hi - lo) / 2^24."""
    k = np.array([m >> 40 for m in mixes(n, salt)], dtype=np.float64)
    return (lo + (hi - lo) * k / 2.0**24).astype(np.float32)


def f32_bits(a):
    return np.asarray(a, dtype=np.float32).view(np.uint32)


def bits_f32(u):
    return np.asarray(u, dtype=np.uint32).view(np.float32)


def f32_to_bf16_bits(a):
    """Round-to-nearest-even f32 -> bf16 (NaN -> 0x7fff with the sign kept)."""
    u = f32_bits(a).astype(np.uint64)
    nan = np.isnan(np.asarray(a, dtype=np.float32))
    r = (u + 0x7FFF + ((u >> 16) & 1)) >> 16
    r = np.where(nan, (u >> 16) | 0x7FFF, r)
    return r.astype(np.uint16)


def bf16_bits_to_f32(h):
    return (np.asarray(h, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)


def fp8_decode(code, fmt):
    """Value of an 8-bit float: fmt 'e5m2' (IEEE-like, bias 15) or 'e4m3' (OCP E4M3FN, bias 7,
    no infinities, S.1111.111 is NaN)."""
    s = -1.0 if code & 0x80 else 1.0
    if fmt == "e5m2":
        e, m, mb, bias = (code >> 2) & 0x1F, code & 3, 2, 15
        if e == 0x1F:
            return s * float("inf") if m == 0 else float("nan")
    else:
        e, m, mb, bias = (code >> 3) & 0xF, code & 7, 3, 7
        if e == 0xF and m == 7:
            return float("nan")
    if e == 0:
        return s * m * 2.0 ** (1 - bias - mb)
    return s * (1 + m / 2.0**mb) * 2.0 ** (e - bias)


def fp8_encode_exact(values, fmt):
    """Codes of values that are exactly representable in fmt (asserts it)."""
    table = {}
    for c in range(256):
        v = fp8_decode(c, fmt)
        if v == v and (v, np.signbit(v)) not in table:
            table[(v, bool(np.signbit(v)))] = c
    out = []
    for v in np.asarray(values, dtype=np.float64).ravel():
        out.append(table[(float(v), bool(np.signbit(v)))])
    return np.array(out, dtype=np.uint8).reshape(np.shape(values))


def hexof(a):
    """Lowercase hex of an array's bytes in memory order (little-endian)."""
    a = np.ascontiguousarray(a)
    if a.dtype.byteorder == ">":
        a = a.astype(a.dtype.newbyteorder("<"))
    return a.tobytes().hex()


def matmul_shapes():
    """M, N, K and the tile BM, BN, BK of every matmul_* kernel: grid (M/BM, N/BN) = (2, 1)."""
    return 128, 64, 64, 64, 64, 32


def matmul_args(kernel, a_ty, b_ty, c_ty):
    M, N, K, BM, BN, BK = matmul_shapes()
    return [("a_ptr", a_ty, "a"), ("b_ptr", b_ty, "b"), ("c_ptr", c_ty, "c"),
            ("M", "i32", M), ("N", "i32", N), ("K", "i32", K),
            ("stride_am", "i32", K), ("stride_bk", "i32", N), ("stride_cm", "i32", N),
            ("BM", "constexpr", BM), ("BN", "constexpr", BN), ("BK", "constexpr", BK)]


def exact_matmul(a, b):
    """a @ b for float64 arrays whose products and partial sums are all exact (checked: the
    operands are integers after scaling by a power of two and the sums stay below 2^53)."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    sa = 2.0 ** 16
    ia, ib = (a * sa).astype(np.int64), (b * sa).astype(np.int64)
    assert np.all(ia == a * sa) and np.all(ib == b * sa)
    ic = ia.astype(object).dot(ib.astype(object))
    c = np.array(ic.tolist(), dtype=np.float64) / (sa * sa)
    assert np.all(c * sa * sa == np.array(ic.tolist(), dtype=np.float64))
    return c


def f32_round(q):
    """The f32 nearest to the exact rational q (fractions.Fraction), ties to even; q must lie in
    the normal f32 range (or be 0)."""
    from fractions import Fraction
    q = Fraction(q)
    if q == 0:
        return np.float32(0.0)
    a = np.float32(float(q))                  # within one ulp of q (double rounding at worst)
    best = None
    for c in (np.nextafter(a, np.float32(-np.inf)), a, np.nextafter(a, np.float32(np.inf))):
        d = abs(Fraction(float(c)) - q)
        if best is None or d < best[0] or (d == best[0] and int(f32_bits(c)) % 2 == 0):
            best = (d, c)
    return np.float32(best[1])
