"""convert: type conversions over 256 elements in 2 programs of 128: f32 -> f16 and f32 -> bf16
(round to nearest even: overflow to infinity, subnormal results, ties, NaN; cvt.rn.f16.f32,
cvt.rn.bf16.f32), back to f32 (exact), f32 -> fp8 e5m2 (|x| <= 57344; round to nearest even on both
architectures, see e5m2_rne), f32 -> int32 (cvt.rzi: truncation toward zero,
in-range inputs), int32 -> f32 (cvt.rn.f32.s32: rounding of large integers) and int32 -> f16
of i % 65505 (C remainder, so |value| <= 65504; cvt.rn.f16.s32)."""
import triton
import triton.language as tl


@triton.jit
def convert(x_ptr, fx_ptr, gx_ptr, i_ptr, h_ptr, bh_ptr, h2f_ptr, bh2f_ptr, e5_ptr, f2i_ptr,
            i2f_ptr, i2h_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    h = x.to(tl.float16)
    bh = x.to(tl.bfloat16)
    tl.store(h_ptr + offs, h)
    tl.store(bh_ptr + offs, bh)
    tl.store(h2f_ptr + offs, h.to(tl.float32))
    tl.store(bh2f_ptr + offs, bh.to(tl.float32))
    fx = tl.load(fx_ptr + offs)
    tl.store(e5_ptr + offs, fx.to(tl.float8e5))
    tl.store(f2i_ptr + offs, tl.load(gx_ptr + offs).to(tl.int32))
    i = tl.load(i_ptr + offs)
    tl.store(i2f_ptr + offs, i.to(tl.float32))
    tl.store(i2h_ptr + offs, (i % 65505).to(tl.float16))


ARCHS = (80, 90)
BLOCK, SIZE = 128, 256


def e5m2_rne(x):
    """f32 -> e5m2, round to nearest even; |x| <= 57344 here, so saturation never acts. sm_90a:
    cvt.rn.satfinite.e5m2x2.f32. sm_80 (no fp8 cvt): Triton 3.9 keeps a sticky bit in bit 16
    (lop3), truncates to f16 (cvt.rz.f16x2.f32: round to odd, in effect) and rounds the f16 to
    its high byte to nearest even (Triton 3.5 rounded ties away from zero there). The sign of x
    is kept (also for results rounded to 0)."""
    from fractions import Fraction
    import numpy as np
    from common import fp8_decode
    mag = abs(Fraction(float(x)))
    best = None
    for c in range(0x7C):                           # finite non-negative codes, in value order
        d = abs(Fraction(fp8_decode(c, "e5m2")) - mag)
        if best is None or d < best[0] or (d == best[0] and c % 2 == 0):
            best = (d, c)
    return best[1] | (0x80 if np.signbit(np.float32(x)) else 0)


def case(cap):
    import numpy as np
    from common import mixes, uniform_f32, bits_f32, f32_bits, f32_to_bf16_bits, bf16_bits_to_f32
    # x: f16/bf16 edge values first, then random bit patterns with exponents around f16's range.
    edges = [0.0, -0.0, 1.0, 65504.0, 65519.99, 65520.0, -65520.0, 1e10, np.inf, -np.inf, np.nan,
             2.0**-24, 2.0**-25, 2.0**-25 * 1.0000001, 1.5 * 2.0**-25, 2.0**-26, 2.0**-14,
             2.0**-14 - 2.0**-24, 1 + 2.0**-11, 1 + 3 * 2.0**-11, -(1 + 2.0**-11),
             1 + 2.0**-8, 1 + 3 * 2.0**-8, 1 + 2.0**-8 + 2.0**-20, 3.3895314e38, 1e-40, -1e-45]
    xb = []
    for m in mixes(SIZE, 120):
        e = 127 - 30 + (m >> 40) % 50
        xb.append(((m >> 63) << 31) | (e << 23) | (m & 0x7FFFFF))
    x = bits_f32(np.array(xb, dtype=np.uint32))
    x[:len(edges)] = np.array(edges, dtype=np.float32)
    x[100] = bits_f32(np.array([0x7FC00001], np.uint32))[0]   # a NaN with a payload
    x[101] = bits_f32(np.array([0xFF812345], np.uint32))[0]   # a signalling NaN, negative
    # fx (for fp8): |fx| <= 57344: exact f16 values with non-tie low bytes, f16 ties (low byte
    # 0x80: the architectures differ) and general f32 values. gx (for int32): [-2^31, 2^31).
    fx = uniform_f32(SIZE, 121, -256.0, 256.0)
    ties = [np.float16(v) for v in (1.125, 1.375, -1.125, 2.25, 0.5 + 2**-4 * 0.5, 3 * 2.0**-16,
                                    2.0**-17, 2.0**-16 * 2.5, 24576 + 2048)]
    tb = np.array(ties, dtype=np.float16).view(np.uint16)
    fx[:len(ties)] = np.array(ties, dtype=np.float32)
    fx[16:24] = [57344.0, -57344.0, 0.0, -0.0, 2.0**-18, -2.0**-17, 0.5, -0.5]
    fx[24:28] = [40000.0, 3.0e-5, 100.3, 1.0 + 2.0**-23]
    assert np.all(np.abs(fx) <= 57344)
    gx = uniform_f32(SIZE, 123, -2.0**31, 2.0**31)
    gx[:12] = [2147483520.0, -2147483648.0, 1.9999999, -1.9999999, 123.5, -123.5, 0.0, -0.0,
               0.99999994, -0.5, 1e-30, -16777217.0]
    i = np.array([m >> 32 for m in mixes(SIZE, 122)], np.uint64).astype(np.uint32).view(np.int32)
    i[:8] = [0, -1, 16777217, 16777219, -16777217, 2**31 - 1, -2**31, 33554435]

    with np.errstate(over="ignore", invalid="ignore"):
        h = x.astype(np.float16)                  # numpy: IEEE RNE, overflow to inf
    bh = f32_to_bf16_bits(x)
    e5 = np.array([e5m2_rne(v) for v in fx], dtype=np.uint8)
    assert np.all((gx >= -2.0**31) & (gx < 2.0**31))   # fptosi out of range would be poison
    f2i = np.trunc(gx.astype(np.float64)).astype(np.int64).astype(np.int32)
    rem = np.array([int(v) - int(v / 65505) * 65505 for v in i.astype(np.int64)])  # C %
    assert np.all(np.abs(rem) <= 65504)
    buffers = [("x", x), ("fx", fx), ("gx", gx), ("i", i)]
    outs = {"h": h, "bh": bh, "h2f": h.astype(np.float32), "bh2f": bf16_bits_to_f32(bh),
            "e5": e5, "f2i": f2i, "i2f": i.astype(np.float32), "i2h": rem.astype(np.float16)}
    names = ["h", "bh", "h2f", "bh2f", "e5", "f2i", "i2f", "i2h"]
    nan_why = ("cvt.rn.f16.f32 / cvt.rn.bf16.f32 of a NaN give a canonical NaN (PTX ISA: the "
               "payload is not kept); every non-NaN element is exact (numpy and common.py round "
               "to nearest even, overflow to infinity, subnormals kept).")
    return dict(
        kernel=convert, num_warps=4, grid=[SIZE // BLOCK],
        args=[("x_ptr", "*fp32", "x"), ("fx_ptr", "*fp32", "fx"), ("gx_ptr", "*fp32", "gx"),
              ("i_ptr", "*i32", "i"),
              ("h_ptr", "*fp16", "h"), ("bh_ptr", "*bf16", "bh"), ("h2f_ptr", "*fp32", "h2f"),
              ("bh2f_ptr", "*fp32", "bh2f"), ("e5_ptr", "*fp8e5", "e5"),
              ("f2i_ptr", "*i32", "f2i"), ("i2f_ptr", "*fp32", "i2f"), ("i2h_ptr", "*fp16", "i2h"),
              ("BLOCK", "constexpr", BLOCK)],
        buffers=buffers + [(n, outs[n].nbytes) for n in names],
        expected=outs,
        compare={"h": {"elem": "f16", "rule": "nan", "why": nan_why},
                 "bh": {"elem": "bf16", "rule": "nan", "why": nan_why},
                 "h2f": {"elem": "f32", "rule": "nan",
                         "why": nan_why + " cvt.f32.f16 of a NaN: any NaN."},
                 "bh2f": {"elem": "f32", "rule": "nan",
                          "why": nan_why + " cvt.f32.bf16 of a NaN: any NaN."}},
    )
