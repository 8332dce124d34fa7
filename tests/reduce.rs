//! The reducer (issue 6): `ptxconf::reduce` on a hand-written kernel with functions, a loop, an
//! if/else and shared memory (corpus/reduce-tests/), and `ptxconf reduce` end to end against a
//! `cmd:` backend with a planted rounding bug.

use ptxconf::compare::{self, Difference};
use ptxconf::reduce::{self, count_instructions, Case, Options, ReduceError};
use std::path::{Path, PathBuf};
use std::process::Command;

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/reduce-tests")
}

fn kernel_case() -> Case {
    Case::load(&corpus().join("launch.json")).unwrap()
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ptxconf-reduce-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn word(bufs: &oracle::launch::Buffers, name: &str, index: usize) -> Option<u32> {
    let d = &bufs.iter().find(|(n, _)| n == name)?.1;
    Some(u32::from_le_bytes(d.get(4 * index..4 * index + 4)?.try_into().ok()?))
}

/// Thread `t`'s first signature word (its `mix` result) on the oracle.
fn mix_word(c: &Case, t: usize) -> Option<u32> {
    let (bufs, _) = oracle::launch::run(&c.launch, &c.ptx).ok()?;
    word(&bufs, "out", 4 * t)
}

fn checks(ptx: &str) {
    let m = oracle::parse::parse(ptx).unwrap_or_else(|e| panic!("{e}\n{ptx}"));
    oracle::check::check(&m).unwrap_or_else(|e| panic!("{e}\n{ptx}"));
}

#[test]
fn instructions_are_counted_without_labels_and_declarations() {
    let ptx = std::fs::read_to_string(corpus().join("kernel.ptx")).unwrap();
    // Counted by hand: rotl 7, mix 10 and the kernel 49 (each with a call block of 4).
    assert_eq!(count_instructions(&ptx), 66);
    // A line-oriented count of the same text: tab-indented statements ending in `;` that are
    // not declarations.
    let by_lines = ptx
        .lines()
        .filter(|l| l.starts_with('\t') && l.ends_with(';') && !l.trim_start().starts_with('.'))
        .count();
    assert_eq!(by_lines, 66);
    assert_eq!(
        count_instructions(".version 8.0\n.target sm_80\n.address_size 64\n.entry e() { L: ret; }"),
        1
    );
    // Text that does not parse is counted line by line.
    assert_eq!(count_instructions("add.u32 %r1, %r2, 1;\nfoo bar;\n.reg .b32 %r;\n"), 2);
}

/// Reduces the kernel while thread `t`'s `mix` word keeps its value.
fn reduce_word(t: usize) -> (Case, reduce::Stats, u32) {
    let case = kernel_case();
    let v = mix_word(&case, t).unwrap();
    let mut calls = 0;
    let mut pred = |c: &Case| {
        calls += 1;
        mix_word(c, t) == Some(v)
    };
    let (r, stats) = reduce::reduce(case.clone(), &mut pred, &Options::default()).unwrap();
    checks(&r.ptx);
    assert_eq!(mix_word(&r, t), Some(v));
    assert_eq!(stats.instructions_before, 66);
    assert_eq!(stats.instructions_after, count_instructions(&r.ptx));
    assert_eq!(stats.calls, calls);
    assert!(!stats.exhausted);
    // Buffers and parameters are the original's; the step budget is the reducer's own.
    assert_eq!(r.launch.params.len(), case.launch.params.len());
    assert_eq!(r.launch.buffers.len(), case.launch.buffers.len());
    assert!(r.launch.limits.is_none());
    // The value is the `mix` of the loop's result and the thread index, stored as a constant
    // in the end.
    assert!(v > 1 << 20, "{v:#x}");
    assert!(r.ptx.contains(&format!(", {v};")), "{}", r.ptx);
    assert!(!r.ptx.contains(".func"), "{}", r.ptx);
    (r, stats, v)
}

#[test]
fn a_value_of_the_first_thread_is_reduced_to_the_store_that_writes_it() {
    let (r, stats, _) = reduce_word(0);
    // `ld.param` of the buffer and the store of the constant, in one thread.
    assert!(stats.instructions_after <= 2, "{stats:?}\n{}", r.ptx);
    assert_eq!((r.launch.grid, r.launch.block), ([1, 1, 1], [1, 1, 1]));
}

#[test]
fn a_value_of_another_thread_is_computed_by_one_thread_pinned_to_it() {
    let (r, stats, v) = reduce_word(5);
    // The launch shrinks to the six threads that have a thread 5; then one thread computes
    // what thread 5 did (its `%tid.x` pinned to 5) and stores at thread 5's address.
    assert_eq!((r.launch.grid, r.launch.block), ([1, 1, 1], [1, 1, 1]));
    assert!(!r.ptx.contains("%tid"), "{}", r.ptx);
    assert!(r.ptx.contains("+80]"), "thread 5's record is 80 bytes in:\n{}", r.ptx);
    assert!(stats.instructions_after <= 2, "{stats:?}\n{}", r.ptx);
    // Deterministic: the same case and predicate give the same result, with the same calls.
    let mut pred = |c: &Case| mix_word(c, 5) == Some(v);
    let (r2, stats2) = reduce::reduce(kernel_case(), &mut pred, &Options::default()).unwrap();
    assert_eq!(r2.ptx, r.ptx);
    assert_eq!(r2.launch.to_json(), r.launch.to_json());
    assert_eq!((stats2.calls, stats2.accepted), (stats.calls, stats.accepted));
}

#[test]
fn values_exchanged_between_threads_keep_the_exchange_and_its_barrier() {
    // Slot 1 of threads 0 and 1: each one's `mul` plus the neighbour's input, exchanged through
    // shared memory across `bar.sync`.
    let words = |c: &Case| -> Option<(u32, u32)> {
        let (bufs, _) = oracle::launch::run(&c.launch, &c.ptx).ok()?;
        Some((word(&bufs, "out", 1)?, word(&bufs, "out", 5)?))
    };
    let case = kernel_case();
    let v = words(&case).unwrap();
    let mut pred = |c: &Case| words(c) == Some(v);
    let (r, stats) = reduce::reduce(case, &mut pred, &Options::default()).unwrap();
    checks(&r.ptx);
    assert_eq!(words(&r), Some(v));
    assert_eq!((r.launch.grid, r.launch.block), ([1, 1, 1], [2, 1, 1]));
    // The shared accesses still take their addresses from `sh` (the oracle places it at 0;
    // dropping the base would make the kernel depend on that layout).
    for needed in [
        "st.shared.f32",
        "bar.sync 0;",
        "ld.shared.f32",
        "add.rn.f32",
        "%tid.x",
        ", sh;",
    ] {
        assert!(r.ptx.contains(needed), "{needed}:\n{}", r.ptx);
    }
    // The shared accesses still take their addresses from `sh`: the oracle places it at 0, and
    // an access that dropped the base would change when it moves.
    let decl = ".shared .align 4 .b8 sh[256];";
    assert!(r.ptx.contains(decl), "{}", r.ptx);
    let moved = Case {
        ptx: r.ptx.replace(decl, &format!(".shared .align 4 .b8 pad[64];\n{decl}")),
        launch: r.launch.clone(),
    };
    assert_eq!(words(&moved), Some(v), "{}", moved.ptx);
    // What stays is per thread: the loads and the exchange; the loop, the calls and the other
    // stores go.
    assert!(!r.ptx.contains(".func") && !r.ptx.contains("LOOP"), "{}", r.ptx);
    assert!(stats.instructions_after <= 24, "{stats:?}\n{}", r.ptx);
}

#[test]
fn functions_that_the_predicate_needs_survive_and_the_others_go() {
    let case = kernel_case();
    let v = mix_word(&case, 0).unwrap();
    // Keep a call to `mix` (and the value): the call sequence and `mix` stay; `rotl` and the
    // loop go.
    let mut pred = |c: &Case| c.ptx.contains("call.uni (ret), mix") && mix_word(c, 0) == Some(v);
    let (r, stats) = reduce::reduce(case, &mut pred, &Options::default()).unwrap();
    checks(&r.ptx);
    assert!(r.ptx.contains(".func (.param .b32 mix_ret) mix"), "{}", r.ptx);
    assert!(!r.ptx.contains("rotl"), "{}", r.ptx);
    assert!(!r.ptx.contains("LOOP"), "{}", r.ptx);
    // `ld.param`, the call, the store.
    assert!(stats.instructions_after <= 3, "{stats:?}\n{}", r.ptx);
}

#[test]
fn budgets_stop_the_reduction_with_a_valid_case() {
    let case = kernel_case();
    let v = mix_word(&case, 0).unwrap();
    let mut pred = |c: &Case| mix_word(c, 0) == Some(v);
    let opts = Options {
        max_calls: 5,
        ..Options::default()
    };
    let (r, stats) = reduce::reduce(case, &mut pred, &opts).unwrap();
    assert!(stats.exhausted);
    // One more call may go to the final clean-up.
    assert!(stats.calls <= 6, "{stats:?}");
    checks(&r.ptx);
    assert_eq!(mix_word(&r, 0), Some(v));
}

#[test]
fn uninteresting_or_invalid_originals_are_errors() {
    let case = kernel_case();
    let mut never = |_: &Case| false;
    let e = reduce::reduce(case.clone(), &mut never, &Options::default()).unwrap_err();
    assert_eq!(e, ReduceError::NotInteresting);
    assert!(e.to_string().contains("not interesting"), "{e}");
    let bad = Case {
        ptx: "this is not PTX".into(),
        launch: case.launch.clone(),
    };
    let mut always = |_: &Case| true;
    let e = reduce::reduce(bad, &mut always, &Options::default()).unwrap_err();
    assert!(matches!(e, ReduceError::Parse(_)), "{e:?}");
    assert!(e.to_string().contains("does not parse"), "{e}");
    let mut wrong_entry = case;
    wrong_entry.launch.entry = "nope".into();
    let e = reduce::reduce(wrong_entry, &mut always, &Options::default()).unwrap_err();
    assert!(matches!(e, ReduceError::Oracle(_)), "{e:?}");
    assert!(e.to_string().contains("oracle fails"), "{e}");
}

// ---- end to end ----

fn ptxconf() -> Command {
    Command::new(env!("CARGO_BIN_EXE_ptxconf"))
}

fn script(dir: &Path, name: &str, body: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, format!("#!/bin/sh\n{body}")).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    format!("cmd:{}", p.display())
}

