//! The `cmd:` and `cuda` backends: the launch protocol against `ptxconf run` and against
//! misbehaving programs, and the CUDA driver loader on a machine with or without a driver.

mod common;
use common::Scratch;
use ptxconf::backend::cmd::Cmd;
use ptxconf::backend::cuda::pool::Pool;
use ptxconf::backend::cuda::{self, Cuda};
use ptxconf::backend::{Backend, Failure, Job, JobBuffer, JobParam, Options};
use spec::catalog::PtxVersion;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// `c[i] = a[i] + b[i]` for `i < n`, one thread per element; threads past `n` store nothing.
const ADD_PTX: &str = "\
.version 8.0
.target sm_50
.address_size 64

.visible .entry add_u32(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u32 n)
{
    .reg .pred %p<2>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<12>;
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mad.lo.u32 %r4, %r2, %r3, %r1;
    ld.param.u32 %r5, [n];
    setp.ge.u32 %p1, %r4, %r5;
    @%p1 bra DONE;
    ld.param.u64 %rd1, [pa];
    ld.param.u64 %rd2, [pb];
    ld.param.u64 %rd3, [pc];
    cvta.to.global.u64 %rd1, %rd1;
    cvta.to.global.u64 %rd2, %rd2;
    cvta.to.global.u64 %rd3, %rd3;
    mul.wide.u32 %rd4, %r4, 4;
    add.s64 %rd5, %rd1, %rd4;
    add.s64 %rd6, %rd2, %rd4;
    add.s64 %rd7, %rd3, %rd4;
    ld.global.u32 %r6, [%rd5];
    ld.global.u32 %r7, [%rd6];
    add.u32 %r6, %r6, %r7;
    st.global.u32 [%rd7], %r6;
DONE:
    ret;
}
";

/// Elements computed; the launch has 2 blocks of 64 threads, so 28 threads must do nothing.
const N: usize = 100;

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn le_words(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// Inputs chosen to cover carries out of bit 31 (wrap-around) and zero.
fn add_inputs() -> (Vec<u32>, Vec<u32>) {
    let mut x = 0x1234_5678u32;
    let mut next = || {
        // xorshift32: deterministic, spread over the whole range.
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        x
    };
    let mut a: Vec<u32> = (0..N).map(|_| next()).collect();
    let mut b: Vec<u32> = (0..N).map(|_| next()).collect();
    a[0] = u32::MAX;
    b[0] = 2;
    a[1] = 0;
    b[1] = 0;
    a[2] = 0x8000_0000;
    b[2] = 0x8000_0000;
    (a, b)
}

/// The add job; `c` starts zeroed and is one element longer than `n`, so a store past `n` shows.
fn add_job() -> Job {
    let (a, b) = add_inputs();
    Job {
        ptx: ADD_PTX.to_string(),
        entry: "add_u32".into(),
        grid: [2, 1, 1],
        block: [64, 1, 1],
        buffers: vec![
            JobBuffer {
                name: "a".into(),
                hex: Some(hex(&le_words(&a))),
                size: None,
            },
            JobBuffer {
                name: "b".into(),
                hex: Some(hex(&le_words(&b))),
                size: None,
            },
            JobBuffer {
                name: "c".into(),
                hex: None,
                size: Some(4 * (N as u64 + 1)),
            },
        ],
        params: vec![
            JobParam::Buffer { buffer: "a".into() },
            JobParam::Buffer { buffer: "b".into() },
            JobParam::Buffer { buffer: "c".into() },
            JobParam::Scalar {
                ty: "u32".into(),
                value: N.to_string(),
            },
        ],
        shared_bytes: 0,
        cluster: None,
    }
}

/// Checks the add job's result against sums computed here, with u64 arithmetic truncated.
fn check_add(bufs: &[(String, Vec<u8>)]) {
    let (a, b) = add_inputs();
    let names: Vec<&str> = bufs.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["a", "b", "c"]);
    assert_eq!(bufs[0].1, le_words(&a), "input a changed");
    assert_eq!(bufs[1].1, le_words(&b), "input b changed");
    let mut want: Vec<u32> = a
        .iter()
        .zip(&b)
        .map(|(&x, &y)| ((x as u64 + y as u64) & 0xffff_ffff) as u32)
        .collect();
    want.push(0);
    assert_eq!(bufs[2].1.len(), 4 * (N + 1));
    assert_eq!(bufs[2].1, le_words(&want));
    // The edge cases, spelled out.
    assert_eq!(&bufs[2].1[0..4], &[1, 0, 0, 0]); // 0xffffffff + 2 wraps to 1
    assert_eq!(&bufs[2].1[8..12], &[0, 0, 0, 0]); // 2^31 + 2^31 wraps to 0
}

fn opts(timeout: f64) -> Options {
    Options {
        timeout,
        ..Options::default()
    }
}

fn ptxconf_run() -> Cmd {
    let prog = format!("{} run", env!("CARGO_BIN_EXE_ptxconf"));
    match Cmd::new(&prog, &opts(60.0)) {
        Ok(c) => c,
        Err(f) => panic!("cmd backend on ptxconf run: {f}"),
    }
}

#[test]
fn cmd_runs_ptxconf_run_on_an_add_kernel() {
    let cmd = ptxconf_run();
    assert_eq!(cmd.name(), format!("cmd:{} run", env!("CARGO_BIN_EXE_ptxconf")));
    assert!(cmd.describe().contains("ptxconf"), "{}", cmd.describe());
    assert_eq!(cmd.caps().ptx, PtxVersion(8, 7));
    assert!(cmd.caps().target.is_none() && cmd.caps().families.is_none());
    match cmd.run(&add_job()) {
        Ok(bufs) => check_add(&bufs),
        Err(f) => panic!("{f}"),
    }
}

