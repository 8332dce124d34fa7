//! `cuda[:LIB]` in worker processes: N persistent `ptxconf cuda-worker` processes ([`worker`]),
//! each with the driver opened once, running one job at a time each, N jobs at once.
//!
//! Why processes: a sticky error (a kernel's illegal instruction or address) poisons the CUDA
//! driver for the whole process — on an H200 (driver 580.159.04, CUDA 13.0) no
//! release/reset/retain of the primary context recovered from one, as the CUDA documentation
//! says (the process must be relaunched) — so in one process every later job is lost. And the
//! driver's JIT is CPU-bound, so one launch at a time leaves the machine's cores idle; one
//! process per launch (`cmd:ptxconf run --backend cuda`) pays a `cuInit` per launch, which on
//! that machine cost minutes of system time for a few hundred launches.
//!
//! So: a worker whose job leaves its context unusable says so (`retire`) and exits; one that
//! dies mid-job is a crash of that job; one that gives no reply within the per-launch timeout is
//! killed and the job timed out. Either way the worker is dropped and a fresh one is started
//! before the next job that needs it, so later jobs run on a clean context. Workers start on
//! demand (the first at [`Pool::open`], to learn the device and to report a missing driver in
//! the same one line as [`Cuda::open`](super::Cuda::open)).

use super::worker::{self, Device, Hello, Request, WireFailure};
use crate::backend::cmd::{exit_text, signal_name, signal_of, stderr_tail};
use crate::backend::{Backend, Buffers, Caps, Failure, Job};
use spec::catalog::PtxVersion;
use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;
use wait_timeout::ChildExt;

/// Set to a number of workers to use exactly that many (0: the in-process backend,
/// [`super::Cuda`], one launch at a time).
pub const WORKERS_VAR: &str = "PTXCONF_CUDA_WORKERS";

/// The most workers the default (`--jobs`, else the cores) asks for. Each worker holds a
/// context of its own on the device (hundreds of MiB of device memory, driver threads); the JIT
/// that they parallelise is bound by the host's cores.
pub const DEFAULT_MAX_WORKERS: usize = 16;

/// Lines of a worker's stderr kept for crash reports.
const STDERR_LINES: usize = 8;

/// How long a worker may take to exit after its stdin closed, or to close its pipes after it
/// died, before it is killed or given up on.
const GRACE: Duration = Duration::from_secs(2);

/// How many workers a run gets: [`WORKERS_VAR`] when set, else `jobs` capped at
/// [`DEFAULT_MAX_WORKERS`]. `Ok(0)`: run in process. `Err`: the variable is not a number.
pub fn workers(jobs: usize) -> Result<usize, String> {
    match std::env::var(WORKERS_VAR) {
        Ok(v) => v
            .trim()
            .parse()
            .map_err(|_| format!("{WORKERS_VAR}=`{v}` is not a number of workers")),
        Err(_) => Ok(jobs.clamp(1, DEFAULT_MAX_WORKERS)),
    }
}

/// The `cuda[:LIB]` backend in worker processes.
pub struct Pool {
    exe: PathBuf,
    lib: Option<String>,
    size: usize,
    timeout: f64,
    describe: String,
    caps: Caps,
    slots: Mutex<Slots>,
    freed: Condvar,
}

/// The workers waiting for a job, and how many exist (waiting or running one).
struct Slots {
    idle: Vec<Worker>,
    live: usize,
}

