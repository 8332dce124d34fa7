//! `cmd:PROGRAM [ARGS...]`: an external implementation speaking the launch protocol of
//! `ptxconf run` (`oracle/src/launch.rs`). Each launch gets a fresh directory holding
//! `kernel.ptx` and `launch.json`; the program runs as `PROGRAM ARGS... DIR/launch.json` and answers
//! on stdout with `{"status":"ok","buffers":[...]}` or `{"status":"error","kind",...}`.
//!
//! Once, before any launch, the program is asked `PROGRAM ARGS... --capabilities` (under the same
//! timeout). An answer with exit status 0 and one JSON object on stdout,
//! `{"name": "...", "target": "sm_86", "ptx": "7.1", "families": null | ["9.7.1", ...],
//! "lacks": ["brx.idx"]}`, every field optional, becomes the backend's [`Caps`] and is named by
//! [`Backend::describe`]; the command line's `--target`, `--ptx` and `--family` still win. `lacks`
//! names constructs the suite's kernels then do without ([`super::Feature`]: `brx.idx`); names
//! ptxconf does not know are warned about, not fatal. A program that does not know the question
//! (a non-zero exit, no JSON object) declares nothing: every target, PTX ISA up to 8.7, every
//! family, nothing lacking. `ptxconf run --capabilities` answers for the oracle.

pub mod capabilities;

use super::{Backend, Buffers, Caps, Failure, Job, Options};
use capabilities::{Declared, NotDeclared};
use spec::catalog::PtxVersion;
use std::ffi::OsStr;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::Duration;
use wait_timeout::ChildExt;

/// Set (to anything) to keep each launch's directory for inspection.
pub const KEEP_TMP_VAR: &str = "PTXCONF_KEEP_TMP";

/// How long the output pipes may stay open after the program exited (a background grandchild
/// holding them) before its process group is killed.
const PIPE_GRACE: Duration = Duration::from_secs(2);

/// Lines of stderr quoted in crash reports.
const STDERR_TAIL_LINES: usize = 8;

/// The `cmd:PROGRAM [ARGS...]` backend: one process per launch, killed at the per-launch timeout.
pub struct Cmd {
    spec: String,
    exe: PathBuf,
    args: Vec<String>,
    timeout: f64,
    jobs: usize,
    keep: bool,
    caps: Caps,
    declared: Result<Declared, NotDeclared>,
}

impl Cmd {
    /// `program`: a command line split on whitespace; the first word is the executable (a path
    /// when it contains `/`, else looked up on `PATH`), the rest leading arguments.
    pub fn new(program: &str, opts: &Options) -> Result<Cmd, Failure> {
        let mut words = program.split_whitespace();
        let Some(first) = words.next() else {
            return Err(Failure::Unavailable(
                "cmd: no program given (expected cmd:PROGRAM [ARGS...])".into(),
            ));
        };
        let exe = resolve(first).map_err(Failure::Unavailable)?;
        if !(opts.timeout > 0.0 && opts.timeout.is_finite()) {
            return Err(Failure::Unavailable(format!(
                "cmd: the timeout must be a positive number of seconds, not {}",
                opts.timeout
            )));
        }
        let mut cmd = Cmd {
            spec: program.trim().to_string(),
            exe,
            args: words.map(str::to_string).collect(),
            timeout: opts.timeout,
            jobs: opts.jobs.max(1),
            keep: std::env::var_os(KEEP_TMP_VAR).is_some(),
            caps: Caps {
                target: None,
                ptx: PtxVersion(8, 7),
                families: None,
                rejects: None,
                lacks: Default::default(),
            },
            declared: Err(NotDeclared::Exit("not asked".into())),
        };
        cmd.declared = cmd.ask_capabilities();
        // A program that does not know the question says so quickly and quietly; one that
        // hangs on it, or cannot be started, is worth a line.
        if let Err(why @ (NotDeclared::Timeout(_) | NotDeclared::Failed(_))) = &cmd.declared {
            eprintln!("note: {}: `{}` declares nothing: {why}", cmd.name(), capabilities::FLAG);
        }
        // What the program declares, narrowed by the user's overrides; without a declaration,
        // every target and family, and PTX 8.7, the newest ISA the suite has vectors for.
        let declared = cmd.declared.clone().unwrap_or_default();
        cmd.caps = Caps {
            target: opts.target.or(declared.target),
            ptx: opts.ptx.or(declared.ptx).unwrap_or(PtxVersion(8, 7)),
            families: opts.families.clone().or(declared.families),
            rejects: None,
            lacks: declared.lacks,
        };
        Ok(cmd)
    }

