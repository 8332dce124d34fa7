//! `ptxconf run --backend B LAUNCH`: one launch file on an implementation, its reply printed the
//! way `ptxconf run` prints the oracle's, so that a committed repro (corpus/findings/) replays
//! with one command and its output `diff`s against the repro's `expected.json`.

use crate::backend::{self, Failure, Job, Options};
use std::fmt;
use std::path::Path;

/// A backend's reply to one launch: the JSON `ptxconf run` prints, and whether it ran.
pub struct Replay {
    /// `{"status": "ok", "buffers": [...]}` (`oracle::launch::ok_json`'s layout) or
    /// `{"status": "error", "kind", "message"}` on one line.
    pub json: String,
    /// Whether the launch ran to completion.
    pub ok: bool,
}

/// Why a launch could not be replayed at all.
#[derive(Debug)]
pub enum ReplayError {
    /// The launch file or the PTX it names cannot be read or parsed.
    Launch(String),
    /// The backend cannot be opened (unknown name, no driver, a program that is not there).
    Backend(Failure),
}

impl fmt::Display for ReplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReplayError::Launch(m) => write!(f, "{m}"),
            ReplayError::Backend(e) => write!(f, "the backend cannot run: {e}"),
        }
    }
}

/// Runs `launch` (its PTX read relative to it) on `spec` (`cuda`, `cuda:LIB`, `cmd:PROGRAM`), a
/// `cmd:` program under `timeout` seconds.
pub fn replay(launch: &Path, spec: &str, timeout: f64) -> Result<Replay, ReplayError> {
    let shown = launch.display();
    let text = std::fs::read_to_string(launch).map_err(|e| ReplayError::Launch(format!("{shown}: {e}")))?;
    let l = oracle::launch::parse_launch(&text).map_err(|e| ReplayError::Launch(format!("{shown}: {e}")))?;
    let ptx_path = launch.parent().unwrap_or(Path::new(".")).join(&l.ptx);
    let ptx =
        std::fs::read_to_string(&ptx_path).map_err(|e| ReplayError::Launch(format!("{}: {e}", ptx_path.display())))?;
    let opts = Options {
        timeout,
        ..Options::default()
    };
    let b = backend::open(spec, &opts).map_err(ReplayError::Backend)?;
    Ok(match b.run(&Job::from_launch(&l, ptx)) {
        Ok(bufs) => Replay {
            json: oracle::launch::ok_json(&bufs),
            ok: true,
        },
        Err(e) => {
            // The kinds of `ptxconf run`'s errors, and the three ways an implementation fails
            // without saying why (a crash, no reply, a reply outside the protocol).
            let (kind, message) = match e {
                Failure::Rejected { kind, message } => (kind, message),
                Failure::Crashed(m) => ("crashed".to_string(), m),
                Failure::Timeout { seconds } => ("timeout".to_string(), format!("no reply within {seconds} s")),
                Failure::Malformed(m) => ("malformed".to_string(), m),
                Failure::Unavailable(m) => return Err(ReplayError::Backend(Failure::Unavailable(m))),
            };
            let v = serde_json::json!({"status": "error", "kind": kind, "message": message});
            Replay {
                json: format!("{v}\n"),
                ok: false,
            }
        }
    })
}