impl Pool {
    /// Starts the first worker (`exe cuda-worker [--lib LIB]`, `exe` being a `ptxconf`
    /// binary) and learns the device from it; at most `size` workers run jobs at once, each job
    /// under `timeout` seconds. `Failure::Unavailable`: the worker found no usable driver (its
    /// one-line reason, as [`super::Cuda::open`] gives it), or could not be started.
    pub fn open(lib: Option<&str>, exe: &Path, size: usize, timeout: f64) -> Result<Pool, Failure> {
        if !(timeout > 0.0 && timeout.is_finite()) {
            return Err(Failure::Unavailable(format!(
                "cuda: the timeout must be a positive number of seconds, not {timeout}"
            )));
        }
        let mut pool = Pool {
            exe: exe.to_path_buf(),
            lib: lib.map(str::to_string),
            size: size.max(1),
            timeout,
            describe: String::new(),
            caps: super::device_caps(0, PtxVersion(0, 0)),
            slots: Mutex::new(Slots {
                idle: Vec::new(),
                live: 0,
            }),
            freed: Condvar::new(),
        };
        let (first, device) = pool.start()?;
        let Some(ptx) = PtxVersion::parse(&device.ptx) else {
            return Err(Failure::Unavailable(format!(
                "cuda worker {}: `{}` is not a PTX ISA version",
                exe.display(),
                device.ptx
            )));
        };
        pool.describe = device.describe;
        pool.caps = super::device_caps(device.sm, ptx);
        let slots = pool.slots.get_mut().unwrap_or_else(|p| p.into_inner());
        slots.idle.push(first);
        slots.live = 1;
        Ok(pool)
    }

    /// Starts a worker and reads its hello: a ready worker and its device, or why there is none.
    fn start(&self) -> Result<(Worker, Device), Failure> {
        let mut cmd = Command::new(&self.exe);
        cmd.arg(worker::SUBCOMMAND);
        if let Some(lib) = &self.lib {
            cmd.args(["--lib", lib]);
        }
        cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = cmd
            .spawn()
            .map_err(|e| Failure::Unavailable(format!("cuda: cannot start the worker {}: {e}", self.exe.display())))?;
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = child.stdout.take().expect("piped stdout");
        let stderr = child.stderr.take().expect("piped stderr");
        let (tx, replies) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let tail = Arc::new(Mutex::new(StderrTail::default()));
        let keep = Arc::clone(&tail);
        std::thread::spawn(move || keep_tail(stderr, &keep));
        let mut w = Worker {
            child: Some(child),
            stdin: Some(stdin),
            replies,
            tail,
        };
        let line = match w.replies.recv_timeout(Duration::from_secs_f64(self.timeout)) {
            Ok(line) => line,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                w.kill();
                return Err(Failure::Unavailable(format!(
                    "cuda worker {}: no hello within {} s",
                    self.exe.display(),
                    self.timeout
                )));
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                return Err(Failure::Unavailable(format!(
                    "cuda worker {} {} before its hello{}",
                    self.exe.display(),
                    w.ended(),
                    w.stderr()
                )))
            }
        };
        match serde_json::from_str::<Hello>(&line) {
            Ok(Hello::Ready(device)) => Ok((w, device)),
            Ok(Hello::Unavailable { message }) => {
                w.close();
                Err(Failure::Unavailable(message))
            }
            Err(e) => {
                w.kill();
                Err(Failure::Unavailable(format!(
                    "cuda worker {}: not a hello ({e}): {}",
                    self.exe.display(),
                    excerpt(&line)
                )))
            }
        }
    }

    /// A worker for one job: an idle one, else a fresh one while fewer than `size` exist, else
    /// the next to come back.
    fn take(&self) -> Result<Worker, Failure> {
        let mut slots = self.slots.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            if let Some(w) = slots.idle.pop() {
                return Ok(w);
            }
            if slots.live < self.size {
                slots.live += 1;
                drop(slots);
                return match self.start() {
                    Ok((w, _)) => Ok(w),
                    Err(f) => {
                        self.give_back(None);
                        Err(f)
                    }
                };
            }
            slots = self.freed.wait(slots).unwrap_or_else(|p| p.into_inner());
        }
    }

    /// Returns a worker after its job (`None`: it was dropped, and another may start).
    fn give_back(&self, w: Option<Worker>) {
        let mut slots = self.slots.lock().unwrap_or_else(|p| p.into_inner());
        match w {
            Some(w) => slots.idle.push(w),
            None => slots.live -= 1,
        }
        drop(slots);
        self.freed.notify_one();
    }
}