#[test]
fn cmd_reports_ptxconf_run_rejections_with_their_location() {
    let mut job = add_job();
    job.ptx = job.ptx.replace("add.u32 %r6, %r6, %r7;", "add.u32 %r6, %r6, %nosuch;");
    let line = job.ptx.lines().position(|l| l.contains("%nosuch")).unwrap() + 1;
    match ptxconf_run().run(&job) {
        Err(Failure::Rejected { kind, message }) => {
            assert!(kind == "type" || kind == "parse", "kind {kind}: {message}");
            // The launch directory is temporary: the location names the file alone.
            assert!(message.starts_with(&format!("kernel.ptx:{line}:")), "{message}");
            assert!(message.contains("nosuch"), "{message}");
        }
        other => panic!("expected a rejection, got {other:?}"),
    }
}

#[test]
fn cmd_overrides_set_the_capabilities() {
    let o = Options {
        target: spec::catalog::Target::parse("sm_80"),
        ptx: Some(PtxVersion(7, 8)),
        families: Some(vec!["9.7.1".into()]),
        jobs: 3,
        ..Options::default()
    };
    let cmd = Cmd::new(&format!("{} run", env!("CARGO_BIN_EXE_ptxconf")), &o).unwrap();
    assert_eq!(cmd.caps().target.map(|t| t.to_string()).as_deref(), Some("sm_80"));
    assert_eq!(cmd.caps().ptx, PtxVersion(7, 8));
    assert_eq!(cmd.caps().families.as_deref(), Some(&["9.7.1".to_string()][..]));
    assert_eq!(cmd.parallel(), 3);
}

/// A one-buffer job: `out`, 8 zeroed bytes.
fn small_job() -> Job {
    Job {
        ptx: ".version 8.0\n.target sm_50\n.address_size 64\n".into(),
        entry: "k".into(),
        grid: [1, 1, 1],
        block: [1, 1, 1],
        buffers: vec![
            JobBuffer {
                name: "in".into(),
                hex: Some("01020304".into()),
                size: None,
            },
            JobBuffer {
                name: "out".into(),
                hex: None,
                size: Some(8),
            },
        ],
        params: vec![],
        shared_bytes: 0,
        cluster: None,
    }
}

fn run_script(s: &Scratch, name: &str, body: &str, timeout: f64) -> Result<Vec<(String, Vec<u8>)>, Failure> {
    let cmd = Cmd::new(&s.script(name, body), &opts(timeout)).unwrap();
    cmd.run(&small_job())
}

const OK_REPLY: &str =
    r#"{"status": "ok", "buffers": [{"name": "in", "hex": "01020304"}, {"name": "out", "hex": "ffeeddccbbaa9988"}]}"#;

#[test]
fn cmd_passes_args_and_files_and_reads_an_ok_reply() {
    let s = Scratch::new("ok");
    let record = s.0.join("record");
    // The leading argument comes first, then the launch file, with kernel.ptx beside it.
    let body = format!(
        r#"[ "$1" = lead ] || {{ echo "bad first arg $1" >&2; exit 3; }}
case "$2" in */launch.json) ;; *) echo "bad launch arg $2" >&2; exit 3;; esac
d=$(dirname "$2")
grep -q '"entry": "k"' "$2" || exit 4
grep -q '"size": 8' "$2" || exit 4
grep -q '^.target sm_50' "$d/kernel.ptx" || exit 5
echo "$d" > {}
echo '{OK_REPLY}'"#,
        record.display()
    );
    let cmd = Cmd::new(&format!("{} lead", s.script("ok.sh", &body)), &opts(10.0)).unwrap();
    let bufs = cmd.run(&small_job()).unwrap_or_else(|f| panic!("{f}"));
    assert_eq!(
        bufs,
        vec![
            ("in".to_string(), vec![1, 2, 3, 4]),
            ("out".to_string(), vec![0xff, 0xee, 0xdd, 0xcc, 0xbb, 0xaa, 0x99, 0x88]),
        ]
    );
    // The launch directory is gone afterwards.
    let dir = std::fs::read_to_string(&record).unwrap();
    let dir = dir.trim();
    assert!(dir.starts_with(std::env::temp_dir().to_str().unwrap()), "{dir}");
    assert!(!std::path::Path::new(dir).exists(), "{dir} was not removed");
}

#[test]
fn cmd_keeps_the_launch_directory_when_asked() {
    let s = Scratch::new("keep");
    let reply = r#"{"status":"error","kind":"type","message":"bad","location":"kernel.ptx:1:1"}"#;
    let cmd = Cmd::new(&s.script("e.sh", &format!("echo '{reply}'")), &opts(10.0))
        .unwrap()
        .keep_dirs(true);
    let job = small_job();
    let message = match cmd.run(&job) {
        Err(Failure::Rejected { kind, message }) if kind == "type" => message,
        other => panic!("expected a type rejection, got {other:?}"),
    };
    let (head, dir) = message
        .split_once(" (launch kept in ")
        .unwrap_or_else(|| panic!("{message}"));
    assert_eq!(head, "kernel.ptx:1:1: bad");
    let dir = PathBuf::from(dir.trim_end_matches(')'));
    let ptx = std::fs::read_to_string(dir.join("kernel.ptx"));
    let launch = std::fs::read_to_string(dir.join("launch.json"));
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(ptx.unwrap(), job.ptx);
    assert_eq!(launch.unwrap(), job.launch_json("kernel.ptx"));
}

#[test]
fn cmd_crash_by_signal_is_crashed_with_stderr() {
    let s = Scratch::new("crash");
    match run_script(&s, "crash.sh", "echo 'about to fall over' >&2\nkill -SEGV $$", 10.0) {
        Err(Failure::Crashed(m)) => {
            assert!(m.contains("signal 11") && m.contains("SIGSEGV"), "{m}");
            assert!(m.contains("about to fall over"), "{m}");
        }
        other => panic!("expected Crashed, got {other:?}"),
    }
}

