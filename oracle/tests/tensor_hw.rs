//! The recorded tensor-core results through the oracle, with the instruction each recording used
//! (`corpus/tensor-cores/hw-data/`, BSD-2, Khattak & Mikaitis; see that directory's README and
//! LICENCE): fp16/bf16/tf32 samples run as `wmma.load` → `wmma.mma` → `wmma.store` (m16n16k16,
//! m16n16k8 for tf32; row-major A, column-major B, C and D column-major with leading dimension
//! 16), fp8 samples as `mma.sync.aligned.m16n8k32.row.col` with fragments built in registers as
//! the recording program built them, each under the `.target` of its GPU. Every sample's D(0,0)
//! must be the recorded bits. `spec/tests/tensor_hw.rs` checks the same data against the
//! numerics alone; this test checks the instructions, fragment layouts and target mapping
//! around them.
//!
//! H100/H200 fp8 with an f32 output were recorded with `wgmma` and C = 0: they run as
//! `wgmma.mma_async.sync.aligned.m64n8k32.f32.<fp8>.<fp8>` with scale-d false, A and B in
//! shared memory (K-major, no swizzle) through matrix descriptors.

use flate2::read::GzDecoder;
use oracle::launch::{self, LaunchFile};
use spec::tensor::convert;
use spec::types::FloatFormat::{self, Bf16, E4m3, E5m2, Tf32, F16, F32};
use std::io::Read;
use std::path::PathBuf;

fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../corpus/tensor-cores/hw-data")
}

fn lines(path: &PathBuf) -> Vec<String> {
    let mut s = String::new();
    GzDecoder::new(std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
        .read_to_string(&mut s)
        .unwrap();
    s.lines().map(str::to_owned).collect()
}

fn hex_words(line: &str) -> Vec<u32> {
    line.split_whitespace()
        .map(|w| u32::from_str_radix(w, 16).unwrap())
        .collect()
}

fn binary(line: &str) -> u32 {
    u32::from_str_radix(line.trim(), 2).unwrap()
}

/// The `.target` each recording GPU is.
fn target(gpu: &str) -> &'static str {
    match gpu {
        "V100" => "sm_70",
        "A100" => "sm_80",
        "Ada" => "sm_89",
        "H100" | "H200" => "sm_90",
        _ => "sm_100",
    }
}

struct Samples {
    a: Vec<Vec<u32>>,
    b: Vec<Vec<u32>>,
    c: Vec<u32>,
    d: Vec<u32>,
}

