//! The conformance kernels are valid PTX for NVIDIA's assembler: one form of every §9.7 section
//! with golden vectors, plus forms whose kernels use every construct of `src/kernel.rs` (selector
//! variants through `brx.idx` or a branch search, `!p`, `-a`, immediates, the carry flag in and
//! out, `d|p`, vector operands, `.b128`, an sm_1x target), are assembled by ptxas with all their
//! vectors' variants;
//! and the forms `corpus/findings/ptxas-12.9-rejects.txt` lists are still rejected (a sample).
//! Needs ptxas (`$PTXAS`, PATH or the pip wheel, else installed into the cache: `oracle::ptxas`);
//! PTXCONF_NO_PTXAS=1 skips when none is found.

use ptxconf::backend::{Caps, Feature};
use ptxconf::kernel;
use spec::catalog::{catalog, Form, PtxVersion};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The forms whose kernels use a construct worth checking on its own.
const CONSTRUCTS: &[&str] = &[
    "vadd.u32.u32.u32",          // selectors on a, b and d; c left out without a selector
    "vadd4.u32.u32.u32",         // SIMD selectors and masks
    "vmad.u32.u32.u32.sat.shr7", // -a, -c
    "set.eq.and.f32.f32",        // !c
    "lop3.b32",                  // 256 immediates
    "lop3.and.b32",              // d|p
    "setp.eq.and.s32",           // p|q
    "addc.cc.u32",               // carry in and out
    "mov.b32~i2",                // vector source
    "mov.b128~o2",               // .b128
    "mad.f32",                   // .target sm_13
    "prmt.b32.f4e",
    "cvt.rn.satfinite.e2m1x2.f32", // 8-bit register
    "add.u64",                     // immediate runs: 64-bit constants in every spelling
    "selp.b64",                    // `!p` and constant selectors
    "and.pred",                    // `!a`, `!b`
    "fma.rn.f64",                  // `0d`, decimal and negated float constants
];

fn findings() -> BTreeSet<String> {
    let text = std::fs::read_to_string(Path::new(ROOT).join("corpus/findings/ptxas-12.9-rejects.txt")).unwrap();
    // The part the conformance kernels found (the census part below it lists forms without
    // value semantics, which have no kernels).
    text.lines()
        .take_while(|l| !l.starts_with("# ---- census"))
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| l.split_whitespace().next().unwrap().to_string())
        .collect()
}

/// The kernels of all of a form's golden vectors, written to `dir`: every launch's (each vector's
/// own run, then the immediate-operand runs, common and rare spellings apart); the ptxas
/// architecture.
fn kernel_files(dir: &Path, key: &str) -> (Vec<PathBuf>, String) {
    kernel_files_with(dir, key, kernel::Dispatch::Table)
}

/// What ptxas takes, as a backend's capabilities: every target and version, not the selector
/// `.b1024` (corpus/findings/ptxas-12.9-rejects.txt), `brx.idx` where `branches` asks for the
/// branch search.
fn ptxas_caps(branches: bool) -> Caps {
    let mut lacks: BTreeSet<Feature> = [Feature::SelB1024].into();
    if branches {
        lacks.insert(Feature::BrxIdx);
    }
    Caps {
        target: None,
        ptx: PtxVersion(u8::MAX, u8::MAX),
        families: None,
        rejects: None,
        lacks,
    }
}

/// [`kernel_files`] with the variants dispatched as `dispatch` says, written as for ptxas
/// ([`ptxas_caps`]).
fn kernel_files_with(dir: &Path, key: &str, dispatch: kernel::Dispatch) -> (Vec<PathBuf>, String) {
    kernel_files_for(dir, key, Some(&ptxas_caps(dispatch == kernel::Dispatch::Branches)))
}

/// The kernel files of `key` built for `caps`, or plainly (table dispatch, the grammar's
/// spelling of every selector) when `None`.
fn kernel_files_for(dir: &Path, key: &str, caps: Option<&Caps>) -> (Vec<PathBuf>, String) {
    let path = Path::new(ROOT).join("corpus/vectors");
    let i = spec::vector::form_by_key(key).unwrap_or_else(|| panic!("no form {key}"));
    let form: &Form = &catalog().forms[i];
    let file = ptxconf::vectors::load(&ptxconf::vectors::path_of(&path, form)).unwrap();
    let all: Vec<usize> = (0..file.vectors.len()).collect();
    let b = match caps {
        Some(caps) => kernel::build_for(form, &file.vectors, &all, all.len(), caps),
        None => kernel::build(form, &file.vectors, &all, all.len()),
    }
    .unwrap();
    let (_, target) = kernel::header_for(form);
    let files = b
        .iter()
        .enumerate()
        .map(|(n, b)| {
            let out = dir.join(format!("{key}.{n}.ptx"));
            std::fs::write(&out, &b.job.ptx).unwrap();
            out
        })
        .collect();
    let arch = match target.suffix {
        Some(c) => format!("{}{c}", target.sm),
        None => target.sm.max(50).to_string(),
    };
    (files, arch)
}

