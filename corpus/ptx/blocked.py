#!/usr/bin/env python3
"""Writes corpus/ptx/blocked.tsv: every corpus kernel the oracle stops at an instruction it does not
execute yet, with that instruction and where it is (oracle/tests/corpus.rs checks the table).

    corpus/ptx/blocked.py [PTXCONF]      # default: target/release/ptxconf, else target/debug/ptxconf
"""
import json, os, subprocess, sys

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(os.path.dirname(here))
exe = sys.argv[1] if len(sys.argv) > 1 else next(
    p for p in (os.path.join(root, "target/release/ptxconf"), os.path.join(root, "target/debug/ptxconf")) if os.path.exists(p))
rows = []
for d in ("llvm", "nvcc", "nvrtc", "triton"):
    dd = os.path.join(here, d)
    if not os.path.isdir(dd):
        continue
    for f in sorted(os.listdir(dd)):
        if not f.endswith(".launch.json"):
            continue
        out = subprocess.run([exe, "run", os.path.join(dd, f)], capture_output=True, text=True).stdout
        try:
            r = json.loads(out)
        except ValueError:
            continue
        msg = r.get("message", "")
        if r.get("status") == "error" and ("does not execute" in msg or "not executed" in msg):
            # "`TEXT`: thread ... : `FORM` is valid PTX, but the oracle does not execute it yet"
            head = msg.split(" is valid PTX")[0]
            instr = head.split("`")[-2] if head.count("`") >= 2 else msg
            loc = os.path.basename(r["location"])
            rows.append(f"{d}/{f[:-len('.launch.json')]}\t{instr}\t{loc}")
with open(os.path.join(here, "blocked.tsv"), "w") as o:
    o.write("# Corpus kernels the oracle stops at an instruction it does not execute yet: kernel, the first such\n"
            "# instruction, where it is. The work list of the tensor-core and async issues; it only shrinks.\n"
            "# Written by corpus/ptx/blocked.py; checked by oracle/tests/corpus.rs.\n")
    o.write("".join(r + "\n" for r in rows))
print(f"{len(rows)} blocked kernels")