    /// What the program declared in its `--capabilities` answer, or why it declared nothing.
    pub fn declared(&self) -> Result<&Declared, &NotDeclared> {
        self.declared.as_ref()
    }

    /// Asks the program `--capabilities` ([`capabilities`]); warnings about the answer go to
    /// stderr, one line each.
    fn ask_capabilities(&self) -> Result<Declared, NotDeclared> {
        let out = self
            .execute(OsStr::new(capabilities::FLAG))
            .map_err(|f| NotDeclared::Failed(f.to_string()))?;
        let Some(status) = out.status else {
            return Err(NotDeclared::Timeout(self.timeout));
        };
        if !status.success() || signal_of(status).is_some() {
            return Err(NotDeclared::Exit(exit_text(status)));
        }
        let (declared, warnings) = capabilities::parse(&String::from_utf8_lossy(&out.stdout))?;
        for w in warnings {
            eprintln!("warning: {}: `{}` answer: {w}", self.name(), capabilities::FLAG);
        }
        Ok(declared)
    }

    /// Keeps (or removes) each launch's directory after the run; failures then name it. The
    /// default comes from the environment variable [`KEEP_TMP_VAR`].
    pub fn keep_dirs(mut self, keep: bool) -> Cmd {
        self.keep = keep;
        self
    }
}

/// The executable `word` names, or why there is none.
fn resolve(word: &str) -> Result<PathBuf, String> {
    if word.contains('/') {
        let p = PathBuf::from(word);
        return match executable(&p) {
            Ok(()) => Ok(p),
            Err(why) => Err(format!("cmd: `{word}` {why}")),
        };
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    for dir in std::env::split_paths(&path) {
        let p = dir.join(word);
        if executable(&p).is_ok() {
            return Ok(p);
        }
    }
    Err(format!("cmd: program `{word}` not found on PATH"))
}

fn executable(p: &Path) -> Result<(), &'static str> {
    let meta = std::fs::metadata(p).map_err(|_| "does not exist")?;
    if !meta.is_file() {
        return Err("is not a file");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if meta.permissions().mode() & 0o111 == 0 {
            return Err("is not executable");
        }
    }
    Ok(())
}

impl Backend for Cmd {
    fn name(&self) -> String {
        format!("cmd:{}", self.spec)
    }
    fn describe(&self) -> String {
        let exe = std::fs::canonicalize(&self.exe).unwrap_or_else(|_| self.exe.clone());
        let mut s = format!("external program {}", exe.display());
        for a in &self.args {
            s.push(' ');
            s.push_str(a);
        }
        if let Some(d) = self.declared.as_ref().ok().and_then(Declared::summary) {
            s.push_str(&format!(" (declares {d})"));
        }
        s
    }
    fn caps(&self) -> &Caps {
        &self.caps
    }
    fn parallel(&self) -> usize {
        self.jobs
    }
    fn run(&self, job: &Job) -> Result<Buffers, Failure> {
        let dir = make_dir()?;
        let res = self.run_in(&dir, job);
        if self.keep {
            res.map_err(|f| kept_note(f, &dir))
        } else {
            let _ = std::fs::remove_dir_all(&dir);
            res
        }
    }
}