/// A `cmd:` backend that rounds `add.rn.f32` toward zero: the kernel is rewritten, then run by
/// the oracle (`ptxconf run`).
fn wrong_backend(dir: &Path) -> String {
    script(
        dir,
        "wrong-impl.sh",
        &format!(
            "sed -i 's/add\\.rn\\.f32 /add.rz.f32 /' \"$(dirname \"$1\")/kernel.ptx\"\nexec '{}' run \"$1\"\n",
            env!("CARGO_BIN_EXE_ptxconf")
        ),
    )
}

fn copy_case(dir: &Path) -> PathBuf {
    for f in ["kernel.ptx", "launch.json"] {
        std::fs::copy(corpus().join(f), dir.join(f)).unwrap();
    }
    dir.join("launch.json")
}

#[test]
fn a_planted_rounding_bug_is_reduced_to_a_few_instructions() {
    let dir = scratch("planted");
    let launch = copy_case(&dir);
    let backend = wrong_backend(&dir);
    let out = ptxconf()
        .arg("reduce")
        .arg(&launch)
        .args(["--backend", &backend])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    let red = dir.join("launch.reduced");
    for f in ["reduced.ptx", "launch.json", "report.txt"] {
        assert!(red.join(f).is_file(), "{f} missing");
    }
    let report = std::fs::read_to_string(red.join("report.txt")).unwrap();
    assert!(stdout.contains(&report), "the report is printed:\n{stdout}");
    assert!(report.contains(&format!("backend: {backend}")), "{report}");
    assert!(report.contains("instructions: 66 -> "), "{report}");
    assert!(report.contains("first mismatches:\n  out+0x"), "{report}");
    let case = Case::load(&red.join("launch.json")).unwrap();
    assert_eq!(case.launch.ptx, "reduced.ptx");
    let n = count_instructions(&case.ptx);
    assert!(n <= 10, "{n} instructions:\n{}", case.ptx);
    assert!(case.ptx.contains("add.rn.f32"), "{}", case.ptx);
    // It passes on the oracle (`ptxconf run` replays it) and still differs on the backend, as a
    // value mismatch.
    let run = ptxconf().arg("run").arg(red.join("launch.json")).output().unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stdout));
    let b = ptxconf::backend::open(&backend, &ptxconf::backend::Options::default()).unwrap();
    let d = compare::difference(&case, b.as_ref()).unwrap();
    let Difference::Mismatch(ms) = &d else { panic!("{d}") };
    // The mismatch is the rounding: the expected value is the host's round-to-nearest sum of
    // the `add.rn.f32` operands as the reduced kernel holds them, the observed one an ulp
    // toward zero.
    let add = case.ptx.lines().find(|l| l.contains("add.rn.f32")).unwrap();
    let consts: Vec<f32> = add
        .split(|c: char| c == ',' || c == ';' || c.is_whitespace())
        .filter_map(|w| w.strip_prefix("0f"))
        .map(|h| f32::from_bits(u32::from_str_radix(h, 16).unwrap()))
        .collect();
    if let [a, b] = consts[..] {
        let sum = (a + b).to_bits();
        assert_eq!(ms[0].expected, format!("{sum:#010x}"), "{add}");
        assert_eq!(ms[0].observed, format!("{:#010x}", sum - 1), "{add}");
    } else {
        panic!("expected two constant operands: {add}");
    }
    // The oracle and a correct backend agree on the reduced case.
    let ok = ptxconf::backend::open("oracle", &ptxconf::backend::Options::default()).unwrap();
    assert_eq!(compare::difference(&case, ok.as_ref()).unwrap(), Difference::Same);
    // Reducing again into an explicit directory replaces it.
    let again = dir.join("again");
    std::fs::create_dir_all(again.join("stale")).unwrap();
    let out = ptxconf()
        .arg("reduce")
        .arg(red.join("launch.json"))
        .args(["--backend", &backend, "--out"])
        .arg(&again)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(!again.join("stale").exists());
    assert_eq!(std::fs::read_to_string(again.join("reduced.ptx")).unwrap(), case.ptx);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A `cmd:` backend that crashes two ways: on a kernel with `add.rn.f32` it aborts with message
