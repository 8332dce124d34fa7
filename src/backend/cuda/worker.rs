//! A `cuda` worker process: `ptxconf cuda-worker [--lib LIB]`, the hidden subcommand that
//! [`super::pool::Pool`] starts. It opens the driver once ([`Cuda::open`]) and runs the jobs it
//! is sent, one at a time, on that context.
//!
//! The protocol is one JSON object per line, each way:
//! - first, the worker says hello: `{"hello": "ready", "describe", "sm", "ptx"}` (the device,
//!   its compute capability as `90`, the newest PTX ISA version as `8.7`), or
//!   `{"hello": "unavailable", "message"}` — [`Cuda::open`]'s one-line reason — and exits 0;
//! - then, per job, a [`Request`] (`{"ptx": TEXT, "launch": LAUNCH}`: the PTX text and the
//!   launch file `ptxconf run` reads, [`Job::launch`]) in, a reply out:
//!   `{"status": "ok", "buffers": [{"name", "hex"}...], "retire": false}` or
//!   `{"status": "error", "failure": "rejected|unavailable|timeout|crashed|malformed", "kind",
//!   "message", "seconds", "retire"}` ([`Failure`] field for field, so errors keep their kinds
//!   and texts).
//!
//! `retire: true` means the job left the context unusable (a sticky error, [`Cuda::context_error`]):
//! the worker exits after the reply, and the pool starts a fresh process before the next job.
//! The worker ends when its stdin closes.

use super::Cuda;
use crate::backend::{Backend, Buffers, Failure, Job};
use oracle::launch::{encode_hex, LaunchFile};
use serde::{Deserialize, Serialize};
use std::io::{BufRead, Write};

/// The subcommand that makes `ptxconf` a worker.
pub const SUBCOMMAND: &str = "cuda-worker";

/// The worker's first line.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(tag = "hello", rename_all = "snake_case")]
pub enum Hello {
    /// The driver is open and the device's context taken.
    Ready(Device),
    /// No usable driver or device: [`Cuda::open`]'s reason.
    Unavailable {
        /// The one-line reason.
        message: String,
    },
}

/// The device a ready worker runs on.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
pub struct Device {
    /// [`Backend::describe`] of the worker's [`Cuda`].
    pub describe: String,
    /// Compute capability: 90 for 9.0.
    pub sm: u32,
    /// The newest PTX ISA version the driver JIT-compiles (`8.7`).
    pub ptx: String,
}

/// One job, as sent to a worker.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Request {
    /// The PTX module's text.
    pub ptx: String,
    /// The launch; its `ptx` field is unused.
    pub launch: LaunchFile,
}

impl Request {
    /// The request line (without its newline) of `job`.
    pub fn line(job: &Job) -> String {
        let r = Request {
            ptx: job.ptx.clone(),
            launch: job.launch(""),
        };
        serde_json::to_string(&r).expect("a request serializes")
    }

    /// The job a request line carries.
    pub fn parse(line: &str) -> Result<Job, String> {
        let r: Request = serde_json::from_str(line).map_err(|e| format!("not a job request: {e}"))?;
        Ok(Job::from_launch(&r.launch, r.ptx))
    }
}

/// A reply's failure, [`Failure`] field for field.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(tag = "failure", rename_all = "snake_case")]
pub enum WireFailure {
    /// [`Failure::Unavailable`].
    Unavailable {
        /// The reason.
        message: String,
    },
    /// [`Failure::Rejected`].
    Rejected {
        /// The error's class (`jit`, `cuda`, `launch`).
        kind: String,
        /// The driver's message.
        message: String,
    },
    /// [`Failure::Timeout`].
    Timeout {
        /// The timeout, in seconds.
        seconds: f64,
    },
    /// [`Failure::Crashed`].
    Crashed {
        /// What happened.
        message: String,
    },
    /// [`Failure::Malformed`].
    Malformed {
        /// What was wrong.
        message: String,
    },
}