/// Names the kept directory in a failure, where it helps reproduce the launch by hand.
fn kept_note(f: Failure, dir: &Path) -> Failure {
    let note = format!(" (launch kept in {})", dir.display());
    match f {
        Failure::Crashed(m) => Failure::Crashed(m + &note),
        Failure::Malformed(m) => Failure::Malformed(m + &note),
        Failure::Rejected { kind, message } => Failure::Rejected {
            kind,
            message: message + &note,
        },
        other => other,
    }
}

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// A fresh directory under the system temp dir; `create_dir` (not `_all`) fails on a name that
/// already exists, so two processes never share one.
fn make_dir() -> Result<PathBuf, Failure> {
    let base = std::env::temp_dir();
    let pid = std::process::id();
    let mut last = None;
    for _ in 0..16 {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let dir = base.join(format!("ptxconf-cmd-{pid}-{n}-{nanos:x}"));
        match std::fs::create_dir(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => {
                return Err(Failure::Unavailable(format!(
                    "cmd: cannot create a directory in {}: {e}",
                    base.display()
                )))
            }
        }
    }
    Err(Failure::Unavailable(format!(
        "cmd: cannot create a fresh directory in {}: {}",
        base.display(),
        last.map_or_else(String::new, |e| e.to_string())
    )))
}

/// What the program left behind.
struct Outcome {
    /// `None`: killed at the timeout.
    status: Option<ExitStatus>,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
}

/// Starts `cmd`, retrying while the executable is "busy" (ETXTBSY): a program written moments
/// ago — a test's script, a harness that generates its backend — is still open for writing in any
/// child another thread of this process forked before that file was closed, until that child
/// execs. The window is milliseconds, so a few short retries close it; any other error is final.
fn spawn(cmd: &mut Command) -> std::io::Result<Child> {
    const ETXTBSY: i32 = 26;
    let mut delay = Duration::from_millis(5);
    for _ in 0..8 {
        match cmd.spawn() {
            Err(e) if e.raw_os_error() == Some(ETXTBSY) => {
                std::thread::sleep(delay);
                delay *= 2;
            }
            other => return other,
        }
    }
    cmd.spawn()
}

impl Cmd {
    fn run_in(&self, dir: &Path, job: &Job) -> Result<Buffers, Failure> {
        let io = |what: &str, e: std::io::Error| Failure::Unavailable(format!("cmd: cannot write {what}: {e}"));
        std::fs::write(dir.join("kernel.ptx"), &job.ptx).map_err(|e| io("kernel.ptx", e))?;
        let launch = dir.join("launch.json");
        std::fs::write(&launch, job.launch_json("kernel.ptx")).map_err(|e| io("launch.json", e))?;
        let out = self.execute(launch.as_os_str())?;
        let Some(status) = out.status else {
            return Err(Failure::Timeout { seconds: self.timeout });
        };
        judge(job, status, &out.stdout, &out.stderr).map_err(|f| unplace(f, dir))
    }

    /// Runs the program with `last` after its arguments (a launch file, or `--capabilities`).
    fn execute(&self, last: &OsStr) -> Result<Outcome, Failure> {
        let mut cmd = Command::new(&self.exe);
        cmd.args(&self.args)
            .arg(last)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        // Its own process group, so a timeout also ends what it started (a shell script's
        // `sleep`), which would otherwise hold the pipes open.
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        let mut child =
            spawn(&mut cmd).map_err(|e| Failure::Crashed(format!("cannot start {}: {e}", self.exe.display())))?;
        let (tx, rx) = mpsc::channel();
        let readers = [
            drain(
                child.stdout.take().map(|p| Box::new(p) as Box<dyn Read + Send>),
                0,
                tx.clone(),
            ),
            drain(child.stderr.take().map(|p| Box::new(p) as Box<dyn Read + Send>), 1, tx),
        ];
        let waited = child.wait_timeout(Duration::from_secs_f64(self.timeout));
        let status = match waited {
            Ok(Some(s)) => Some(s),
            Ok(None) => {
                kill_all(&mut child);
                None
            }
            Err(e) => {
                kill_all(&mut child);
                return Err(Failure::Crashed(format!("cannot wait for {}: {e}", self.exe.display())));
            }
        };
        let mut bufs = [Vec::new(), Vec::new()];
        let mut open = readers.iter().filter(|r| **r).count();
        let mut killed = status.is_none();
        while open > 0 {
            match rx.recv_timeout(PIPE_GRACE) {
                Ok((k, data)) => {
                    bufs[k] = data;
                    open -= 1;
                }
                Err(mpsc::RecvTimeoutError::Timeout) if !killed => {
                    // Exited, but something it started still holds the pipes.
                    kill_group(&child);
                    killed = true;
                }
                // Still open after the kill: a process that left the group. Give up on it.
                Err(_) => break,
            }
        }
        let [stdout, stderr] = bufs;
        Ok(Outcome { status, stdout, stderr })
    }
}

