#!/usr/bin/env python3
"""Checks operational.md §1's reading of the H200's atom/red .shared::cluster .f16x2/.bf16x2
mismatches: for every recorded mismatch (the first 4 per form in the run's failed.jsonl), rebuilds
the form's launch (same seed), takes CTA 1's slot word and the operand b from its `in` buffer, and
tests whether the observed word is their 32-bit integer sum with the slot's other 12 bytes
untouched.

    PTXCONF=.../ptxconf python3 check_atom_mismatches.py /work/gpu-data/failed.jsonl"""
import json, os, struct, subprocess, sys, tempfile

PTXCONF = os.environ.get("PTXCONF", "ptxconf")


def in_buffer(form):
    with tempfile.TemporaryDirectory() as d:
        env = dict(os.environ, TMPDIR=d, PTXCONF_KEEP_TMP="1")
        subprocess.run([PTXCONF, "conform", "--quiet", "--jobs", "1", "--backend",
                        f"cmd:{PTXCONF} run --workers 1", form], env=env, check=True, capture_output=True)
        runs = [n for n in os.listdir(d) if n.startswith("ptxconf-cmd-")]
        assert len(runs) == 1, (form, runs)  # one scenario, one launch
        launch = json.load(open(os.path.join(d, runs[0], "launch.json")))
        return bytes.fromhex(next(b["hex"] for b in launch["buffers"] if b["name"] == "in"))


forms, total, sums = 0, 0, 0
for line in open(sys.argv[1]):
    o = json.loads(line)
    if o["section"] not in ("9.7.13.5", "9.7.13.6"):
        continue
    forms += 1
    inb = in_buffer(o["form"])
    for m in o["mismatches"]:
        where, expected = m["wrong"][0].split(" expected ")
        t = (int(where.split()[0].split("+")[1], 16) - 0x600) // 16  # CTA 1's slot of thread t
        actual = bytes.fromhex(m["actual"][0])
        slot = inb[(32 + t) * 16:(33 + t) * 16]  # CTA 1's slot before the add
        b = struct.unpack_from("<I", inb, 1024 + t * 16)[0]  # CTA 0's operand b
        total += 1
        s = (struct.unpack_from("<I", slot)[0] + b) & 0xFFFFFFFF
        if struct.unpack_from("<I", actual)[0] == s and actual[4:] == slot[4:] == bytes.fromhex(expected)[4:]:
            sums += 1
        else:
            print(f"not a u32 sum: {o['form']} thread {t}: {actual.hex()}")
print(f"{forms} forms, {total} recorded mismatches, {sums} are the u32 sum of the slot and b (other 12 bytes untouched)")