#[test]
fn cmd_exit_without_reply_is_crashed_with_status_and_stderr_tail() {
    let s = Scratch::new("silent");
    let body = "for i in 1 2 3 4 5 6 7 8 9 10 11 12; do echo \"line $i\" >&2; done\nexit 3";
    match run_script(&s, "silent.sh", body, 10.0) {
        Err(Failure::Crashed(m)) => {
            assert!(m.contains("exited with status 3"), "{m}");
            // The last lines, not the first.
            assert!(m.contains("line 12") && m.contains("line 5"), "{m}");
            assert!(!m.contains("line 4 "), "{m}");
        }
        other => panic!("expected Crashed, got {other:?}"),
    }
}

#[test]
fn cmd_hang_times_out_quickly() {
    let s = Scratch::new("hang");
    // (Opening it asks `--capabilities`, which hangs too: one more second, not timed here.)
    let cmd = Cmd::new(&s.script("hang.sh", "sleep 100"), &opts(1.0)).unwrap();
    let t = Instant::now();
    let r = cmd.run(&small_job());
    let took = t.elapsed();
    assert_eq!(r, Err(Failure::Timeout { seconds: 1.0 }));
    assert!(took >= Duration::from_millis(900), "{took:?}");
    // The script's `sleep` holds the pipes too; it must die with the script at once (were it
    // left alive, the pipe grace period would add 2 s).
    assert!(took < Duration::from_millis(2900), "took {took:?}");
}

#[test]
fn cmd_background_child_holding_the_pipes_does_not_block_an_ok_reply() {
    let s = Scratch::new("bg");
    let t = Instant::now();
    let r = run_script(&s, "bg.sh", &format!("sleep 100 &\necho '{OK_REPLY}'"), 30.0);
    assert!(r.is_ok(), "{r:?}");
    assert!(t.elapsed() < Duration::from_secs(20), "took {:?}", t.elapsed());
}

#[test]
fn cmd_garbage_is_malformed_with_an_excerpt() {
    let s = Scratch::new("garbage");
    match run_script(&s, "garbage.sh", "echo 'this is not json at all'", 10.0) {
        Err(Failure::Malformed(m)) => assert!(m.contains("this is not json at all"), "{m}"),
        other => panic!("expected Malformed, got {other:?}"),
    }
}

#[test]
fn cmd_error_reply_is_rejected_whatever_the_exit_status() {
    let s = Scratch::new("error");
    let reply = r#"{"status":"error","kind":"parse","message":"unexpected token `foo`","location":"kernel.ptx:3:7"}"#;
    for exit in [0, 1, 2] {
        let r = run_script(
            &s,
            &format!("e{exit}.sh"),
            &format!("echo '{reply}'\nexit {exit}"),
            10.0,
        );
        assert_eq!(
            r,
            Err(Failure::Rejected {
                kind: "parse".into(),
                message: "kernel.ptx:3:7: unexpected token `foo`".into()
            }),
            "exit {exit}"
        );
    }
}

