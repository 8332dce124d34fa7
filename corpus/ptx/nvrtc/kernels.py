"""The kernel table of corpus/ptx/nvrtc: for every NAME.cu its NVRTC builds, its launches
(deterministic inputs: fixed tables or splitmix64 of the index), its model (the C twin
NAME.twin.c, or a Python function of models.py) and its comparison rules. regen.py reads it.
A kernel with model "host" has no launches here: its host program NAME.host.c (see host.h)
makes the one launch and computes the buffers after it."""

import struct

import fp
import models

# ---------------------------------------------------------------------------------------------
# Table types


class Build:
    """One NVRTC compilation: tag (file name part), virtual architecture, extra options."""

    def __init__(self, tag, arch, *opts):
        self.tag = tag
        self.arch = arch
        self.options = ["--gpu-architecture=" + arch] + list(opts)


def sm80(*opts, tag="sm80"):
    return Build(tag, "compute_80", *opts)


def sm90(*opts, tag="sm90"):
    return Build(tag, "compute_90", *opts)


class Launch:
    def __init__(self, entry, grid, block, buffers, params, shared=0, tag=None, builds=None):
        self.entry = entry
        self.grid = list(grid) + [1] * (3 - len(grid))
        self.block = list(block) + [1] * (3 - len(block))
        assert self.block[0] * self.block[1] * self.block[2] <= 1024
        self.buffers = buffers  # [(name, bytes) or (name, size)]
        self.params = params  # [("buf", name) or (type, value string)]
        self.shared = shared
        self.tag = tag
        self.builds = builds  # None: every build of the kernel


class Kernel:
    def __init__(self, name, builds, launches, model="twin", compare=None, twin_cflags=(),
                 name_expressions=None):
        self.name = name
        self.builds = builds
        self.launches = launches
        self.model = model
        self.compare = compare or {}
        self.twin_cflags = twin_cflags
        self.name_expressions = name_expressions or {}
        tags = [L.tag for L in launches]
        assert len(set(tags)) == len(tags), name

    def ptx_name(self, b):
        return self.name + (".%s" % b.tag if len(self.builds) > 1 else "") + ".ptx"

    def stem(self, L, b):
        return self.name + ("_" + L.tag if L.tag else "") + (
            "." + b.tag if len(self.builds) > 1 else "")

    def compare_for(self, L, b):
        if callable(self.compare):
            return self.compare(L, b)
        return self.compare


def buf(name):
    return ("buf", name)


def u32(v):
    return ("u32", str(v))


def s32(v):
    return ("s32", str(v))


def u64(v):
    return ("u64", str(v))


def f32(x):
    return ("f32", "0x%08x" % struct.unpack("<I", struct.pack("<f", x))[0])


def f64(x):
    return ("f64", "0x%016x" % struct.unpack("<Q", struct.pack("<d", x))[0])


def rule(elem, rule_, why):
    return {"elem": elem, "rule": rule_, "why": why}


# ---------------------------------------------------------------------------------------------
# Inputs

M64 = (1 << 64) - 1


def mix64(x):
    """splitmix64 (the same as ../llvm/ptxk.h's ptxk_mix64)."""
    x = (x + 0x9E3779B97F4A7C15) & M64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & M64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & M64
    return x ^ (x >> 31)


def rand(seed, i):
    return mix64((seed << 32) + i)


def pack(fmt, vals):
    return b"".join(struct.pack("<" + fmt, v) for v in vals)


def u32s(seed, n, mask=0xFFFFFFFF):
    return pack("I", [rand(seed, i) & mask for i in range(n)])


def u64s(seed, n):
    return pack("Q", [rand(seed, i) for i in range(n)])


def f32_bits_spread(seed, i, emin=-10, emax=10):
    """f32 bits with a random sign, an exponent in [emin, emax] (clamped to the finite
    encodings: below -126 are subnormals) and a random mantissa."""
    r = rand(seed, i)
    e = emin + (r >> 40) % (emax - emin + 1)
    field = max(0, min(254, e + 127))
    return ((r >> 63) << 31) | (field << 23) | (r & 0x7FFFFF)


def f32s_spread(seed, n, emin=-10, emax=10):
    return pack("I", [f32_bits_spread(seed, i, emin, emax) for i in range(n)])


def f64_bits_spread(seed, i, emin=-10, emax=10):
    r = rand(seed, i)
    r2 = rand(seed + 1000, i)
    e = emin + (r2 >> 40) % (emax - emin + 1)
    field = max(0, min(2046, e + 1023))
    return ((r >> 63) << 63) | (field << 52) | (r & ((1 << 52) - 1))


def f64s_spread(seed, n, emin=-10, emax=10):
    return pack("Q", [f64_bits_spread(seed, i, emin, emax) for i in range(n)])


# ---------------------------------------------------------------------------------------------
# The kernels

KERNELS = []


def kernel(*a, **kw):
    KERNELS.append(Kernel(*a, **kw))


# warp_reduce: 2 x 128, 250 active
kernel("warp_reduce", [sm80()], [
    Launch("warp_reduce", [2], [128],
           [("in", f32s_spread(1, 256)), ("iv", u32s(2, 256)), ("fsum", 8 * 4),
            ("isum", 256 * 4), ("umax", 8 * 4), ("bcast", 256 * 4)],
           [buf("in"), buf("iv"), buf("fsum"), buf("isum"), buf("umax"), buf("bcast"), s32(250)]),
])

kernel("block_reduce", [sm80()], [
    Launch("block_reduce_tree", [3], [256],
           [("in", f32s_spread(3, 768, -6, 12)), ("out", 3 * 4), ("imax", 3 * 4)],
           [buf("in"), buf("out"), buf("imax"), s32(700)], tag="tree"),
    Launch("block_reduce_warp", [2], [256],
           [("in", f64s_spread(4, 512, -20, 30)), ("out", 2 * 8)],
           [buf("in"), buf("out"), s32(500)], tag="warp"),
])

kernel("scan", [sm80()], [
    Launch("scan_hillis", [2], [256], [("in", u32s(5, 512)), ("out", 512 * 4)],
           [buf("in"), buf("out")], tag="hillis"),
    Launch("scan_blelloch", [2], [256],
           [("in", pack("i", [(rand(6, i) % 2001) - 1000 for i in range(1024)])),
            ("out", 1024 * 4), ("totals", 2 * 4)],
           [buf("in"), buf("out"), buf("totals")], tag="blelloch"),
    Launch("scan_warp", [2], [192], [("in", f32s_spread(7, 384, -8, 8)), ("out", 384 * 4)],
           [buf("in"), buf("out")], tag="warp"),
])


def histogram_data(n):
    out = bytearray()
    for i in range(n):
        r = rand(8, i)
        # half the bytes uniform, half crowded into 8 bins (contended atomics)
        out.append(r & 0xFF if (r >> 8) & 1 else 0x40 + ((r >> 16) & 7))
    return bytes(out)


kernel("histogram", [sm80()], [
    Launch("histogram", [3], [128],
           [("data", histogram_data(4000)), ("bins", 256 * 4), ("wbins", 64 * 8)],
           [buf("data"), s32(1000), buf("bins"), buf("wbins")]),
])