fn samples(gpu: &str, dir: &str, out: FloatFormat) -> Samples {
    let p = |name: String| data_dir().join(gpu).join(dir).join(name);
    let suffix = if out == F16 { "fp16" } else { "fp32" };
    Samples {
        a: lines(&p(format!("a_{gpu}_{dir}.txt.gz")))
            .iter()
            .map(|l| hex_words(l))
            .collect(),
        b: lines(&p(format!("b_{gpu}_{dir}.txt.gz")))
            .iter()
            .map(|l| hex_words(l))
            .collect(),
        c: lines(&p(format!("c_{gpu}_fp32.txt.gz")))
            .iter()
            .map(|l| binary(l))
            .collect(),
        d: lines(&p(format!("d_{gpu}_{suffix}.txt.gz")))
            .iter()
            .map(|l| binary(l))
            .collect(),
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Runs `ptx` (entry `k(.param .u64 in, .param .u64 out, .param .u32 n)`) on one warp.
fn launch(ptx: &str, input: &[u8], out_bytes: usize, n: usize) -> Vec<u8> {
    launch_threads(ptx, input, out_bytes, n, 32)
}

/// [`launch`] on `threads` threads.
fn launch_threads(ptx: &str, input: &[u8], out_bytes: usize, n: usize, threads: u32) -> Vec<u8> {
    let l: LaunchFile = serde_json::from_value(serde_json::json!({
        "ptx": "k.ptx", "entry": "k", "grid": [1, 1, 1], "block": [threads, 1, 1],
        "buffers": [{"name": "in", "hex": hex(input)}, {"name": "out", "size": out_bytes}],
        "params": [{"buffer": "in"}, {"buffer": "out"}, {"type": "u32", "value": n.to_string()}],
        "limits": {"steps": 1_000_000_000u64},
    }))
    .unwrap();
    launch::run(&l, ptx).unwrap_or_else(|e| panic!("{e}")).0[1].1.clone()
}

fn regs(first: usize, n: usize) -> String {
    (0..n)
        .map(|k| format!("%r{}", first + k))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A loop over `n` samples: `setup` once, `body` per sample, then `in` and `out` advance by
/// `step_in` and `step_out` bytes.
fn looped(target: &str, setup: &str, body: &str, step_in: usize, step_out: usize) -> String {
    format!(
        ".version 8.7\n.target {target}\n.address_size 64\n\
         .visible .entry k(.param .u64 pin, .param .u64 pout, .param .u32 n)\n{{\n\
         .reg .pred %p<4>;\n.reg .b32 %r<80>;\n.reg .b64 %rd<16>;\n\
         ld.param.u64 %rd1, [pin];\nld.param.u64 %rd2, [pout];\nld.param.u32 %r70, [n];\n\
         mov.u32 %r71, 0;\nmov.u32 %r0, %tid.x;\n{setup}\
         LOOP:\n{body}\
         add.s64 %rd1, %rd1, {step_in};\nadd.s64 %rd2, %rd2, {step_out};\n\
         add.u32 %r71, %r71, 1;\nsetp.lt.u32 %p1, %r71, %r70;\n@%p1 bra LOOP;\nret;\n}}\n"
    )
}

/// fp16/bf16/tf32 through `wmma`: per sample A (16×K, row-major), B (K×16, column-major), C
/// (16×16, column-major), D(0,0) of the stored D.
fn run_wmma(gpu: &str, dir: &str, out: FloatFormat) -> Vec<(usize, u32, u32)> {
    let (fin, k, name) = match dir {
        "fp16" => (F16, 16, "f16"),
        "bf16" => (Bf16, 16, "bf16"),
        _ => (Tf32, 8, "tf32"),
    };
    let s = samples(gpu, dir, out);
    let n = s.d.len();
    let ebytes = if fin == Tf32 { 4 } else { 2 };
    let cbytes = if out == F16 { 2 } else { 4 };
    let (sa, sb, sc) = (16 * k * ebytes, 16 * k * ebytes, 256 * cbytes);
    let per = sa + sb + sc;
    let mut input = vec![0u8; per * n];
    for i in 0..n {
        let base = i * per;
        let put = |v: u32, fmt: FloatFormat| -> Vec<u8> {
            let bits = convert(F32, fmt, v as u128) as u32;
            if fmt == Tf32 {
                bits.to_le_bytes().to_vec()
            } else {
                (bits as u16).to_le_bytes().to_vec()
            }
        };
        // Row 0 of A, column 0 of B (column-major: its K elements first).
        for (kk, &v) in s.a[i].iter().enumerate() {
            input[base + kk * ebytes..base + (kk + 1) * ebytes].copy_from_slice(&put(v, fin));
        }
        for (kk, &v) in s.b[i].iter().enumerate() {
            input[base + sa + kk * ebytes..base + sa + (kk + 1) * ebytes].copy_from_slice(&put(v, fin));
        }
        let c = if out == F16 {
            (convert(F32, F16, s.c[i] as u128) as u16).to_le_bytes().to_vec()
        } else {
            s.c[i].to_le_bytes().to_vec()
        };
        input[base + sa + sb..base + sa + sb + cbytes].copy_from_slice(&c);
    }
    let shape = format!("m16n16k{k}");
    let (ta, tc) = (name, if out == F16 { "f16" } else { "f32" });
    // Fragment lengths as the catalog gives them (the checker requires them).
    let cat = spec::catalog::catalog();
    let mma_name = if fin == F16 {
        format!("wmma.mma.sync.aligned.row.col.{shape}.{tc}.{tc}")
    } else {
        format!("wmma.mma.sync.aligned.row.col.{shape}.{tc}.{ta}.{ta}.{tc}")
    };
    let f = &cat.forms[cat.by_name(&mma_name)[0]];
    let len = |o: usize| spec::catalog::fragment::length(f, &f.inputs[o]).unwrap();
    let (na, nb, nc) = (len(0), len(1), len(2));
    let body = format!(
        "add.s64 %rd3, %rd1, {sa};\nadd.s64 %rd4, %rd1, {};\n\
         wmma.load.a.sync.aligned.row.{shape}.global.{ta} {{{}}}, [%rd1];\n\
         wmma.load.b.sync.aligned.col.{shape}.global.{ta} {{{}}}, [%rd3];\n\
         wmma.load.c.sync.aligned.col.{shape}.global.{tc} {{{}}}, [%rd4];\n\
         {mma_name} {{{}}}, {{{}}}, {{{}}}, {{{}}};\n\
         wmma.store.d.sync.aligned.col.{shape}.global.{tc} [%rd2], {{{}}};\n",
        sa + sb,
        regs(1, na),
        regs(20, nb),
        regs(40, nc),
        regs(50, nc),
        regs(1, na),
        regs(20, nb),
        regs(40, nc),
        regs(50, nc),
    );
    let ptx = looped(target(gpu), "", &body, per, sc);
    let got = launch(&ptx, &input, sc * n, n);
    (0..n)
        .filter_map(|i| {
            let d = if out == F16 {
                convert(F16, F32, u16::from_le_bytes([got[i * sc], got[i * sc + 1]]) as u128) as u32
            } else {
                u32::from_le_bytes(got[i * sc..i * sc + 4].try_into().unwrap())
            };
            (d != s.d[i]).then_some((i, s.d[i], d))
        })
        .collect()
}

/// fp8 through `mma.sync.aligned.m16n8k32.row.col`: lane t of groupID 0 holds k = 4t..4t+3 in
/// its first A/B register and k = 16+4t..16+4t+3 in the third A (second B) register (L22372-
/// 22376, L22443-22446); C(0,0) is lane 0's c0. The recording program put the `b_` values in
/// A and the `a_` values in B.
fn run_mma_fp8(gpu: &str, dir: &str, out: FloatFormat) -> Vec<(usize, u32, u32)> {
    let (fin, name) = if dir == "E4M3" { (E4m3, "e4m3") } else { (E5m2, "e5m2") };
    let s = samples(gpu, dir, out);
    let n = s.d.len();
    let nc = if out == F16 { 2 } else { 4 };
    let words = 4 + 2 + nc;
    let per = 32 * words * 4;
    let mut input = vec![0u8; per * n];
    for i in 0..n {
        let fp8 = |v: u32| convert(F32, fin, v as u128) as u8;
        for t in 0..4 {
            let lane = i * per + t * words * 4;
            for j in 0..4 {
                input[lane + j] = fp8(s.b[i][4 * t + j]);
                input[lane + 8 + j] = fp8(s.b[i][16 + 4 * t + j]);
                input[lane + 16 + j] = fp8(s.a[i][4 * t + j]);
                input[lane + 20 + j] = fp8(s.a[i][16 + 4 * t + j]);
            }
        }
        let c = if out == F16 {
            (convert(F32, F16, s.c[i] as u128) as u32).to_le_bytes()
        } else {
            s.c[i].to_le_bytes()
        };
        input[i * per + 24..i * per + 28].copy_from_slice(&c);
    }
    let (tc, td) = if out == F16 { ("f16", "f16") } else { ("f32", "f32") };
    let setup = format!("mul.wide.u32 %rd6, %r0, {};\n", words * 4);
    let loads: String = (0..words)
        .map(|w| format!("ld.global.b32 %r{}, [%rd7+{}];\n", 1 + w, 4 * w))
        .collect();
    let body = format!(
        "add.s64 %rd7, %rd1, %rd6;\n{loads}\
         mma.sync.aligned.m16n8k32.row.col.{td}.{name}.{name}.{tc} {{{}}}, {{{}}}, {{{}}}, {{{}}};\n\
         setp.eq.u32 %p2, %r0, 0;\n@%p2 st.global.b32 [%rd2], %r30;\n",
        regs(30, nc),
        regs(1, 4),
        regs(5, 2),
        regs(7, nc),
    );
    let ptx = looped(target(gpu), &setup, &body, per, 4);
    let got = launch(&ptx, &input, 4 * n, n);
    (0..n)
        .filter_map(|i| {
            let w = u32::from_le_bytes(got[4 * i..4 * i + 4].try_into().unwrap());
            let d = if out == F16 {
                convert(F16, F32, (w & 0xffff) as u128) as u32
            } else {
                w
            };
            (d != s.d[i]).then_some((i, s.d[i], d))
        })
        .collect()
}

/// H100/H200 fp8 → f32 through `wgmma` (C = 0, so scale-d is false): per sample, threads 0-31
/// write A's row 0 (the `a_` values) and threads 32-63 B's column 0 (the `b_` values) into
/// shared memory in the K-major, unswizzled canonical layout (byte (r, k) of A at
/// (r%8)·16 + (k%16) + (k/16)·LBO + (r/8)·SBO, LBO 128, SBO 256, L25308-25360; B likewise by
/// column), then the warpgroup runs the wgmma and thread 0 stores D(0,0) (its d0, L24934-24952).
fn run_wgmma_fp8(gpu: &str, dir: &str) -> Vec<(usize, u32, u32)> {
    let (fin, name) = if dir == "E4M3" { (E4m3, "e4m3") } else { (E5m2, "e5m2") };
    let s = samples(gpu, dir, F32);
    let n = s.d.len();
    let mut input = vec![0u8; 64 * n];
    for i in 0..n {
        for k in 0..32 {
            input[64 * i + k] = convert(F32, fin, s.a[i][k] as u128) as u8;
            input[64 * i + 32 + k] = convert(F32, fin, s.b[i][k] as u128) as u8;
        }
    }
    // Descriptors: start address >> 4 in bits 13-0, LBO 128 >> 4 in 29-16, SBO 256 >> 4 in
    // 45-32, no swizzle (L25606-25652).
    let high: u64 = (16 << 32) | (8 << 16);
    let setup = format!(
        "mov.u32 %r60, tile;
bfe.u32 %r61, %r60, 4, 14;
cvt.u64.u32 %rd8, %r61;
or.b64 %rd8, %rd8, {high};
         add.u32 %r62, %r60, 4096;
bfe.u32 %r61, %r62, 4, 14;
cvt.u64.u32 %rd9, %r61;
or.b64 %rd9, %rd9, {high};
         and.b32 %r63, %r0, 31;
and.b32 %r64, %r63, 15;
shr.u32 %r65, %r63, 4;
shl.b32 %r65, %r65, 7;
         add.u32 %r64, %r64, %r65;
         setp.lt.u32 %p3, %r0, 32;
selp.u32 %r66, 0, 4096, %p3;
add.u32 %r66, %r66, %r64;
add.u32 %r66, %r66, %r60;
         cvt.u64.u32 %rd10, %r0;
setp.ne.u32 %p2, %r0, %r0;
"
    );
    let body = format!(
        "setp.lt.u32 %p3, %r0, 64;
@%p3 add.s64 %rd11, %rd1, %rd10;
@%p3 ld.global.u8 %r67, [%rd11];
         @%p3 st.shared.u8 [%r66], %r67;
         bar.sync 0;
fence.proxy.async.shared::cta;
wgmma.fence.sync.aligned;
         wgmma.mma_async.sync.aligned.m64n8k32.f32.{name}.{name} {{%r40, %r41, %r42, %r43}}, %rd8, %rd9, %p2, 1, 1;
         wgmma.commit_group.sync.aligned;
wgmma.wait_group.sync.aligned 0;
         setp.eq.u32 %p1, %r0, 0;
@%p1 st.global.b32 [%rd2], %r40;
bar.sync 0;
"
    );
    let ptx = looped("sm_90a", &setup, &body, 64, 4).replace(
        ".address_size 64\n",
        ".address_size 64\n.shared .align 1024 .b8 tile[8192];\n",
    );
    let got = launch_threads(&ptx, &input, 4 * n, n, 128);
    (0..n)
        .filter_map(|i| {
            let d = u32::from_le_bytes(got[4 * i..4 * i + 4].try_into().unwrap());
            (d != s.d[i]).then_some((i, s.d[i], d))
        })
        .collect()
}

#[test]
fn every_recorded_sample_through_the_recorded_instruction() {
    let mut report = Vec::new();
    let mut failures = Vec::new();
    let mut ran = 0;
    for gpu in ["V100", "A100", "Ada", "H100", "H200", "B200"] {
        for dir in ["fp16", "bf16", "tf32", "E4M3", "E5M2"] {
            for out in [F32, F16] {
                let suffix = if out == F16 { "fp16" } else { "fp32" };
                if !data_dir()
                    .join(gpu)
                    .join(dir)
                    .join(format!("d_{gpu}_{suffix}.txt.gz"))
                    .exists()
                {
                    continue;
                }
                let bad = if matches!(gpu, "H100" | "H200") && matches!(dir, "E4M3" | "E5M2") && out == F32 {
                    run_wgmma_fp8(gpu, dir)
                } else if matches!(dir, "E4M3" | "E5M2") {
                    run_mma_fp8(gpu, dir, out)
                } else {
                    run_wmma(gpu, dir, out)
                };
                ran += 1;
                report.push(format!("{gpu} {dir} -> {suffix}: {} mismatches", bad.len()));
                for (i, want, got) in bad.iter().take(3) {
                    failures.push(format!(
                        "{gpu} {dir} -> {suffix}, sample {}: recorded {want:#010x}, oracle {got:#010x}",
                        2 * i + 1
                    ));
                }
            }
        }
    }
    eprintln!("{}", report.join("\n"));
    assert_eq!(ran, 38, "configurations run on the oracle");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
