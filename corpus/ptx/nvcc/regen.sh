#!/bin/sh
# Regenerates the expected outputs of corpus/ptx/nvcc: for every kernel source nvcc/NAME.c
#   - nvcc/NAME.launch.json    the launch (issue 4's contract, plus "shared_bytes" where the
#                              kernel uses dynamic shared memory), written by the host build;
#   - nvcc/NAME.expected.json  the buffers after the host build (gcc, x86-64) ran the same
#                              computation on the same inputs.
# nvcc/NAME.ptx is hand-written in nvcc's style and checked in; this script never writes it. It
# checks that NAME.ptx exists and has the entry NAME, and, when ptxas is available ($PTXAS, or
# ptxas on PATH), that it assembles for its .target with no error and no warning.
# Needs only a host C compiler (gcc, or $CC) and pthreads; no clang, no nvcc. Deterministic:
# running it twice gives byte-identical files. Run from anywhere.
set -eu

dir=$(cd "$(dirname "$0")" && pwd)
CC=${CC:-gcc}
PTXAS=${PTXAS:-ptxas}

if ! command -v "$CC" >/dev/null 2>&1; then
  echo "nvcc/regen.sh: error: host C compiler $CC not found" >&2
  exit 1
fi
case "$(uname -m)" in
  x86_64|aarch64) ;;
  *) echo "nvcc/regen.sh: error: the host build needs a 64-bit little-endian host (x86_64, aarch64)" >&2; exit 1 ;;
esac
if command -v "$PTXAS" >/dev/null 2>&1; then
  have_ptxas=1
else
  have_ptxas=0
  echo "nvcc/regen.sh: note: ptxas not found (set PTXAS=/path/to/ptxas); the .ptx files are not assembled" >&2
fi

# The same floating-point semantics as the PTX: no contraction of a*b+c (the kernels call fmaf/fma
# where the PTX has fma.rn), no errno, no fast-math.
HOSTFLAGS="-O2 -std=gnu11 -Wall -Werror -pthread -ffp-contract=off -fno-math-errno"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

cd "$dir"
n=0
for src in *.c; do
  name=${src%.c}
  [ -s "$name.ptx" ] || { echo "nvcc/regen.sh: error: $name.ptx is missing" >&2; exit 1; }
  grep -q "^\.visible \.entry $name(" "$name.ptx" ||
    { echo "nvcc/regen.sh: error: $name.ptx has no entry $name" >&2; exit 1; }
  if [ "$have_ptxas" = 1 ]; then
    arch=$(sed -n 's/^\.target[[:space:]]*\(sm_[0-9a-z]*\).*/\1/p' "$name.ptx")
    "$PTXAS" -arch="$arch" "$name.ptx" -o "$tmp/$name.cubin" >"$tmp/$name.ptxas" 2>&1 ||
      { cat "$tmp/$name.ptxas" >&2; echo "nvcc/regen.sh: error: ptxas rejects $name.ptx" >&2; exit 1; }
    if [ -s "$tmp/$name.ptxas" ]; then
      cat "$tmp/$name.ptxas" >&2
      echo "nvcc/regen.sh: error: ptxas warns on $name.ptx" >&2
      exit 1
    fi
  fi
  # shellcheck disable=SC2086
  "$CC" $HOSTFLAGS -o "$tmp/$name" "$src" -lm
  "$tmp/$name" "$dir"
  for f in "$name.launch.json" "$name.expected.json"; do
    [ -s "$f" ] || { echo "nvcc/regen.sh: error: $f was not written" >&2; exit 1; }
  done
  n=$((n + 1))
done
echo "nvcc/regen.sh: $n kernels' launch and expected files regenerated in $dir"
echo "  $("$CC" --version | head -n 1)"
if [ "$have_ptxas" = 1 ]; then
  echo "  every .ptx assembled cleanly by $("$PTXAS" --version | tail -n 2 | head -n 1)"
fi