/// Reads a pipe to its end on a thread (so a chatty child never blocks on a full pipe) and sends
/// the bytes tagged `k`. Returns whether a reader was started.
fn drain(pipe: Option<Box<dyn Read + Send>>, k: usize, tx: mpsc::Sender<(usize, Vec<u8>)>) -> bool {
    let Some(mut p) = pipe else { return false };
    std::thread::spawn(move || {
        let mut data = Vec::new();
        let _ = p.read_to_end(&mut data);
        let _ = tx.send((k, data));
    });
    true
}

fn kill_all(child: &mut Child) {
    kill_group(child);
    let _ = child.kill();
    let _ = child.wait();
}

#[cfg(unix)]
fn kill_group(child: &Child) {
    extern "C" {
        fn kill(pid: i32, sig: i32) -> i32;
    }
    const SIGKILL: i32 = 9;
    if let Ok(pid) = i32::try_from(child.id()) {
        // SAFETY: kill(2) has no memory effects; the group is the child's own (process_group(0)),
        // and a process group id is not reused while any member lives.
        unsafe {
            kill(-pid, SIGKILL);
        }
    }
}

#[cfg(not(unix))]
fn kill_group(_child: &Child) {}

/// Drops the launch directory from a rejection's location and message: the directory is gone
/// after the run, and reports should not differ by a temp name (`kernel.ptx:3:7` is what the
/// user can reproduce with).
fn unplace(f: Failure, dir: &Path) -> Failure {
    let Failure::Rejected { kind, message } = f else {
        return f;
    };
    let prefix = format!("{}/", dir.display());
    Failure::Rejected {
        kind,
        message: message.replace(&prefix, ""),
    }
}

/// The protocol's verdict on what the program printed and how it ended.
fn judge(job: &Job, status: ExitStatus, stdout: &[u8], stderr: &[u8]) -> Result<Buffers, Failure> {
    if let Some(sig) = signal_of(status) {
        return Err(Failure::Crashed(format!(
            "killed by signal {sig}{}{}",
            signal_name(sig).map_or(String::new(), |n| format!(" ({n})")),
            stderr_tail(stderr)
        )));
    }
    let text = String::from_utf8_lossy(stdout);
    if text.trim().is_empty() {
        return Err(Failure::Crashed(format!(
            "{} without a reply on stdout{}",
            exit_text(status),
            stderr_tail(stderr)
        )));
    }
    let reply: serde_json::Value = match serde_json::from_str(&text) {
        Ok(v) => v,
        Err(e) if status.success() => {
            return Err(Failure::Malformed(format!(
                "stdout is not a JSON reply ({e}): {}",
                excerpt(&text)
            )))
        }
        Err(_) => {
            return Err(Failure::Crashed(format!(
                "{} without a parsable reply (stdout: {}){}",
                exit_text(status),
                excerpt(&text),
                stderr_tail(stderr)
            )))
        }
    };
    match reply.get("status").and_then(|s| s.as_str()) {
        Some("error") => Err(rejected(&reply)),
        Some("ok") if status.success() => buffers(job, &reply),
        Some("ok") => Err(Failure::Malformed(format!(
            "an \"ok\" reply but {}{}",
            exit_text(status),
            stderr_tail(stderr)
        ))),
        _ => Err(Failure::Malformed(format!(
            "the reply has no \"status\" of \"ok\" or \"error\": {}",
            excerpt(&text)
        ))),
    }
}

