//! The reducer refuses candidates whose results depend on what the manual leaves undefined
//! (corpus/findings/h200/reduction.md). On an H200, reductions of real mismatches ended at
//! `st.global.b32 [%d1+136], %r20;` with `%r20` never written: the oracle reads 0, the GPU
//! whatever the register held. Here a backend with a planted value bug (`xor` computed as `or`)
//! that also, like hardware, leaves garbage in unwritten registers and memory: the reduction must
//! end at the `xor`, not at a store of an unwritten register.

use ptxconf::backend::{Backend, Caps, Failure, Job};
use ptxconf::compare::{self, Difference};
use ptxconf::reduce::{self, undefined_dependence, Case, Options, ReduceError, Undefined};
use std::path::{Path, PathBuf};

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/reduce-tests/defined")
}

fn case() -> Case {
    Case::load(&corpus().join("launch.json")).unwrap()
}

/// The oracle with `xor.b32` computed as `or.b32`, unwritten registers and memory holding
/// `fill` in every byte (0: the bug alone).
struct Planted {
    fill: u8,
    caps: Caps,
}

impl Planted {
    fn new(fill: u8) -> Planted {
        Planted {
            fill,
            caps: Caps {
                target: None,
                ptx: spec::catalog::PtxVersion(8, 7),
                families: None,
                rejects: None,
                lacks: Default::default(),
            },
        }
    }
}

impl Backend for Planted {
    fn name(&self) -> String {
        format!("planted-xor-fill-{:02x}", self.fill)
    }
    fn describe(&self) -> String {
        "the oracle with xor as or and garbage in unwritten registers".into()
    }
    fn caps(&self) -> &Caps {
        &self.caps
    }
    fn run(&self, job: &Job) -> Result<oracle::launch::Buffers, Failure> {
        let ptx = job.ptx.replace("xor.b32", "or.b32");
        let l = job.launch("kernel.ptx");
        let run = if self.fill == 0 {
            oracle::launch::run(&l, &ptx)
        } else {
            oracle::launch::run_filled(&l, &ptx, self.fill)
        };
        run.map(|(b, _)| b).map_err(|e| Failure::Rejected {
            kind: e.kind.name().to_string(),
            message: e.to_string(),
        })
    }
}

fn opts() -> Options {
    Options {
        time_limit: None,
        ..Options::default()
    }
}

#[test]
fn the_original_reads_nothing_undefined_and_the_planted_bug_shows() {
    let c = case();
    let (zero, _) = oracle::launch::run(&c.launch, &c.ptx).unwrap();
    assert_eq!(undefined_dependence(&c.launch, &c.ptx, &zero), None);
    // Thread 0: in[0] = 0x52e6b439; (in + 5) xor 0x5a5a0f0f, times 3, plus tid 0.
    let in0: u32 = 0x52e6_b439;
    let want = (in0.wrapping_add(5) ^ 0x5a5a_0f0f).wrapping_mul(3);
    assert_eq!(&zero[1].1[..4], &want.to_le_bytes());
    let got = (in0.wrapping_add(5) | 0x5a5a_0f0f).wrapping_mul(3);
    assert_ne!(want, got);
    assert!(matches!(
        compare::difference(&c, &Planted::new(0)).unwrap(),
        Difference::Mismatch(_)
    ));
}