kernel("transpose", [sm80()], [
    Launch("transpose", [3, 2], [32, 8], [("out", 80 * 48 * 4), ("in", u32s(9, 80 * 48))],
           [buf("out"), buf("in"), s32(80), s32(48)]),
])

kernel("bitonic_sort", [sm80()], [
    Launch("bitonic_sort", [2], [128],
           [("keys", pack("I", [rand(10, i) & (0x3FF if i < 256 else 0xFFFFFFFF)
                                for i in range(512)])),
            ("vals", pack("I", list(range(512))))],
           [buf("keys"), buf("vals")]),
])

# ---------------------------------------------------------------------------------------------
# 16-bit floats


def h16_bits(seed, i, fmt):
    """A 16-bit float: specials, exact negations of the previous value (cancellation), or
    random finite bits (subnormals included)."""
    r = rand(seed, i)
    ebits = 5 if fmt == "f16" else 8
    mbits = 15 - ebits
    inf = ((1 << ebits) - 1) << mbits
    specials = [0x0000, 0x8000, inf, inf | 0x8000, inf | 1 << (mbits - 1), 0x0001, 0x8001,
                (1 << mbits) - 1, 1 << mbits, inf - 1, (inf - 1) | 0x8000,
                ((1 << (ebits - 1)) - 1) << mbits, (((1 << (ebits - 1)) - 1) << mbits) | 0x8000]
    k = r % 16
    if k == 0:
        return specials[(r >> 8) % len(specials)]
    b = (r >> 16) & 0xFFFF
    if (b & inf) == inf:  # no random NaN/Inf
        b &= ~(1 << mbits)
    if k < 4:  # near 1 / small exponents, where sums cancel and round
        b = (b & 0x8000) | ((((1 << (ebits - 1)) - 1 + ((r >> 40) % 5) - 2) << mbits)) | (
            b & ((1 << mbits) - 1))
    return b


def h16_pairs(seed, n, fmt, avoid_neg_zero_pairs_with=None):
    words = []
    for i in range(n):
        lo, hi = h16_bits(seed, 2 * i, fmt), h16_bits(seed, 2 * i + 1, fmt)
        words.append(lo | hi << 16)
    return words


def h16_operands(fmt, n):
    a = h16_pairs(11 if fmt == "f16" else 21, n, fmt)
    b = h16_pairs(12 if fmt == "f16" else 22, n, fmt)
    c = h16_pairs(13 if fmt == "f16" else 23, n, fmt)
    for i in range(n):
        r = rand(14, i)
        if r % 5 == 0:  # b = -a: exact cancellation in add, -a*a in mul
            b[i] = a[i] ^ 0x80008000
        elif r % 5 == 1:  # c = -(a*b) roughly: fma cancellation (c = -a)
            c[i] = a[i] ^ 0x80008000
        for sh in (0, 16):  # no (-0, -0) pair in a lane: the sign of add.sat's zero is not pinned
            if (a[i] >> sh) & 0xFFFF == 0x8000 and (b[i] >> sh) & 0xFFFF == 0x8000:
                b[i] ^= 0x8000 << sh
            if fmt == "f16":  # no fma result of -0: whether fma.relu makes it +0 is not pinned
                for repl in (0x0000, 0x3C00):
                    x, y, z = (fp.decode((w >> sh) & 0xFFFF, fp.F16) for w in (a[i], b[i], c[i]))
                    r = fp.fma(x, y, z)
                    if r[0] != "num" or fp.encode(r, fp.F16) != 0x8000:
                        break
                    c[i] = (c[i] & ~(0xFFFF << sh)) | repl << sh
    return pack("I", a), pack("I", b), pack("I", c)


def f32_for_16(seed, n, fmt):
    """f32 inputs for 16-bit conversions: in and around the format's range, exact ties (a
    16-bit value plus half its ulp), specials."""
    out = []
    for i in range(n):
        r = rand(seed, i)
        k = r % 8
        if k == 0:
            sp = [0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0x477FE000,
                  0x477FEFFF, 0x477FF000, 0x477FF001, 0x33800000, 0x33000000, 0x33000001,
                  0x00000001, 0x7F7FFFFF, 0xFF7FFFFF, 0x7F7F8000, 0x7F7F7FFF, 0x3F800000,
                  0xBF801000, 0x3F800800]
            out.append(sp[(r >> 8) % len(sp)])
        elif k < 3:  # a tie between two neighbours of the 16-bit format
            if fmt == "f16":
                e = (r >> 40) % 45 - 27 + 127  # 2^-27 .. 2^17
                b = ((r >> 63) << 31) | (e << 23) | (r & 0x7FE000) | 0x1000
            else:
                e = (r >> 40) % 254 + 1
                b = ((r >> 63) << 31) | (e << 23) | (r & 0x7F0000) | 0x8000
            out.append(b)
        else:
            if fmt == "f16":
                e = (r >> 40) % 45 - 27 + 127
            else:
                e = (r >> 40) % 256
                if e == 255:
                    e = 254
            out.append(((r >> 63) << 31) | (e << 23) | (r & 0x7FFFFF))
    return pack("I", out)


def ints_for_16(seed, n):
    out = []
    for i in range(n):
        r = rand(seed, i)
        k = r % 4
        if k == 0:
            v = (r >> 8) % 4097 - 2048
        elif k == 1:
            v = (r >> 8) % 140001 - 70000
        else:
            v = ((r >> 8) & 0xFFFFFFFF) - (1 << 31)
        out.append(v)
    return pack("i", out)


def h16_compare(fmt, buffers):
    why = ("a NaN result's bits are not fixed: the PTX manual leaves NaN payloads of %s "
           "arithmetic and conversions unspecified (any NaN matches, everything else is bit-exact)"
           % fmt)
    return {b: rule(e, "nan", why) for b, e in buffers}


kernel("half2_math", [sm80()], [
    Launch("half2_arith", [2], [128],
           list(zip(("a", "b", "c"), h16_operands("f16", 256))) +
           [(n, 256 * 4) for n in ("add", "sub", "mul", "fma", "fma_relu", "add_sat", "mx", "mn",
                                   "nabs")],
           [buf(n) for n in ("a", "b", "c", "add", "sub", "mul", "fma", "fma_relu", "add_sat",
                             "mx", "mn", "nabs")] + [s32(250)], tag="arith"),
    Launch("half_convert", [2], [128],
           [("f", f32_for_16(15, 256, "f16")), ("d", f64s_spread(16, 256, -28, 17)),
            ("iv", ints_for_16(17, 256)),
            ("rn", 512), ("rz", 512), ("rd", 512), ("ru", 512), ("back", 1024), ("pair", 1024),
            ("from_d", 512), ("to_int_rn", 1024), ("to_int_rz", 1024), ("from_int", 512)],
           [buf(n) for n in ("f", "d", "iv", "rn", "rz", "rd", "ru", "back", "pair", "from_d",
                             "to_int_rn", "to_int_rz", "from_int")] + [s32(256)], tag="convert"),
], model=models.half2_math,
    compare=lambda L, b: h16_compare("f16", [(n, "f16") for n in (
        "add", "sub", "mul", "fma", "fma_relu", "mx", "mn", "nabs")] if L.tag == "arith" else
        [("rn", "f16"), ("rz", "f16"), ("rd", "f16"), ("ru", "f16"), ("back", "f32"),
         ("pair", "f16")]))

