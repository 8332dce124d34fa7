//! Hostile input: mutated corpus kernels go through the whole pipeline (parse, check, run under
//! tight limits) and must end in a result or a located error — never a panic, a hang or an
//! allocation the limits did not allow.

use oracle::error::ErrorKind;
use oracle::launch::{self, LaunchFile, LimitSpec};
use proptest::prelude::*;
use std::path::Path;

struct Case {
    launch: LaunchFile,
    ptx: String,
    /// Listed in `corpus/ptx/blocked.tsv`: it stops at an instruction the oracle does not
    /// execute yet (its mutants still must fail cleanly).
    blocked: bool,
}

/// Every corpus kernel (LLVM, nvcc-style, NVRTC and Triton output, so mutants carry DWARF
/// sections, `.loc` with `inlined_at`, `.version 8.8`, one-element vectors, vector registers,
/// permuted modifiers), plus `robust_syntax.ptx` below.
fn cases() -> Vec<Case> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/ptx");
    let blocked = std::fs::read_to_string(root.join("blocked.tsv")).unwrap_or_default();
    let mut v = vec![syntax_case()];
    for dir in ["llvm", "nvcc", "nvrtc", "triton"] {
        let Ok(rd) = std::fs::read_dir(root.join(dir)) else {
            continue;
        };
        let mut files: Vec<_> = rd.flatten().map(|e| e.path()).collect();
        files.sort();
        for p in files {
            if !p.to_string_lossy().ends_with(".launch.json") {
                continue;
            }
            let mut launch = launch::parse_launch(&std::fs::read_to_string(&p).unwrap()).unwrap();
            launch.limits = Some(LimitSpec {
                steps: Some(3_000_000),
                memory: Some(64 << 20),
                stack: Some(16 << 10),
            });
            let ptx = std::fs::read_to_string(p.with_file_name(&launch.ptx)).unwrap();
            let name = p.file_name().unwrap().to_string_lossy().replace(".launch.json", "");
            let blocked = blocked.lines().any(|l| l.starts_with(&format!("{dir}/{name}\t")));
            v.push(Case { launch, ptx, blocked });
        }
    }
    v
}

/// The syntax issue 13 added, in one small kernel that runs: a DWARF section over several
/// lines, `.loc` with `function_name`/`inlined_at`, `.file` with a timestamp, several names per
/// declaration, a vector register, one-element vectors, `.reg` parameters, permuted modifiers,
/// `.version 8.8`, a `.const` address in an initializer.
fn syntax_case() -> Case {
    let ptx = r#"//
.version 8.8
.target sm_80
.address_size 64

.const .align 4 .b32 tbl[2] = {3, 4};
.global .align 8 .u64 tptr = tbl;
.func (.reg .b32 rv) add2(.reg .b32 a, .reg .b32 b)
{
	add.s32 rv, a, b;
	ret;
}
.visible .entry k(.param .u64 out)
{
	.reg .pred p, q;
	.reg .b32 %r<6>;
	.reg .f32 x, y;
	.reg .v2 .b32 %v;
	.reg .b64 %rd<3>;
	.loc	1 3 0
	ld.param.u64 %rd1, [out];
	cvta.to.global.u64 %rd2, %rd1;
	mov.u32 %r1, %tid.x;
	.loc	1 4 5, function_name $L__info_string0, inlined_at 1 3 0
	call (%r2), add2, (%r1, 7);
	ld.global.v2.b32 %v, [%rd2];
	add.s32.sat %r3, %v.x, %r2;
	cvt.f32.s32.rn x, %r3;
	div.ftz.rn.f32 y, x, 0f40000000;
	setp.gt.f32 p|q, y, 0f00000000;
	@q mov.b32 { %r4 }, %r3;
	st.global.b32 [%rd2], { %r3 };
	st.global.v2.b32 [%rd2+8], %v;
	ret;
}
	.file	1 "k.cu", 1700000000, 4096
	.section	.debug_str
	{
$L__info_string0:
.b8 107,0
	}
"#
    .to_string();
    let launch = launch::parse_launch(
        r#"{"ptx": "k.ptx", "entry": "k", "grid": [1, 1, 1], "block": [2, 1, 1],
            "buffers": [{"name": "out", "size": 16}], "params": [{"buffer": "out"}],
            "limits": {"steps": 3000000, "memory": 67108864, "stack": 16384}}"#,
    )
    .unwrap();
    Case {
        launch,
        ptx,
        blocked: false,
    }
}

