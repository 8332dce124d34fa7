"""Python models of the kernels that have no C twin: exact rational arithmetic (fp.py) and, for
the math library, mpmath at 300 bits rounded once to the result format. Each model takes the
launch (kernels.Launch) and the build tag and returns every buffer after the launch, in launch
order; it computes from the CUDA semantics of the source, never from the PTX."""

import struct
from fractions import Fraction

import fp
from fp import F16, BF16, F32, F64, E4M3, E5M2

F32_NAN = 0x7FFFFFFF  # what the models write for an f32 NaN (compared with the "nan" rule)
F16_NAN = 0x7FFF
BF16_NAN = 0x7FFF
F64_NAN = 0x7FFFFFFFFFFFFFFF


def unpack(fmt, data):
    n = len(data) // struct.calcsize(fmt)
    return list(struct.unpack("<%d%s" % (n, fmt), data))


def packv(fmt, vals):
    return struct.pack("<%d%s" % (len(vals), fmt), *vals)


class Bufs:
    """The launch's buffers by name, as bytearrays, in launch order."""

    def __init__(self, L):
        self.order = [n for n, _ in L.buffers]
        self.b = {n: bytearray(init if not isinstance(init, int) else bytes(init))
                  for n, init in L.buffers}
        self.params = L.params

    def get(self, name, fmt):
        return unpack(fmt, bytes(self.b[name]))

    def put(self, name, fmt, index, value):
        size = struct.calcsize(fmt)
        struct.pack_into("<" + fmt, self.b[name], index * size, value)

    def scalar(self, i):
        ty, v = self.params[i]
        return int(v, 16) if v.startswith("0x") else int(v)

    def result(self):
        return [(n, bytes(self.b[n])) for n in self.order]


def enc(x, f, mode="rn", nan=None, sat=False):
    if nan is None:
        nan = {F16: F16_NAN, BF16: BF16_NAN, F32: F32_NAN, F64: F64_NAN}.get(f)
    return fp.encode(x, f, mode, sat=sat, nan_bits=nan)


