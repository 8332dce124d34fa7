"""Exact binary floating point for the Python models of corpus/ptx/nvrtc (no host floats).

A value is ('num', Fraction, sign) -- sign is the sign bit, which matters for zeros --, ('inf',
sign) or ('nan',). `decode` reads a format's bits, `encode` rounds an exact value to a format
with a rounding mode ('rn' nearest even, 'rz', 'rd' toward -inf, 'ru' toward +inf) and optional
saturation to the largest finite value. Formats: IEEE-style binary formats given by exponent and
mantissa widths (f16, bf16, f32, f64, e5m2) and OCP E4M3 (no infinities, one NaN per sign:
S.1111.111, so its largest finite value is 448).
"""

from fractions import Fraction

__all__ = ["Fmt", "F16", "BF16", "F32", "F64", "E4M3", "E5M2", "decode", "encode", "num",
           "to_fraction", "is_nan"]


class Fmt:
    def __init__(self, name, ebits, mbits, e4m3=False):
        self.name = name
        self.e = ebits
        self.m = mbits
        self.bias = (1 << (ebits - 1)) - 1
        self.emin = 1 - self.bias
        # E4M3 uses the all-ones exponent for finite values (all but mantissa 111)
        self.emax = self.bias + (1 if e4m3 else 0)
        self.e4m3 = e4m3
        self.width = 1 + ebits + mbits

    def max_finite(self):
        if self.e4m3:
            return Fraction(448)
        return (2 - Fraction(1, 1 << self.m)) * Fraction(2) ** self.emax


F16 = Fmt("f16", 5, 10)
BF16 = Fmt("bf16", 8, 7)
F32 = Fmt("f32", 8, 23)
F64 = Fmt("f64", 11, 52)
E5M2 = Fmt("e5m2", 5, 2)
E4M3 = Fmt("e4m3", 4, 3, e4m3=True)


def num(v, sign=None):
    v = Fraction(v)
    if sign is None:
        sign = 1 if v < 0 else 0
    return ("num", v, sign)


def pow2(e):
    return Fraction(1 << e) if e >= 0 else Fraction(1, 1 << -e)


def decode(bits, f):
    s = (bits >> (f.e + f.m)) & 1
    E = (bits >> f.m) & ((1 << f.e) - 1)
    M = bits & ((1 << f.m) - 1)
    if f.e4m3:
        if E == 15 and M == 7:
            return ("nan",)
    elif E == (1 << f.e) - 1:
        return ("nan",) if M else ("inf", s)
    if E == 0:
        v = Fraction(M, 1 << f.m) * pow2(f.emin)
    else:
        v = (1 + Fraction(M, 1 << f.m)) * pow2(E - f.bias)
    return ("num", -v if s else v, s)


def to_fraction(x):
    assert x[0] == "num", x
    return x[1]


def is_nan(x):
    return x[0] == "nan"


def _floor_log2(a):
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if pow2(e) > a:
        e -= 1
    if pow2(e + 1) <= a:
        e += 1
    return e


def encode(x, f, mode="rn", sat=False, nan_bits=None):
    """Rounds value x to format f; returns the bits. NaN gives nan_bits (the caller's choice)."""
    top = f.e + f.m
    if x[0] == "nan":
        assert nan_bits is not None, "NaN needs the caller's NaN bits"
        return nan_bits
    if x[0] == "inf":
        s = x[1]
        if sat or f.e4m3:
            return (s << top) | encode(num(f.max_finite()), f)
        return (s << top) | (((1 << f.e) - 1) << f.m)
    v, s = x[1], x[2]
    if v != 0:
        s = 1 if v < 0 else 0
    a = abs(v)
    if a == 0:
        return s << top
    e = max(_floor_log2(a), f.emin)
    q = a / pow2(e - f.m)
    n = q.numerator // q.denominator
    r = q - n
    if r:
        if mode == "rn":
            if r > Fraction(1, 2) or (r == Fraction(1, 2) and n & 1):
                n += 1
        elif mode == "rz":
            pass
        elif mode == "ru":
            if not s:
                n += 1
        elif mode == "rd":
            if s:
                n += 1
        else:
            raise ValueError(mode)
    if n == 1 << (f.m + 1):
        n >>= 1
        e += 1
    value = Fraction(n) * pow2(e - f.m)
    if e > f.emax or value > f.max_finite():
        to_inf = {"rn": True, "rz": False, "ru": not s, "rd": bool(s)}[mode]
        if sat or not to_inf:
            return (s << top) | encode(num(f.max_finite()), f)
        if f.e4m3:
            return (s << top) | 0x7F  # no infinity: NaN
        return (s << top) | (((1 << f.e) - 1) << f.m)
    if n < (1 << f.m):
        return (s << top) | n
    return (s << top) | ((e + f.bias) << f.m) | (n - (1 << f.m))