/// Replacement text that keeps mutants close to PTX: types, spaces, registers, numbers.
const JUNK: &[&str] = &[
    ".u8",
    ".s16",
    ".b64",
    ".f32",
    ".f64",
    ".pred",
    ".v4",
    ".shared",
    ".local",
    ".const",
    ".global",
    "%r1",
    "%rd1",
    "%p1",
    "%f1",
    "%tid.x",
    "0",
    "-1",
    "0x7fffffff",
    "0f7f800000",
    "4096",
    "[%rd1+8]",
    "{%r1, %r2}",
    "bra",
    "ret;",
    "exit;",
    "bar.sync 0;",
    "call",
    "@%p1",
    ";",
    ",",
    "{",
    "}",
    "_",
    "|",
    ".section",
    ".loc 1 2 3, inlined_at 1 2 3",
    "{ %r1 }",
    ".reg .b32 a, b;",
    ".reg .v4 .b32 %v;",
    "%v.x",
    ".version 9.9",
    ".2d",
    "[%rd1, {%r1, %r2}]",
    ".rn.ftz",
    ".reg",
];

fn mutate(src: &str, at: usize, len: usize, how: u8, pick: usize) -> String {
    let mut s = src.to_string();
    let mut at = at % (s.len() + 1);
    while !s.is_char_boundary(at) {
        at -= 1;
    }
    let mut end = (at + len).min(s.len());
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    match how % 4 {
        0 => s.replace_range(at..end, ""),
        1 => {
            let dup = s[at..end].to_string();
            s.insert_str(end, &dup);
        }
        2 => s.replace_range(at..end, JUNK[pick % JUNK.len()]),
        _ => {
            // Change one number: register indices, offsets, immediates, loop bounds.
            if let Some(k) = s[at..].find(|c: char| c.is_ascii_digit()) {
                let k = at + k;
                let digit = (b'0' + (pick % 10) as u8) as char;
                s.replace_range(k..k + 1, &digit.to_string());
            }
        }
    }
    s
}

fn check(case: &Case, ptx: &str) -> Result<(), TestCaseError> {
    match launch::run(&case.launch, ptx) {
        Ok((bufs, stats)) => {
            prop_assert_eq!(bufs.len(), case.launch.buffers.len());
            prop_assert!(stats.thread_instructions <= 3_000_000 + 1024);
        }
        Err(e) => {
            prop_assert!(!e.message.is_empty());
            if matches!(e.kind, ErrorKind::Parse | ErrorKind::Type | ErrorKind::Runtime) {
                prop_assert!(
                    e.loc.is_some(),
                    "{} error without a location: {}",
                    e.kind.name(),
                    e.message
                );
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn mutated_corpus_kernels_fail_cleanly(file in any::<usize>(), at in any::<usize>(), len in 0usize..48, how in any::<u8>(), pick in any::<usize>()) {
        let cases = cases();
        let case = &cases[file % cases.len()];
        let ptx = mutate(&case.ptx, at, len, how, pick);
        check(case, &ptx)?;
    }
}

#[test]
fn every_unmutated_case_runs_within_the_test_limits() {
    // The mutation test starts from kernels that work, so its errors come from the mutations.
    for case in cases().into_iter().filter(|c| !c.blocked) {
        let r = launch::run(&case.launch, &case.ptx);
        assert!(r.is_ok(), "{}: {:?}", case.launch.entry, r.err());
    }
}