/// A (with the kernel line and an address that change from run to run, as real reports do), on
/// one without it but with `shl.b32` with message B; other kernels run on the oracle.
fn two_crashes_backend(dir: &Path) -> String {
    script(
        dir,
        "two-crashes.sh",
        &format!(
            r#"k="$(dirname "$1")/kernel.ptx"
if grep -q 'add\.rn\.f32' "$k"; then
  echo "two-crashes: planted.c:17: A: add.rn.f32 on line $(grep -n 'add\.rn\.f32' "$k" | head -1 | cut -d: -f1) at 0x$$" >&2
  kill -ABRT $$
fi
if grep -q 'shl\.b32' "$k"; then echo "two-crashes: B: a shift" >&2; kill -ABRT $$; fi
exec '{}' run "$1"
"#,
            env!("CARGO_BIN_EXE_ptxconf")
        ),
    )
}

/// Reducing a kernel that crashes a backend with message A keeps crash A: candidates that crash
/// with message B (every candidate without `add.rn.f32` still has a `shl.b32` until the shifts
/// go) are not the same crash. The hand-written kernel has both; a reducer that took any crash
/// as the same failure ends at B (main's before issue 17 did: `shl.b32` of `%tid.x`, 2 instructions).
#[test]
fn a_crash_is_reduced_to_the_same_crash_not_another() {
    let dir = scratch("two-crashes");
    let launch = copy_case(&dir);
    let backend = two_crashes_backend(&dir);
    let original = Case::load(&launch).unwrap();
    assert!(original.ptx.contains("add.rn.f32") && original.ptx.contains("shl.b32"));
    let out = ptxconf()
        .arg("reduce")
        .arg(&launch)
        .args(["--backend", &backend])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let red = dir.join("launch.reduced");
    let case = Case::load(&red.join("launch.json")).unwrap();
    assert!(
        case.ptx.contains("add.rn.f32"),
        "the reduction lost crash A:\n{}",
        case.ptx
    );
    assert!(count_instructions(&case.ptx) <= 2, "{}", case.ptx);
    let report = std::fs::read_to_string(red.join("report.txt")).unwrap();
    // The signature: the signal, the `file:line` the message names, the message with the
    // kernel's line and the address normalised.
    assert!(
        report.contains(
            "signature: crashed[SIGABRT at planted.c:17: two-crashes: planted.c:N: A: add.rn.f32 on line N at 0x_]"
        ),
        "{report}"
    );
    let b = ptxconf::backend::open(&backend, &ptxconf::backend::Options::default()).unwrap();
    let d = compare::difference(&case, b.as_ref()).unwrap();
    let Difference::Failure(ptxconf::backend::Failure::Crashed(m)) = &d else {
        panic!("{d}")
    };
    assert!(m.contains("A: add.rn.f32") && !m.contains("B: a shift"), "{m}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_launch_without_difference_is_not_reduced() {
    let dir = scratch("same");
    let launch = copy_case(&dir);
    let out = ptxconf()
        .arg("reduce")
        .arg(&launch)
        .args(["--backend", "oracle"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("agree on this launch: nothing to reduce"), "{stderr}");
    assert!(!dir.join("launch.reduced").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn broken_backends_and_files_are_clear_errors() {
    let dir = scratch("broken");
    let launch = copy_case(&dir);
    let reduce = |args: &[&str]| {
        let out = ptxconf().arg("reduce").args(args).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).to_string();
        assert!(!stderr.contains("panicked"), "{stderr}");
        (
            out.status.code(),
            stderr,
            String::from_utf8_lossy(&out.stdout).to_string(),
        )
    };
    let l = launch.to_str().unwrap();
    let (code, err, _) = reduce(&[l, "--backend", "cmd:/nonexistent/impl"]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("error: backend `cmd:/nonexistent/impl`") && err.contains("does not exist"),
        "{err}"
    );
    let (code, err, _) = reduce(&[l, "--backend", "nosuch"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("unknown backend"), "{err}");
    let (code, err, _) = reduce(&["/nonexistent/launch.json", "--backend", "oracle"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("cannot read"), "{err}");
    // A backend that answers garbage fails every launch: the failure is what is reduced (to a
    // kernel that does nothing), and the report says what the backend did.
    let garbage = script(&dir, "garbage.sh", "echo 'not json'\n");
    let (code, err, out) = reduce(&[l, "--backend", &garbage]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("difference: the backend failed: malformed reply"), "{out}");
    assert!(out.contains("instructions: 66 -> 0"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}