def to_int(x, mode, bits=32, signed=True):
    """cvt.rXi.s32: round to an integer in the mode, saturate, NaN -> 0."""
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    if x[0] == "nan":
        return 0
    if x[0] == "inf":
        return hi if x[1] == 0 else lo
    v = x[1]
    fl = v.numerator // v.denominator
    r = v - fl
    if mode == "rn":
        n = fl + (1 if r > Fraction(1, 2) or (r == Fraction(1, 2) and fl & 1) else 0)
    elif mode == "rz":
        n = fl if v >= 0 else -((-v.numerator) // v.denominator)
    elif mode == "rd":
        n = fl
    elif mode == "ru":
        n = fl + (1 if r else 0)
    return max(lo, min(hi, n))


def from_int(i, f, mode="rn"):
    return fp.encode(fp.num(i), f, mode)


# ---------------------------------------------------------------------------------------------
# half2_math.cu and bf16x2_math.cu

def halves(word):
    return word & 0xFFFF, word >> 16


def pair_map(words_a, words_b, words_c, fn):
    out = []
    for wa, wb, wc in zip(words_a, words_b, words_c):
        lo = fn(wa & 0xFFFF, wb & 0xFFFF, wc & 0xFFFF)
        hi = fn(wa >> 16, wb >> 16, wc >> 16)
        out.append(lo | hi << 16)
    return out


def relu(x):
    if x[0] == "nan":
        return x
    # negative (sign bit set, -0 included) -> +0: max(x, +0) with +0 > -0
    if (x[0] == "inf" and x[1]) or (x[0] == "num" and x[2]):
        return fp.ZERO
    return x


def sat01(bits, f):
    """.sat: clamp to [0, 1]; NaN -> +0 (on the rounded result)."""
    x = fp.decode(bits, f)
    if x[0] == "nan":
        return 0
    if fp.lt(x, fp.ZERO) or (x[0] == "num" and x[1] == 0):
        return 0
    if fp.lt(fp.ONE, x):
        return enc(fp.ONE, f)
    return bits


def packed_arith(L, f, n, with_relu_sat):
    B = Bufs(L)
    A = B.get("a", "I")[:n]
    Bv = B.get("b", "I")[:n]
    C = B.get("c", "I")[:n]
    d = lambda h: fp.decode(h, f)  # noqa: E731
    ops = {
        "add": lambda x, y, z: enc(fp.add(d(x), d(y)), f),
        "sub": lambda x, y, z: enc(fp.sub(d(x), d(y)), f),
        "mul": lambda x, y, z: enc(fp.mul(d(x), d(y)), f),
        "fma": lambda x, y, z: enc(fp.fma(d(x), d(y), d(z)), f),
        "mx": lambda x, y, z: enc(fp.maxnum(d(x), d(y)), f),
        "mn": lambda x, y, z: enc(fp.minnum(d(x), d(y)), f),
        "nabs": lambda x, y, z: x | 0x8000 if not fp.is_nan(d(x)) else enc(("nan",), f),
    }
    if with_relu_sat:
        ops["fma_relu"] = lambda x, y, z: enc(relu(fp.decode(enc(fp.fma(d(x), d(y), d(z)), f), f)), f)
        ops["add_sat"] = lambda x, y, z: sat01(enc(fp.add(d(x), d(y)), f), f)
    for name, fn in ops.items():
        for i, w in enumerate(pair_map(A, Bv, C, fn)):
            B.put(name, "I", i, w)
    return B.result()


def half2_math(L, build):
    if L.entry == "half2_arith":
        return packed_arith(L, F16, Bufs(L).scalar(12), True)
    return convert16(L, F16)


def bf16x2_math(L, build):
    if L.entry == "bf16x2_arith":
        return packed_arith(L, BF16, Bufs(L).scalar(10), False)
    return convert16(L, BF16)


def convert16(L, f):
    B = Bufs(L)
    n = B.scalar(len(L.params) - 1)
    F = B.get("f", "I")
    D = B.get("d", "Q")
    IV = B.get("iv", "i")
    for i in range(n):
        x = fp.decode(F[i], F32)
        for name, mode in (("rn", "rn"), ("rz", "rz"), ("rd", "rd"), ("ru", "ru")):
            B.put(name, "H", i, enc(x, f, mode))
        h = fp.decode(enc(x, f), f)
        B.put("back", "I", i, enc(h, F32))
        y = fp.decode(enc(fp.mul(x, fp.num(-2)), F32), F32)  # -2.0f * x in f32
        B.put("pair", "I", i, enc(x, f) | enc(y, f) << 16)
        B.put("from_d", "H", i, enc(fp.decode(D[i], F64), f))
        B.put("to_int_rn", "i", i, to_int(h, "rn"))
        if "to_int_rz" in B.b:
            B.put("to_int_rz", "i", i, to_int(h, "rz"))
        B.put("from_int", "H", i, from_int(IV[i], f))
    return B.result()


# ---------------------------------------------------------------------------------------------
# fp8_convert.cu: cuda_fp8.h's semantics (round to nearest even; __NV_SATFINITE: out of range
# and infinities to the largest finite value with the sign; __NV_NOSAT: E4M3 overflow and
# infinities to NaN 0x7f with the sign bit, E5M2 overflow to infinity, a NaN input to 0x7f)

def to_fp8(x, f, sat):
    if x[0] == "nan":
        return 0x7F
    if x[0] == "inf":
        if sat:
            return (x[1] << 7) | fp.encode(fp.num(f.max_finite()), f)
        return (x[1] << 7) | (0x7F if f is E4M3 else 0x7C)
    return fp.encode(x, f, "rn", sat=sat)


def fp8_convert(L, build):
    B = Bufs(L)
    if L.entry == "fp8_from_float":
        n = B.scalar(7)
        IN = B.get("in", "I")
        SP = B.get("special", "I")
        for i in range(n):
            x, y = fp.decode(IN[2 * i], F32), fp.decode(IN[2 * i + 1], F32)
            B.put("e4m3x2", "H", i, to_fp8(x, E4M3, True) | to_fp8(y, E4M3, True) << 8)
            B.put("e5m2x2", "H", i, to_fp8(x, E5M2, True) | to_fp8(y, E5M2, True) << 8)
            s = fp.decode(SP[i], F32)
            B.put("e4m3_nosat", "B", i, to_fp8(s, E4M3, False))
            B.put("e5m2_nosat", "B", i, to_fp8(s, E5M2, False))
            half_x = fp.decode(enc(fp.mul(x, fp.num(Fraction(1, 2))), F32), F32)
            q = [to_fp8(v, E4M3, True) for v in (x, y, fp.neg(y), half_x)]
            B.put("e4m3x4", "I", i, q[0] | q[1] << 8 | q[2] << 16 | q[3] << 24)
    elif L.entry == "fp8_to_half":
        for i in range(256):
            for f, h, fl in ((E4M3, "h_e4m3", "f_e4m3"), (E5M2, "h_e5m2", "f_e5m2")):
                v = fp.decode(i, f)
                B.put(h, "H", i, enc(v, F16))
                B.put(fl, "I", i, enc(v, F32))
    else:
        n = B.scalar(6)
        H2 = B.get("h2", "I")
        B2 = B.get("b2", "I")
        for i in range(n):
            for src, fmt, pre in ((H2, F16, "h_"), (B2, BF16, "b_")):
                lo, hi = fp.decode(src[i] & 0xFFFF, fmt), fp.decode(src[i] >> 16, fmt)
                B.put(pre + "e4m3x2", "H", i, to_fp8(lo, E4M3, True) | to_fp8(hi, E4M3, True) << 8)
                B.put(pre + "e5m2x2", "H", i, to_fp8(lo, E5M2, True) | to_fp8(hi, E5M2, True) << 8)
    return B.result()


# ---------------------------------------------------------------------------------------------
# math_f32.cu and math_f64.cu: the true value of the function at the input (mpmath, 300 bits),
# rounded once to nearest: the "correctly rounded reference" the ulp/abs/rel rules measure from.

def _mp():
    import mpmath
    mpmath.mp.prec = 300
    return mpmath


def mpf_to_value(v):
    mp = _mp()
    if mp.isnan(v):
        return ("nan",)
    if mp.isinf(v):
        return ("inf", 0 if v > 0 else 1)
    man, exp = mp.mpf(v).man_exp  # |v| = man * 2^exp (man is unsigned)
    q = Fraction(man) * (Fraction(2) ** exp)
    return fp.num(-q if v < 0 else q)


def true_value(fn, args):
    """fn applied to exact float arguments, as a value (for encode)."""
    mp = _mp()
    xs = []
    for a in args:
        if a[0] != "num":
            raise ValueError("the math inputs are finite")
        xs.append(mp.mpf(a[1].numerator) / a[1].denominator)
    return mpf_to_value(fn(mp, *xs))


MATH_FNS = {
    "exp": lambda mp, x: mp.exp(x),
    "log": lambda mp, x: mp.log(x),
    "sin": lambda mp, x: mp.sin(x),
    "cos": lambda mp, x: mp.cos(x),
    "tan": lambda mp, x: mp.tan(x),
    "pow": lambda mp, x, y: mp.power(x, y),
    "erf": lambda mp, x: mp.erf(x),
    "exp2": lambda mp, x: mp.power(2, x),
    "log2": lambda mp, x: mp.log(x, 2),
    "tanh": lambda mp, x: mp.tanh(x),
    "rsqrt": lambda mp, x: 1 / mp.sqrt(x),
    "sqrt": lambda mp, x: mp.sqrt(x),
    "div": lambda mp, x, y: x / y,
    "cbrt": lambda mp, x: mp.sign(x) * mp.cbrt(abs(x)),  # the real cube root
    "atan2": lambda mp, y, x: mp.atan2(y, x),
}

# buffer -> (function, input segment); the segments are kernels.MATH_F32_SEGMENTS
MATH_F32_OUT = {
    "math_f32": [("exp_", "exp", 0), ("log_near", "log", 1), ("log_far", "log", 2),
                 ("sin_small", "sin", 3), ("cos_small", "cos", 3), ("sin_big", "sin", 4),
                 ("pow_", "pow", 5), ("erf_", "erf", 6), ("exp2_", "exp2", 7),
                 ("log2_", "log2", 2), ("tanh_", "tanh", 8), ("rsqrt_", "rsqrt", 9),
                 ("sqrt_", "sqrt", 9), ("div_", "div", 10)],
    "math_f32_intrinsics": [("exp_", "exp", 0), ("log_near", "log", 1), ("log_far", "log", 2),
                            ("sin_small", "sin", 3), ("cos_small", "cos", 3), ("pow_", "pow", 5),
                            ("log2_", "log2", 2), ("fdiv", "div", 10), ("rsqrt_rn", "rsqrt", 9)],
}
MATH_F64_OUT = [("exp_", "exp", 0), ("log_", "log", 1), ("sin_", "sin", 2), ("cos_", "cos", 2),
                ("sin_big", "sin", 3), ("pow_", "pow", 4), ("erf_", "erf", 5),
                ("tanh_", "tanh", 6), ("cbrt_", "cbrt", 7), ("rsqrt_", "rsqrt", 8),
                ("sqrt_", "sqrt", 8), ("atan2_", "atan2", 9), ("tan_", "tan", 2)]


def _math(L, fmt, code, outs, n):
    B = Bufs(L)
    X = B.get("x", code)
    Y = B.get("y", code)
    for name, fn, seg in outs:
        arity = 2 if fn in ("pow", "div", "atan2") else 1
        for i in range(n):
            args = [fp.decode(X[seg * n + i], fmt)]
            if arity == 2:
                args.append(fp.decode(Y[seg * n + i], fmt))
            B.put(name, code, i, enc(true_value(MATH_FNS[fn], args), fmt))
    return B.result()


def math_f32(L, build):
    return _math(L, F32, "I", MATH_F32_OUT[L.entry], L.block[0])


def math_f64(L, build):
    return _math(L, F64, "Q", MATH_F64_OUT, L.block[0])
