#!/bin/sh
# Regenerates corpus/ptx/llvm: for every kernel source llvm/NAME.c
#   - llvm/NAME.ptx            PTX from clang-19's NVPTX back end (-O2, sm_80), as emitted;
#   - llvm/NAME.launch.json    the launch (issue 4's contract), written by the native build;
#   - llvm/NAME.expected.json  the output buffers of the native build (gcc, x86-64) run on the
#                              same inputs.
# Deterministic: running it twice gives byte-identical files.
# Needs clang-19 (Debian: apt-get install -y clang-19 llvm-19), a host C compiler (gcc, or $CC)
# and pthreads. Run from anywhere.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
dir="$here/llvm"
CLANG=${CLANG:-clang-19}
CC=${CC:-gcc}

if ! command -v "$CLANG" >/dev/null 2>&1; then
  echo "regen.sh: error: $CLANG not found (Debian/Ubuntu: apt-get install -y clang-19 llvm-19)" >&2
  exit 1
fi
if ! "$CLANG" --version | head -n 1 | grep -q 'version 19\.'; then
  echo "regen.sh: error: $CLANG is not clang 19: $("$CLANG" --version | head -n 1)" >&2
  exit 1
fi
if ! command -v "$CC" >/dev/null 2>&1; then
  echo "regen.sh: error: host C compiler $CC not found" >&2
  exit 1
fi
case "$(uname -m)" in
  x86_64|aarch64) ;;
  *) echo "regen.sh: error: the native build needs a 64-bit little-endian host (x86_64, aarch64)" >&2; exit 1 ;;
esac

# Same floating-point semantics on both sides: no contraction of a*b+c into fma (fma only where
# the source calls __builtin_fma/fmaf), no errno so sqrt is an instruction, no fast-math.
FPFLAGS="-ffp-contract=off -fno-math-errno"
# -ffreestanding: clang's own stdint.h, no libc headers for the device.
PTXFLAGS="--target=nvptx64-nvidia-cuda -march=sm_80 -O2 -ffreestanding $FPFLAGS"
HOSTFLAGS="-O2 -std=gnu11 -Wall -Werror -pthread $FPFLAGS"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

cd "$dir"
n=0
for src in *.c; do
  name=${src%.c}
  # shellcheck disable=SC2086
  "$CLANG" $PTXFLAGS -S "$src" -o "$name.ptx"
  # shellcheck disable=SC2086
  "$CC" $HOSTFLAGS -o "$tmp/$name" "$src" -lm
  "$tmp/$name" "$dir"
  for f in "$name.ptx" "$name.launch.json" "$name.expected.json"; do
    [ -s "$f" ] || { echo "regen.sh: error: $f was not written" >&2; exit 1; }
  done
  grep -q "^\.visible \.entry $name(" "$name.ptx" ||
    { echo "regen.sh: error: $name.ptx has no entry $name" >&2; exit 1; }
  n=$((n + 1))
done
echo "regen.sh: $n kernels regenerated in $dir"
echo "  $("$CLANG" --version | head -n 1)"
echo "  $("$CC" --version | head -n 1)"
