//! A backend's declared capabilities reach the suite: a `cmd:` program's `--capabilities` answer
//! becomes its target, PTX version and lacks (the command line's overrides still win), and a
//! backend that lacks `brx.idx` gets conformance kernels that dispatch their operand variants by
//! predicated branches instead — with the same results, judged on the same vectors.

mod common;
use common::Scratch;
use ptxconf::backend::cmd::Cmd;
use ptxconf::backend::{oracle::Oracle, Backend, Buffers, Caps, Failure, Feature, Job, Options};
use ptxconf::conform::{self, FormVectors, Settings, Status};
use ptxconf::kernel::{self, Dispatch};
use spec::catalog::{catalog, Form, PtxVersion, Target};
use std::path::Path;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/corpus/vectors");

/// Forms with several variants: video selectors on a, b and d; SIMD selectors and masks;
/// `-a`/`-c`; `!c`; 256 LUT immediates; `d|p`; `p|q` with `!c`. (`selp` and `prmt` have one
/// variant each in today's golden vectors: no dispatch at all.)
const MANY_VARIANTS: &[&str] = &[
    "vadd.u32.u32.u32",
    "vadd4.u32.u32.u32",
    "vmad.u32.u32.u32.sat.shr7",
    "set.eq.and.f32.f32",
    "lop3.b32",
    "lop3.and.b32",
    "setp.eq.and.s32",
];

fn form(key: &str) -> &'static Form {
    &catalog().forms[spec::vector::form_by_key(key).unwrap_or_else(|| panic!("no form {key}"))]
}

fn vectors(key: &str) -> FormVectors {
    let path = ptxconf::vectors::path_of(Path::new(DIR), form(key));
    conform::load(&path, &Settings::default()).unwrap_or_else(|(_, e)| panic!("{key}: {e}"))
}

fn oracle() -> Oracle {
    Oracle::new(&Options {
        jobs: 1,
        ..Options::default()
    })
}

/// Whether a kernel uses the indexed branch or its target list.
fn has_brx(ptx: &str) -> bool {
    ptx.contains("brx") || ptx.contains(".branchtargets")
}

/// The oracle standing in for an implementation without `brx.idx` (GPGPU-Sim, gpuocelot): a
/// kernel that uses it is refused at parse time, as such an implementation refuses it. `caps`
/// says whether it declares the lack.
struct NoBrx {
    oracle: Oracle,
    caps: Caps,
}

impl NoBrx {
    fn new(declares: bool) -> NoBrx {
        let oracle = oracle();
        let mut caps = oracle.caps().clone();
        if declares {
            caps.lacks.insert(Feature::BrxIdx);
        }
        NoBrx { oracle, caps }
    }
}

impl Backend for NoBrx {
    fn name(&self) -> String {
        "no-brx".into()
    }
    fn describe(&self) -> String {
        "the oracle, refusing brx.idx".into()
    }
    fn caps(&self) -> &Caps {
        &self.caps
    }
    fn run(&self, job: &Job) -> Result<Buffers, Failure> {
        if has_brx(&job.ptx) {
            return Err(Failure::Rejected {
                kind: "parse".into(),
                message: "brx.idx is not supported".into(),
            });
        }
        self.oracle.run(job)
    }
}

/// Every result of a form's kernels on the oracle (all its vectors in one launch, then the
/// immediate-operand runs' launches), and the kernels' text.
fn results(key: &str, fv: &FormVectors, dispatch: Dispatch) -> (Vec<Vec<u128>>, Vec<String>) {
    let all: Vec<usize> = (0..fv.vectors.len()).collect();
    let batches = kernel::build_with(form(key), &fv.vectors, &all, all.len(), dispatch).unwrap();
    assert_eq!(
        batches[0].vectors, all,
        "{key}: the first launch holds every vector's own run"
    );
    let (mut out, mut ptx) = (Vec::new(), Vec::new());
    for b in &batches {
        let bufs = oracle()
            .run(&b.job)
            .unwrap_or_else(|f| panic!("{key} ({dispatch:?}): {f}"));
        out.extend(b.decode(form(key), &bufs).unwrap());
        ptx.push(b.job.ptx.clone());
    }
    (out, ptx)
}