#[test]
fn unwritten_registers_memory_and_races_are_found() {
    let head = ".version 8.7\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 p_out, .param .u64 p_in)\n{\n\t.reg .b32 %r<4>;\n\t.reg .b64 %d<4>;\n\t.shared .align 4 .b8 sh[64];\n\tld.param.u64 %d0, [p_out];\n";
    let kernel = |body: &str| format!("{head}{body}\n}}\n");
    let mut l = case().launch;
    let dep = |l: &oracle::launch::LaunchFile, ptx: &str| {
        let (zero, _) = oracle::launch::run(l, ptx).unwrap();
        undefined_dependence(l, ptx, &zero)
    };
    // A register never written: 0 on the oracle, 0x5a5a5a5a with the first fill.
    let u = dep(&l, &kernel("\tst.global.u32 [%d0], %r1;"));
    assert!(
        matches!(&u, Some(Undefined::Values { fill: 0x5a, first }) if first.contains("0x5a5a5a5a")),
        "{u:?}"
    );
    // Shared memory never written.
    let u = dep(&l, &kernel("\tld.shared.u32 %r1, [sh+8];\n\tst.global.u32 [%d0], %r1;"));
    assert!(matches!(u, Some(Undefined::Values { fill: 0x5a, .. })), "{u:?}");
    // A return parameter the callee never writes.
    let f = ".version 8.7\n.target sm_90\n.address_size 64\n.func (.param .b32 r) f(.param .b32 a)\n{\n\tret;\n}\n.visible .entry k(.param .u64 p_out, .param .u64 p_in)\n{\n\t.reg .b32 %r<4>;\n\t.reg .b64 %d<4>;\n\tld.param.u64 %d0, [p_out];\n\tmov.u32 %r2, 7;\n\tcall (%r1), f, (%r2);\n\tst.global.u32 [%d0], %r1;\n}\n";
    assert!(matches!(dep(&l, f), Some(Undefined::Values { .. })));
    // Written first, then read: defined, and 0x5a and 0xa5 agree with zero.
    let ok = kernel(
        "\tmov.u32 %r1, 9;\n\tst.shared.u32 [sh+8], %r1;\n\tld.shared.u32 %r2, [sh+8];\n\tst.global.u32 [%d0], %r2;",
    );
    assert_eq!(dep(&l, &ok), None);
    // Masked so that one fill gives the zero run's result: the other still shows it.
    let masked = kernel("\tand.b32 %r2, %r1, 0xa5a5a5a5;\n\tst.global.u32 [%d0], %r2;");
    assert!(matches!(dep(&l, &masked), Some(Undefined::Values { fill: 0xa5, .. })));
    // Two threads storing their own values at one address, no barrier: a data race. Their own
    // words, or one value, are not.
    l.block = [2, 1, 1];
    let race = kernel("\tmov.u32 %r1, %tid.x;\n\tst.global.u32 [%d0], %r1;");
    assert!(matches!(&dep(&l, &race), Some(Undefined::Fails { error, .. }) if error.contains("data race")));
    let own = kernel(
        "\tmov.u32 %r1, %tid.x;\n\tmul.wide.u32 %d1, %r1, 4;\n\tadd.s64 %d2, %d0, %d1;\n\tst.global.u32 [%d2], %r1;",
    );
    assert_eq!(dep(&l, &own), None);
    let same = kernel("\tmov.u32 %r1, 3;\n\tst.global.u32 [%d0], %r1;");
    assert_eq!(dep(&l, &same), None);
    // Ordered by a barrier: the second store wins on every implementation.
    let ordered = kernel("\tmov.u32 %r1, %tid.x;\n\tsetp.eq.u32 %p1, %r1, 0;\n\t@%p1 st.global.u32 [%d0], %r1;\n\tbar.sync 0;\n\t@!%p1 st.global.u32 [%d0], %r1;")
        .replace(".reg .b64 %d<4>;", ".reg .b64 %d<4>;\n\t.reg .pred %p<2>;");
    assert_eq!(dep(&l, &ordered), None);
}

#[test]
fn a_reduction_against_garbage_in_unwritten_registers_ends_at_the_value_bug() {
    let backend = Planted::new(0xc3);
    let r = reduce::reduce_against(case(), &backend, &opts()).unwrap();
    // The reduced case reads nothing undefined, still differs, and differs on a backend with
    // the bug alone (zeros in unwritten registers): what it shows is the `xor`.
    let (zero, _) = oracle::launch::run(&r.case.launch, &r.case.ptx).unwrap();
    assert_eq!(
        undefined_dependence(&r.case.launch, &r.case.ptx, &zero),
        None,
        "{}",
        r.case.ptx
    );
    assert!(r.case.ptx.contains("xor.b32"), "{}", r.case.ptx);
    assert!(matches!(r.difference, Difference::Mismatch(_)), "{:?}", r.difference);
    assert!(
        matches!(
            compare::difference(&r.case, &Planted::new(0)).unwrap(),
            Difference::Mismatch(_)
        ),
        "{}",
        r.case.ptx
    );
    assert!(r.stats.instructions_after < r.stats.instructions_before);
    // Deterministic: the same case and backend give the same bytes.
    let again = reduce::reduce_against(case(), &backend, &opts()).unwrap();
    assert_eq!(again.case.ptx, r.case.ptx);
    assert_eq!(again.stats.calls, r.stats.calls);
}

#[test]
fn an_original_that_reads_an_unwritten_register_is_not_reduced() {
    let mut c = case();
    c.ptx = c.ptx.replace("\tmov.u32 %r9, 5;\n", "");
    let r = reduce::reduce_against(c, &Planted::new(0xc3), &opts());
    assert!(matches!(r, Err(ReduceError::Undefined(_))), "{r:?}");
}
