//! The launch contract of `ptxconf run LAUNCH.json` (issue 4), also the protocol external
//! backends speak: a JSON launch in, every buffer's bytes (or a located error) out.
//!
//! ```text
//! {"ptx": "kernel.ptx", "entry": "k", "grid": [gx,gy,gz], "block": [bx,by,bz],
//!  "buffers": [{"name": "in", "hex": "..."}, {"name": "out", "size": 4096}],
//!  "params": [{"buffer": "out"}, {"buffer": "in"}, {"type": "u32", "value": "17"}],
//!  "shared_bytes": 0,                          (optional: dynamic shared memory per block)
//!  "cluster": [cx,cy,cz],                       (optional: CTAs per cluster, see LaunchFile::cluster)
//!  "limits": {"steps": N, "memory": N, "stack": N},  (optional)
//!  "grammar": "ptxas",                          (optional: or "manual", see LaunchFile::grammar)
//!  "check": {...}}                              (optional: how to compare results, see [`Check`])
//! ```
//!
//! The reply ([`ok_json`], [`error_json`]):
//!
//! ```text
//! {"status": "ok", "buffers": [{"name": "in", "hex": "..."}, {"name": "out", "hex": "..."}]}
//! {"status": "error", "kind": "parse|type|launch|runtime|limit|internal", "message": "...",
//!  "location": "file:line:col"}
//! ```

use crate::error::{Error, ErrorKind, Result};
use crate::exec::{lanes, Engine, Launch, Limits, Machine, Stats};
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::path::Path;

pub mod tensor_map;

/// A launch file: one kernel launch on fresh device memory (the JSON shape is in the module
/// doc). Unknown fields are refused.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct LaunchFile {
    /// The PTX module's path, relative to the launch file's directory.
    pub ptx: String,
    /// The kernel to run: the name of an `.entry` of the module.
    pub entry: String,
    /// CTAs in x, y, z (`%nctaid`).
    pub grid: [u32; 3],
    /// Threads per CTA in x, y, z (`%ntid`).
    pub block: [u32; 3],
    /// Global buffers, allocated in this order (each 256-byte aligned, with unmapped memory
    /// between them); names are unique. The reply gives every one back, in this order.
    #[serde(default)]
    pub buffers: Vec<BufferSpec>,
    /// The kernel's arguments, one per parameter of the `.entry`, in order.
    #[serde(default)]
    pub params: Vec<ParamSpec>,
    /// Dynamic shared memory per CTA in bytes (`.extern .shared` arrays, after the static
    /// `.shared` variables); default 0.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub shared_bytes: u32,
    /// CTAs per cluster in x, y, z (`%cluster_nctaid`, §2.2.2): an explicit cluster launch.
    /// Absent: the kernel's `.reqnctapercluster`, else clusters of one CTA
    /// ([`crate::cluster::Geometry::of`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster: Option<[u32; 3]>,
    /// Bounds of the run; absent ones take [`Limits::default`]'s values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limits: Option<LimitSpec>,
    /// How two implementations' results are compared (generated programs carry one); without it,
    /// every buffer is compared byte for byte. `ptxconf run` ignores it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check: Option<Check>,
    /// Whose grammar the type checker follows where the manual's and ptxas 12.9's differ:
    /// `"ptxas"` (the default) or `"manual"` ([`crate::check::Grammar`]).
    #[serde(default, skip_serializing_if = "is_ptxas")]
    pub grammar: crate::check::Grammar,
}

fn is_ptxas(g: &crate::check::Grammar) -> bool {
    *g == crate::check::Grammar::Ptxas
}

/// The signature of a generated program: every thread writes a record of `stride` bytes at
/// `stride × (global thread index)` of `buffer`, slot by slot. When a launch has a check, only that
/// buffer is compared (the other buffers are the program's inputs and scratch space, whose
/// contents reach the signature if they matter).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Check {
    /// The buffer of the records (a generated program's `sig`).
    pub buffer: String,
    /// Bytes of one thread's record: thread `t`'s starts at byte `t × stride`.
    pub stride: u32,
    /// The values of a record, each within `stride`.
    pub slots: Vec<Slot>,
}