impl Backend for Pool {
    fn name(&self) -> String {
        "cuda".into()
    }
    fn describe(&self) -> String {
        self.describe.clone()
    }
    fn caps(&self) -> &Caps {
        &self.caps
    }
    fn parallel(&self) -> usize {
        self.size
    }
    fn run(&self, job: &Job) -> Result<Buffers, Failure> {
        let request = Request::line(job);
        // A worker that died while idle (its stdin refuses the job) never saw the job: the job
        // goes to another one, once.
        for attempt in 0..2 {
            let mut w = self.take()?;
            match w.call(&request, self.timeout) {
                Call::Replied(reply) => {
                    let retire = reply.get("retire").and_then(|r| r.as_bool()).unwrap_or(true);
                    if retire {
                        w.kill();
                        self.give_back(None);
                    } else {
                        self.give_back(Some(w));
                    }
                    return judge(job, &reply);
                }
                Call::Undelivered(f) => {
                    w.kill();
                    self.give_back(None);
                    if attempt == 1 {
                        return Err(f);
                    }
                }
                Call::Lost(f) => {
                    w.kill();
                    self.give_back(None);
                    return Err(f);
                }
            }
        }
        unreachable!("the second attempt returns")
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        let slots = self.slots.get_mut().unwrap_or_else(|p| p.into_inner());
        let mut idle = std::mem::take(&mut slots.idle);
        // All stdins first, so the workers release their contexts at once.
        for w in &mut idle {
            w.stdin = None;
        }
        for w in idle {
            w.close();
        }
    }
}

/// A reply's verdict: the buffers (checked against the job), or the worker's failure.
fn judge(job: &Job, reply: &serde_json::Value) -> Result<Buffers, Failure> {
    match reply.get("status").and_then(|s| s.as_str()) {
        Some("ok") => crate::backend::cmd::buffers(job, reply),
        Some("error") => match serde_json::from_value::<WireFailure>(reply.clone()) {
            Ok(f) => Err(f.into()),
            Err(e) => Err(Failure::Malformed(format!(
                "cuda worker: an error reply without a failure ({e})"
            ))),
        },
        _ => Err(Failure::Malformed(format!(
            "cuda worker: a reply without a \"status\" of \"ok\" or \"error\": {}",
            excerpt(&reply.to_string())
        ))),
    }
}

/// How one job went on one worker.
enum Call {
    /// The worker's reply.
    Replied(serde_json::Value),
    /// The job could not be sent: the worker had gone.
    Undelivered(Failure),
    /// The worker took the job and gave no usable reply (died, timed out, broke the protocol).
    Lost(Failure),
}

/// One worker process: its stdin, its reply lines, the end of its stderr. Dropping it kills
/// the process.
struct Worker {
    /// `None` once reaped or handed to a reaper.
    child: Option<Child>,
    /// `None` once closed.
    stdin: Option<ChildStdin>,
    replies: mpsc::Receiver<String>,
    tail: Arc<Mutex<StderrTail>>,
}

impl Worker {
    fn call(&mut self, request: &str, timeout: f64) -> Call {
        let Some(stdin) = self.stdin.as_mut() else {
            return Call::Undelivered(Failure::Crashed("cuda worker: closed".into()));
        };
        if let Err(e) = write_line(stdin, request) {
            return Call::Undelivered(Failure::Crashed(format!(
                "cuda worker (pid {}) cannot take the job: {e}",
                self.pid()
            )));
        }
        match self.replies.recv_timeout(Duration::from_secs_f64(timeout)) {
            Ok(line) => match serde_json::from_str(&line) {
                Ok(v) => Call::Replied(v),
                Err(e) => Call::Lost(Failure::Malformed(format!(
                    "cuda worker: the reply is not JSON ({e}): {}",
                    excerpt(&line)
                ))),
            },
            Err(mpsc::RecvTimeoutError::Timeout) => Call::Lost(Failure::Timeout { seconds: timeout }),
            Err(mpsc::RecvTimeoutError::Disconnected) => Call::Lost(Failure::Crashed(format!(
                "cuda worker (pid {}) {} during the launch{}",
                self.pid(),
                self.ended(),
                self.stderr()
            ))),
        }
    }

    /// The process id, for messages.
    fn pid(&self) -> u32 {
        self.child.as_ref().map_or(0, Child::id)
    }

