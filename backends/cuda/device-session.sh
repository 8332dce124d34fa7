#!/bin/bash
# Run ON THE DEVICE, from the repository root, with .dev carried (backends/cuda/prepare.sh):
#   bash .dev/device-session.sh [SECONDS_PER_SHARD]
# The cuda backend's tests, then conform over every family in 16 shards side by side (one CUDA
# process each: a sticky error ends only its shard), recording a hardware profile per shard.
# Everything lands in $OUT as it is made (at most 8 files come back): a call that runs past its
# limit still returns what finished.
R=$PWD; W=/tmp/ptxconf-device; mkdir -p "$W/json" "$W/prof" "$W/logs"
limit=${1:-400}
rm -rf "$R/corpus/vectors"   # an empty or partial directory would shadow the in-memory set
# Compiled-in paths (the test binary's CARGO_BIN_EXE_ptxconf, CARGO_MANIFEST_DIR) name /work/main.
[ "$R" = /work/main ] || { mkdir -p /work; ln -sfn "$R" /work/main; }
mkdir -p "$R/target/release"; cp "$R/.dev/ptxconf" "$R/target/release/ptxconf"
P=$R/target/release/ptxconf
{ date -u; nvidia-smi; cat /proc/driver/nvidia/version; nvcc --version | tail -2; nproc; } > "$OUT/environment.txt" 2>&1
( cd "$R" && timeout 120 "$R/.dev/backends-test" cuda_ --test-threads 1 ) > "$OUT/cuda-tests.txt" 2>&1
shards='a|9.7.1 9.7.2 9.7.8 9.7.19
b|9.7.3
c|9.7.4 9.7.5
d|9.7.6.1
e|9.7.6.2 9.7.6.3 9.7.6.4
f|9.7.7.1
g|9.7.7.2
h|9.7.9.8 9.7.9.11
i|9.7.9.12 9.7.9.21
j|9.7.9.3 9.7.9.4 9.7.9.7 9.7.9.13 9.7.9.15 9.7.9.16 9.7.9.17 9.7.9.18 9.7.9.19 9.7.9.20 9.7.9.22 9.7.9.23 9.7.9.24 9.7.9.25 9.7.9.26
k|9.7.13.5
l|9.7.13.3 9.7.13.4 9.7.13.6 9.7.13.7 9.7.13.13 9.7.13.14 9.7.13.15 9.7.13.16
m|9.7.14.4
n|9.7.14.5 9.7.14.6
o|9.7.15
p|9.7.18'
while IFS='|' read -r n filters; do
  # wgmma needs sm_90a; the driver JITs it on an sm_90 device.
  t=; [ "$n" = o ] && t='--target sm_90a'
  ( s0=$(date +%s); cd "$R" && timeout "$limit" "$P" conform --backend cuda $t --quiet --show 20 \
      --json "$W/json/$n.json" --record-profile "$W/prof/$n" --repro "$W/repro-$n" $filters \
      > "$W/logs/$n.txt" 2>&1
    echo "$n rc=$? $(( $(date +%s) - s0 )) s" >> "$W/logs/rc.txt" ) &
done <<< "$shards"
wait   # no process substitution in this script: `wait` would wait for it too
cat "$W/logs/rc.txt"
python3 "$R/.dev/summarize.py" "$W/json" "$OUT/summary.json.gz"
tar czf "$OUT/profiles-logs.tgz" -C "$W" prof logs
ls -la "$OUT"
