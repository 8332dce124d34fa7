//! Tensor-core numerics against results recorded on NVIDIA GPUs: every sample of
//! `corpus/tensor-cores/hw-data/` (38 GPU × format × output configurations, 2,500 samples each;
//! BSD-2, Khattak & Mikaitis, see that directory's README and LICENCE) must come out of
//! `spec::tensor` bit for bit, and every generation's model value must lie in the acceptance set
//! the manual allows (`spec::tensor::accept`).
//!
//! How the samples were recorded (the directory's README): fp16/bf16/tf32 are `wmma`
//! m16n16k16 (k8 for tf32) with the sample's K products in the first k positions and zeros in
//! the rest; fp8 are `mma.sync.m16n8k32` (whose A/B operands the recording program swapped: the
//! pairing of k is unchanged, and a product does not care which factor is which), except H100 and
//! H200 fp8 with an f32 output, which are `wgmma` with C = 0 (their `c_` file is not used). An
//! f16 output took C rounded to f16 to nearest even, and its `d_` file holds the f16 result
//! widened to f32.

use flate2::read::GzDecoder;
use spec::tensor::accept::accept;
use spec::tensor::{config, convert, dot, Arch, Kind, MmaOp};
use spec::types::FloatFormat::{self, Bf16, E4m3, E5m2, Tf32, F16, F32};
use spec::value::Accept;
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

fn hex_words(line: &str) -> Vec<u128> {
    line.split_whitespace()
        .map(|w| u32::from_str_radix(w, 16).unwrap() as u128)
        .collect()
}

fn binary(line: &str) -> u128 {
    u32::from_str_radix(line.trim(), 2).unwrap() as u128
}

/// Whether `bits` lies in the set `acc` around `model` (without `Outcome::accepts`' shortcut for
/// the model itself, which is what is being checked).
fn in_set(acc: &Accept, model: u128, bits: u128) -> bool {
    match acc {
        Accept::Exact => bits == model,
        Accept::Any => true,
        Accept::OneOf(v) => bits == model || v.contains(&bits),
        Accept::Nan(f) => spec::float::format::Fmt::of(*f).is_nan(bits),
        Accept::Bound(b) => b.accepts(bits),
        Accept::Lanes { .. } => unreachable!("a scalar result"),
    }
}

struct Setup {
    gpu: &'static str,
    dir: &'static str,
    input: FloatFormat,
    out: FloatFormat,
    arch: Arch,
}

#[test]
fn every_recorded_sample_is_reproduced_bit_for_bit() {
    let gpus = [
        ("V100", Arch::Sm70),
        ("A100", Arch::Sm80),
        ("Ada", Arch::Sm89),
        ("H100", Arch::Sm90),
        ("H200", Arch::Sm90),
        ("B200", Arch::Sm100),
    ];
    let fmts = [
        ("fp16", F16),
        ("bf16", Bf16),
        ("tf32", Tf32),
        ("E4M3", E4m3),
        ("E5M2", E5m2),
    ];
    let mut setups = Vec::new();
    for (gpu, arch) in gpus {
        for (dir, input) in fmts {
            for (out, suffix) in [(F32, "fp32"), (F16, "fp16")] {
                let d = data_dir().join(gpu).join(dir).join(format!("d_{gpu}_{suffix}.txt.gz"));
                if d.exists() {
                    setups.push(Setup {
                        gpu,
                        dir,
                        input,
                        out,
                        arch,
                    });
                }
            }
        }
    }
    assert_eq!(setups.len(), 38, "configurations found");

    let mut failures: Vec<String> = Vec::new();
    let mut outside: Vec<String> = Vec::new();
    for s in &setups {
        let (gpu, dir) = (s.gpu, s.dir);
        let base = data_dir().join(gpu).join(dir);
        let a = lines(&base.join(format!("a_{gpu}_{dir}.txt.gz")));
        let b = lines(&base.join(format!("b_{gpu}_{dir}.txt.gz")));
        let c = lines(&base.join(format!("c_{gpu}_fp32.txt.gz")));
        let suffix = if s.out == F32 { "fp32" } else { "fp16" };
        let d = lines(&base.join(format!("d_{gpu}_{suffix}.txt.gz")));
        assert!(a.len() == 2500 && b.len() == 2500 && c.len() == 2500 && d.len() == 2500);
        let fp8 = matches!(s.input, E4m3 | E5m2);
        let wgmma = fp8 && s.out == F32 && s.arch == Arch::Sm90;
        let (kind, k) = match (s.input, wgmma) {
            (_, true) => (Kind::Wgmma, 32),
            (E4m3 | E5m2, false) => (Kind::Mma, 32),
            (Tf32, _) => (Kind::Wmma, 8),
            _ => (Kind::Wmma, 16),
        };
        let op = MmaOp::float(s.arch, kind, (1, 1, k), s.input, s.out);
        let mut matched = 0;
        for i in 0..2500 {
            let mut av = vec![0u128; k];
            let mut bv = vec![0u128; k];
            for (j, w) in hex_words(&a[i]).into_iter().enumerate() {
                av[j] = convert(F32, s.input, w);
            }
            for (j, w) in hex_words(&b[i]).into_iter().enumerate() {
                bv[j] = convert(F32, s.input, w);
            }
            let c32 = if wgmma { 0 } else { binary(&c[i]) };
            let cv = convert(F32, s.out, c32);
            let want = binary(&d[i]);
            let got = dot(&op, &av, &bv, cv);
            let got32 = convert(s.out, F32, got.model);
            if got32 == want {
                matched += 1;
            } else if failures.len() < 12 {
                failures.push(format!(
                    "{gpu} {dir} -> {suffix} ({kind:?}, {:?}), line {}: a {} | b {} | c {} | expected {want:#010x}, got {got32:#010x}",
                    s.arch,
                    2 * i + 1,
                    a[i].trim(),
                    b[i].trim(),
                    c[i].trim(),
                ));
            }
            // Every generation's model value lies in the manual's acceptance set.
            let acc = accept(s.input, s.input, s.out, &av, &bv, cv, got.model);
            assert_eq!(acc, got.accept);
            for arch in Arch::ALL {
                let m = config(arch, kind, s.input, s.out)
                    .unwrap()
                    .dot(s.input, s.input, &av, &bv, cv);
                if !in_set(&acc, got.model, m) && outside.len() < 12 {
                    outside.push(format!(
                        "{gpu} {dir} -> {suffix}, line {}: {arch:?}'s model {m:#x} outside {acc:?}",
                        2 * i + 1
                    ));
                }
            }
        }
        println!(
            "{gpu:>5} {dir:>5} -> {suffix} ({kind:?} k{k}, {:?}): {matched}/2500",
            s.arch
        );
    }
    assert!(
        failures.is_empty(),
        "mismatches (first {}):\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(
        outside.is_empty(),
        "model values outside the acceptance set:\n{}",
        outside.join("\n")
    );
}