    /// How the process ended, once its stdout closed: waits for it a little, then kills it.
    fn ended(&mut self) -> String {
        let Some(child) = self.child.as_mut() else {
            return "ended".to_string();
        };
        match child.wait_timeout(GRACE) {
            Ok(Some(status)) => {
                self.child = None;
                match signal_of(status) {
                    Some(sig) => format!(
                        "was killed by signal {sig}{}",
                        signal_name(sig).map_or(String::new(), |n| format!(" ({n})"))
                    ),
                    None => exit_text(status),
                }
            }
            _ => "closed its stdout".to_string(),
        }
    }

    /// The end of its stderr, once the process is gone (`; stderr ends: ...`).
    fn stderr(&self) -> String {
        let deadline = std::time::Instant::now() + GRACE;
        loop {
            let t = self.tail.lock().unwrap_or_else(|p| p.into_inner());
            if t.done || std::time::Instant::now() >= deadline {
                let lines: Vec<u8> = t.lines.iter().flat_map(|l| l.bytes().chain([b'\n'])).collect();
                return stderr_tail(&lines);
            }
            drop(t);
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Kills the process (what dropping it does).
    fn kill(self) {}

    /// Closes its stdin and lets it exit (releasing its context), killing it after a grace.
    fn close(mut self) {
        self.stdin = None;
        if let Some(child) = self.child.as_mut() {
            if matches!(child.wait_timeout(GRACE), Ok(Some(_))) {
                self.child = None;
            }
        }
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        self.stdin = None;
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            // Reaped on a thread of its own: a process stuck in the driver may take long to
            // go, and no job waits for it.
            std::thread::spawn(move || {
                let _ = child.wait();
            });
        }
    }
}

/// Writes `line` and a newline to a worker's stdin. A worker that has gone makes the write fail
/// with EPIPE; the SIGPIPE that comes with it would end this process (`ptxconf` restores its
/// default action so that `| head` works), so it is blocked on this thread during the write and
/// taken back if it came.
fn write_line(stdin: &mut ChildStdin, line: &str) -> std::io::Result<()> {
    let mut bytes = Vec::with_capacity(line.len() + 1);
    bytes.extend_from_slice(line.as_bytes());
    bytes.push(b'\n');
    #[cfg(unix)]
    {
        // SAFETY: signal-mask calls on this thread's own mask, with sets built by sigemptyset
        // and sigaddset; the old mask is restored before returning.
        unsafe {
            let mut pipe: libc::sigset_t = std::mem::zeroed();
            let mut old: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut pipe);
            libc::sigaddset(&mut pipe, libc::SIGPIPE);
            libc::pthread_sigmask(libc::SIG_BLOCK, &pipe, &mut old);
            let r = stdin.write_all(&bytes).and_then(|()| stdin.flush());
            if r.is_err() {
                // A SIGPIPE the failed write raised is pending on this thread: take it.
                let zero = libc::timespec { tv_sec: 0, tv_nsec: 0 };
                while libc::sigtimedwait(&pipe, std::ptr::null_mut(), &zero) == libc::SIGPIPE {}
            }
            libc::pthread_sigmask(libc::SIG_SETMASK, &old, std::ptr::null_mut());
            r
        }
    }
    #[cfg(not(unix))]
    {
        stdin.write_all(&bytes).and_then(|()| stdin.flush())
    }
}

/// The last lines a worker wrote to stderr, and whether it closed it.
#[derive(Default)]
struct StderrTail {
    lines: VecDeque<String>,
    done: bool,
}

fn keep_tail(stderr: impl Read, tail: &Mutex<StderrTail>) {
    for line in BufReader::new(stderr).lines() {
        let Ok(line) = line else { break };
        let mut t = tail.lock().unwrap_or_else(|p| p.into_inner());
        if t.lines.len() == STDERR_LINES {
            t.lines.pop_front();
        }
        t.lines.push_back(line);
    }
    tail.lock().unwrap_or_else(|p| p.into_inner()).done = true;
}

/// The start of a line, for messages.
fn excerpt(text: &str) -> String {
    const MAX: usize = 200;
    if text.chars().count() <= MAX {
        format!("`{text}`")
    } else {
        format!("`{}...`", text.chars().take(MAX).collect::<String>())
    }
}