/// One value of a thread's record, with how it is judged. In JSON an object whose `"kind"` is
/// `"exact"`, `"nan"` or `"judge"`, with the variant's fields. A value is read little-endian from
/// `bytes` (1 to 16) bytes at `offset` of the record.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Slot {
    /// The same bits.
    Exact {
        /// Byte offset in the record.
        offset: u32,
        /// Size in bytes.
        bytes: u32,
    },
    /// The same bits, except that where the expected lane is a NaN of `format` any NaN is
    /// accepted: the value went through instructions that return "an unspecified NaN" (L7141).
    Nan {
        /// Byte offset in the record.
        offset: u32,
        /// Size in bytes.
        bytes: u32,
        /// The lanes' float format, as the spec names it: `f16`, `bf16`, `tf32`, `f32`, `f64`,
        /// `e4m3`, `e5m2`, `e2m3`, `e3m2`, `e2m1`, `ue8m0`, `ue4m3`.
        format: String,
        /// Bits per lane (16 for the lanes of an `f16x2`; `bytes × 8` for a scalar); it divides
        /// `bytes × 8`, and lane 0 is the least significant.
        lane_bits: u32,
    },
    /// A result the manual does not fix to one value (an approximate instruction, a `rem` of
    /// negative operands): judged by evaluating `form` (a golden-vector form key) on the inputs
    /// the *observed* record holds, and accepting any value of the spec's acceptance set for
    /// destination `output`.
    Judge {
        /// Byte offset in the record.
        offset: u32,
        /// Size in bytes.
        bytes: u32,
        /// The instruction's form key, as in the golden vectors (`spec::vector::form_key`).
        form: String,
        /// The destination's index among the form's outputs.
        output: u32,
        /// The form's source operands, in order, as the spec takes them.
        ins: Vec<JudgeIn>,
    },
}

impl Slot {
    /// Where the slot lies in the record.
    pub fn span(&self) -> (u32, u32) {
        match *self {
            Slot::Exact { offset, bytes } | Slot::Nan { offset, bytes, .. } | Slot::Judge { offset, bytes, .. } => {
                (offset, bytes)
            }
        }
    }
}

/// A source operand of a judged instruction: a slot of the same record (its index in
/// [`Check::slots`]) or an immediate, with `!`/`-` and a video selector as written.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct JudgeIn {
    /// The slot holding the operand (its index in [`Check::slots`]); exactly one of `slot` and
    /// `imm`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slot: Option<u32>,
    /// An immediate operand: its bits in hex, `0x` optional.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub imm: Option<String>,
    /// Written negated (`-a`, `!p`); default `false`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub neg: bool,
    /// A video selector without the dot (`b0`, `h1`, `b3210`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sel: Option<String>,
}

/// A global buffer: its name and either its initial bytes or its size (exactly one of `hex` and
/// `size`). Buffers count against the memory limit.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct BufferSpec {
    /// The name parameters and the reply know it by.
    pub name: String,
    /// Initial bytes in memory order, two hex digits each ([`encode_hex`] writes lowercase).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hex: Option<String>,
    /// A zero-filled buffer of this many bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
}

/// A kernel argument, in JSON `{"buffer": NAME}` or `{"type": TYPE, "value": VALUE}`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(untagged)]
pub enum ParamSpec {
    /// A buffer's global address: 8 bytes, little-endian (the parameter must have 8 bytes).
    Buffer {
        /// The buffer's name, one of [`LaunchFile::buffers`].
        buffer: String,
    },
    /// A scalar, little-endian in the parameter's bytes.
    Scalar {
        /// A PTX type without the dot (`u32`, `f32`, `b64`) of the parameter's size.
        #[serde(rename = "type")]
        ty: String,
        /// Its bits: a decimal (negative: two's complement) or `0x` hex that fits the type's width
        /// (a float's bit pattern in hex: `0x3f800000` is 1.0 in `f32`).
        value: String,
    },
    /// A tensor map (`CUtensorMap`) by the driver call's arguments ([`tensor_map`]): the 128
    /// bytes of `spec::tma`'s encoding in a 128-byte parameter at a 64-byte-aligned offset.
    TensorMap {
        /// The encode call's arguments.
        tensor_map: Box<tensor_map::TensorMapSpec>,
    },
}

/// The launch file's `limits`: each given one replaces [`Limits::default`]'s; reaching one is a
/// `limit` error.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct LimitSpec {
    /// Thread-instructions executed over the whole launch (default 2 × 10^10).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steps: Option<u64>,
    /// Bytes of memory: buffers, shared memory, every thread's registers and stack (default 4 GiB).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<u64>,
    /// Bytes of one thread's stack: module `.local`, frames of the calls in progress (default
    /// 1 MiB).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stack: Option<u32>,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl LaunchFile {
    /// The launch as the file `ptxconf run` reads (pretty JSON, one trailing newline).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a launch file serializes") + "\n"
    }
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