/// Whether ptxas accepts every one of `files`; the first refusal's message.
fn accepts_all(ptxas: &Path, files: &[PathBuf], arch: &str) -> (bool, String) {
    for f in files {
        let (ok, msg) = oracle::ptxas::accepts(ptxas, f, arch);
        if !ok {
            let launch = f
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            return (false, format!("{launch}: {msg}"));
        }
    }
    (true, String::new())
}

/// Every matrix form's kernel (one warp per vector: registers for `mma` and `mma.sp`, the
/// load → mma → store round trip for `wmma.mma`; a warpgroup over shared memory for `wgmma`)
/// assembles. About 2,300 ptxas runs (a few minutes): `--ignored`.
#[test]
#[ignore]
fn matrix_kernels_assemble() {
    let Some(n) = assemble_all("matrix", |f| spec::vector::matrix::columns(f).is_some()) else {
        return;
    };
    assert!(n > 250, "{n} matrix forms");
}

/// Every block-scaled `mma` form's kernel (one warp per vector, the scale factors in the
/// selected threads' bytes, the selectors in registers) assembles. 54 ptxas runs: `--ignored`.
#[test]
#[ignore]
fn block_scaled_kernels_assemble() {
    let dense = |f: &Form| spec::vector::scaled::columns(f).is_some_and(|c| c.sparsity.is_none());
    let Some(n) = assemble_all("block-scaled", dense) else {
        return;
    };
    assert!(n >= 40, "{n} block-scaled forms");
}

/// Every sparse block-scaled `mma.sp::ordered_metadata` form's kernel (the block-scaled kernel
/// with A compressed, the lanes' metadata `e` loaded and the selector `f` an immediate, in the
/// order `d, a, b, c, e, f, scale-a-data, ...`) assembles. 54 ptxas runs: `--ignored`.
#[test]
#[ignore]
fn sparse_block_scaled_kernels_assemble() {
    let sparse = |f: &Form| spec::vector::scaled::columns(f).is_some_and(|c| c.sparsity.is_some());
    let Some(n) = assemble_all("sparse-block-scaled", sparse) else {
        return;
    };
    assert_eq!(n, 54, "{n} sparse block-scaled forms");
}

/// Every data-movement form's kernel (`ldmatrix`, `stmatrix`, `movmatrix`: shared memory
/// through permuted row addresses) assembles. 82 ptxas runs: `--ignored`.
#[test]
#[ignore]
fn movement_kernels_assemble() {
    let Some(n) = assemble_all("data-movement", |f| spec::vector::movement::columns(f).is_some()) else {
        return;
    };
    assert!(n >= 82, "{n} data-movement forms");
}

/// Every `wmma.load`/`wmma.store` form's kernel (the round trip through its companion
/// `wmma.mma`, shared forms through a copy loop) assembles. 456 ptxas runs: `--ignored`.
#[test]
#[ignore]
fn wmma_access_kernels_assemble() {
    let Some(n) = assemble_all("wmma-access", |f| spec::vector::wmma::columns(f).is_some()) else {
        return;
    };
    assert!(n >= 456, "{n} wmma.load/store forms");
}