kernel("bf16x2_math", [sm80(), sm90()], [
    Launch("bf16x2_arith", [2], [128],
           list(zip(("a", "b", "c"), h16_operands("bf16", 256))) +
           [(n, 256 * 4) for n in ("add", "sub", "mul", "fma", "mx", "mn", "nabs")],
           [buf(n) for n in ("a", "b", "c", "add", "sub", "mul", "fma", "mx", "mn", "nabs")] +
           [s32(250)], tag="arith"),
    Launch("bf16_convert", [2], [128],
           [("f", f32_for_16(25, 256, "bf16")), ("d", f64s_spread(26, 256, -140, 130)),
            ("iv", ints_for_16(27, 256)),
            ("rn", 512), ("rz", 512), ("rd", 512), ("ru", 512), ("back", 1024), ("pair", 1024),
            ("from_d", 512), ("to_int_rn", 1024), ("from_int", 512)],
           [buf(n) for n in ("f", "d", "iv", "rn", "rz", "rd", "ru", "back", "pair", "from_d",
                             "to_int_rn", "from_int")] + [s32(256)], tag="convert"),
], model=models.bf16x2_math,
    compare=lambda L, b: h16_compare("bf16", [(n, "bf16") for n in (
        "add", "sub", "mul", "fma", "mx", "mn", "nabs")] if L.tag == "arith" else
        [("rn", "bf16"), ("rz", "bf16"), ("rd", "bf16"), ("ru", "bf16"), ("back", "f32"),
         ("pair", "bf16")]))


def fp8_inputs(seed, n, nan):
    """f32 values around the E4M3 / E5M2 ranges: random (2^-22 .. 2^17), ties of both formats
    (a value with exactly half an ulp), the overflow thresholds, infinities, NaNs if asked."""
    sp = [0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x43E00000, 0x43E80000, 0x43E80001,
          0x43E7FFFF, 0x43F00000, 0x47600000, 0x47700000, 0x476FFFFF, 0x47700001, 0x3A800000,
          0x3A000000, 0x3A000001, 0x37800000, 0x37000000, 0x37000001, 0x7F7FFFFF, 0x00000001,
          0xC3E80001, 0xC7700000, 0x3B900000, 0x3B980000]
    if nan:
        sp += [0x7FC00000, 0xFFC00000, 0x7F800001, 0xFFFFFFFF]
    out = []
    for i in range(n):
        r = rand(seed, i)
        k = r % 8
        if k == 0:
            out.append(sp[(r >> 8) % len(sp)])
        elif k < 3:  # ties: mantissa with 3 (E4M3) or 2 (E5M2) bits then a single 1
            keep = 3 if k == 1 else 2
            e = (r >> 40) % 40 - 22 + 127
            m = ((r >> 20) & ((1 << keep) - 1)) << (23 - keep) | 1 << (22 - keep)
            out.append(((r >> 63) << 31) | (e << 23) | m)
        else:
            e = (r >> 40) % 40 - 22 + 127
            out.append(((r >> 63) << 31) | (e << 23) | (r & 0x7FFFFF))
    return pack("I", out)


def no_nan16(seed, n, fmt):
    words = []
    for i in range(2 * n):
        b = h16_bits(seed, i, fmt)
        inf = 0x7C00 if fmt == "f16" else 0x7F80
        if (b & inf) == inf:
            b = (b & 0x8000) | inf  # a NaN becomes an infinity
        words.append(b)
    return pack("I", [words[2 * i] | words[2 * i + 1] << 16 for i in range(n)])


FP8_NAN_WHY = ("fp8 to f16/f32: a NaN's payload is not fixed (cvt.rn.f16x2.e4m3x2 on sm_90 gives "
               "an unspecified NaN, the compute_80 software path 0x7fff); any NaN matches")

kernel("fp8_convert", [sm80(), sm90()], [
    Launch("fp8_from_float", [2], [128],
           [("in", fp8_inputs(31, 512, False)), ("special", fp8_inputs(32, 256, True)),
            ("e4m3x2", 512), ("e5m2x2", 512), ("e4m3_nosat", 256), ("e5m2_nosat", 256),
            ("e4m3x4", 1024)],
           [buf(n) for n in ("in", "special", "e4m3x2", "e5m2x2", "e4m3_nosat", "e5m2_nosat",
                             "e4m3x4")] + [s32(250)], tag="from_float"),
    Launch("fp8_to_half", [2], [128],
           [("h_e4m3", 512), ("h_e5m2", 512), ("f_e4m3", 1024), ("f_e5m2", 1024)],
           [buf(n) for n in ("h_e4m3", "h_e5m2", "f_e4m3", "f_e5m2")], tag="to_half"),
    Launch("fp8_from_16", [2], [128],
           [("h2", no_nan16(33, 256, "f16")), ("b2", no_nan16(34, 256, "bf16")),
            ("h_e4m3x2", 512), ("h_e5m2x2", 512), ("b_e4m3x2", 512), ("b_e5m2x2", 512)],
           [buf(n) for n in ("h2", "b2", "h_e4m3x2", "h_e5m2x2", "b_e4m3x2", "b_e5m2x2")] +
           [s32(256)], tag="from_16"),
], model=models.fp8_convert,
    compare=lambda L, b: {n: rule(e, "nan", FP8_NAN_WHY) for n, e in (
        ("h_e4m3", "f16"), ("h_e5m2", "f16"), ("f_e4m3", "f32"), ("f_e5m2", "f32"))}
    if L.tag == "to_half" else {})


EDGE32 = [0, 1, 2, 0xFFFFFFFF, 0x80000000, 0x7FFFFFFF, 0x00800000, 0x00FFFFFF, 0xFF800000,
          0x007FFFFF, 0x80000001, 0xFFFF0000, 0x0000FFFF, 0x01010101, 0x80808080, 0x7F7F7F7F,
          0xFEFEFEFE, 31, 32, 33, 63, 64, 0x12345678]
EDGE64 = [0, 1, 0xFFFFFFFFFFFFFFFF, 0x8000000000000000, 0x7FFFFFFFFFFFFFFF, 0x100000000,
          0xFFFFFFFF, 0x8000000000000001, 0x0123456789ABCDEF]


