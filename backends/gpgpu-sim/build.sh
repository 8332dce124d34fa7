#!/usr/bin/env bash
# Builds GPGPU-Sim's functional simulator (cuda-sim) and ptxconf's adapter for it, and prints the
# adapter's path on stdout (the only line this script writes there; progress goes to stderr):
#
#     ptxconf conform --backend "cmd:$(backends/gpgpu-sim/build.sh)"
#
# Source: the pinned archive in ../shared/third-party/ next to the repository (GPGPU-Sim 4.2.0,
# gpgpu-sim/gpgpu-sim_distribution `dev` 6b244a5d), or --source PATH|URL [--commit SHA] (an
# archive, a checkout, or a git URL such as https://github.com/accel-sim/gpgpu-sim_distribution
# with --commit dev). The patches in patches/ are applied in order (one that is already in the
# source is skipped; one that does not apply stops the build). The build directory is keyed by the
# source's commit (or content hash) and the patches' hash, so a second run is a no-op.
#
# Needs: g++, make, bison, flex, makedepend (xutils-dev), zlib and libGL headers/libraries, and
# CUDA's headers plus an `nvcc --version` (the build only asks nvcc for the CUDA version). Without
# CUDA_INSTALL_PATH, the headers come from NVIDIA's PyPI wheels (CUDA 11.8) in a private prefix of
# the cache and a stub nvcc stands in. Nothing is installed unless --install-deps is given.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
DEFAULT_SOURCE="$ROOT/../shared/third-party/gpgpu-sim_distribution-6b244a5d.tar.gz"
# The commit that archive holds (gpgpu-sim/gpgpu-sim_distribution, branch dev, "GPGPU-Sim 4.2.0").
PINNED_COMMIT=6b244a5d3be7811f16c312905c1c7fee137ac7a4
# The CUDA stand-in: headers from these wheels, the version the stub nvcc reports.
CUDA_WHEELS=(nvidia-cuda-runtime-cu11==11.8.89 nvidia-cuda-nvcc-cu11==11.8.89 nvidia-cuda-profiler-api-cu11==11.8.86)
CUDA_RELEASE=11.8
CUDA_BUILD=V11.8.89
DEBIAN_PACKAGES=(build-essential bison flex xutils-dev zlib1g-dev libgl-dev python3-pip git)

usage() {
    cat >&2 <<EOF
usage: $0 [--source PATH|URL] [--commit SHA] [--cache DIR] [--jobs N] [--install-deps] [--quiet]

  --source PATH|URL  a .tar.gz of GPGPU-Sim's source, a checkout of it, or a git URL
                     (default: \$PTXCONF_GPGPU_SIM_SOURCE, else
                     $DEFAULT_SOURCE)
  --commit SHA       the commit to build (a checkout or URL; default: \$PTXCONF_GPGPU_SIM_COMMIT,
                     else HEAD of a checkout; required with a URL)
  --cache DIR        where builds live (default: \$PTXCONF_CACHE/gpgpu-sim, else
                     ~/.cache/ptxconf/gpgpu-sim)
  --jobs N           parallel make jobs (default: the number of CPUs)
  --install-deps     apt-get the Debian packages (${DEBIAN_PACKAGES[*]})
                     when any tool is missing, and pip-install the CUDA 11.8 header wheels into the
                     cache (without it, anything missing is named and the script stops)
  --quiet            no progress on stderr (errors still go there)

Prints the adapter's path on stdout. Exit status: 0 built (or already built), 1 the build failed,
2 usage, 3 a prerequisite is missing (named on stderr in one line).
EOF
}

source_arg=${PTXCONF_GPGPU_SIM_SOURCE:-}
commit=${PTXCONF_GPGPU_SIM_COMMIT:-}
cache=${PTXCONF_CACHE:+$PTXCONF_CACHE/gpgpu-sim}
cache=${cache:-${HOME:-/tmp}/.cache/ptxconf/gpgpu-sim}
jobs=$(nproc 2>/dev/null || echo 2)
install_deps=0
quiet=0
while [ $# -gt 0 ]; do
    case $1 in
        --source | --commit | --cache | --jobs)
            [ $# -ge 2 ] || { echo "build.sh: $1 needs a value" >&2; usage; exit 2; }
            case $1 in
                --source) source_arg=$2 ;;
                --commit) commit=$2 ;;
                --cache) cache=$2 ;;
                --jobs) jobs=$2 ;;
            esac
            shift 2
            ;;
        --install-deps) install_deps=1; shift ;;
        --quiet) quiet=1; shift ;;
        -h | --help) usage; exit 0 ;;
        *) echo "build.sh: unknown argument \`$1'" >&2; usage; exit 2 ;;
    esac
