//! The launch contract of `ptxconf run LAUNCH.json` (issue 4), also the protocol external
//! backends speak: a JSON launch in, every buffer's bytes (or a located error) out.
//!
//! ```text
//! {"ptx": "kernel.ptx", "entry": "k", "grid": [gx,gy,gz], "block": [bx,by,bz],
//!  "buffers": [{"name": "in", "hex": "..."}, {"name": "out", "size": 4096}],
//!  "params": [{"buffer": "out"}, {"buffer": "in"}, {"type": "u32", "value": "17"}],
//!  "shared_bytes": 0,                          (optional: dynamic shared memory per block)
//!  "limits": {"steps": N, "memory": N, "stack": N}}   (optional)
//! ```

use crate::error::{Error, ErrorKind, Result};
use crate::exec::{Launch, Limits, Machine, Stats};
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::path::Path;

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LaunchFile {
    pub ptx: String,
    pub entry: String,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    #[serde(default)]
    pub buffers: Vec<BufferSpec>,
    #[serde(default)]
    pub params: Vec<ParamSpec>,
    #[serde(default)]
    pub shared_bytes: u32,
    #[serde(default)]
    pub limits: Option<LimitSpec>,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct BufferSpec {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hex: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(untagged)]
pub enum ParamSpec {
    Buffer {
        buffer: String,
    },
    Scalar {
        #[serde(rename = "type")]
        ty: String,
        value: String,
    },
}

#[derive(Clone, Copy, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LimitSpec {
    pub steps: Option<u64>,
    pub memory: Option<u64>,
    pub stack: Option<u32>,
}

/// Buffers after a launch, in launch order.
pub type Buffers = Vec<(String, Vec<u8>)>;

fn launch_err<T>(msg: impl Into<String>) -> Result<T> {
    Err(Error::new(ErrorKind::Launch, msg))
}

/// Parses a launch file's text.
pub fn parse_launch(text: &str) -> Result<LaunchFile> {
    serde_json::from_str(text).map_err(|e| Error {
        kind: ErrorKind::Launch,
        message: format!("the launch file is not valid: {e}"),
        loc: Some((e.line() as u32, e.column() as u32)),
    })
}

pub fn decode_hex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| s.get(i..i + 2).and_then(|h| u8::from_str_radix(h, 16).ok()))
        .collect()
}

pub fn encode_hex(b: &[u8]) -> String {
    let mut s = String::with_capacity(b.len() * 2);
    for x in b {
        let _ = write!(s, "{x:02x}");
    }
    s
}

/// A scalar parameter's bits: decimal (negative as two's complement) or `0x` hex, fitting `bytes`.
fn scalar_bits(value: &str, bytes: usize) -> Option<u64> {
    let v = if let Some(h) = value.strip_prefix("0x").or_else(|| value.strip_prefix("0X")) {
        u64::from_str_radix(h, 16).ok()?
    } else if let Some(n) = value.strip_prefix('-') {
        let m: u64 = n.parse().ok()?;
        if bytes < 8 && m > 1u64 << (bytes * 8 - 1) {
            return None;
        }
        m.wrapping_neg()
    } else {
        value.parse().ok()?
    };
    let fits = bytes >= 8 || v < 1u64 << (bytes * 8) || value.starts_with('-');
    fits.then(|| if bytes >= 8 { v } else { v & ((1u64 << (bytes * 8)) - 1) })
}

