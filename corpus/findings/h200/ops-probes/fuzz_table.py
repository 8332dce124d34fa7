#!/usr/bin/env python3
"""operational.md §2.2: regenerates the H200 fuzz campaign's programs (`ptxconf gen`, the run's
arguments) up to each seed's crash and prints, for every program that uses a `.shared::cluster`
operation, whether it crashed, whether it was launched as a cluster, and which such operations it
has. The crashes are those of /work/gpu-data/fuzz-call2/log*.txt (each seed stopped at its first).

    PTXCONF=.../ptxconf python3 fuzz_table.py"""
import json, os, re, subprocess, tempfile

PTXCONF = os.environ.get("PTXCONF", "ptxconf")
CRASHED = {1: 51, 2: 107, 3: 6, 4: 76, 6: 9, 7: 11, 8: 38}  # seed: the program that crashed
OPS = re.compile(r"(cp\.[a-z0-9_.:]*shared::cluster[a-z0-9_.:]*|mapa[a-z0-9_.:]*|barrier\.cluster[a-z.]*)")

with tempfile.TemporaryDirectory() as d:
    for seed, last in sorted(CRASHED.items()):
        out = os.path.join(d, str(seed))
        subprocess.run([PTXCONF, "gen", "--target", "sm_90", "--ptx", "8.7", "--size", "100", "--warps", "1",
                        "--ctas", "1", "--seed", str(seed), "--first", "0", "--count", str(last + 1), "--out", out],
                       check=True, capture_output=True)
        for i in range(last + 1):
            stem = os.path.join(out, "p%06d" % i)
            ptx = open(stem + ".ptx").read()
            if "shared::cluster" not in ptx:
                continue
            cluster = json.load(open(stem + ".json")).get("cluster")
            ops = sorted({re.sub(r"mbarrier::complete_tx::bytes", "mb", m) for m in OPS.findall(ptx)})
            print(f"seed {seed} #{i:3}: {'CRASHED' if i == last else 'ran    '} cluster={cluster}  {' '.join(ops)}")
