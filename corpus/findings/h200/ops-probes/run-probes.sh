#!/bin/bash
# Runs every probe on the oracle and on the GPU, each in its own process (a sticky error ends
# only that process's context), and writes the replies and a one-line verdict per probe to
# ${OUT:-/tmp/probes}. Usage on a GPU machine: PTXCONF=target/release/ptxconf ./run-probes.sh
PTXCONF=${PTXCONF:-ptxconf}
OUT=${OUT:-/tmp/probes}
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUT"
for d in "$HERE"/tma-* "$HERE"/fz-* "$HERE"/atom-*; do
  n=$(basename "$d")
  "$PTXCONF" run "$d/launch.json" > "$OUT/$n.oracle.json" 2>&1
  timeout 60 "$PTXCONF" run --backend cuda "$d/launch.json" > "$OUT/$n.cuda.json" 2>&1
  rc=$?
  if cmp -s "$OUT/$n.oracle.json" "$OUT/$n.cuda.json"; then v=same; else v="differs (rc $rc): $(head -c 300 "$OUT/$n.cuda.json" | tr '\n' ' ')"; fi
  echo "$n: $v" | tee -a "$OUT/verdicts.txt"
done