done

say() { [ "$quiet" = 1 ] || echo "gpgpu-sim: $*" >&2; }
die() { echo "gpgpu-sim: $*" >&2; exit 1; }
# A missing prerequisite (tools, CUDA headers, the source) exits 3, so that callers (the test
# tests/gpgpu_sim.rs) can tell "cannot build here" from a failed build.
lacking() { echo "gpgpu-sim: $*" >&2; exit 3; }
hash_stdin() { sha256sum | cut -c1-16; }

# --- Tools -------------------------------------------------------------------------------------

missing_tools() {
    local t missing=()
    for t in g++ make bison flex makedepend; do
        command -v "$t" >/dev/null 2>&1 || missing+=("$t")
    done
    if command -v g++ >/dev/null 2>&1; then
        echo '#include <zlib.h>' | g++ -E -x c++ - >/dev/null 2>&1 || missing+=("zlib.h")
        # libcudart.so links -lGL (GPGPU-Sim's Makefile, even without OpenGL support).
        echo 'int main(){}' | g++ -x c++ - -lGL -lz -o /dev/null >/dev/null 2>&1 || missing+=("libGL/libz")
    fi
    echo "${missing[*]}"
}

missing=$(missing_tools)
if [ -n "$missing" ]; then
    [ "$install_deps" = 1 ] ||
        lacking "missing build tools: $missing (Debian: apt-get install ${DEBIAN_PACKAGES[*]}; or run $0 --install-deps)"
    say "installing ${DEBIAN_PACKAGES[*]}"
    sudo=""
    [ "$(id -u)" = 0 ] || sudo=sudo
    $sudo apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${DEBIAN_PACKAGES[@]}" >&2
    missing=$(missing_tools)
    [ -z "$missing" ] || die "still missing after apt-get: $missing"
fi

mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
# One build at a time per cache (two test processes, CI and a user): the others wait, then find
# the build done.
if command -v flock >/dev/null 2>&1; then
    exec 9>"$cache/.lock"
    flock 9
fi

# --- CUDA headers and the stub nvcc ------------------------------------------------------------

# GPGPU-Sim compiles against CUDA's headers and learns the CUDA version from `nvcc --version`;
# it runs nvcc for nothing else on the PTX path. A toolkit (CUDA_INSTALL_PATH) is used as it is;
# otherwise a prefix holds the wheels' headers merged into include/ and a stub bin/nvcc.
if [ -n "${CUDA_INSTALL_PATH:-}" ]; then
    cuda=$CUDA_INSTALL_PATH
    [ -f "$cuda/include/cuda_runtime.h" ] && [ -x "$cuda/bin/nvcc" ] ||
        die "CUDA_INSTALL_PATH=$cuda has no include/cuda_runtime.h and bin/nvcc"
else
    cuda=$cache/cuda-$CUDA_RELEASE
    if [ ! -f "$cuda/.complete" ]; then
        [ "$install_deps" = 1 ] ||
            lacking "no CUDA headers: run $0 --install-deps (pip-installs ${CUDA_WHEELS[*]} into $cuda) or set CUDA_INSTALL_PATH"
        say "pip-installing the CUDA $CUDA_RELEASE header wheels into $cuda"
        rm -rf "$cuda"
        PIP_ROOT_USER_ACTION=ignore python3 -m pip install --quiet --disable-pip-version-check \
            --no-deps --target "$cuda/wheels" "${CUDA_WHEELS[@]}" >&2
        mkdir -p "$cuda/include" "$cuda/bin"
        for d in cuda_runtime cuda_nvcc cuda_profiler_api; do
            rm -rf "$cuda/wheels/nvidia/$d/include/__init__.py" "$cuda/wheels/nvidia/$d/include/__pycache__"
            cp -rs "$cuda/wheels/nvidia/$d/include/." "$cuda/include/"
        done
        cat >"$cuda/bin/nvcc" <<EOF
#!/bin/sh
# A stand-in for nvcc written by ptxconf's backends/gpgpu-sim/build.sh: GPGPU-Sim's build asks
# nvcc for the CUDA version only, so this answers --version and refuses everything else.
case "\$*" in
    --version) echo "nvcc: NVIDIA (R) Cuda compiler driver"
               echo "Cuda compilation tools, release $CUDA_RELEASE, $CUDA_BUILD" ;;
    *) echo "nvcc (ptxconf stub): only --version is available, not \$*" >&2; exit 1 ;;