# Exact IEEE operations on values (round-to-nearest zero-sign rules); the caller rounds the
# result with encode(). NaN in gives NaN out.

def neg(x):
    if x[0] == "nan":
        return x
    if x[0] == "inf":
        return ("inf", 1 - x[1])
    return ("num", -x[1], 1 - x[2])


def fma(a, b, c, mode="rn"):
    """a * b + c, exact (a single rounding follows in encode)."""
    if "nan" in (a[0], b[0], c[0]):
        return ("nan",)
    ps = _sign(a) ^ _sign(b)
    if a[0] == "inf" or b[0] == "inf":
        other = b if a[0] == "inf" else a
        if other[0] == "num" and other[1] == 0:
            return ("nan",)  # 0 * inf
        if c[0] == "inf" and c[1] != ps:
            return ("nan",)  # inf - inf
        return ("inf", ps)
    if c[0] == "inf":
        return c
    p = a[1] * b[1]
    v = p + c[1]
    if v != 0:
        return ("num", v, 1 if v < 0 else 0)
    if p == 0 and c[1] == 0:
        s = ps & c[2] if mode != "rd" else ps | c[2]
    else:
        s = 1 if mode == "rd" else 0
    return ("num", Fraction(0), s)


ONE = ("num", Fraction(1), 0)
ZERO = ("num", Fraction(0), 0)
NZERO = ("num", Fraction(0), 1)


def add(a, b, mode="rn"):
    return fma(a, ONE, b, mode)


def sub(a, b, mode="rn"):
    return fma(a, ONE, neg(b), mode)


def mul(a, b, mode="rn"):
    # a * b + (-0) keeps the product's zero sign in every mode but rd... the product alone:
    if "nan" in (a[0], b[0]):
        return ("nan",)
    s = _sign(a) ^ _sign(b)
    if a[0] == "inf" or b[0] == "inf":
        other = b if a[0] == "inf" else a
        if other[0] == "num" and other[1] == 0:
            return ("nan",)
        return ("inf", s)
    return ("num", a[1] * b[1], s)


def div(a, b):
    if "nan" in (a[0], b[0]):
        return ("nan",)
    s = _sign(a) ^ _sign(b)
    if a[0] == "inf":
        return ("nan",) if b[0] == "inf" else ("inf", s)
    if b[0] == "inf":
        return ("num", Fraction(0), s)
    if b[1] == 0:
        return ("nan",) if a[1] == 0 else ("inf", s)
    return ("num", a[1] / b[1], s)


def _sign(x):
    return x[1] if x[0] == "inf" else x[2]


def lt(a, b):
    """a < b (false with a NaN); -0 == +0."""
    if "nan" in (a[0], b[0]):
        return False
    return _key(a) < _key(b)


def _key(x):
    if x[0] == "inf":
        return (1, 0) if x[1] == 0 else (-1, 0)
    return (0, x[1])


def maxnum(a, b):
    """PTX max: NaN -> the other operand; +0 > -0 (the manual's note for min/max)."""
    if a[0] == "nan":
        return b
    if b[0] == "nan":
        return a
    if _key(a) == _key(b) and a[0] == "num":
        return a if a[2] == 0 else b
    return a if lt(b, a) else b


def minnum(a, b):
    if a[0] == "nan":
        return b
    if b[0] == "nan":
        return a
    if _key(a) == _key(b) and a[0] == "num":
        return a if a[2] == 1 else b
    return a if lt(a, b) else b