/// The bytes of an even number of hex digits (either case); `None` for anything else.
pub fn decode_hex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| s.get(i..i + 2).and_then(|h| u8::from_str_radix(h, 16).ok()))
        .collect()
}

/// Bytes as lowercase hex, two digits each, in order.
pub fn encode_hex(b: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = Vec::with_capacity(b.len() * 2);
    for &x in b {
        s.push(DIGITS[(x >> 4) as usize]);
        s.push(DIGITS[(x & 15) as usize]);
    }
    String::from_utf8(s).expect("hex digits are ASCII")
}

/// A scalar parameter's bits: decimal (negative as two's complement) or `0x` hex, fitting `bytes`
/// (the spec's one rule for integer values written as text).
fn scalar_bits(value: &str, bytes: usize) -> Option<u64> {
    spec::value::parse_integer(value, bytes as u32 * 8)
        .ok()
        .map(|v| v as u64)
}

/// Runs a launch whose PTX text is given.
pub fn run(l: &LaunchFile, ptx: &str) -> Result<(Buffers, Stats)> {
    run_with(l, ptx, None)
}

/// [`run`] with the launch's CTAs (clusters) on up to `workers` host threads
/// ([`Machine::workers`]): the same buffers, statistics and errors.
pub fn run_on(l: &LaunchFile, ptx: &str, workers: usize) -> Result<(Buffers, Stats)> {
    run_inner(l, ptx, None, None, workers, None, None).map(|(b, s, _)| (b, s))
}

/// [`run`], with every value result replaced by another accepted value where its acceptance set
/// has one (see [`Machine::perturb`]): a different correct implementation.
pub fn run_perturbed(l: &LaunchFile, ptx: &str, seed: u64) -> Result<(Buffers, Stats)> {
    run_with(l, ptx, Some(seed))
}

/// Per source line, how loosely the manual determined its instructions' results.
pub type Audit = Vec<(u32, u8)>;

/// [`run`], also reporting per source line how loosely the manual determined the results of
/// its value instructions (0 exactly, 1 up to a NaN's payload, 2 only as a set; lines whose
/// instructions ran, except those run by [`crate::fast`] functions). Generated programs are
/// audited with it.
pub fn run_audited(l: &LaunchFile, ptx: &str) -> Result<(Buffers, Stats, Audit)> {
    run_audited_on(l, ptx, 1)
}

/// [`run_audited`] on up to `workers` host threads, like [`run_on`]: the same results and audit.
pub fn run_audited_on(l: &LaunchFile, ptx: &str, workers: usize) -> Result<(Buffers, Stats, Audit)> {
    let mut lines = Vec::new();
    let (bufs, stats, _) = run_inner(l, ptx, None, Some(&mut lines), workers, None, None)?;
    Ok((bufs, stats, lines))
}

fn run_with(l: &LaunchFile, ptx: &str, perturb: Option<u64>) -> Result<(Buffers, Stats)> {
    run_inner(l, ptx, perturb, None, 1, None, None).map(|(b, s, _)| (b, s))
}

/// [`run`] on executor `engine`, also saying which engine ran its clusters (for the tests that
/// compare the engines).
pub fn run_engine(l: &LaunchFile, ptx: &str, engine: Engine) -> Result<(Buffers, Stats, lanes::Count)> {
    run_inner(l, ptx, None, None, 1, Some(engine), None)
}

/// [`run`] with every register, `.local`/`.param` frame byte, `alloca` byte and `.shared` byte
/// holding `fill` (each byte) until written, instead of zero ([`Machine::undefined_fill`]): the
/// manual leaves them unknown (L3757), so results that differ from [`run`]'s depend on something
/// undefined. On the reference engine, one host thread.
pub fn run_filled(l: &LaunchFile, ptx: &str, fill: u8) -> Result<(Buffers, Stats)> {
    run_inner(l, ptx, None, None, 1, Some(Engine::Reference), Some(fill)).map(|(b, s, _)| (b, s))
}