esac
EOF
        chmod +x "$cuda/bin/nvcc"
        [ -f "$cuda/include/cuda_runtime.h" ] && [ -f "$cuda/include/crt/host_config.h" ] &&
            [ -f "$cuda/include/cudaProfiler.h" ] || die "the CUDA wheels lack the expected headers in $cuda/include"
        touch "$cuda/.complete"
    fi
fi

# --- Source ------------------------------------------------------------------------------------

source_arg=${source_arg:-$DEFAULT_SOURCE}
is_url() { case $1 in *://* | git@*) return 0 ;; *) return 1 ;; esac; }

# Sets src_kind (archive|checkout|url) and src_id (what the build is keyed by).
if is_url "$source_arg" || [ -d "$source_arg/.git" ]; then
    command -v git >/dev/null 2>&1 || lacking "git is needed for --source $source_arg (apt-get install git)"
fi
if is_url "$source_arg"; then
    [ -n "$commit" ] || { echo "gpgpu-sim: --source $source_arg is a URL: give --commit SHA (or a branch)" >&2; exit 2; }
    clone=$cache/clones/$(printf %s "$source_arg" | hash_stdin)
    if [ ! -d "$clone/.git" ]; then
        say "cloning $source_arg"
        rm -rf "$clone"
        git clone --quiet --no-checkout "$source_arg" "$clone" >&2 ||
            { rm -rf "$clone"; lacking "cannot clone $source_arg (is it reachable from here?)"; }
    fi
    if ! git -C "$clone" rev-parse --verify --quiet "$commit^{commit}" >/dev/null ||
        ! [[ $commit =~ ^[0-9a-f]{40}$ ]]; then
        git -C "$clone" fetch --quiet origin "+refs/heads/*:refs/remotes/origin/*" >&2 || true
    fi
    resolved=$(git -C "$clone" rev-parse --verify --quiet "$commit^{commit}" ||
        git -C "$clone" rev-parse --verify --quiet "origin/$commit^{commit}") ||
        die "commit $commit not found in $source_arg"
    src_kind=url
    src_id=$resolved
elif [ -f "$source_arg" ]; then
    src_kind=archive
    src_id=$(hash_stdin <"$source_arg")
elif [ -d "$source_arg" ]; then
    src_kind=checkout
    if git -C "$source_arg" rev-parse --git-dir >/dev/null 2>&1; then
        resolved=$(git -C "$source_arg" rev-parse --verify --quiet "${commit:-HEAD}^{commit}") ||
            die "commit ${commit:-HEAD} not found in $source_arg"
        src_id=$resolved
    else
        [ -z "$commit" ] || die "--commit needs a git checkout; $source_arg is not one"
        src_id=$(cd "$source_arg" && find . -type f ! -path './build/*' ! -path './lib/*' -print0 |
            LC_ALL=C sort -z | xargs -0 sha256sum | hash_stdin)
    fi
else
    lacking "GPGPU-Sim source not found: $source_arg (give --source ARCHIVE|CHECKOUT, or --source https://github.com/gpgpu-sim/gpgpu-sim_distribution --commit $PINNED_COMMIT; or set PTXCONF_GPGPU_SIM_SOURCE)"
fi

patch_id=$(cat "$HERE"/patches/*.patch | hash_stdin)
key="${src_id:0:16}-$patch_id"
build=$cache/$key
src=$build/src

# --- Simulator ---------------------------------------------------------------------------------

find_libcudart() { find "$src/lib" -name libcudart.so -type f 2>/dev/null | head -n1; }

if [ ! -f "$build/.sim-complete" ]; then
    say "building GPGPU-Sim ($src_kind $source_arg${commit:+ @ $commit}) in $build"
    rm -rf "$build"
    mkdir -p "$src"
    case $src_kind in
        archive) tar -xzf "$source_arg" -C "$src" --strip-components=1 ;;
        url) git -C "$clone" archive "$src_id" | tar -x -C "$src" ;;
        checkout)
            if [ -n "${resolved:-}" ]; then
                git -C "$source_arg" archive "$resolved" | tar -x -C "$src"
            else
                (cd "$source_arg" && tar -cf - --exclude=./build --exclude=./lib .) | tar -x -C "$src"
            fi
            ;;
    esac
    [ -f "$src/setup_environment" ] && [ -d "$src/src/cuda-sim" ] ||
        die "$source_arg does not look like GPGPU-Sim's source (no setup_environment, src/cuda-sim)"
    [ -f "$src/COPYRIGHT" ] || die "$source_arg has no COPYRIGHT file (GPGPU-Sim's BSD licence must travel with it)"
    for p in "$HERE"/patches/*.patch; do
        if patch -d "$src" -p1 --dry-run --silent --force <"$p" >/dev/null 2>&1; then
            patch -d "$src" -p1 --silent --force <"$p" >/dev/null
            say "applied $(basename "$p")"
        elif patch -d "$src" -p1 -R --dry-run --silent --force <"$p" >/dev/null 2>&1; then
            say "$(basename "$p") is already in this source"
        else
            die "patch $(basename "$p") does not apply to $source_arg${commit:+ @ $commit}"
        fi
    done
    start=$(date +%s)
    log=$build/build.log
    # setup_environment is a sourced script written for interactive shells: unset variables and
    # failing commands (git on an archive, hostname -d) are normal there.
    if ! (
        set +eu
        export CUDA_INSTALL_PATH=$cuda
        cd "$src"
        source setup_environment release
        [ "${GPGPUSIM_SETUP_ENVIRONMENT_WAS_RUN:-}" = 1 ] || exit 1
        make -j"$jobs"
    ) >"$log" 2>&1; then
        tail -n 30 "$log" >&2
        die "the build failed; the log is $log"
    fi
    lib=$(find_libcudart)
    [ -n "$lib" ] || die "the build made no libcudart.so; the log is $log"
    say "built $lib in $(($(date +%s) - start)) s"
    touch "$build/.sim-complete"
fi

lib=$(find_libcudart)
libdir=$(dirname "$lib")
objdir=$(find "$src/build" -type d -name cuda-sim -path '*release*' | head -n1)

# --- Adapter -----------------------------------------------------------------------------------

# Rebuilt whenever its sources, its config or this script change (seconds).
adapter_id=$(cat "$HERE"/shim/*.cc "$HERE"/shim/*.h "$HERE"/gpgpusim.config.sed "$0" | hash_stdin)
out=$build/adapter
if [ "$(cat "$out/.id" 2>/dev/null)" != "$adapter_id" ]; then
    say "building the adapter in $out"
    # Built next to the old one and moved in place, so that runs using it are not disturbed.
    final=$out
    out=$build/adapter.new
    rm -rf "$out"
    mkdir -p "$out"
    cflags=(-O2 -g -fPIC -std=c++17 -Wall -Wno-sign-compare -Wno-unused-function)
    # The shim includes GPGPU-Sim's own headers: the same defines as its build
    # (src/cuda-sim/Makefile: CUDART_VERSION, TRACING_ON).
    cudart_version=$(basename "$(dirname "$libdir")" | sed 's/^cuda-//')
    g++ "${cflags[@]}" -shared -o "$out/libptxconf-gpgpu-sim.so" "$HERE/shim/sim.cc" \
        -DCUDART_VERSION="$cudart_version" -DTRACING_ON=1 \
        -isystem "$src/libcuda" -isystem "$src/src" -isystem "$src/src/cuda-sim" -isystem "$objdir" \
        -isystem "$(dirname "$objdir")" -isystem "$cuda/include" \
        -L"$libdir" -lcudart -Wl,-rpath,"$libdir" >&2
    version=$(awk '/Version/ {print $8}' "$src/version" 2>/dev/null || true)
    g++ "${cflags[@]}" -o "$out/gpgpu-sim-ptxconf" "$HERE/shim/adapter.cc" "$HERE/shim/json.cc" \
        -DPTXCONF_GSIM_VERSION="\"${version:-unknown version}\"" -ldl >&2
    cfg=$src/configs/tested-cfgs/SM86_RTX3070
    mkdir "$out/config"
    sed -f "$HERE/gpgpusim.config.sed" "$cfg/gpgpusim.config" >"$out/config/gpgpusim.config"
    # The interconnect's node count: the SM clusters plus the memory sub-partitions the config
    # above leaves (1 + 1 x 2).
    for f in "$cfg"/*.icnt; do
        sed 's|^k = .*|k = 3; // ptxconf: 1 SM cluster + 1 memory channel x 2 sub-partitions|' "$f" \
            >"$out/config/$(basename "$f")"
    done
    cp "$src/COPYRIGHT" "$out/COPYRIGHT.gpgpu-sim"
    printf '%s\n' "$src_kind $source_arg${commit:+ @ $commit}" "key $key" >"$out/SOURCE"
    echo "$adapter_id" >"$out/.id"
    rm -rf "$final"
    mv "$out" "$final"
    out=$final
fi

echo "$out/gpgpu-sim-ptxconf"