/// The runs a form's vectors make: each vector's own and the immediate-operand runs.
fn runs(key: &str, fv: &FormVectors) -> usize {
    let all: Vec<usize> = (0..fv.vectors.len()).collect();
    let batches = kernel::build(form(key), &fv.vectors, &all, all.len()).unwrap();
    batches.iter().map(|b| b.vectors.len()).sum()
}

#[test]
fn branch_dispatch_gives_the_table_dispatch_results() {
    for key in MANY_VARIANTS {
        let fv = vectors(key);
        let (table, table_ptx) = results(key, &fv, Dispatch::Table);
        let (branches, branch_ptx) = results(key, &fv, Dispatch::Branches);
        let count = |ptx: &str| ptx.lines().filter(|l| l.starts_with("$V")).count();
        // The first kernel holds every vector's own run; the others the immediate-operand runs.
        let variants = count(&branch_ptx[0]);
        assert!(variants >= 2, "{key}: {variants} variants");
        assert!(has_brx(&table_ptx[0]), "{key}: the table kernel has no brx.idx");
        for ptx in &branch_ptx {
            assert!(!has_brx(ptx), "{key}: a branch kernel has brx.idx");
            // A binary search: ⌈log₂ n⌉ tests on any path, n − 1 in all.
            assert_eq!(
                ptx.matches("setp.ge.u32 %upper").count(),
                count(ptx).saturating_sub(1),
                "{key}"
            );
        }
        assert_eq!(table.len(), runs(key, &fv));
        assert!(table == branches, "{key}: the two dispatches disagree");
        if *key == "lop3.b32" {
            assert_eq!(variants, 256, "one variant per LUT");
        }
    }
}

#[test]
fn conform_on_a_backend_lacking_brx_runs_branch_kernels_and_passes() {
    let settings = Settings::default();
    let lacking = NoBrx::new(true);
    let silent = NoBrx::new(false);
    for key in MANY_VARIANTS {
        let fv = vectors(key);
        let r = conform::check_form(&lacking, &fv, &settings);
        assert_eq!(r.status, Status::Passed, "{key}: {:?}", r.reason);
        let n = runs(key, &fv);
        assert_eq!((r.vectors, r.passed, r.failed), (n, n, 0), "{key}");
        // The same backend without the declaration is given `brx.idx` and refuses it.
        let r = conform::check_form(&silent, &fv, &settings);
        assert_eq!(r.status, Status::Failed, "{key}");
        assert!(
            r.reason.as_deref().unwrap_or("").contains("brx.idx is not supported"),
            "{key}"
        );
    }
}

/// An implementation without `brx.idx` that says so: it answers `--capabilities`, refuses a
/// kernel with `brx`, and otherwise runs `ptxconf run`.
fn declaring_program(s: &Scratch, answer: &str) -> String {
    s.script(
        "sim.sh",
        &format!(
            r#"if [ "$1" = --capabilities ]; then echo '{answer}'; exit 0; fi
if grep -q 'brx\|branchtargets' "$(dirname "$1")/kernel.ptx"; then
  echo '{{"status":"error","kind":"parse","message":"brx.idx is not supported"}}'; exit 1
fi
exec '{}' run "$1""#,
            env!("CARGO_BIN_EXE_ptxconf")
        ),
    )
}

fn opts() -> Options {
    Options {
        timeout: 60.0,
        jobs: 2,
        ..Options::default()
    }
}

