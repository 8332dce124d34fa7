#!/bin/bash
# Runs every probe on the oracle and on the GPU, each in its own process (a sticky error ends
# only that process's context), and writes the replies and one verdict line per probe to
# ${OUT:-/tmp/probes}/verdicts.txt. On a GPU machine: PTXCONF=target/release/ptxconf ./run-probes.sh
PTXCONF=${PTXCONF:-ptxconf}
OUT=${OUT:-/tmp/probes}
BACKEND=${BACKEND:-cuda}  # any `ptxconf run --backend` value; cmd:ptxconf run checks the script itself
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUT"
for d in "$HERE"/tma-* "$HERE"/fz-* "$HERE"/atom-*; do
  n=$(basename "$d")
  "$PTXCONF" run "$d/launch.json" > "$OUT/$n.oracle.json" 2>&1
  timeout 120 "$PTXCONF" run --backend "$BACKEND" "$d/launch.json" > "$OUT/$n.backend.json" 2>&1
  echo "rc $?" >> "$OUT/$n.backend.rc"
  python3 - "$n" "$OUT/$n.oracle.json" "$OUT/$n.backend.json" <<'PY' | tee -a "$OUT/verdicts.txt"
import json, sys
name, a, b = sys.argv[1:]
def load(p):
    try:
        return json.load(open(p))
    except ValueError:
        return {"status": "unreadable", "message": open(p).read()[-300:]}
o, c = load(a), load(b)
if c.get("status") != "ok" or o.get("status") != "ok":
    print(f"{name}: oracle {o.get('status')}, backend {c.get('status')}: {c.get('message', '')[:300]}")
    sys.exit()
diffs = []
for bo, bc in zip(o["buffers"], c["buffers"]):
    x, y = bytes.fromhex(bo["hex"]), bytes.fromhex(bc["hex"])
    at = [i for i in range(0, max(len(x), len(y)), 4) if x[i:i + 4] != y[i:i + 4]]
    if at:
        diffs.append(f"{bo['name']}: {len(at)} words differ, first " +
                     ", ".join(f"+{i:#x} oracle {x[i:i+4].hex()} backend {y[i:i+4].hex()}" for i in at[:3]))
print(f"{name}: " + ("same" if not diffs else "; ".join(diffs)))
PY
done