#[test]
fn cmd_missing_misnamed_or_missized_buffers_are_malformed() {
    let s = Scratch::new("buffers");
    let cases = [
        (
            r#"{"status":"ok","buffers":[{"name":"in","hex":"01020304"}]}"#,
            "the reply has 1 buffers; the launch has 2 (in, out)",
        ),
        (
            r#"{"status":"ok","buffers":[{"name":"out","hex":"0000000000000000"},{"name":"in","hex":"01020304"}]}"#,
            "reply buffer 0 is `out`; the launch's buffer 0 is `in`",
        ),
        (
            r#"{"status":"ok","buffers":[{"name":"in","hex":"01020304"},{"name":"out","hex":"00000000"}]}"#,
            "reply buffer `out` has 4 bytes; the launch gave it 8",
        ),
        (
            r#"{"status":"ok","buffers":[{"name":"in","hex":"0102030"},{"name":"out","hex":"0000000000000000"}]}"#,
            "reply buffer `in`: \"hex\" is not an even number of hex digits",
        ),
        (r#"{"status":"ok"}"#, "an \"ok\" reply without a \"buffers\" array"),
        (
            r#"{"status":"fine","buffers":[]}"#,
            "no \"status\" of \"ok\" or \"error\"",
        ),
    ];
    for (k, (reply, want)) in cases.iter().enumerate() {
        match run_script(&s, &format!("b{k}.sh"), &format!("echo '{reply}'"), 10.0) {
            Err(Failure::Malformed(m)) => assert!(m.contains(want), "case {k}: {m}"),
            other => panic!("case {k}: expected Malformed, got {other:?}"),
        }
    }
    // An ok reply with a failing exit status is not trusted.
    match run_script(&s, "okfail.sh", &format!("echo '{OK_REPLY}'\nexit 1"), 10.0) {
        Err(Failure::Malformed(m)) => assert!(m.contains("exited with status 1"), "{m}"),
        other => panic!("expected Malformed, got {other:?}"),
    }
}

#[test]
fn cmd_chatty_stderr_does_not_block() {
    // 4 MB of stderr: far past a pipe's buffer, so it blocks unless drained while running.
    let s = Scratch::new("chatty");
    let body = format!("head -c 4000000 /dev/zero | tr '\\0' x >&2\necho '{OK_REPLY}'");
    let r = run_script(&s, "chatty.sh", &body, 30.0);
    assert!(r.is_ok(), "{r:?}");
}

#[test]
fn cmd_missing_or_unrunnable_programs_are_unavailable() {
    let s = Scratch::new("missing");
    let cases = [
        (
            "ptxconf-no-such-program-anywhere".to_string(),
            "cmd: program `ptxconf-no-such-program-anywhere` not found on PATH",
        ),
        (
            "/nonexistent/impl run".to_string(),
            "cmd: `/nonexistent/impl` does not exist",
        ),
        (s.0.display().to_string(), "is not a file"),
        ("   ".to_string(), "cmd: no program given"),
    ];
    let plain = s.0.join("plain.sh");
    std::fs::write(&plain, "#!/bin/sh\n").unwrap();
    let cases = cases
        .into_iter()
        .chain([(plain.display().to_string(), "is not executable")]);
    for (prog, want) in cases {
        match Cmd::new(&prog, &opts(10.0)) {
            Err(Failure::Unavailable(m)) => assert!(m.contains(want), "{prog}: {m}"),
            Err(f) => panic!("{prog}: expected Unavailable, got {f:?}"),
            Ok(_) => panic!("{prog}: expected Unavailable, got a backend"),
        }
    }
}

#[test]
fn cmd_through_open_by_name() {
    let b = ptxconf::backend::open(&format!("cmd:{} run", env!("CARGO_BIN_EXE_ptxconf")), &opts(60.0))
        .unwrap_or_else(|f| panic!("{f}"));
    check_add(&b.run(&add_job()).unwrap_or_else(|f| panic!("{f}")));
}

fn assert_one_line_unavailable(r: Result<Cuda, Failure>, want: &[&str]) -> Option<Cuda> {
    match r {
        Ok(c) => Some(c),
        Err(Failure::Unavailable(m)) => {
            assert!(!m.contains('\n'), "not one line: {m}");
            for w in want {
                assert!(m.contains(w), "{m:?} lacks {w:?}");
            }
            None
        }
        Err(f) => panic!("expected Unavailable, got {f:?}"),
    }
}

#[test]
fn cuda_nonexistent_library_is_unavailable_in_one_line() {
    let r = Cuda::open(Some("/nonexistent/libcuda.so"));
    assert!(r.is_err());
    assert_one_line_unavailable(r, &["no CUDA driver found: ", "/nonexistent/libcuda.so"]);
}

#[test]
fn cuda_library_without_the_driver_api_is_unavailable_not_a_panic() {
    // libm loads but exports no cuInit: cudarc's own loader would panic here.
    let r = Cuda::open(Some("libm.so.6"));
    assert!(r.is_err());
    assert_one_line_unavailable(r, &["no CUDA driver found: ", "libm.so.6 does not export cuInit"]);
}

#[test]
fn cuda_default_driver_runs_the_add_kernel_or_is_unavailable() {
    let r = Cuda::open(None);
    let Some(c) = assert_one_line_unavailable(r, &[]) else {
        return; // no driver or no device here: nothing more to check
    };
    eprintln!("running on {}", c.describe());
    assert_eq!(c.parallel(), 1);
    assert!(c.caps().target.is_some());
    check_add(&c.run(&add_job()).unwrap_or_else(|f| panic!("{f}")));
    // A JIT rejection carries the log, and the backend still works afterwards.
    let mut bad = add_job();
    bad.ptx = bad.ptx.replace("add.u32 %r6, %r6, %r7;", "add.u32 %r6, %r6, %nosuch;");
    match c.run(&bad) {
        Err(Failure::Rejected { kind, message }) => assert_eq!(kind, "jit", "{message}"),
        other => panic!("expected a JIT rejection, got {other:?}"),
    }
    // An illegal address poisons the context; the next job must still run. The address is a
    // register: the driver's JIT (CUDA 13.0) refuses an immediate `.global` address outright
    // ("Immediate addresses allowed only for .local state space").
    let mut wild = add_job();
    wild.ptx = wild.ptx.replace(
        "st.global.u32 [%rd7], %r6;",
        "mov.u64 %rd7, 0;\n    st.global.u32 [%rd7], %r6;",
    );
    match c.run(&wild) {
        Err(Failure::Rejected { kind, message }) => assert_eq!(kind, "cuda", "{message}"),
        other => panic!("expected a CUDA error, got {other:?}"),
    }
    check_add(
        &c.run(&add_job())
            .unwrap_or_else(|f| panic!("after a sticky error: {f}")),
    );
}

#[test]
fn cuda_ptx_table_follows_the_manual() {
    // Manual §13 release table (L34560-L34775), capped at 8.7.
    let cases = [
        (12080, Some(PtxVersion(8, 7))),
        (12090, Some(PtxVersion(8, 7))),
        (13000, Some(PtxVersion(8, 7))),
        (12070, Some(PtxVersion(8, 6))),
        (12060, Some(PtxVersion(8, 5))),
        (12050, Some(PtxVersion(8, 5))),
        (12040, Some(PtxVersion(8, 4))),
        (12000, Some(PtxVersion(8, 0))),
        (11080, Some(PtxVersion(7, 8))),
        (11000, Some(PtxVersion(7, 0))),
        (10020, Some(PtxVersion(6, 5))),
        (10010, Some(PtxVersion(6, 4))),
        (10000, Some(PtxVersion(6, 3))),
        (9020, Some(PtxVersion(6, 2))),
        (9000, Some(PtxVersion(6, 0))),
        (8000, Some(PtxVersion(5, 0))),
        (7050, None),
        (0, None),
    ];
    for (v, want) in cases {
        assert_eq!(cuda::max_ptx(v), want, "CUDA {v}");
    }
}

#[test]
fn cuda_scalar_parameters_are_little_endian_bits_of_their_size() {
    let ok = |t: &str, v: &str| cuda::scalar_bytes(t, v).unwrap_or_else(|e| panic!("{t} {v}: {e}"));
    assert_eq!(ok("u32", "100"), [100, 0, 0, 0]);
    assert_eq!(ok("s32", "-1"), [0xff; 4]);
    assert_eq!(ok("s8", "-128"), [0x80]);
    assert_eq!(ok("u16", "0xbeef"), [0xef, 0xbe]);
    assert_eq!(ok("f32", "0x3f800000"), [0, 0, 0x80, 0x3f]);
    assert_eq!(ok("u64", "18446744073709551615"), [0xff; 8]);
    assert_eq!(ok("s64", "-9223372036854775808"), [0, 0, 0, 0, 0, 0, 0, 0x80]);
    assert_eq!(ok("b128", "0x0102"), {
        let mut v = [0u8; 16];
        v[0] = 2;
        v[1] = 1;
        v
    });
    for (t, v) in [
        ("u8", "256"),
        ("s8", "-129"),
        ("u32", "0x100000000"),
        ("u32", "1.5"),
        ("q32", "1"),
    ] {
        assert!(cuda::scalar_bytes(t, v).is_err(), "{t} {v}");
    }
}

// ---- the cuda backend on a fake driver (tests/fake_cuda.c) ----------------------------------

/// Builds tests/fake_cuda.c as a shared library (`old`: the CUDA 11.8 variant) once per test
/// process, with the C compiler the dev-dependencies already need (`$CC`, else `cc`).
fn fake_driver(old: bool) -> &'static str {
    fake_driver_as(if old { Fake::Old } else { Fake::New })
}

