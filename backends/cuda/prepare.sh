#!/bin/bash
# Run HERE (the development machine) before a device session: builds the release binary and the
# backends test binary into .dev/ (ignored; name it in the device tool's `carry`).
# The device tool sends at most 64 MiB of working tree; corpus/vectors alone is 48 MB, so move it
# aside during the calls (conform then generates the same golden set in memory):
#   mv corpus/vectors /tmp/vectors-hold   ...calls...   mv /tmp/vectors-hold corpus/vectors
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
mkdir -p .git/info .dev
grep -qx '/.dev/' .git/info/exclude 2>/dev/null || echo '/.dev/' >> .git/info/exclude
cargo build --release
test_bin=$(cargo test --release --test backends --no-run --message-format=json 2>/dev/null |
  python3 -c 'import json,sys
for l in sys.stdin:
    m=json.loads(l)
    if m.get("reason")=="compiler-artifact" and m["target"]["name"]=="backends" and m.get("executable"): print(m["executable"])')
cp target/release/ptxconf .dev/ptxconf
cp "$test_bin" .dev/backends-test
cp backends/cuda/device-session.sh backends/cuda/summarize.py .dev/
ls -la .dev
