# The manual's pseudo-code (as the spec reads it), in Python.
from vec import *

def ext(v, signed, bits):
    v &= (1 << bits) - 1
    if signed and v >> (bits - 1): v -= 1 << bits
    return v

def psel(x, signed, sel):
    if sel is None: return ext(x, signed, 32)
    k, i = sel[0], int(sel[1:])
    w = 8 if k == 'b' else 16
    return ext(x >> (w * i), signed, w)

def selbits(dsel):
    if dsel is None: return 32
    return 8 if dsel[0] == 'b' else 16

def sat(tmp, signed, dsel):
    b = selbits(dsel)
    lo, hi = ((-(1 << (b - 1)), (1 << (b - 1)) - 1) if signed else (0, (1 << b) - 1))
    return max(lo, min(hi, tmp))

def merge(dsel, tmp, c):
    if dsel is None: return tmp & M32
    w = 8 if dsel[0] == 'b' else 16
    sh = w * int(dsel[1:]); m = ((1 << w) - 1) << sh
    return (((tmp & ((1 << w) - 1)) << sh) | (c & ~m)) & M32