/// The fake driver variants: CUDA 12.8, CUDA 11.8, and a second copy of the 12.8 one, a
/// library of its own (another file) whose state a test may poison in this process.
#[derive(Clone, Copy)]
enum Fake {
    New,
    Old,
    Poisonable,
}

fn fake_driver_as(variant: Fake) -> &'static str {
    static LIBS: [OnceLock<String>; 3] = [OnceLock::new(), OnceLock::new(), OnceLock::new()];
    let old = matches!(variant, Fake::Old);
    LIBS[variant as usize].get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("ptxconf-fake-cuda-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let lib = dir.join(match variant {
            Fake::New => "libcuda-12.8.so",
            Fake::Old => "libcuda-11.8.so",
            Fake::Poisonable => "libcuda-12.8-poisonable.so",
        });
        let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fake_cuda.c");
        let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
        let mut cmd = std::process::Command::new(&cc);
        cmd.args(["-shared", "-fPIC", "-O1", "-o"]).arg(&lib).arg(&src);
        if old {
            cmd.arg("-DOLD_DRIVER");
        }
        let out = cmd.output().unwrap_or_else(|e| panic!("{cc}: {e}"));
        assert!(out.status.success(), "{cc}: {}", String::from_utf8_lossy(&out.stderr));
        lib.to_str().unwrap().to_string()
    })
}

/// The backend on the fake driver, one per variant: the fake keeps its function attributes in
/// globals, which the backend's one-launch-at-a-time lock keeps consistent.
fn open_fake(old: bool) -> &'static Cuda {
    static FAKES: [OnceLock<Cuda>; 2] = [OnceLock::new(), OnceLock::new()];
    FAKES[old as usize].get_or_init(|| Cuda::open(Some(fake_driver(old))).unwrap_or_else(|f| panic!("{f}")))
}

/// A job on the fake driver: `out` (256 zero bytes) first, then `params`; the PTX is never
/// compiled.
fn fake_job(
    entry: &str,
    grid: [u32; 3],
    cluster: Option<[u32; 3]>,
    shared_bytes: u32,
    params: serde_json::Value,
) -> Job {
    let mut all = vec![serde_json::json!({"buffer": "out"})];
    all.extend(params.as_array().unwrap().iter().cloned());
    Job {
        ptx: ".version 8.0\n.target sm_90\n.address_size 64\n".into(),
        entry: entry.into(),
        grid,
        block: [64, 1, 1],
        buffers: vec![JobBuffer {
            name: "out".into(),
            hex: None,
            size: Some(256),
        }],
        params: serde_json::from_value(serde_json::Value::Array(all)).unwrap(),
        shared_bytes,
        cluster,
    }
}

/// The launch record the fake driver wrote (tests/fake_cuda.c): its 32-bit words, the
/// buffer's address, and the 32 words of the tensor map passed as the second parameter.
fn fake_record(c: &dyn Backend, job: &Job) -> (Vec<u32>, u64, Vec<u32>) {
    let bufs = c.run(job).unwrap_or_else(|f| panic!("{f}"));
    let b = &bufs[0].1;
    let words = |r: std::ops::Range<usize>| -> Vec<u32> {
        b[r].chunks(4)
            .map(|w| u32::from_le_bytes(w.try_into().unwrap()))
            .collect()
    };
    (
        words(0..60),
        u64::from_le_bytes(b[64..72].try_into().unwrap()),
        words(128..256),
    )
}

#[test]
fn cuda_plain_launch_goes_through_cu_launch_kernel() {
    let c = open_fake(false);
    let (w, _, _) = fake_record(c, &fake_job("k", [3, 1, 1], None, 1024, serde_json::json!([])));
    // cuLaunchKernel (1), grid 3x1x1, block 64x1x1, 1024 bytes, no attribute set.
    assert_eq!(w, [1, 3, 1, 1, 64, 1, 1, 1024, 0, 0, 0, 0, 0, 0, 0]);
}

