"""math_ops: element-wise f32 math over 256 elements in 2 programs of 128: the correctly rounded
tl.sqrt_rn, tl.div_rn and tl.fma (sqrt.rn.ftz, div.rn.ftz, fma.rn: bit-exact on normal values),
the approximate tl.sqrt, tl.rsqrt, tl.exp2, x / y (sqrt.approx.ftz, rsqrt.approx.ftz,
ex2.approx.ftz, div.full), the libdevice-backed tl.log2, tl.sin and tl.erf (inlined __nv_log2f,
__nv_sinf with its Payne-Hanek slow path in a local array, __nv_erff), NaN-propagating
tl.maximum (max.NaN.f32), and int32 //, % (C semantics: div.s32, truncation toward zero; the
remainder as a - q * b) and tl.umulhi (mul.hi.u32)."""
import triton
import triton.language as tl


@triton.jit
def math_ops(x_ptr, y_ptr, z_ptr, w_ptr, a_ptr, b_ptr,
             sqrt_rn_ptr, div_rn_ptr, fma_ptr, sqrt_ptr, rsqrt_ptr, exp2_ptr, log2_ptr, div_ptr,
             sin_ptr, erf_ptr, max_nan_ptr, floordiv_ptr, mod_ptr, umulhi_ptr,
             BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    z = tl.load(z_ptr + offs)
    w = tl.load(w_ptr + offs)
    tl.store(sqrt_rn_ptr + offs, tl.sqrt_rn(x))
    tl.store(div_rn_ptr + offs, tl.div_rn(x, y))
    tl.store(fma_ptr + offs, tl.fma(x, y, z))
    tl.store(sqrt_ptr + offs, tl.sqrt(x))
    tl.store(rsqrt_ptr + offs, tl.rsqrt(x))
    tl.store(exp2_ptr + offs, tl.exp2(z))
    tl.store(log2_ptr + offs, tl.log2(x))
    tl.store(div_ptr + offs, x / y)
    tl.store(sin_ptr + offs, tl.sin(z))
    tl.store(erf_ptr + offs, tl.erf(z))
    tl.store(max_nan_ptr + offs, tl.maximum(w, z, propagate_nan=tl.PropagateNan.ALL))
    a = tl.load(a_ptr + offs)
    b = tl.load(b_ptr + offs)
    tl.store(floordiv_ptr + offs, a // b)
    tl.store(mod_ptr + offs, a % b)
    tl.store(umulhi_ptr + offs, tl.umulhi(a.to(tl.uint32), b.to(tl.uint32)).to(tl.int32))


ARCHS = (80, 90)
BLOCK, SIZE = 128, 256

NAMES = ["sqrt_rn", "div_rn", "fma", "sqrt", "rsqrt", "exp2", "log2", "div", "sin", "erf",
         "max_nan"]
INAMES = ["floordiv", "mod", "umulhi"]


def case(cap):
    import math
    from fractions import Fraction
    import numpy as np
    from common import mixes, uniform_f32, f32_round
    # x > 0 and |y| normal with exponents in [-20, 20]: x / y, x * y + z, sqrt, rsqrt and log2
    # stay normal, so the .ftz forms Triton uses (sqrt.rn.ftz, div.rn.ftz, ...) flush nothing.
    def spread(salt, signed):
        out = []
        for m in mixes(SIZE, salt):
            e = (m >> 40) % 41 - 20
            v = (1 + (m & 0x7FFFFF) / 2.0**23) * 2.0**e
            out.append(-v if signed and (m >> 63) else v)
        return np.array(out, dtype=np.float32)
    x, y = spread(110, False), spread(111, True)
    x[:4] = [1.0, 4.0, 2.0**-20, 0.5]
    z = uniform_f32(SIZE, 112, -4.0, 4.0)
    z[np.abs(z) < 2.0**-8] = 0.75                       # no tiny arguments
    z[4], z[5] = 0.0, -0.0
    w = uniform_f32(SIZE, 113, -4.0, 4.0)
    w[::8] = np.float32(np.nan)
    w[4], w[5] = -0.0, 0.0                              # max.NaN: +0 > -0
    w[6] = z[6]
    ints = lambda salt: np.array([m >> 32 for m in mixes(SIZE, salt)], np.uint64).astype(
        np.uint32).view(np.int32)
    a, b = ints(114), ints(115)
    b[::3] = np.array([m % 13 for m in mixes(SIZE, 116)][::3], np.int32) - 6   # small divisors
    b[b == 0] = 7
    a[:6] = [-2**31, 2**31 - 1, -7, 7, -7, 7]
    b[:6] = [3, -2**31, 2, 2, -2, -2]
    assert not np.any((a == -2**31) & (b == -1))

    F = lambda v: Fraction(float(v))
    out = np.zeros((len(NAMES), SIZE), dtype=np.float32)
    for i in range(SIZE):
        out[0, i] = np.sqrt(x[i])                       # numpy: correctly rounded
        out[1, i] = f32_round(F(x[i]) / F(y[i]))
        out[2, i] = f32_round(F(x[i]) * F(y[i]) + F(z[i]))
        # float64 references (error < 1e-15 relative), rounded to f32: the rules below allow
        # for that rounding.
        out[3, i] = math.sqrt(float(x[i]))
        out[4, i] = 1 / math.sqrt(float(x[i]))
        out[5, i] = 2.0 ** float(z[i])
        out[6, i] = math.log2(float(x[i]))
        out[7, i] = out[1, i]
        out[8, i] = math.sin(float(z[i]))
        out[9, i] = math.erf(float(z[i]))
        if np.isnan(w[i]) or np.isnan(z[i]):
            out[10, i] = np.float32(np.nan)
        elif w[i] == z[i]:
            out[10, i] = w[i] if not np.signbit(w[i]) else z[i]
        else:
            out[10, i] = max(w[i], z[i])
    iout = np.zeros((len(INAMES), SIZE), dtype=np.int64)
    for i in range(SIZE):
        ai, bi = int(a[i]), int(b[i])
        q = abs(ai) // abs(bi) * (1 if (ai < 0) == (bi < 0) else -1)   # C: toward zero
        iout[0, i], iout[1, i] = q, ai - q * bi
        iout[2, i] = ((ai & 0xFFFFFFFF) * (bi & 0xFFFFFFFF)) >> 32
    iout = iout.astype(np.uint64).astype(np.uint32).view(np.int32)

    rules = {
        "sqrt": ("rel:2e-7", "sqrt.approx.ftz.f32: max relative error 2^-23 (PTX ISA 8.7, sqrt), "
                 "plus 2^-24 for rounding the float64 reference: 1.8e-7."),
        "rsqrt": ("rel:2e-7", "rsqrt.approx.ftz.f32: max relative error 2^-22.9 (PTX ISA 8.7, "
                  "rsqrt), plus 2^-24 for rounding the reference: 1.9e-7."),
        "exp2": ("rel:2.5e-7", "ex2.approx.ftz.f32: within 2 ulp of the correctly rounded result "
                 "(PTX ISA 8.7, ex2); 2 ulp <= 2 * 2^-23 |want| = 2.4e-7 |want|."),
        "div": ("rel:3e-7", "x / y is div.full.f32: max 2 ulp (PTX ISA 8.7, div) from the exact "
                "quotient, 2.5 ulp from the correctly rounded expected: <= 2.5 * 2^-23 = 3e-7."),
        "log2": ("rel:3e-7", "tl.log2 is libdevice __nv_log2f (inlined polynomial with "
                 "fma.rn.ftz, no approx instruction): CUDA C++ Programming Guide, Mathematical "
                 "Functions, log2f max 1 ulp (test-based, not guaranteed); allowed 2 ulp + the "
                 "reference rounding, 2.5 * 2^-23 = 3e-7 relative (absolute near log2 = 0)."),
        "sin": ("rel:6e-7", "tl.sin is libdevice __nv_sinf (Cody-Waite reduction, polynomial; the "
                "Payne-Hanek path is compiled but not taken for |z| <= 4): CUDA C++ Programming "
                "Guide, sinf max 2 ulp (test-based); allowed 4.5 ulp = 5.4e-7 relative to the "
                "result, passing absolutely below 6e-7."),
        "erf": ("rel:6e-7", "tl.erf is libdevice __nv_erff: CUDA C++ Programming Guide, erff max "
                "2 ulp (test-based); allowed 4.5 ulp = 5.4e-7 relative."),
    }
    compare = {n: {"elem": "f32", "rule": r, "why": why} for n, (r, why) in rules.items()}
    compare["max_nan"] = {"elem": "f32", "rule": "nan", "why": "max.NaN.f32 returns a canonical "
                          "NaN when either input is NaN (PTX ISA 8.7, max); the bits of that NaN "
                          "are the hardware's, every other element is exact (+0 > -0)."}
    expected = {n: out[i] for i, n in enumerate(NAMES)}
    expected.update({n: iout[i] for i, n in enumerate(INAMES)})
    args = [("x_ptr", "*fp32", "x"), ("y_ptr", "*fp32", "y"), ("z_ptr", "*fp32", "z"),
            ("w_ptr", "*fp32", "w"), ("a_ptr", "*i32", "a"), ("b_ptr", "*i32", "b")]
    args += [(n + "_ptr", "*fp32", n) for n in NAMES] + [(n + "_ptr", "*i32", n) for n in INAMES]
    return dict(
        kernel=math_ops, num_warps=4, grid=[SIZE // BLOCK],
        args=args + [("BLOCK", "constexpr", BLOCK)],
        buffers=[("x", x), ("y", y), ("z", z), ("w", w), ("a", a), ("b", b)]
        + [(n, SIZE * 4) for n in NAMES + INAMES],
        expected=expected, compare=compare,
    )