def edge_then_random(seed, n, edges, bits=32):
    out = []
    for i in range(n):
        if i < len(edges) * 2 and i % 2 == 0:
            out.append(edges[(i // 2 + seed) % len(edges)])
        else:
            r = rand(seed, i)
            if bits == 32:
                r &= 0xFFFFFFFF
                if (r >> 33) % 4 == 0:
                    r &= 0xFF  # small values: shift amounts, small multiplies
            out.append(r)
    return out


kernel("bit_tricks", [sm80()], [
    Launch("bit_tricks", [2], [128],
           [("a", pack("I", edge_then_random(40, 256, EDGE32))),
            ("b", pack("I", edge_then_random(41, 256, EDGE32))),
            ("c", pack("Q", edge_then_random(42, 512, EDGE64, 64))),
            ("out", 200 * 32 * 4), ("out64", 200 * 8 * 8)],
           [buf("a"), buf("b"), buf("c"), buf("out"), buf("out64"), s32(200)]),
])


# ---------------------------------------------------------------------------------------------
# IEEE f32 / f64

F32_SPECIAL = [0x00000000, 0x80000000, 0x00000001, 0x807FFFFF, 0x00800000, 0x3F800000,
               0xBF800000, 0x3EAAAAAB, 0x40400000, 0x3F800001, 0x7F7FFFFF, 0xFF7FFFFF,
               0x7F800000, 0xFF800000, 0x7FC00000, 0x4B800001]
F32_ADDEND = [0x00000000, 0x80000000, 0x3F800000, 0xB3800000, 0x7F7FFFFF, 0x00000003,
              0xC0400000, 0x7F800000, 0x2EDBE6FF]
F64_SPECIAL = [0x0000000000000000, 0x8000000000000000, 0x0000000000000001, 0x800FFFFFFFFFFFFF,
               0x0010000000000000, 0x3FF0000000000000, 0xBFF0000000000000, 0x3FD5555555555555,
               0x4008000000000000, 0x3FF0000000000001, 0x7FEFFFFFFFFFFFFF, 0xFFEFFFFFFFFFFFFF,
               0x7FF0000000000000, 0xFFF0000000000000, 0x7FF8000000000000, 0x47EFFFFFE0000000]
F64_ADDEND = [0x0000000000000000, 0x8000000000000000, 0x3FF0000000000000, 0xBCA0000000000000,
              0x7FEFFFFFFFFFFFFF, 0x0000000000000003, 0xC008000000000000, 0x7FF0000000000000,
              0x3C9C000000000000]


def special_pairs(specials, addends, random_bits, n_random):
    """All pairs of specials (a, b), c cycling through addends; then n_random random triples."""
    a, b, c = [], [], []
    for i, x in enumerate(specials):
        for j, y in enumerate(specials):
            a.append(x)
            b.append(y)
            c.append(addends[(i * len(specials) + j) % len(addends)])
    for k in range(n_random):
        a.append(random_bits(3 * k))
        b.append(random_bits(3 * k + 1))
        c.append(random_bits(3 * k + 2))
    return a, b, c


F_NAN_WHY = ("a NaN result's bits are not fixed (PTX manual: single-precision instructions return "
             "an unspecified NaN; double-precision NaN payloads differ from the host's); any NaN "
             "matches, every other element is bit-exact")

a, b, c = special_pairs(F64_SPECIAL, F64_ADDEND, lambda i: f64_bits_spread(50, i, -1030, 1030), 44)
kernel("f64_arith", [sm80("--fmad=false")], [
    Launch("f64_arith", [3], [100], [("a", pack("Q", a)), ("b", pack("Q", b)), ("c", pack("Q", c)),
                                      ("out", 300 * 24 * 8)],
           [buf("a"), buf("b"), buf("c"), buf("out"), s32(300)]),
], compare={"out": rule("f64", "nan", F_NAN_WHY)}, twin_cflags=["-frounding-math"])

a, b, c = special_pairs(F32_SPECIAL, F32_ADDEND, lambda i: f32_bits_spread(51, i, -130, 127), 44)
kernel("f32_directed", [sm80()], [
    Launch("f32_directed", [3], [100], [("a", pack("I", a)), ("b", pack("I", b)),
                                         ("c", pack("I", c)), ("out", 300 * 24 * 4)],
           [buf("a"), buf("b"), buf("c"), buf("out"), s32(300)]),
], compare={"out": rule("f32", "nan", F_NAN_WHY)}, twin_cflags=["-frounding-math"])


def convert_inputs(n):
    fs = [0x00000000, 0x80000000, 0x3F000000, 0xBF000000, 0x3FC00000, 0xC0200000, 0x40200000,
          0x4EFFFFFF, 0x4F000000, 0xCF000000, 0xCF000001, 0x4F7FFFFF, 0x4F800000, 0x5EFFFFFF,
          0x5F000000, 0xDF000000, 0xDF000001, 0x5F7FFFFF, 0x5F800000, 0x7F800000, 0xFF800000,
          0x7FC00000, 0x00000001, 0x3EFFFFFF, 0x4B000001, 0x4AFFFFFF, 0xBEFFFFFF, 0xCB000001]
    ds = [0x0000000000000000, 0x41DFFFFFFFE00000, 0x41DFFFFFFFF00000, 0xC1E0000000100000,
          0xC1E0000000000000, 0x41EFFFFFFFE00000, 0x41EFFFFFFFF00000, 0x41F0000000000000,
          0x43E0000000000000, 0x43DFFFFFFFFFFFFF, 0xC3E0000000000000, 0xC3E0000000000001,
          0x43F0000000000000, 0x43EFFFFFFFFFFFFF, 0x7FF0000000000000, 0x7FF8000000000000,
          0xBFE0000000000000, 0x3FF8000000000000, 0x47EFFFFFF0000000, 0x47EFFFFFE0000001,
          0x36A0000000000000, 0x3690000000000001, 0x380FFFFFE0000000, 0xB80FFFFFF0000000,
          0x3FF0000010000000, 0x3FF0000010000001]
    ls = [0, 1, -1, 0x7FFFFFFF, -0x80000000, 0x1000001, -0x1000001, 0x20000000000001,
          -0x20000000000001, 0x7FFFFFFFFFFFFFFF, -0x8000000000000000, 0xFFFFFFFF, 0x100000000,
          0x7FFFFFC0, 0x7FFFFFBF, 0x12345678, -0x12345679ABCDEF]
    f, d, l = [], [], []
    for i in range(n):
        r = rand(55, i)
        if i < len(fs):
            f.append(fs[i])
        elif r & 1:
            f.append(f32_bits_spread(56, i, -3, 66))
        else:  # multiples of 1/8 in [-250, 250): ties and near-ties of every rounding
            f.append(struct.unpack("<I", struct.pack("<f", ((r >> 8) % 4000 - 2000) / 8.0))[0])
        d.append(ds[i] if i < len(ds) else f64_bits_spread(57, i, -160, 130) if r & 2 else
                 f64_bits_spread(58, i, -2, 66))
        if i < len(ls):
            l.append(ls[i])
        else:
            v = rand(59, i)
            v >>= (r >> 10) % 64  # magnitudes of every width
            l.append(v - (1 << 63) if v >> 63 else (-v if r & 4 else v))
    return pack("I", f), pack("Q", d), pack("q", l)


fin, din, lin = convert_inputs(256)
kernel("f32_convert", [sm80()], [
    Launch("f32_convert", [2], [128],
           [("f", fin), ("d", din), ("ll", lin), ("oi", 256 * 8 * 4), ("ou", 256 * 4 * 4),
            ("oll", 256 * 4 * 8), ("oull", 256 * 2 * 8), ("of", 256 * 24 * 4),
            ("od", 256 * 4 * 8)],
           [buf(x) for x in ("f", "d", "ll", "oi", "ou", "oll", "oull", "of", "od")] +
           [s32(256)]),
], compare={"of": rule("f32", "nan", F_NAN_WHY)}, twin_cflags=["-frounding-math"])


# ---------------------------------------------------------------------------------------------
# Math library

def uniform_bits(seed, i, lo, hi, fmt="f"):
    """A float of format fmt ("f" or "d") uniform in [lo, hi] by value, rounded."""
    r = rand(seed, i) >> 11
    v = lo + (hi - lo) * (r / float(1 << 53))
    code = "I" if fmt == "f" else "Q"
    return struct.unpack("<" + code, struct.pack("<" + fmt, v))[0]


def loguniform_bits(seed, i, e_lo, e_hi, fmt="f", neg=False):
    """Magnitude 2^u, u uniform in [e_lo, e_hi]; negative half the time if neg."""
    r = rand(seed, i)
    u = e_lo + (e_hi - e_lo) * ((r >> 11) / float(1 << 53))
    v = 2.0 ** u
    if neg and r & 1:
        v = -v
    code = "I" if fmt == "f" else "Q"
    return struct.unpack("<" + code, struct.pack("<" + fmt, v))[0]


def f32_from(v):
    return struct.unpack("<I", struct.pack("<f", v))[0]


def segments(seed, n, gens, fmt="f"):
    """Segment k: n values from gens[k](seed, i) (None: zeros)."""
    out = []
    for k, g in enumerate(gens):
        for i in range(n):
            out.append(g(seed * 100 + k, i) if g else 0)
    return pack("I" if fmt == "f" else "Q", out)


PI = 3.141592653589793


def log_far_f32(s, i):
    # outside [0.5, 2]: [2^-60, 0.5) or (2, 2^60]
    return loguniform_bits(s, i, -60, -1.0001) if i % 2 else loguniform_bits(s, i, 1.0001, 60)


MATH_F32_X = [
    lambda s, i: uniform_bits(s, i, -20, 20),                     # 0 exp
    lambda s, i: uniform_bits(s, i, 0.5, 2.0),                    # 1 log near 1
    log_far_f32,                                                  # 2 log, log2 away from 1
    lambda s, i: uniform_bits(s, i, -PI + 1e-6, PI - 1e-6),       # 3 sin, cos in [-pi, pi]
    lambda s, i: uniform_bits(s, i, -100 * PI + 1e-3, 100 * PI - 1e-3),  # 4 sin large
    lambda s, i: uniform_bits(s, i, 0.1, 10),                     # 5 pow base
    lambda s, i: (loguniform_bits(s, i, -20, 2, neg=True)),       # 6 erf: 2^-20 <= |x| <= 4
    lambda s, i: uniform_bits(s, i, -30, 30),                     # 7 exp2
    lambda s, i: uniform_bits(s, i, -5, 5),                       # 8 tanh
    lambda s, i: loguniform_bits(s, i, -60, 60),                  # 9 rsqrt, sqrt
    lambda s, i: loguniform_bits(s, i, -40, 40, neg=True),        # 10 div numerator
]
MATH_F32_Y = [None] * 5 + [lambda s, i: uniform_bits(s, i, -4, 4)] + [None] * 4 + [
    lambda s, i: loguniform_bits(s, i, -40, 40, neg=True)]        # 10 div denominator


def ulp_why(fn, n, extra=""):
    return ("CUDA C Programming Guide, Mathematical Functions appendix, %s: maximum error %d ulp "
            "(from the correctly rounded result); reference: mpmath at 300 bits rounded to "
            "nearest%s" % (fn, n, extra))


HALF_ULP_NOTE = (" plus half an ulp of the reference, which is the correctly rounded value "
                 "(a rel/abs bound measures from the true value)")


def math_f32_rules(L, b):
    fast = b.tag == "fast"
    R = {}
    guide = "CUDA C Programming Guide, Mathematical Functions appendix"
    ptx = "PTX ISA manual (8.7, /work/shared/ptx-isa/ptx-isa-8.7.zh.txt)"
    expf_fast = rule("f32", "ulp:25", "%s, __expf (what --use_fast_math makes of expf): maximum "
                     "ulp error 2 + floor(abs(1.173 * x)) = 25 for |x| <= 20, the input range" % guide)
    logn_fast = rule("f32", "abs:3.9e-7", "%s, __logf: for x in [0.5, 2] maximum absolute error "
                     "2^-21.41 (3.58e-7)%s: 2^-25 for |log x| < 0.7" % (guide, HALF_ULP_NOTE))
    logf_fast = rule("f32", "ulp:3", "%s, __logf: outside [0.5, 2] maximum ulp error 3" % guide)
    sin_fast = rule("f32", "abs:3.9e-7", "%s, __sinf: for x in [-pi, pi] maximum absolute error "
                    "2^-21.41 (3.58e-7)%s: at most 2^-25" % (guide, HALF_ULP_NOTE))
    cos_fast = rule("f32", "abs:4.5e-7", "%s, __cosf: for x in [-pi, pi] maximum absolute error "
                    "2^-21.19 (4.17e-7)%s: at most 2^-25" % (guide, HALF_ULP_NOTE))
    pow_fast = rule("f32", "rel:1e-5", "__powf(x, y) is ex2.approx.ftz(y * lg2.approx.ftz(x)) "
                    "(%s: lg2.approx absolute error 2^-22 in (0.5, 2), relative 2^-22 outside; "
                    "ex2.approx 2 ulp). For x in [0.1, 10], |y| <= 4: |log2 x| <= 3.33, the "
                    "exponent t = y*log2(x) is off by at most 4*3.33*2^-22 + |t|*2^-24 <= 4.0e-6, "
                    "so 2^t by a relative ln2*4.0e-6 = 2.8e-6, plus 2.4e-7 (ex2) and 6e-8 "
                    "(reference rounding): 3.1e-6 < 1e-5" % ptx)
    if L.entry == "math_f32":
        R["exp_"] = expf_fast if fast else rule("f32", "ulp:2", ulp_why("expf", 2))
        R["log_near"] = logn_fast if fast else rule("f32", "ulp:1", ulp_why("logf", 1))
        R["log_far"] = logf_fast if fast else rule("f32", "ulp:1", ulp_why("logf", 1))
        R["sin_small"] = sin_fast if fast else rule("f32", "ulp:2", ulp_why("sinf", 2))
        R["cos_small"] = cos_fast if fast else rule("f32", "ulp:2", ulp_why("cosf", 2))
        R["sin_big"] = rule("f32", "abs:3.8e-5", "--use_fast_math: sinf is sin.approx.ftz.f32; "
                            "%s, sin: maximum absolute error 2^-14.7 (3.76e-5) in "
                            "[-100pi, 100pi]%s" % (ptx, HALF_ULP_NOTE)) if fast else rule(
            "f32", "ulp:2", ulp_why("sinf", 2, " (Payne-Hanek reduction for |x| > 105615)"))
        R["pow_"] = pow_fast if fast else rule("f32", "ulp:4", ulp_why("powf", 4))
        R["erf_"] = rule("f32", "ulp:2", ulp_why("erff", 2, "; --use_fast_math keeps the "
                         "library algorithm (only .ftz is added) and no input, intermediate or "
                         "result of the segment (|x| in [2^-20, 4]) is subnormal" if fast else ""))
        R["exp2_"] = rule("f32", "ulp:2", "%s (--use_fast_math: ex2.approx.ftz.f32, %s: maximum "
                          "ulp error 2 over the whole range)" % (ulp_why("exp2f", 2), ptx))
        R["log2_"] = rule("f32", "rel:3.0e-7", "--use_fast_math: log2f is lg2.approx.ftz.f32; "
                          "%s: relative error 2^-22 (2.38e-7) for inputs outside (0.5, 2)%s: "
                          "2^-24" % (ptx, HALF_ULP_NOTE)) if fast else rule(
            "f32", "ulp:1", ulp_why("log2f", 1))
        R["tanh_"] = rule("f32", "rel:4.9e-4", "--use_fast_math: tanhf is tanh.approx.f32; %s: "
                          "maximum relative error 2^-11 (4.88e-4)%s" % (ptx, HALF_ULP_NOTE)
                          ) if fast else rule("f32", "ulp:2", ulp_why("tanhf", 2))
        R["rsqrt_"] = rule("f32", "ulp:2", ulp_why("rsqrtf", 2))
        if fast:
            R["sqrt_"] = rule("f32", "rel:1.8e-7", "--use_fast_math (-prec-sqrt=false): sqrtf is "
                              "sqrt.approx.ftz.f32; %s: maximum relative error 2^-23 (1.19e-7)%s:"
                              " 2^-24" % (ptx, HALF_ULP_NOTE))
            R["div_"] = rule("f32", "ulp:2", "--use_fast_math (-prec-div=false): x/y is "
                             "div.approx.ftz.f32; %s and the Guide's x/y row: maximum ulp error 2 "
                             "for |y| in [2^-126, 2^126] (here |y| in [2^-40, 2^40])" % ptx)
    else:
        R["exp_"] = expf_fast
        R["log_near"] = logn_fast
        R["log_far"] = logf_fast
        R["sin_small"] = sin_fast
        R["cos_small"] = cos_fast
        R["pow_"] = pow_fast
        R["log2_"] = rule("f32", "ulp:2", "%s, __log2f: outside [0.5, 2] maximum ulp error 2" %
                          guide)
        R["fdiv"] = rule("f32", "ulp:2", "%s, __fdividef(x, y): for |y| in [2^-126, 2^126] "
                         "maximum ulp error 2" % guide)
    return R


MATH_N = 128
kernel("math_f32", [sm80(), sm80("--use_fast_math", tag="fast")], [
    Launch("math_f32", [1], [MATH_N],
           [("x", segments(60, MATH_N, MATH_F32_X)), ("y", segments(61, MATH_N, MATH_F32_Y))] +
           [(n, MATH_N * 4) for n, _, _ in models.MATH_F32_OUT["math_f32"]],
           [buf("x"), buf("y")] + [buf(n) for n, _, _ in models.MATH_F32_OUT["math_f32"]],
           tag="std"),
    Launch("math_f32_intrinsics", [1], [MATH_N],
           [("x", segments(60, MATH_N, MATH_F32_X)), ("y", segments(61, MATH_N, MATH_F32_Y))] +
           [(n, MATH_N * 4) for n, _, _ in models.MATH_F32_OUT["math_f32_intrinsics"]],
           [buf("x"), buf("y")] +
           [buf(n) for n, _, _ in models.MATH_F32_OUT["math_f32_intrinsics"]], tag="intr"),
], model=models.math_f32, compare=math_f32_rules)

MATH_F64_X = [
    lambda s, i: uniform_bits(s, i, -700, 700, "d"),                 # 0 exp
    lambda s, i: loguniform_bits(s, i, -1000, 1000, "d"),            # 1 log
    lambda s, i: uniform_bits(s, i, -10, 10, "d"),                   # 2 sin cos tan
    lambda s, i: loguniform_bits(s, i, 20, 1000, "d", neg=True),     # 3 sin, huge
    lambda s, i: uniform_bits(s, i, 0.01, 100, "d"),                 # 4 pow base
    lambda s, i: loguniform_bits(s, i, -30, 2.5, "d", neg=True),     # 5 erf
    lambda s, i: uniform_bits(s, i, -20, 20, "d"),                   # 6 tanh
    lambda s, i: loguniform_bits(s, i, -1000, 1000, "d", neg=True),  # 7 cbrt
    lambda s, i: loguniform_bits(s, i, -1000, 1000, "d"),            # 8 rsqrt sqrt
    lambda s, i: uniform_bits(s, i, -100, 100, "d"),                 # 9 atan2 y
]
MATH_F64_Y = [None] * 4 + [lambda s, i: uniform_bits(s, i, -50, 50, "d")] + [None] * 4 + [
    lambda s, i: uniform_bits(s, i, -100, 100, "d")]
F64_ULP = {"exp_": ("exp", 1), "log_": ("log", 1), "sin_": ("sin", 2), "cos_": ("cos", 2),
           "sin_big": ("sin", 2), "pow_": ("pow", 2), "erf_": ("erf", 2), "tanh_": ("tanh", 2),
           "cbrt_": ("cbrt", 1), "rsqrt_": ("rsqrt", 1), "atan2_": ("atan2", 2),
           "tan_": ("tan", 2)}
kernel("math_f64", [sm80()], [
    Launch("math_f64", [1], [64],
           [("x", segments(62, 64, MATH_F64_X, "d")), ("y", segments(63, 64, MATH_F64_Y, "d"))] +
           [(n, 64 * 8) for n, _, _ in models.MATH_F64_OUT],
           [buf("x"), buf("y")] + [buf(n) for n, _, _ in models.MATH_F64_OUT]),
], model=models.math_f64, compare={b: rule("f64", "ulp:%d" % u, ulp_why(f + " (double)", u))
                                   for b, (f, u) in F64_ULP.items()})


# ---------------------------------------------------------------------------------------------
# Calls, recursion, cooperative groups

kernel("noinline_struct", [sm80()], [
    Launch("noinline_struct", [2], [64],
           [("in", pack("I", edge_then_random(70, 256, EDGE32))),
            ("tab", pack("i", [(-1) ** k * (k * 7919 % 1000) for k in range(8)])),
            ("oi", 128 * 4), ("of", 128 * 4), ("od", 128 * 8), ("ou", 128 * 16),
            ("o4", 128 * 16)],
           [buf(x) for x in ("in", "tab", "oi", "of", "od", "ou", "o4")] + [s32(120)]),
])

kernel("recursion", [sm80()], [
    Launch("recursion", [2], [64],
           [("a", pack("i", [rand(71, i) % 199 - 99 for i in range(160)])), ("out", 128 * 12)],
           [buf("a"), buf("out"), s32(128)]),
])

kernel("coop_groups", [sm80(), sm90()], [
    Launch("coop_groups", [2], [128],
           [("in", pack("i", [rand(72, i) % 2001 - 1000 for i in range(256)])),
            ("fin", f32s_spread(73, 256, -8, 8)), ("out", 256 * 20 * 4), ("fout", 32 * 4),
            ("counts", 16 * 4)],
           [buf("in"), buf("fin"), buf("out"), buf("fout"), buf("counts")]),
])

kernel("stencil", [sm80(), sm80("-lineinfo", tag="lineinfo"), sm80("-G", tag="G")], [
    Launch("stencil", [3], [64], [("out", 192 * 4), ("in", f32s_spread(74, 192, -4, 4))],
           [buf("out"), buf("in"), s32(180), f32(0.3), s32(3)]),
])


# ---------------------------------------------------------------------------------------------
# Tensor cores, asynchronous copies, barriers, clusters

def quarter_halves(seed, n, fmt):
    """k/4 for k in [-8, 8] as f16 / bf16 / f32 bits: every product and partial sum is exact."""
    out = []
    for i in range(n):
        v = ((rand(seed, i) % 17) - 8) / 4.0
        if fmt == "f16":
            out.append(struct.unpack("<H", struct.pack("<e", v))[0])
        elif fmt == "bf16":
            out.append(struct.unpack("<I", struct.pack("<f", v))[0] >> 16)
        else:
            out.append(struct.unpack("<I", struct.pack("<f", v))[0])
    return pack("H" if fmt != "f32" else "I", out)


def frac_halves(seed, n):
    """Random halves in [-1, 1] with exponents down to 2^-6 (no subnormals)."""
    out = []
    for i in range(n):
        r = rand(seed, i)
        e = 15 - (r >> 20) % 7  # 2^0 .. 2^-6
        out.append(((r >> 63) << 15) | (e << 10) | (r & 0x3FF))
    return pack("H", out)


WM, WN, WK = 32, 32, 48
ints_c = pack("I", [f32_from(float((rand(80, i) % 129) - 64)) for i in range(WM * WN)])
WMMA_WHY = ("mma with f32 accumulation: the PTX manual does not fix the order or the internal "
            "precision of the sum of products. Here |a|, |b| <= 1 (halves, no subnormals) and "
            "|c| <= 1, so every partial sum is below 49 in magnitude; the 48 products are exact "
            "and each of the at most 48 + 3 truncations/roundings of an aligned partial sum to "
            "24 bits loses less than ulp(64) = 2^-17, i.e. 51 * 2^-17 = 3.9e-4 in all; abs:2e-3 "
            "leaves a factor 5 and still catches any misplaced element (the elements are O(1))")
kernel("wmma", [sm80()], [
    Launch("wmma_f16", [1], [128],
           [("a", quarter_halves(81, WM * WK, "f16")), ("b", quarter_halves(82, WN * WK, "f16")),
            ("c", ints_c), ("d", WM * WN * 4)],
           [buf("a"), buf("b"), buf("c"), buf("d"), s32(WM), s32(WN), s32(WK)], tag="f16"),
    Launch("wmma_f16", [1], [128],
           [("a", frac_halves(83, WM * WK)), ("b", frac_halves(84, WN * WK)),
            ("c", pack("I", [uniform_bits(85, i, -1, 1) for i in range(WM * WN)])),
            ("d", WM * WN * 4)],
           [buf("a"), buf("b"), buf("c"), buf("d"), s32(WM), s32(WN), s32(WK)], tag="f16_frac"),
    Launch("wmma_bf16", [1], [128],
           [("a", quarter_halves(86, WM * WK, "bf16")), ("b", quarter_halves(87, WN * WK, "bf16")),
            ("c", ints_c), ("d", WM * WN * 4)],
           [buf("a"), buf("b"), buf("c"), buf("d"), s32(WM), s32(WN), s32(WK)], tag="bf16"),
    Launch("wmma_tf32", [1], [128],
           [("a", quarter_halves(88, WM * WK, "f32")), ("b", quarter_halves(89, WN * WK, "f32")),
            ("c", ints_c), ("d", WM * WN * 4)],
           [buf("a"), buf("b"), buf("c"), buf("d"), s32(WM), s32(WN), s32(WK)], tag="tf32"),
], compare=lambda L, b: {"d": rule("f32", "abs:2e-3", WMMA_WHY)} if L.tag == "f16_frac" else {})

kernel("cp_async", [sm80()], [
    Launch("cp_async_pipeline", [2], [128], [("in", u32s(90, 2 * 4 * 128 * 4)), ("out", 256 * 4)],
           [buf("in"), buf("out"), s32(4)], tag="pipeline"),
    Launch("cp_async_sizes", [2], [128], [("in", u32s(91, 2 * 8 * 128)), ("out", 2 * 8 * 128 * 4)],
           [buf("in"), buf("out")], tag="sizes"),
    Launch("cg_memcpy_async", [2], [128], [("in", f32s_spread(92, 1000, -20, 20)),
                                            ("out", 1000 * 4)],
           [buf("in"), buf("out"), s32(500)], tag="cg"),
])

kernel("mbarrier", [sm80(), sm90()], [
    Launch("barrier_phases", [2], [128], [("in", u32s(93, 256)), ("out", 256 * 4)],
           [buf("in"), buf("out")], tag="phases"),
    Launch("barrier_memcpy", [2], [128], [("in", f32s_spread(94, 1024, -10, 10)),
                                           ("out", 256 * 4)],
           [buf("in"), buf("out")], tag="memcpy"),
    Launch("mbarrier_raw", [2], [128],
           [("in", pack("i", [rand(95, i) % 100001 - 50000 for i in range(256)])),
            ("out", 256 * 4)], [buf("in"), buf("out")], tag="raw"),
])

kernel("cluster", [sm90()], [
    Launch("cluster_dsmem", [8], [128],
           [("in", u32s(96, 1024)), ("out", 1024 * 4), ("sums", 2 * 128 * 4), ("counts", 2 * 4)],
           [buf("in"), buf("out"), buf("sums"), buf("counts")], tag="dsmem"),
    Launch("cluster_2d", [4, 2], [8, 8], [("out", 8 * 64 * 2 * 4)], [buf("out")], tag="2d"),
])

# Warp-specialized pipeline: 2 clusters of 2 CTAs, 8 tiles of 64 words per CTA; 1 producer warp
# and 2 consumer warps; 3 output words per consumer thread.
kernel("ws_pipeline", [sm90()], [
    Launch("ws_pipeline", [4], [96], [("in", u32s(130, 4 * 8 * 64)), ("out", 4 * 64 * 3 * 4)],
           [buf("in"), buf("out")]),
])

# Multicast pipeline (compute_90a: .multicast::cluster): 3 clusters of 2 CTAs, 6 tiles of 64
# words per cluster, each CTA loading half of every tile for both; one output word per consumer
# thread.
kernel("ws_multicast", [Build("sm90a", "compute_90a")], [
    Launch("ws_multicast", [6], [96], [("in", u32s(131, 3 * 6 * 64)), ("out", 6 * 64 * 4)],
           [buf("in"), buf("out")]),
])


# ---------------------------------------------------------------------------------------------
# Everyday kernels

AXPY_F = "_Z4axpyIfEvPT_PKS0_S0_i"
AXPY_D = "_Z4axpyIdEvPT_PKS0_S0_i"
kernel("saxpy_template", [sm80()], [
    Launch(AXPY_F, [2], [64], [("y", f32s_spread(100, 1000, -12, 12)),
                               ("x", f32s_spread(101, 1000, -12, 12))],
           [buf("y"), buf("x"), f32(-1.7182818), s32(1000)], tag="f32"),
    Launch(AXPY_D, [2], [64], [("y", f64s_spread(102, 1000, -30, 30)),
                               ("x", f64s_spread(103, 1000, -30, 30))],
           [buf("y"), buf("x"), f64(0.1), s32(1000)], tag="f64"),
    Launch("axpy_u16", [2], [64], [("y", pack("H", [rand(104, i) & 0xFFFF for i in range(1000)])),
                                   ("x", pack("H", [rand(105, i) & 0xFFFF for i in range(1000)]))],
           [buf("y"), buf("x"), ("u16", "40503"), s32(997)], tag="u16"),
], name_expressions={"axpy<float>": AXPY_F, "axpy<double>": AXPY_D})

kernel("atomics", [sm80()], [
    Launch("atomics", [2], [128],
           [("in", pack("i", [(rand(106, i) & 0xFFFFFFFF) - (1 << 31) if i % 3 else
                              rand(106, i) % 2001 - 1000 for i in range(256)])),
            ("u", pack("I", [0, 0, 0, 0xFFFFFFFF, 0xFFFFFFFF, 0, 0, 37, 5])),
            ("u64", pack("Q", [0, 0, 0x7FFFFFFFFFFFFFFF])),
            ("s", pack("i", [-(1 << 31), (1 << 31) - 1])),
            ("f", pack("f", [0.0, -1e30])),
            ("own", pack("I", [(rand(107, i) & 3) if i % 2 else rand(107, i) & 0xFFFFFFFF
                               for i in range(512)]))],
           [buf(x) for x in ("in", "u", "u64", "s", "f", "own")]),
])


def vote_inputs():
    out = []
    for i in range(128):
        r = rand(108, i)
        w = i // 32
        if w == 2:
            out.append(r % 1024)  # v >> 10 == 0 everywhere: match_all succeeds
        elif w == 3:
            out.append(r % 999 + 1)  # all > -1000, all >= -2000
        else:
            out.append(r % 2001 - 1000)
    out[5] = 7
    return pack("i", out)


kernel("warp_vote", [sm80()], [
    Launch("warp_vote", [2], [64], [("in", vote_inputs()), ("out", 128 * 16 * 4)],
           [buf("in"), buf("out")]),
])


def div_inputs(n):
    a, b, c, d = [], [], [], []
    e32 = [0, 1, -1, 7, -7, 0x7FFFFFFF, -0x80000000, 1000000007, -16, 10, 65535, -65536]
    e64 = [0, 1, -1, 0x7FFFFFFFFFFFFFFF, -0x8000000000000000, 0xFFFFFFFF, -0x100000000,
           1000000007, 3, -3]
    for i in range(n):
        r1, r2, r3, r4 = (rand(109 + k, i) for k in range(4))
        x = e32[i % len(e32)] if i < 48 else (r1 & 0xFFFFFFFF) - (1 << 31) >> (r1 >> 59)
        y = e32[(i // len(e32)) % len(e32)] if i < 48 else (r2 & 0xFFFFFFFF) - (1 << 31) >> (
            r2 >> 59)
        if y == 0 or (x == -0x80000000 and y == -1):
            y = 3
        p = e64[i % len(e64)] if i < 40 else (r3 - (1 << 63)) >> (r3 >> 58)
        q = e64[(i // len(e64)) % len(e64)] if i < 40 else (r4 - (1 << 63)) >> (r4 >> 58)
        if q == 0 or (p == -0x8000000000000000 and q == -1):
            q = 5
        a.append(x)
        b.append(y)
        c.append(p)
        d.append(q)
    return pack("i", a), pack("i", b), pack("q", c), pack("q", d)


da, db, dc, dd = div_inputs(200)
kernel("int_div", [sm80()], [
    Launch("int_div", [2], [128], [("a", da), ("b", db), ("c", dc), ("d", dd),
                                   ("o32", 200 * 16 * 4), ("o64", 200 * 8 * 8)],
           [buf(x) for x in ("a", "b", "c", "d", "o32", "o64")] + [s32(200)]),
])

kernel("dynamic_shared", [sm80()], [
    Launch("dynamic_shared", [3], [96],
           [("in", pack("i", [rand(113, i) % 200000001 - 100000000 for i in range(288)])),
            ("din", f64s_spread(114, 288, -50, 50)), ("out", 288 * 4), ("dout", 288 * 8),
            ("size_out", 3 * 4)],
           [buf(x) for x in ("in", "din", "out", "dout", "size_out")], shared=96 * 4 + 96 * 8),
])

kernel("const_crc", [sm80()], [
    Launch("const_crc", [2], [64],
           [("msg", bytes(rand(115, i) & 0xFF for i in range(100 * 24))),
            ("x", pack("I", [uniform_bits(116, i, -2, 2) for i in range(100)])),
            ("crc", 100 * 4), ("px", 100 * 4)],
           [buf("msg"), buf("x"), buf("crc"), buf("px"), s32(24), s32(100)]),
])

VM_PROGS = bytes([
    # countdown loop: PUSH 5, [DUP? no] DEC, JNZ 1, HALT ... then random tails
    0x50, 0x09, 0x18, 0x06, 0x03, 0x0B, 0x0C, 0x0D, 0x3E, 0x0F, 0x7F, 0x25, 0x04, 0x07, 0x0A, 0x01,
]) + bytes(rand(117, i) & 0xFF for i in range(48))
kernel("switch_vm", [sm80()], [
    Launch("switch_vm", [2], [64], [("code", VM_PROGS), ("args", u32s(118, 128)),
                                    ("out", 128 * 8)],
           [buf("code"), buf("args"), buf("out"), s32(16)]),
])

kernel("local_array", [sm80()], [
    Launch("local_array", [2], [64], [("in", u32s(119, 128 * 24)), ("out", 128 * 40 * 4)],
           [buf("in"), buf("out"), s32(120)]),
])

MM, MN, MK = 12, 28, 40
kernel("matmul_tiled", [sm80()], [
    Launch("matmul_tiled", [2, 1], [16, 16],
           [("A", f32s_spread(120, MM * MK, -3, 3)), ("B", f32s_spread(121, MK * MN, -3, 3)),
            ("C", f32s_spread(122, MM * MN, -3, 3))],
           [buf("A"), buf("B"), buf("C"), s32(MM), s32(MN), s32(MK), f32(0.75), f32(-1.25)]),
])

kernel("index3d", [sm80()], [
    Launch("index3d", [2, 2, 2], [5, 3, 3], [("in", u32s(123, 360)), ("out", 360 * 8 * 4)],
           [buf("in"), buf("out")]),
])

kernel("vec_types", [sm80()], [
    Launch("vec_types", [2], [64],
           [("f4", f32s_spread(124, 512, -10, 10)), ("i4", u32s(125, 512)),
            ("d2", f64s_spread(126, 256, -10, 10)), ("c4", u32s(127, 128)),
            ("s2", u32s(128, 128)), ("of4", 128 * 16), ("oi4", 128 * 16), ("od2", 128 * 16),
            ("oc4", 128 * 4), ("ou2", 128 * 8)],
           [buf(x) for x in ("f4", "i4", "d2", "c4", "s2", "of4", "oi4", "od2", "oc4", "ou2")] +
           [s32(120)]),
])

# ---------------------------------------------------------------------------------------------
# The kernels that were hand-written "in nvcc's style" in ../nvcc: the same computations as CUDA
# C++, compiled by NVRTC; each NAME.host.c (moved from ../nvcc/NAME.c) makes the launch and the
# expected buffers, unchanged.

kernel("saxpy_nvcc", [sm80("-lineinfo")], [], model="host")
kernel("atomics_nvcc", [sm80("-lineinfo")], [], model="host")
kernel("warp_collectives", [sm80()], [], model="host")
kernel("calls_nvcc", [sm80()], [], model="host")
kernel("dyn_shared_const", [sm80("-lineinfo")], [], model="host")
kernel("vectors_nvcc", [sm80()], [], model="host")
