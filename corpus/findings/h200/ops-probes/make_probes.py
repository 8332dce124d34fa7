#!/usr/bin/env python3
"""Writes the H200 probes of corpus/findings/h200/operational.md (one directory each: kernel.ptx,
launch.json) from the suite's own first launch of two forms, then edits one thing per probe.

    PTXCONF=/path/to/ptxconf python3 make_probes.py     # rewrites ./tma-* and ./atom-*

Deterministic: the suite's scenarios are seeded, the edits are text substitutions."""
import json, os, shutil, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PTXCONF = os.environ.get("PTXCONF", "ptxconf")


def first_launch(form):
    """The first launch `ptxconf conform FORM` sends to a backend: (ptx text, launch dict). The
    `cmd:` backend keeps each launch's directory under $TMPDIR when PTXCONF_KEEP_TMP is set."""
    with tempfile.TemporaryDirectory() as d:
        env = dict(os.environ, TMPDIR=d, PTXCONF_KEEP_TMP="1")
        subprocess.run([PTXCONF, "conform", "--quiet", "--jobs", "1", "--backend",
                        f"cmd:{PTXCONF} run --workers 1", form],
                       env=env, check=True, capture_output=True)
        # ptxconf-cmd-<pid>-<n>-<hash>: the n-th launch.
        runs = sorted((n for n in os.listdir(d) if n.startswith("ptxconf-cmd-")), key=lambda n: int(n.split("-")[3]))
        first = os.path.join(d, runs[0])
        return open(os.path.join(first, "kernel.ptx")).read(), json.load(open(os.path.join(first, "launch.json")))


