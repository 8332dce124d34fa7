#!/usr/bin/env python3
"""The evidence of operational.md §1 without a disassembler: assembles the atom probes with ptxas
(PTXAS=path, `-arch=sm_90`) and prints each kernel's instruction words from the atomic on (the
low 12 bits are the opcode field of sm_90's 128-bit words), then the words that differ between
the f16x2 and bf16x2 kernels: only those carry the element type.

    PTXAS=.../nvidia/cuda_nvcc/bin/ptxas python3 atom_sass.py"""
import os, struct, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def text(cubin):
    """The `.text.*` section of an ELF64 cubin."""
    b = open(cubin, "rb").read()
    shoff = struct.unpack_from("<Q", b, 0x28)[0]
    entsize, num, strndx = struct.unpack_from("<HHH", b, 0x3A)
    secs = [struct.unpack_from("<IIQQQQIIQQ", b, shoff + i * entsize) for i in range(num)]
    names = secs[strndx][4]
    for s in secs:
        name = b[names + s[0]:b.index(b"\0", names + s[0])]
        if name.startswith(b".text"):
            return b[s[4]:s[4] + s[5]]
    sys.exit(f"{cubin}: no .text section")


def words(probe):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "k.cubin")
        subprocess.run([os.environ.get("PTXAS", "ptxas"), "-arch=sm_90", os.path.join(HERE, probe, "kernel.ptx"), "-o", out], check=True)
        t = text(out)
    return [int.from_bytes(t[i:i + 16], "little") for i in range(0, len(t), 16)]


probes = ["atom-0-as-run", "atom-5-bf16x2", "atom-3-f32", "atom-4-u32", "atom-2-generic"]
ws = {p: words(p) for p in probes}
for p in probes:
    w = ws[p]
    # The staging of the slots ends with the cluster barrier; print from the 37th word on.
    print(f"{p:16} " + " ".join("%03x" % (x & 0xFFF) for x in w[37:70]))
print("\nf16x2 vs bf16x2, differing words:")
for i, (a, b) in enumerate(zip(ws["atom-0-as-run"], ws["atom-5-bf16x2"])):
    if a != b:
        print(f"  {i}: {a:032x}  {b:032x}")
print("\nf16x2 words from the first 0x980 after the CAS loop:")
w = ws["atom-0-as-run"]
for i in range(40, 70):
    if w[i] & 0xFFF == 0x980 and any(w[j] & 0xFFF == 0x38D for j in range(40, i)):
        for j in range(i, i + 3):
            print(f"  {j}: {w[j]:032x}")
        break