impl From<Failure> for WireFailure {
    fn from(f: Failure) -> WireFailure {
        match f {
            Failure::Unavailable(message) => WireFailure::Unavailable { message },
            Failure::Rejected { kind, message } => WireFailure::Rejected { kind, message },
            Failure::Timeout { seconds } => WireFailure::Timeout { seconds },
            Failure::Crashed(message) => WireFailure::Crashed { message },
            Failure::Malformed(message) => WireFailure::Malformed { message },
        }
    }
}

impl From<WireFailure> for Failure {
    fn from(f: WireFailure) -> Failure {
        match f {
            WireFailure::Unavailable { message } => Failure::Unavailable(message),
            WireFailure::Rejected { kind, message } => Failure::Rejected { kind, message },
            WireFailure::Timeout { seconds } => Failure::Timeout { seconds },
            WireFailure::Crashed { message } => Failure::Crashed(message),
            WireFailure::Malformed { message } => Failure::Malformed(message),
        }
    }
}

/// A failed job's reply.
#[derive(Serialize)]
struct ErrorReply {
    status: &'static str,
    #[serde(flatten)]
    failure: WireFailure,
    retire: bool,
}

/// The reply line (without its newline) to a job that ran to `result`; `retire`: the worker
/// exits after it.
pub fn reply_line(result: Result<&Buffers, Failure>, retire: bool) -> String {
    match result {
        Ok(bufs) => {
            let list: Vec<serde_json::Value> = bufs
                .iter()
                .map(|(name, data)| serde_json::json!({"name": name, "hex": encode_hex(data)}))
                .collect();
            serde_json::json!({"status": "ok", "buffers": list, "retire": retire}).to_string()
        }
        Err(f) => serde_json::to_string(&ErrorReply {
            status: "error",
            failure: f.into(),
            retire,
        })
        .expect("a reply serializes"),
    }
}

/// Serves jobs on stdin until it closes: the `cuda-worker` subcommand. Returns the exit status
/// (0; 1 when stdin or stdout fails).
pub fn serve(lib: Option<&str>) -> i32 {
    let Some(mut out) = protocol_output() else {
        return 1;
    };
    let mut say = |line: &str| -> bool { writeln!(out, "{line}").and_then(|()| out.flush()).is_ok() };
    let cuda = match Cuda::open(lib) {
        Ok(c) => c,
        Err(f) => {
            let message = match f {
                Failure::Unavailable(m) => m,
                f => f.to_string(),
            };
            let hello = serde_json::to_string(&Hello::Unavailable { message }).expect("hello serializes");
            return if say(&hello) { 0 } else { 1 };
        }
    };
    let caps = cuda.caps();
    let hello = Hello::Ready(Device {
        describe: cuda.describe(),
        sm: caps.target.map_or(0, |t| t.sm),
        ptx: caps.ptx.to_string(),
    });
    if !say(&serde_json::to_string(&hello).expect("hello serializes")) {
        return 1;
    }
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { return 1 };
        if line.trim().is_empty() {
            continue;
        }
        let (result, retire) = match Request::parse(&line) {
            Ok(job) => {
                let result = cuda.run(&job);
                // Only a failed job can have poisoned the context; a successful one costs no
                // extra synchronisation.
                let retire = result.is_err() && cuda.context_error().is_some();
                (result, retire)
            }
            Err(why) => (Err(Failure::Malformed(why)), false),
        };
        if !say(&reply_line(result.as_ref().map_err(Clone::clone), retire)) {
            return 1;
        }
        if retire {
            return 0;
        }
    }
    0
}

/// The worker's protocol channel: its stdout, moved to a descriptor of its own, with stdout
/// itself sent to stderr, so that nothing the driver or a library prints can break a reply.
#[cfg(unix)]
fn protocol_output() -> Option<std::fs::File> {
    use std::os::fd::FromRawFd;
    // SAFETY: dup/dup2 on the process's own standard descriptors; the new descriptor is owned
    // by the File returned.
    unsafe {
        let fd = libc::dup(1);
        if fd < 0 || libc::dup2(2, 1) < 0 {
            return None;
        }
        Some(std::fs::File::from_raw_fd(fd))
    }
}

#[cfg(not(unix))]
fn protocol_output() -> Option<std::io::Stdout> {
    Some(std::io::stdout())
}