#[test]
fn a_cmd_program_declares_target_ptx_and_lacks() {
    let s = Scratch::new("declares");
    let answer = r#"{"name": "no-brx sim 0.1", "target": "sm_86", "ptx": "7.1", "families": null, "lacks": ["brx.idx", "tex.grad"]}"#;
    let prog = declaring_program(&s, answer);
    let cmd = Cmd::new(&prog, &opts()).unwrap();
    let caps = cmd.caps();
    assert_eq!(caps.target, Target::parse("sm_86"));
    assert_eq!(caps.ptx, PtxVersion(7, 1));
    assert_eq!(caps.families, None);
    // `tex.grad` is not a construct ptxconf knows: warned about, left out.
    assert_eq!(caps.lacks.iter().copied().collect::<Vec<_>>(), vec![Feature::BrxIdx]);
    assert_eq!(cmd.declared().unwrap().name.as_deref(), Some("no-brx sim 0.1"));
    let d = cmd.describe();
    assert!(
        d.ends_with(r#"sim.sh (declares name "no-brx sim 0.1", target sm_86, PTX 7.1, lacks brx.idx)"#),
        "{d}"
    );
    // Its kernels have no `brx.idx`, so lop3's 256 LUTs are judged on lop3.
    let settings = Settings::default();
    let r = conform::check_form(&cmd, &vectors("lop3.b32"), &settings);
    assert_eq!(r.status, Status::Passed, "{:?}", r.reason);
    assert_eq!(r.passed, r.vectors);
    // A form past its declared target and version is skipped.
    let r = conform::check_form(&cmd, &vectors("set.eq.bf16.f32"), &settings);
    assert_eq!(r.status, Status::Skipped);
    assert!(
        r.reason.as_deref().unwrap().contains("backend is sm_86"),
        "{:?}",
        r.reason
    );

    // The command line's overrides win over the declaration; the lack stays.
    let o = Options {
        target: Target::parse("sm_90"),
        ptx: Some(PtxVersion(8, 7)),
        families: Some(vec!["9.7.1".into()]),
        ..opts()
    };
    let cmd = Cmd::new(&prog, &o).unwrap();
    assert_eq!(cmd.caps().target, Target::parse("sm_90"));
    assert_eq!(cmd.caps().ptx, PtxVersion(8, 7));
    assert_eq!(cmd.caps().families.as_deref(), Some(&["9.7.1".to_string()][..]));
    assert!(cmd.caps().lacks(Feature::BrxIdx));
}

#[test]
fn a_program_that_does_not_answer_declares_nothing() {
    let s = Scratch::new("silent");
    // Exits 2 on the question, as a program that takes `--capabilities` for a launch file would.
    let exits = s.script(
        "exits.sh",
        r#"[ "$1" = --capabilities ] && { echo "no such file" >&2; exit 2; }; exit 3"#,
    );
    // Answers as to a launch.
    let launch = s.script(
        "launch.sh",
        r#"echo '{"status":"error","kind":"launch","message":"cannot read --capabilities"}'; exit 1"#,
    );
    for prog in [exits, launch] {
        let cmd = Cmd::new(&prog, &opts()).unwrap();
        assert!(cmd.declared().is_err(), "{prog}");
        let caps = cmd.caps();
        assert_eq!((caps.target, caps.ptx), (None, PtxVersion(8, 7)), "{prog}");
        assert!(caps.families.is_none() && caps.lacks.is_empty(), "{prog}");
        assert!(!cmd.describe().contains("declares"), "{}", cmd.describe());
    }
}

#[test]
fn ptxconf_run_answers_for_the_oracle() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ptxconf"))
        .args(["run", "--capabilities"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["ptx"], "8.7");
    assert_eq!(v["lacks"], serde_json::json!([]));
    assert!(v["target"].is_null() && v["families"].is_null(), "{v}");
    let cmd = Cmd::new(&format!("{} run", env!("CARGO_BIN_EXE_ptxconf")), &opts()).unwrap();
    let name = cmd.declared().unwrap().name.clone().unwrap();
    assert!(name.starts_with("ptxconf ") && name.ends_with(" oracle"), "{name}");
    assert!(cmd.caps().lacks.is_empty() && cmd.caps().target.is_none());
    assert_eq!(cmd.caps().ptx, PtxVersion(8, 7));
}
