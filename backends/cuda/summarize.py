#!/usr/bin/env python3
"""Compacts the shards' conform reports (hundreds of MB) into one gzip'd JSON that fits the device
tool's 16 MiB per file: every form's record, with its first 4 mismatches."""
import glob, gzip, json, os, sys

src, dst = sys.argv[1], sys.argv[2]
out = {}
for f in sorted(glob.glob(os.path.join(src, "*.json"))):
    r = json.load(open(f))
    for form in r["forms"]:
        form["mismatches_total_shown"] = len(form.get("mismatches", []))
        form["mismatches"] = form.get("mismatches", [])[:4]
    out[os.path.basename(f)[:-5]] = r
with gzip.open(dst, "wt") as g:
    json.dump(out, g)
