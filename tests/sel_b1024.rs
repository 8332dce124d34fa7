//! A backend that lacks the SIMD selector `.b1024` (NVIDIA's JIT and ptxas read it as the type
//! `.b1024` and refuse the kernel: corpus/findings/h200/video.md) gets kernels that permute the
//! source register's bytes with `prmt` and name the same bytes otherwise — with the results of
//! the grammar's spelling, judged on the same vectors.

use ptxconf::backend::{oracle::Oracle, Backend, Buffers, Caps, Failure, Feature, Job, Options};
use ptxconf::conform::{self, FormVectors, Settings, Status};
use ptxconf::kernel;
use spec::catalog::{catalog, Form};
use std::path::Path;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/corpus/vectors");

/// The golden-vector files that write `.b1024` on a or b (the 9 forms the H200's JIT refused).
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

/// The oracle standing in for NVIDIA's JIT: a kernel that writes `.b1024` is refused as the
/// CUDA 13.0 JIT refuses it. `declares`: whether its capabilities say so.
struct NoB1024 {
    oracle: Oracle,
    caps: Caps,
}

impl NoB1024 {
    fn new(declares: bool) -> NoB1024 {
        let oracle = oracle();
        let mut caps = oracle.caps().clone();
        if declares {
            caps.lacks.insert(Feature::SelB1024);
        }
        NoB1024 { oracle, caps }
    }
}

impl Backend for NoB1024 {
    fn name(&self) -> String {
        "no-b1024".into()
    }
    fn describe(&self) -> String {
        "the oracle, refusing the selector .b1024".into()
    }
    fn caps(&self) -> &Caps {
        &self.caps
    }
    fn run(&self, job: &Job) -> Result<Buffers, Failure> {
        if job.ptx.contains(".b1024") {
            return Err(Failure::Rejected {
                kind: "jit".into(),
                message: "Parsing error near '.b1024': syntax error".into(),
            });
        }
        self.oracle.run(job)
    }
}

/// Every result of `key`'s kernels on the oracle, and the kernels' text.
fn results(key: &str, fv: &FormVectors, caps: &Caps) -> (Vec<Vec<u128>>, Vec<String>) {
    let all: Vec<usize> = (0..fv.vectors.len()).collect();
    let batches = kernel::build_for(form(key), &fv.vectors, &all, all.len(), caps).unwrap();
    let (mut out, mut ptx) = (Vec::new(), Vec::new());
    for b in &batches {
        let bufs = oracle().run(&b.job).unwrap_or_else(|f| panic!("{key}: {f}"));
        out.extend(b.decode(form(key), &bufs).unwrap());
        ptx.push(b.job.ptx.clone());
    }
    (out, ptx)
}

#[test]
fn respelled_kernels_give_the_grammars_results() {
    let plain = oracle().caps().clone();
    let lacking = NoB1024::new(true).caps;
    for key in B1024 {
        let fv = vectors(key);
        let (want, plain_ptx) = results(key, &fv, &plain);
        let (got, ptx) = results(key, &fv, &lacking);
        assert!(
            plain_ptx[0].contains(".b1024,"),
            "{key}: the vectors no longer write .b1024"
        );
        assert!(ptx.iter().all(|p| !p.contains(".b1024")), "{key}");
        assert!(ptx[0].contains("\tprmt.b32 %a"), "{key}: no byte permutation");
        assert!(got == want, "{key}: the respelled kernel's results differ");
    }
}

#[test]
fn conform_on_a_backend_lacking_b1024_passes() {
    let settings = Settings::default();
    for key in B1024 {
        let fv = vectors(key);
        let r = conform::check_form(&NoB1024::new(true), &fv, &settings);
        assert_eq!(r.status, Status::Passed, "{key}: {:?}", r.reason);
        assert_eq!(r.failed, 0, "{key}");
        // Without the declaration the kernel writes `.b1024` and is refused, as on the H200.
        let r = conform::check_form(&NoB1024::new(false), &fv, &settings);
        assert_eq!(r.status, Status::Failed, "{key}");
        assert!(r.reason.as_deref().unwrap_or("").contains("'.b1024'"), "{key}");
    }
}