fn run_inner(
    l: &LaunchFile,
    ptx: &str,
    perturb: Option<u64>,
    audit: Option<&mut Vec<(u32, u8)>>,
    workers: usize,
    engine: Option<Engine>,
    undefined_fill: Option<u8>,
) -> Result<(Buffers, Stats, lanes::Count)> {
    let module = crate::parse::parse(ptx)?;
    // The audit leaves the fast paths in place: their forms (integer arithmetic, `add`, `mul`,
    // `fma` with `.rn`, comparisons) are exact or exact up to a NaN, which a generator's probe
    // cannot miss, and auditing every instruction generically costs a third of a campaign.
    let prog = crate::check::check_with(
        &module,
        crate::check::Options {
            generic: perturb.is_some(),
            grammar: l.grammar,
        },
    )?;
    let Some(entry) = prog.entry(&l.entry) else {
        return launch_err(format!("the module has no kernel (`.entry`) named `{}`", l.entry));
    };
    let mut m = Machine::new(&prog)?;
    m.perturb = perturb;
    m.undefined_fill = undefined_fill;
    m.workers = workers.max(1);
    if let Some(e) = engine {
        m.engine = e;
    }
    if audit.is_some() {
        m.audit = Some(vec![0; prog.code.len()]);
    }
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
        let base = m.alloc(&b.name, data)?;
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
            ParamSpec::TensorMap { tensor_map } => {
                let Some((_, base)) = bases.iter().find(|(n, _)| *n == tensor_map.buffer) else {
                    return launch_err(format!(
                        "parameter {k} names buffer `{}`, which the launch does not list",
                        tensor_map.buffer
                    ));
                };
                if psize as usize != spec::tma::encoding::SIZE
                    || !(off as u64).is_multiple_of(spec::tma::encoding::ALIGN)
                {
                    return launch_err(format!(
                        "parameter {k} is {psize} bytes at offset {off}; a tensor map needs 128 bytes, 64-byte aligned (`.param .align 64 .b8 p[128]`)"
                    ));
                }
                let bytes = tensor_map
                    .bytes(*base)
                    .map_err(|e| Error::new(ErrorKind::Launch, format!("parameter {k}: {e}")))?;
                params[off as usize..off as usize + bytes.len()].copy_from_slice(&bytes);
                continue;
            }
            ParamSpec::Buffer { buffer } => {
                let Some((_, base)) = bases.iter().find(|(n, _)| n == buffer) else {
                    return launch_err(format!(
                        "parameter {k} names buffer `{buffer}`, which the launch does not list"
                    ));
                };
                // A 32-bit module's address fits 4 bytes; 8 hold it zero-extended (L3114).
                let need = prog.windows.bits / 8;
                if psize != 8 && psize != need {
                    return launch_err(format!(
                        "parameter {k} is `.{declared}` ({psize} bytes); a buffer's address needs {need}"
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
        cluster: l.cluster,
        limits,
    };
    let stats = m.run(&launch)?;
    if let (Some(lines), Some(a)) = (audit, &m.audit) {
        let mut by: std::collections::BTreeMap<u32, u8> = std::collections::BTreeMap::new();
        for (inst, &x) in prog.code.iter().zip(a) {
            let e = by.entry(inst.loc.line).or_insert(0);
            *e = (*e).max(x);
        }
        lines.extend(by);
    }
    let out = bases
        .into_iter()
        .map(|(n, base)| {
            let data = m.buffer(base).map(<[u8]>::to_vec).unwrap_or_default();
            (n, data)
        })
        .collect();
    Ok((out, stats, m.lanes_count))
}

/// Runs a launch file: reads it and the PTX it names (relative to the file).
pub fn run_file(path: &Path) -> std::result::Result<(Buffers, Stats), (Error, String)> {
    run_file_on(path, 1)
}

/// [`run_file`] with the launch's CTAs on up to `workers` host threads, like [`run_on`].
pub fn run_file_on(path: &Path, workers: usize) -> std::result::Result<(Buffers, Stats), (Error, String)> {
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
    run_on(&l, &ptx, workers).map_err(|e| {
        let file = if e.kind == ErrorKind::Launch && e.loc.is_none() {
            shown.clone()
        } else {
            ptx_shown.clone()
        };
        (e, file)
    })
}

/// The success reply: every buffer after the run, in launch order, its bytes as lowercase hex
/// (`{"status": "ok", "buffers": [{"name": ..., "hex": ...}, ...]}`, one buffer a line).
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

/// The failure reply: `{"status": "error", "kind", "message", "location"}` on one line, `kind`
/// one of [`ErrorKind::name`] and `location` `file:line:col` (just `file` when the error has no
/// position, [`Error::location`]).
pub fn error_json(e: &Error, file: &str) -> String {
    let v = serde_json::json!({
        "status": "error",
        "kind": e.kind.name(),
        "message": e.message,
        "location": e.location(file),
    });
    format!("{v}\n")
}