fn rejected(reply: &serde_json::Value) -> Failure {
    let field = |k: &str| reply.get(k).and_then(|v| v.as_str()).filter(|s| !s.is_empty());
    let kind = field("kind").unwrap_or("error").to_string();
    let message = field("message").unwrap_or("(no message)");
    let message = match field("location") {
        Some(loc) => format!("{loc}: {message}"),
        None => message.to_string(),
    };
    // `internal`: the implementation reports a defect of its own, not a verdict on the kernel.
    if kind == "internal" {
        return Failure::Crashed(format!("internal error: {message}"));
    }
    Failure::Rejected { kind, message }
}

/// Every buffer of the launch, in its order, with its size.
pub(crate) fn buffers(job: &Job, reply: &serde_json::Value) -> Result<Buffers, Failure> {
    let bad = |m: String| Err(Failure::Malformed(m));
    let Some(list) = reply.get("buffers").and_then(|b| b.as_array()) else {
        return bad("an \"ok\" reply without a \"buffers\" array".into());
    };
    if list.len() != job.buffers.len() {
        return bad(format!(
            "the reply has {} buffers; the launch has {} ({})",
            list.len(),
            job.buffers.len(),
            job.buffers
                .iter()
                .map(|b| b.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    let mut out = Vec::with_capacity(list.len());
    for (k, (got, want)) in list.iter().zip(&job.buffers).enumerate() {
        let name = got.get("name").and_then(|n| n.as_str());
        if name != Some(want.name.as_str()) {
            return bad(format!(
                "reply buffer {k} is {}; the launch's buffer {k} is `{}`",
                name.map_or("unnamed".to_string(), |n| format!("`{n}`")),
                want.name
            ));
        }
        let Some(hex) = got.get("hex").and_then(|h| h.as_str()) else {
            return bad(format!("reply buffer `{}` has no \"hex\" string", want.name));
        };
        let Some(data) = oracle::launch::decode_hex(hex) else {
            return bad(format!(
                "reply buffer `{}`: \"hex\" is not an even number of hex digits",
                want.name
            ));
        };
        let expected = match (&want.hex, want.size) {
            (Some(h), _) => (h.len() / 2) as u64,
            (None, Some(n)) => n,
            (None, None) => 0,
        };
        if data.len() as u64 != expected {
            return bad(format!(
                "reply buffer `{}` has {} bytes; the launch gave it {expected}",
                want.name,
                data.len()
            ));
        }
        out.push((want.name.clone(), data));
    }
    Ok(out)
}

#[cfg(unix)]
pub(crate) fn signal_of(status: ExitStatus) -> Option<i32> {
    std::os::unix::process::ExitStatusExt::signal(&status)
}

#[cfg(not(unix))]
pub(crate) fn signal_of(_status: ExitStatus) -> Option<i32> {
    None
}

pub(crate) fn signal_name(sig: i32) -> Option<&'static str> {
    Some(match sig {
        1 => "SIGHUP",
        2 => "SIGINT",
        3 => "SIGQUIT",
        4 => "SIGILL",
        5 => "SIGTRAP",
        6 => "SIGABRT",
        7 => "SIGBUS",
        8 => "SIGFPE",
        9 => "SIGKILL",
        11 => "SIGSEGV",
        13 => "SIGPIPE",
        15 => "SIGTERM",
        _ => return None,
    })
}

pub(crate) fn exit_text(status: ExitStatus) -> String {
    match status.code() {
        Some(c) => format!("exited with status {c}"),
        None => "ended".to_string(),
    }
}

/// The last lines of stderr, for crash reports.
pub(crate) fn stderr_tail(stderr: &[u8]) -> String {
    let text = String::from_utf8_lossy(stderr);
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    if lines.is_empty() {
        return "; stderr is empty".to_string();
    }
    let tail = &lines[lines.len().saturating_sub(STDERR_TAIL_LINES)..];
    format!("; stderr ends: {}", tail.join(" | "))
}

/// The start of a reply, on one line.
fn excerpt(text: &str) -> String {
    const MAX: usize = 200;
    let one: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if one.chars().count() <= MAX {
        format!("`{one}`")
    } else {
        format!("`{}...`", one.chars().take(MAX).collect::<String>())
    }
}