/// A cluster launch: `cuLaunchKernelEx` with one attribute, id 4
/// (`CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION`), the cluster's dimensions; 16 CTAs need the
/// non-portable opt-in (attribute 14 set to 1), 64 KiB of dynamic shared memory the raised
/// maximum (attribute 8).
#[test]
fn cuda_cluster_launch_goes_through_cu_launch_kernel_ex() {
    let c = open_fake(false);
    let (w, _, _) = fake_record(
        c,
        &fake_job("k", [8, 2, 2], Some([4, 2, 2]), 65536, serde_json::json!([])),
    );
    assert_eq!(w, [2, 8, 2, 2, 64, 1, 1, 65536, 1, 4, 4, 2, 2, 65536, 1]);
    let (w, _, _) = fake_record(c, &fake_job("k", [4, 1, 1], Some([2, 1, 1]), 0, serde_json::json!([])));
    assert_eq!(w, [2, 4, 1, 1, 64, 1, 1, 0, 1, 4, 2, 1, 1, 0, 0]);
}

/// The tensor map the kernel receives is the driver's encoding of the launch file's fields:
/// the buffer's device address plus the offset, the driver's enum values (f32 = 7, 64-byte
/// swizzle = 2, 128-byte L2 promotion = 2, NaN fill = 1), the arrays as given (im2col corners W
/// first).
#[test]
fn cuda_tensor_maps_are_encoded_by_the_driver() {
    tensor_maps_are_encoded_by_the_driver(open_fake(false));
}

fn tensor_maps_are_encoded_by_the_driver(c: &dyn Backend) {
    let tiled = serde_json::json!([{"tensor_map": {"encode": "tiled", "data_type": "f32", "buffer": "out",
        "offset": 64, "global_dim": [16, 4], "global_strides": [64], "box_dim": [8, 2],
        "element_strides": [1, 2], "swizzle": "64B", "l2_promotion": "128B", "oob_fill": "nan_request_zero_fma"}}]);
    let (w, out, m) = fake_record(c, &fake_job("tmap_k", [1, 1, 1], None, 0, tiled));
    assert_eq!(w[0], 1);
    let address = out + 64;
    #[rustfmt::skip]
    let want = [
        1, 7, 2, 0, 2, 2, 1, 0, address as u32, (address >> 32) as u32,
        16, 4, 0, 0, 0,  64, 0, 0, 0,  8, 2, 0, 0, 0,  0, 0, 0,  1, 2, 0, 0, 0,
    ];
    assert_eq!(m, want);
    let im2col = serde_json::json!([{"tensor_map": {"encode": "im2col", "data_type": "f16", "buffer": "out",
        "global_dim": [8, 10, 2], "global_strides": [16, 160], "pixel_box_lower_corner": [-1],
        "pixel_box_upper_corner": [1], "channels_per_pixel": 8, "pixels_per_column": 16}}]);
    let (_, out, m) = fake_record(c, &fake_job("tmap_k", [1, 1, 1], Some([1, 1, 1]), 0, im2col));
    #[rustfmt::skip]
    let want = [
        2, 6, 3, 0, 0, 0, 0, 0, out as u32, (out >> 32) as u32,
        8, 10, 2, 0, 0,  16, 160, 0, 0,  -1i32 as u32, 0, 0,  1, 0, 0,  8, 16,  1, 1, 1, 0, 0,
    ];
    assert_eq!(m, want);
    // An im2col-wide map: cuTensorMapEncodeIm2colWide (kind 3), the W corners as scalars,
    // mode W128 = 1, 128-byte swizzle = 3.
    let wide = serde_json::json!([{"tensor_map": {"encode": "im2col_wide", "data_type": "f16", "buffer": "out",
        "global_dim": [8, 10, 2], "global_strides": [16, 160], "pixel_box_lower_corner_width": -1,
        "pixel_box_upper_corner_width": -2, "channels_per_pixel": 8, "pixels_per_column": 16,
        "mode": "w128", "swizzle": "128B"}}]);
    let (_, out, m) = fake_record(c, &fake_job("tmap_k", [1, 1, 1], Some([1, 1, 1]), 0, wide));
    #[rustfmt::skip]
    let want = [
        3, 6, 3, 0, 3, 0, 0, 0, out as u32, (out >> 32) as u32,
        8, 10, 2, 0, 0,  16, 160, 0, 0,  -1i32 as u32, 0, 0,  -2i32 as u32, 0, 1,  8, 16,  1, 1, 1, 0, 0,
    ];
    assert_eq!(m, want);
}

#[test]
fn cuda_a_tensor_map_the_driver_refuses_is_a_launch_error() {
    a_tensor_map_the_driver_refuses_is_a_launch_error(open_fake(false));
}

fn a_tensor_map_the_driver_refuses_is_a_launch_error(c: &dyn Backend) {
    let bad = serde_json::json!([{"tensor_map": {"encode": "tiled", "data_type": "u8", "buffer": "out",
        "global_dim": [999], "global_strides": [], "box_dim": [8]}}]);
    assert_eq!(
        c.run(&fake_job("tmap_k", [1, 1, 1], None, 0, bad)),
        Err(Failure::Rejected {
            kind: "launch".into(),
            message: "parameter 1: cuTensorMapEncodeTiled refused the tensor map: CUDA_ERROR_INVALID_VALUE: fake"
                .into()
        })
    );
    let unknown = serde_json::json!([{"tensor_map": {"encode": "tiled", "data_type": "u8", "buffer": "B",
        "global_dim": [8], "global_strides": [], "box_dim": [8]}}]);
    match c.run(&fake_job("tmap_k", [1, 1, 1], None, 0, unknown)) {
        Err(Failure::Rejected { kind, message }) => {
            assert_eq!(kind, "launch");
            assert!(message.contains("buffer `B`"), "{message}");
        }
        other => panic!("{other:?}"),
    }
}