def write(name, ptx, launch, why):
    d = os.path.join(HERE, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    open(os.path.join(d, "kernel.ptx"), "w").write(f"// probe {name}: {why}\n" + ptx)
    launch = dict(launch, ptx="kernel.ptx")
    json.dump(launch, open(os.path.join(d, "launch.json"), "w"), indent=1)


def sub(text, old, new, count=None):
    n = text.count(old)
    if n == 0 or (count is not None and n != count):
        sys.exit(f"probe edit: `{old}` occurs {n} times")
    return text.replace(old, new)


REDUCE = "cp.reduce.async.bulk.tensor.1d.global.shared::cta.add.tile.bulk_group~i1"
TMA = "cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes~i1"
ATOM = "atom.relaxed.cta.shared::cluster.add.noftz.f16x2"


def predicated(ptx):
    """Each `@%p1 bra Lk; ... Lk:` block (thread 0's part) as straight-line code under `@!%p1`, as the
    generated programs issue their copies (predicated, with the warp converged)."""
    out, skip_to = [], None
    for line in ptx.split("\n"):
        t = line.strip()
        if skip_to is None and t.startswith("@%p1 bra "):
            skip_to = t[len("@%p1 bra "):].rstrip(";") + ":"
            continue
        if skip_to is not None:
            if t == skip_to:
                skip_to = None
            elif t and not t.startswith("@") and not t.startswith("//") and not t.endswith(":"):
                line = line.replace(t, "@!%p1 " + t)
        out.append(line)
    return "\n".join(out)


def tma():
    ptx, launch = first_launch(TMA)
    copy = "cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
    write("tma-0-as-run", ptx, launch, "the suite's kernel as the H200 ran it (crashed: ILLEGAL_INSTRUCTION)")
    write("tma-1-ptx-8.8", sub(ptx, ".version 8.0", ".version 8.8"), launch, "PTX ISA 8.8, as NVRTC 12.9 writes")
    write("tma-2-cluster-launch", ptx, dict(launch, cluster=[1, 1, 1]),
          "launched as a 1x1x1 cluster (cuLaunchKernelEx)")
    m = json.loads(json.dumps(launch))
    m["params"][2]["tensor_map"]["offset"] = 0
    write("tma-3-map-at-256B", ptx, m, "the tensor's global address 256-byte aligned (offset 0, not 48)")
    p = sub(ptx, f"{copy} [%rd12], [%rd30, {{%r20}}], [mbar];",
            f"cvt.u32.u64 %r12, %rd12;\n\tmov.u32 %r13, mbar;\n\t{copy} [%r12], [%rd30, {{%r20}}], [%r13];", 2)
    write("tma-4-32bit-shared", p, launch, "32-bit shared addresses for dstMem and mbar, as NVRTC writes them")
    p = sub(ptx, "mbarrier.arrive.expect_tx.shared.b64 %rd10, [mbar], 32;", "mbarrier.arrive.expect_tx.shared.b64 %rd10, [mbar], 0;")
    p = "\n".join(l for l in p.split("\n") if copy not in l)
    write("tma-5-no-copy", p, launch, "the same kernel without the two tensor copies (expect_tx 0): does the crash need them?")
    p = sub(ptx, "mbarrier.init.shared.b64 [mbar], 1;\n\tfence.proxy.async.shared::cta;",
            "mbarrier.init.shared::cta.b64 [mbar], 1;\n\tfence.mbarrier_init.release.cluster;")
    write("tma-6-mbarrier-init-fence", p, launch, "fence.mbarrier_init.release.cluster after the init, as CUTLASS writes")
    write("tma-11-predicated", predicated(ptx), launch,
          "thread 0's blocks predicated (@!%p1) instead of branched around, as the generated loads that ran")
    p = sub(ptx, "[%rd30, {%r20}]", "[%rd0, {%r20}]", 2)
    write("tma-8-zero-map", p, launch,
          "calibration: the map operand points at 128 zero bytes of `out` (an invalid map): what error does that give?")
    # NVRTC 12.9 writes `.version 8.8`; the oracle reads up to 8.7 and nothing here is newer.
    ptx, launch = first_launch(REDUCE)
    write("tma-9-reduce-as-run", ptx, launch, "chunk04's first launch as run (crashed; no mbarrier, a tensor reduction to global)")
    write("tma-10-reduce-ptx-8.7", sub(ptx, ".version 8.0", ".version 8.7", 1), launch,
          "the same at PTX ISA 8.7, the version of the generated programs whose tensor copies ran")
    write("tma-12-reduce-predicated", predicated(ptx), launch, "the reductions predicated (@!%p1) instead of branched around")
    nv = sub(open(os.path.join(HERE, "nvrtc-tma.ptx")).read(), ".version 8.8", ".version 8.7", 1)
    nvl = {"ptx": "kernel.ptx", "entry": "k", "grid": [1, 1, 1], "block": [32, 1, 1],
           "buffers": [launch["buffers"][0], {"name": "out", "size": 128}],
           "params": [{"buffer": "out"}, launch["params"][2]]}
    write("tma-7-nvrtc", nv, nvl, "NVRTC 12.9's kernel for a __grid_constant__ map (nvrtc-tma.cu), same map")


def generated(seed, index):
    """Program `index` of a `ptxconf fuzz` campaign's seed (the H200 run's arguments)."""
    with tempfile.TemporaryDirectory() as d:
        subprocess.run([PTXCONF, "gen", "--target", "sm_90", "--ptx", "8.7", "--size", "100", "--warps", "1",
                        "--ctas", "1", "--seed", str(seed), "--first", str(index), "--count", "1", "--out", d],
                       check=True, capture_output=True)
        stem = os.path.join(d, "p%06d" % index)
        return open(stem + ".ptx").read(), json.load(open(stem + ".json"))


def fuzz():
    # Seed 6, program 9: crashed on the H200 without any tensor map.
    ptx, launch = generated(6, 9)
    red = "@%p6 cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.min.s32 [%d20], [%d28], 256, [mbar+0];"
    write("fz-0-s6p9-as-run", ptx, launch, "generated program (seed 6, #9) as run: crashed, no tensor map")
    write("fz-1-s6p9-cluster-launch", ptx, dict(launch, cluster=[1, 1, 1]),
          "the same launched as a 1x1x1 cluster (the one generated program with this reduction and a cluster launch ran)")
    p = sub(ptx, red, "mov.u32 %prk, %cluster_ctarank;\n\tmov.u64 %pmb, mbar;\n\tmapa.shared::cluster.u64 %pdst, %d20, %prk;\n\t"
            "mapa.shared::cluster.u64 %pbar, %pmb, %prk;\n\t" + red.replace("[%d20]", "[%pdst]").replace("[mbar+0];", "[%pbar];"), 1)
    p = sub(p, ".reg .b128 %q<1>;", ".reg .b128 %q<1>;\n\t.reg .b32 %prk;\n\t.reg .b64 %pmb, %pdst, %pbar;", 1)
    write("fz-2-s6p9-mapa", p, launch, "the reduction's dstMem and mbar through mapa (own rank), plain launch")
    p = sub(ptx, red + "\n\t@%p6 mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [mbar+0], 256;\n", "", 1)
    write("fz-3-s6p9-no-reduce", p, launch, "without the shared::cluster reduction (and its expect_tx)")
    ptx, launch = generated(2, 67)
    write("fz-4-s2p67-tensor-load-ran", ptx, launch,
          "positive control: a generated tensor load (param map, plain launch) that ran right on the H200")


def atom():
    ptx, launch = first_launch(ATOM)
    op = "atom.relaxed.cta.shared::cluster.add.noftz.f16x2 %r20, [%rd11], %r30;"
    write("atom-0-as-run", ptx, launch, "the suite's kernel as the H200 ran it (CTA 1's slot: u32 sum)")
    write("atom-1-own-cta", sub(ptx, "mov.u32 %r11, 1;\n\tmapa", "mov.u32 %r11, 0;\n\tmapa"), launch,
          "mapa to the executing CTA (rank 0): the own-window path of the same instruction")
    write("atom-2-generic", sub(ptx, op, "atom.relaxed.cta.add.noftz.f16x2 %r20, [%rd13], %r30;"), launch,
          "the remote slot through its generic address (cvta.shared::cluster)")
    write("atom-3-f32", sub(ptx, op, "atom.relaxed.cta.shared::cluster.add.f32 %r20, [%rd11], %r30;"), launch,
          "control: .add.f32 on the same remote slot (passes on the H200)")
    write("atom-4-u32", sub(ptx, op, "atom.relaxed.cta.shared::cluster.add.u32 %r20, [%rd11], %r30;"), launch,
          "control: .add.u32 on the same remote slot (the value the H200 stored for f16x2)")
    write("atom-5-bf16x2", sub(ptx, op, "atom.relaxed.cta.shared::cluster.add.noftz.bf16x2 %r20, [%rd11], %r30;"), launch,
          "bf16x2 on the same inputs")


if __name__ == "__main__":
    tma()
    fuzz()
    atom()