/// Assembles the kernel of every form `has` picks (less the forms ptxas 12.9 refuses, which
/// are listed findings), fails on any rejection, and returns how many were assembled (`None`
/// when there is no ptxas and the run may skip).
fn assemble_all(what: &str, has: fn(&Form) -> bool) -> Option<usize> {
    let ptxas = oracle::ptxas::required("the kernel assembly tests")?;
    let dir = std::env::temp_dir().join(format!("ptxconf-{what}-kernels-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut failures = Vec::new();
    let mut n = 0;
    for f in &catalog().forms {
        if !has(f) || catalog().ptxas_rejects(f).is_some() {
            continue;
        }
        n += 1;
        let (files, arch) = kernel_files(&dir, &spec::vector::form_key(f));
        let (ok, msg) = accepts_all(&ptxas, &files, &arch);
        if !ok {
            failures.push(format!("{} (sm_{arch}): {}", f.name, msg.lines().next().unwrap_or("")));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!("{n} {what} kernels assembled");
    assert!(
        failures.is_empty(),
        "ptxas rejects {} kernels:\n{}",
        failures.len(),
        failures.join("\n")
    );
    Some(n)
}

/// The forms whose golden vectors write the SIMD selector `.b1024` (`.bxyzw`, L31433), which
/// ptxas 12.9 and the CUDA 13.0 JIT read as the type `.b1024` and refuse ("Parsing error near
/// '.b1024'", corpus/findings/h200/video.md).
const B1024: &[&str] = &[
    "vabsdiff4.u32.u32.s32",
    "vabsdiff4.u32.u32.u32.sat",
    "vadd4.u32.s32.u32.add",
    "vavrg4.u32.s32.u32",
    "vmax4.u32.s32.s32.sat",
    "vmin4.s32.s32.u32",
    "vset4.s32.u32.ge.add",
    "vset4.u32.u32.eq",
    "vsub4.u32.s32.u32.sat",
];

/// ptxas still refuses `.b1024` as the grammar writes it, and takes the kernels written for a
/// backend that lacks it (`prmt` on the source register, the same bytes named otherwise).
#[test]
fn b1024_selector_is_refused_and_respelled() {
    let Some(ptxas) = oracle::ptxas::required("the .b1024 selector test") else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("ptxconf-b1024-kernels-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for key in B1024 {
        let (plain, arch) = kernel_files_for(&dir, key, None);
        assert!(std::fs::read_to_string(&plain[0]).unwrap().contains(".b1024,"), "{key}");
        let (ok, msg) = accepts_all(&ptxas, &plain, &arch);
        assert!(!ok && msg.contains("'.b1024'"), "{key}: ptxas now takes .b1024 ({msg})");
        let (files, arch) = kernel_files_for(&dir, key, Some(&ptxas_caps(false)));
        for f in &files {
            assert!(!std::fs::read_to_string(f).unwrap().contains(".b1024"), "{key}");
        }
        let (ok, msg) = accepts_all(&ptxas, &files, &arch);
        assert!(ok, "{key}: {msg}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The kernels of a backend that lacks `brx.idx` (variants reached by a binary search of
/// predicated branches) assemble too: every construct form's, which hold up to 256 variants.
#[test]
fn branch_dispatch_kernels_assemble() {
    let Some(ptxas) = oracle::ptxas::required("the branch-dispatch kernel assembly test") else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("ptxconf-branch-kernels-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut failures = Vec::new();
    let mut searched = 0;
    for key in CONSTRUCTS {
        let (files, arch) = kernel_files_with(&dir, key, kernel::Dispatch::Branches);
        let ptx = std::fs::read_to_string(&files[0]).unwrap();
        for f in &files {
            let ptx = std::fs::read_to_string(f).unwrap();
            assert!(!ptx.contains("brx") && !ptx.contains(".branchtargets"), "{key}");
        }
        searched += usize::from(ptx.contains("@%upper bra"));
        let (ok, msg) = accepts_all(&ptxas, &files, &arch);
        if !ok {
            failures.push(format!("{key} (sm_{arch}): {}", msg.lines().next().unwrap_or("")));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(failures.is_empty(), "ptxas rejects:\n{}", failures.join("\n"));
    assert!(searched >= 6, "{searched} kernels with a branch search");
}

/// Every scalar value form's kernel, with its immediate-operand runs (sources written as
/// constants in every spelling, `!p` on plain predicates), assembles: ptxas takes what the
/// catalog's literal rules (`spec::catalog::literal`) write. About 4,900 ptxas runs: `--ignored`.
#[test]
#[ignore]
fn immediate_kernels_assemble() {
    let scalar = |f: &Form| {
        spec::eval::has_semantics(f)
            && (0..f.inputs.len()).any(|k| {
                spec::catalog::literal::takes_literal(f, k) || spec::catalog::literal::negatable_beyond_grammar(f, k)
            })
            && spec::vector::matrix::columns(f).is_none()
            && spec::vector::movement::columns(f).is_none()
            && spec::vector::scaled::columns(f).is_none()
            && spec::vector::wmma::columns(f).is_none()
            && spec::vector::refused::columns(f).is_none()
    };
    let Some(n) = assemble_all("immediate", scalar) else {
        return;
    };
    assert!(n > 4500, "{n} forms");
}

#[test]
fn conformance_kernels_assemble() {
    let Some(ptxas) = oracle::ptxas::required("the kernel assembly test") else {
        return;
    };
    let rejected = findings();
    assert!(rejected.len() > 1000, "{} findings", rejected.len());
    let cat = catalog();
    // One form per section (the first in catalog order that ptxas is not known to reject).
    let mut keys: Vec<String> = CONSTRUCTS.iter().map(|s| s.to_string()).collect();
    let mut seen = BTreeSet::new();
    for f in &cat.forms {
        let key = spec::vector::form_key(f);
        if spec::eval::has_semantics(f) && !rejected.contains(&key) && seen.insert(f.section) {
            keys.push(key);
        }
    }
    let dir = std::env::temp_dir().join(format!("ptxconf-kernels-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut failures = Vec::new();
    for key in &keys {
        let (files, arch) = kernel_files(&dir, key);
        let (ok, msg) = accepts_all(&ptxas, &files, &arch);
        if !ok {
            failures.push(format!("{key} (sm_{arch}): {}", msg.lines().next().unwrap_or("")));
        }
    }
    // The findings still hold: every 40th listed form is still rejected.
    let mut fixed = Vec::new();
    for key in rejected.iter().step_by(40) {
        let (files, arch) = kernel_files(&dir, key);
        if accepts_all(&ptxas, &files, &arch).0 {
            fixed.push(key.clone());
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!(
        "{} kernels assembled, {} listed rejections re-checked",
        keys.len(),
        rejected.len().div_ceil(40)
    );
    assert!(
        failures.is_empty(),
        "ptxas rejects {} kernels:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(fixed.is_empty(), "listed as rejected but ptxas accepts: {fixed:?}");
}

/// The `-arch` of ptxas for a kernel: `90a` up to sm_90a, else the kernel's `.target`
/// (`sm_100a` → `100a`).
fn arch_of(ptx: &str) -> String {
    let t = ptx
        .lines()
        .find_map(|l| l.trim().strip_prefix(".target sm_"))
        .map(|t| t.split([',', ' ']).next().unwrap_or(t).to_string())
        .unwrap_or_default();
    let sm: u32 = t
        .trim_end_matches(|c: char| c.is_ascii_alphabetic())
        .parse()
        .unwrap_or(0);
    if sm <= 90 {
        "90a".into()
    } else {
        t
    }
}

/// Every scenario kernel of the operational forms (`kernel::operational`: `cp.async`, mbarrier,
/// bulk and tensor copies, clusters, fences, control and hints) of every `step`-th such form
/// assembles, less the forms ptxas 12.9 refuses and those whose kernels are 32-bit modules,
/// which it refuses too (`oracle::ptxas::rejected_forms`); returns how many kernels.
fn assemble_operational(step: usize) -> Option<usize> {
    let ptxas = oracle::ptxas::required("the operational kernel assembly tests")?;
    let dir = std::env::temp_dir().join(format!("ptxconf-operational-kernels-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cat = catalog();
    let (mut n, mut failures) = (0, Vec::new());
    for i in kernel::operational::forms().into_iter().step_by(step) {
        let f = &cat.forms[i];
        if oracle::ptxas::rejected_forms().contains(&spec::vector::form_key(f)) {
            continue;
        }
        for (k, s) in kernel::operational::scenarios(f, 1).unwrap().iter().enumerate() {
            n += 1;
            let file = dir.join(format!("{n}.ptx"));
            std::fs::write(&file, &s.job.ptx).unwrap();
            // sm_90a takes the sm_80, sm_90 and sm_90a kernels; a newer one assembles for its
            // own `.target`.
            let (ok, msg) = oracle::ptxas::accepts(&ptxas, &file, &arch_of(&s.job.ptx));
            if !ok {
                failures.push(format!(
                    "{} scenario {k}: {}",
                    kernel::operational::key(f),
                    msg.lines().next().unwrap_or("")
                ));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        failures.is_empty(),
        "ptxas rejects {} kernels:\n{}",
        failures.len(),
        failures.join("\n")
    );
    Some(n)
}

/// A sample of the operational scenario kernels (every 25th form) assembles.
#[test]
fn operational_kernels_assemble() {
    if let Some(n) = assemble_operational(25) {
        assert!(n >= 8, "{n} kernels");
    }
}

/// Every operational scenario kernel assembles (about 260 ptxas runs): `--ignored`.
#[test]
#[ignore]
fn all_operational_kernels_assemble() {
    if let Some(n) = assemble_operational(1) {
        assert!(n >= 250, "{n} kernels");
    }
}