/// A CUDA 11.8 driver has no `cuLaunchKernelEx` and no tensor-map encoders: such jobs are
/// `Unavailable` (skipped) in one line naming the entry point; other jobs still run.
#[test]
fn cuda_a_driver_before_12_0_refuses_clusters_and_tensor_maps_by_name() {
    let c = open_fake(true);
    let lib = fake_driver(true);
    assert_eq!(
        c.run(&fake_job("k", [2, 1, 1], Some([2, 1, 1]), 0, serde_json::json!([]))),
        Err(Failure::Unavailable(format!(
            "CUDA driver {lib} (CUDA 11.8) does not export cuLaunchKernelEx (CUDA 12.0), which a launch with clusters of 2x1x1 CTAs needs"
        )))
    );
    let tiled = serde_json::json!([{"tensor_map": {"encode": "tiled", "data_type": "u8", "buffer": "out",
        "global_dim": [8], "global_strides": [], "box_dim": [8]}}]);
    assert_eq!(
        c.run(&fake_job("tmap_k", [1, 1, 1], None, 0, tiled)),
        Err(Failure::Unavailable(format!(
            "CUDA driver {lib} (CUDA 11.8) does not export cuTensorMapEncodeTiled (CUDA 12.0), which parameter 1, a tiled tensor map needs"
        )))
    );
    let (w, _, _) = fake_record(c, &fake_job("k", [1, 1, 1], None, 65536, serde_json::json!([])));
    assert_eq!(w[..9], [1, 1, 1, 1, 64, 1, 1, 65536, 0]);
    assert_eq!(w[13], 65536, "the 64 KiB maximum raised first");
}

// ---- the cuda backend in worker processes (`cuda::pool`), on the fake driver -----------------

/// A pool of `workers` `ptxconf cuda-worker` processes on the fake CUDA 12.8 driver.
fn fake_pool(workers: usize, timeout: f64) -> Pool {
    Pool::open(
        Some(fake_driver(false)),
        Path::new(env!("CARGO_BIN_EXE_ptxconf")),
        workers,
        timeout,
    )
    .unwrap_or_else(|f| panic!("{f}"))
}

/// A plain job marked for the fake driver (`// fake: MARK`, tests/fake_cuda.c).
fn marked(mark: &str) -> Job {
    let mut job = fake_job("k", [1, 1, 1], None, 0, serde_json::json!([]));
    job.ptx.push_str(&format!("// fake: {mark}\n"));
    job
}

/// The process that ran a plain job on the fake driver (word 15 of its record), and its grid's x.
fn ran_in(b: &dyn Backend, job: &Job) -> (u32, u32) {
    let bufs = b.run(job).unwrap_or_else(|f| panic!("{f}"));
    let word = |k: usize| u32::from_le_bytes(bufs[0].1[4 * k..4 * k + 4].try_into().unwrap());
    (word(15), word(1))
}

/// What the H200 did (driver 580.159.04): after a kernel's illegal instruction no release,
/// reset or retain brings the context back, so the in-process backend loses every later job.
/// The fake does the same (in a library of its own: it poisons this process).
#[test]
fn cuda_in_process_a_sticky_error_loses_the_context() {
    let c = Cuda::open(Some(fake_driver_as(Fake::Poisonable))).unwrap_or_else(|f| panic!("{f}"));
    assert_eq!(c.context_error(), None);
    assert_eq!(
        c.run(&marked("sticky")),
        Err(Failure::Rejected {
            kind: "cuda".into(),
            message: "cuCtxSynchronize (running the kernel): CUDA_ERROR_ILLEGAL_INSTRUCTION: fake".into()
        })
    );
    assert_eq!(
        c.context_error().as_deref(),
        Some("cuCtxSetCurrent: CUDA_ERROR_ILLEGAL_INSTRUCTION: fake")
    );
    match c.run(&marked("plain")) {
        Err(Failure::Unavailable(m)) => {
            for want in [
                "the context cannot be restored after an error",
                "cuDevicePrimaryCtxRelease: CUDA_ERROR_INVALID_CONTEXT: fake",
                "cuDevicePrimaryCtxRetain: CUDA_ERROR_ILLEGAL_INSTRUCTION: fake",
            ] {
                assert!(m.contains(want), "{m:?} lacks {want:?}");
            }
        }
        other => panic!("expected the run to end as unavailable, got {other:?}"),
    }
}

/// In worker processes the sticky error is that job's alone: it is reported with the driver's
/// text, the worker retires, and the next job runs in a fresh process, which is then kept.
#[test]
fn cuda_pool_a_sticky_error_costs_one_job_and_one_worker() {
    let p = fake_pool(1, 60.0);
    assert_eq!(p.parallel(), 1);
    let (first, _) = ran_in(&p, &marked("plain"));
    assert_eq!(ran_in(&p, &marked("plain")).0, first, "a worker runs job after job");
    assert_eq!(
        p.run(&marked("sticky")),
        Err(Failure::Rejected {
            kind: "cuda".into(),
            message: "cuCtxSynchronize (running the kernel): CUDA_ERROR_ILLEGAL_INSTRUCTION: fake".into()
        })
    );
    let (second, _) = ran_in(&p, &marked("plain"));
    assert_ne!(second, first, "the poisoned worker was replaced");
    assert_eq!(ran_in(&p, &marked("plain")).0, second);
}

/// A worker that dies during a job fails that job only, as a crash naming the signal.
#[test]
fn cuda_pool_a_worker_killed_mid_job_fails_that_job_only() {
    let p = fake_pool(1, 60.0);
    match p.run(&marked("die")) {
        Err(Failure::Crashed(m)) => assert!(m.contains("was killed by signal 9 (SIGKILL) during the launch"), "{m}"),
        other => panic!("expected a crash, got {other:?}"),
    }
    ran_in(&p, &marked("plain"));
}

/// A job past the per-launch timeout is a timeout; its worker is killed and replaced.
#[test]
fn cuda_pool_a_job_past_the_timeout_is_killed() {
    let p = fake_pool(1, 5.0);
    let (first, _) = ran_in(&p, &marked("plain"));
    assert_eq!(p.run(&marked("hang")), Err(Failure::Timeout { seconds: 5.0 }));
    assert_ne!(ran_in(&p, &marked("plain")).0, first);
}