/// Runs a launch whose PTX text is given; `ptx_name` names it in messages.
pub fn run(l: &LaunchFile, ptx: &str) -> Result<(Buffers, Stats)> {
    let module = crate::parse::parse(ptx)?;
    let prog = crate::check::check(&module)?;
    let Some(entry) = prog.entry(&l.entry) else {
        return launch_err(format!("the module has no kernel (`.entry`) named `{}`", l.entry));
    };
    let mut m = Machine::new(&prog)?;
    let limits = {
        let d = Limits::default();
        let s = l.limits.unwrap_or_default();
        Limits {
            steps: s.steps.unwrap_or(d.steps),
            memory: s.memory.unwrap_or(d.memory),
            stack: s.stack.unwrap_or(d.stack),
        }
    };
    let mut bases = Vec::new();
    let mut total = 0u64;
    for b in &l.buffers {
        if bases.iter().any(|(n, _): &(String, u64)| *n == b.name) {
            return launch_err(format!("buffer `{}` is listed twice", b.name));
        }
        let data = match (&b.hex, b.size) {
            (Some(h), None) => match decode_hex(h) {
                Some(d) => d,
                None => {
                    return launch_err(format!(
                        "buffer `{}`: `hex` must be an even number of hex digits",
                        b.name
                    ))
                }
            },
            (None, Some(n)) => {
                total = total.saturating_add(n);
                if total > limits.memory {
                    return Err(Error::new(
                        ErrorKind::Limit,
                        format!("buffers need more than the memory limit of {} bytes", limits.memory),
                    ));
                }
                vec![0u8; n as usize]
            }
            _ => return launch_err(format!("buffer `{}` needs exactly one of `hex` and `size`", b.name)),
        };
        total = total.saturating_add(data.len() as u64 * (b.hex.is_some() as u64));
        let base = m.alloc(&b.name, data);
        bases.push((b.name.clone(), base));
    }
    let func = &prog.funcs[entry];
    if l.params.len() != func.params.len() {
        return launch_err(format!(
            "kernel `{}` takes {} parameters; the launch gives {}",
            l.entry,
            func.params.len(),
            l.params.len()
        ));
    }
    let size = func.params.last().map_or(0, |p| (p.0 + p.1) as usize);
    let mut params = vec![0u8; size];
    for (k, (p, &(off, psize))) in l.params.iter().zip(&func.params).enumerate() {
        let declared = &func.param_types[k];
        let bits = match p {
            ParamSpec::Buffer { buffer } => {
                let Some((_, base)) = bases.iter().find(|(n, _)| n == buffer) else {
                    return launch_err(format!(
                        "parameter {k} names buffer `{buffer}`, which the launch does not list"
                    ));
                };
                if psize != 8 {
                    return launch_err(format!(
                        "parameter {k} is `.{declared}` ({psize} bytes); a buffer's address needs 8"
                    ));
                }
                *base
            }
            ParamSpec::Scalar { ty, value } => {
                let Some(t) = spec::types::Type::parse(ty) else {
                    return launch_err(format!("parameter {k}: `{ty}` is not a PTX type"));
                };
                let bytes = (t.bits() as usize).div_ceil(8);
                if bytes != psize as usize {
                    return launch_err(format!(
                        "parameter {k}: the launch gives a `{ty}` ({bytes} bytes); the kernel declares `.{declared}` ({psize} bytes)"
                    ));
                }
                match scalar_bits(value, bytes) {
                    Some(v) => v,
                    None => {
                        return launch_err(format!(
                            "parameter {k}: `{value}` is not a decimal or 0x-hex value that fits `{ty}`"
                        ))
                    }
                }
            }
        };
        let n = (psize as usize).min(8);
        params[off as usize..off as usize + n].copy_from_slice(&bits.to_le_bytes()[..n]);
    }
    let launch = Launch {
        entry: l.entry.clone(),
        grid: l.grid,
        block: l.block,
        params,
        dyn_shared: l.shared_bytes,
        limits,
    };
    let stats = m.run(&launch)?;
    let out = bases
        .into_iter()
        .map(|(n, base)| {
            let data = m.buffer(base).map(<[u8]>::to_vec).unwrap_or_default();
            (n, data)
        })
        .collect();
    Ok((out, stats))
}

/// Runs a launch file: reads it and the PTX it names (relative to the file).
pub fn run_file(path: &Path) -> std::result::Result<(Buffers, Stats), (Error, String)> {
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| {
        (
            Error::new(ErrorKind::Launch, format!("cannot read the launch file: {e}")),
            shown.clone(),
        )
    })?;
    let l = parse_launch(&text).map_err(|e| (e, shown.clone()))?;
    let ptx_path = path.parent().unwrap_or(Path::new(".")).join(&l.ptx);
    let ptx_shown = ptx_path.display().to_string();
    let ptx = std::fs::read_to_string(&ptx_path).map_err(|e| {
        (
            Error::new(
                ErrorKind::Launch,
                format!("cannot read the PTX file `{ptx_shown}`: {e}"),
            ),
            shown.clone(),
        )
    })?;
    run(&l, &ptx).map_err(|e| {
        let file = if e.kind == ErrorKind::Launch && e.loc.is_none() {
            shown.clone()
        } else {
            ptx_shown.clone()
        };
        (e, file)
    })
}

/// The success reply: every buffer, in launch order.
pub fn ok_json(bufs: &Buffers) -> String {
    let mut s = String::from("{\"status\": \"ok\", \"buffers\": [\n");
    for (k, (n, d)) in bufs.iter().enumerate() {
        let sep = if k + 1 < bufs.len() { "," } else { "" };
        let _ = writeln!(
            s,
            "  {{\"name\": {}, \"hex\": \"{}\"}}{sep}",
            serde_json::Value::from(n.as_str()),
            encode_hex(d)
        );
    }
    s.push_str("]}\n");
    s
}

/// The failure reply.
pub fn error_json(e: &Error, file: &str) -> String {
    let v = serde_json::json!({
        "status": "error",
        "kind": e.kind.name(),
        "message": e.message,
        "location": e.location(file),
    });
    format!("{v}\n")
}
