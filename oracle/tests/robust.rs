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
}

fn cases() -> Vec<Case> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/ptx");
    let mut v = Vec::new();
    for dir in ["llvm", "nvcc"] {
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
            v.push(Case { launch, ptx });
        }
    }
    v
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
    for case in cases() {
        let r = launch::run(&case.launch, &case.ptx);
        assert!(r.is_ok(), "{}: {:?}", case.launch.entry, r.err());
    }
}