/// N workers run N jobs at once: each of N jobs waits in the driver until N processes are
/// there (with one worker, or jobs in turn, the first would wait alone and fail). Then many
/// jobs from more threads than workers: each gets its own reply, from one of the N processes.
#[test]
fn cuda_pool_runs_n_jobs_at_once_each_reply_to_its_job() {
    const N: usize = 3;
    let p = fake_pool(N, 120.0);
    assert_eq!(p.parallel(), N);
    let scratch = Scratch::new("cuda-pool-meet");
    let dir = scratch.0.join("meet");
    std::fs::create_dir(&dir).unwrap();
    let meet = format!("meet {N} {}", dir.display());
    let jobs: Vec<Job> = (0..N as u32)
        .map(|k| {
            let mut j = marked(&meet);
            j.grid = [k + 1, 1, 1];
            j
        })
        .collect();
    let ran: Vec<(u32, u32)> = std::thread::scope(|s| {
        let hs: Vec<_> = jobs.iter().map(|j| s.spawn(|| ran_in(&p, j))).collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let pids: std::collections::BTreeSet<u32> = ran.iter().map(|r| r.0).collect();
    assert_eq!(pids.len(), N, "{ran:?}");
    assert_eq!(ran.iter().map(|r| r.1).collect::<Vec<_>>(), [1, 2, 3]);
    let more: Vec<(u32, u32)> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..2 * N as u32)
            .map(|t| {
                let p = &p;
                s.spawn(move || {
                    (0..4)
                        .map(|k| {
                            let mut j = marked("plain");
                            j.grid = [1 + t * 4 + k, 1, 1];
                            let r = ran_in(p, &j);
                            assert_eq!(r.1, j.grid[0], "a reply to another job");
                            r
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        hs.into_iter().flat_map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(more.len(), 8 * N);
    assert!(
        more.iter().all(|r| pids.contains(&r.0)),
        "no worker beyond the {N}: {more:?}"
    );
}

/// Errors come back from a worker with their kinds and texts: the JIT's log, a launch error,
/// and launches that use the driver's newer entry points (clusters, tensor maps) are passed
/// through the protocol intact.
#[test]
fn cuda_pool_errors_keep_their_kinds_and_launches_their_fields() {
    let p = fake_pool(1, 60.0);
    let want = Err(Failure::Rejected {
        kind: "jit".into(),
        message: "CUDA_ERROR_INVALID_PTX: fake: ptxas application ptx input, line 2; error   : fake rejection".into(),
    });
    assert_eq!(open_fake(false).run(&marked("reject")), want);
    assert_eq!(p.run(&marked("reject")), want);
    a_tensor_map_the_driver_refuses_is_a_launch_error(&p);
    tensor_maps_are_encoded_by_the_driver(&p);
    let (w, _, _) = fake_record(
        &p,
        &fake_job("k", [8, 2, 2], Some([4, 2, 2]), 65536, serde_json::json!([])),
    );
    assert_eq!(w, [2, 8, 2, 2, 64, 1, 1, 65536, 1, 4, 4, 2, 2, 65536, 1]);
}

/// Without a driver the backend in worker processes says so in the same one line as in process.
#[test]
fn cuda_pool_missing_driver_message_is_unchanged() {
    let opts = Options {
        worker_exe: Some(PathBuf::from(env!("CARGO_BIN_EXE_ptxconf"))),
        ..Options::default()
    };
    for lib in ["/nonexistent/libcuda.so", "libm.so.6"] {
        let Err(Failure::Unavailable(in_process)) = Cuda::open(Some(lib)) else {
            panic!("{lib}: expected Unavailable in process");
        };
        match ptxconf::backend::open(&format!("cuda:{lib}"), &opts) {
            Err(Failure::Unavailable(m)) => assert_eq!(m, in_process),
            Err(f) => panic!("{lib}: expected Unavailable, got {f:?}"),
            Ok(_) => panic!("{lib}: expected Unavailable, got a backend"),
        }
    }
}

/// Jobs per second on the fake driver: in process, and in 1, 2 and 4 worker processes, for
/// plain jobs (the protocol's cost), jobs whose "JIT" spends 20 ms of CPU (the driver's JIT is
/// CPU-bound: N workers gain what idle cores there are) and jobs whose "kernel" keeps the host
/// waiting 20 ms (N workers wait at once). A measurement, not a check: `cargo test --release --test backends --
/// --ignored --nocapture cuda_pool_throughput`; state the machine's load with the figures.
#[test]
#[ignore]
fn cuda_pool_throughput() {
    let rate = |b: &dyn Backend, job: &Job, n: usize| {
        let threads = b.parallel();
        let t = Instant::now();
        std::thread::scope(|s| {
            for k in 0..threads {
                s.spawn(move || {
                    for _ in (k..n).step_by(threads) {
                        b.run(job).unwrap_or_else(|f| panic!("{f}"));
                    }
                });
            }
        });
        n as f64 / t.elapsed().as_secs_f64()
    };
    for (what, job, n) in [
        ("plain", marked("plain"), 2000),
        ("jit 20 ms", marked("jit 20000"), 80),
        ("wait 20 ms", marked("wait 20000"), 80),
    ] {
        let mut row = format!("{what:>10}: in process {:8.1} jobs/s", rate(open_fake(false), &job, n));
        for w in [1, 2, 4] {
            let p = fake_pool(w, 60.0);
            rate(&p, &job, w); // every worker started
            row += &format!(", {w} workers {:8.1}", rate(&p, &job, n));
        }
        println!("{row}");
    }
}
