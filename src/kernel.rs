//! A form's golden vectors as PTX kernels: one thread per vector, operands loaded from an input
//! buffer, the instruction under test, every destination stored to an output buffer.
//!
//! What PTX fixes in the instruction text rather than in registers — video selectors (`a.b1`,
//! `d.h10`), negation (`!p`, `-a`), immediate operands (`lop3`'s LUT) and which optional operands
//! are written — makes a *variant*. A kernel holds every variant of its vectors; each thread reads
//! its variant number and jumps to it through a `brx.idx` table, so a form runs in a few launches
//! however many selector combinations it has (one JIT compilation per launch on real hardware).
//! For a backend that lacks `brx.idx` ([`Feature::BrxIdx`]) the jump is a binary search of
//! predicated branches instead ([`Dispatch`]); the variants' code is the same.
//!
//! A sample of the vectors runs a second time with sources written into the instruction text
//! (constants in varied spellings, `!p` where ptxas takes it beyond the grammar:
//! `src/kernel/immediate.rs`).
//!
//! Records: the input record of a thread is its variant number (u32, when there is more than one
//! variant) and every register operand in PTX order, each at its natural alignment (predicates and
//! the carry flag as u32 0/1); the output record holds every destination likewise.

mod immediate;
mod matrix;
mod movement;
pub mod operational;
mod refused;
mod scaled;
mod selector;
mod wmma;

use crate::backend::{Buffers, Caps, Feature, Job, JobBuffer, JobParam};
use spec::catalog::{write, Form, Operand, PtxVersion, Target};
use spec::types::Kind;
use spec::value::Sel;
use spec::vector::Vector;
use std::collections::HashMap;
use std::fmt::{self, Write as _};

/// Threads per block.
const BLOCK: u32 = 128;

/// The kernel's entry name.
pub const ENTRY: &str = "conform";

/// How a kernel with several variants sends each thread to its own.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Dispatch {
    /// `brx.idx %var, $TABLE` through a `.branchtargets` list of the variants' labels
    /// (§9.7.12.4, L16732-16751): one indexed branch per thread.
    #[default]
    Table,
    /// A binary search over the variant number: `setp.ge.u32 %upper, %var, MID; @%upper bra
    /// $R{MID};` at each step, the lower half falling through (`bra`, §9.7.12.3, L16694, and
    /// `setp`, L10560, which every implementation has). ⌈log₂ n⌉ compare-and-branch pairs per
    /// thread — 8 for `lop3`'s 256 LUTs, where a chain of `setp.eq` tests would take up to 256
    /// (half on average, for each of up to 65,536 threads of a launch on a simulator) — in the
    /// same n − 1 tests of kernel text as the chain.
    Branches,
}

impl Dispatch {
    /// The dispatch a backend with capabilities `caps` runs: the table unless it lacks
    /// `brx.idx`.
    pub fn for_caps(caps: &Caps) -> Dispatch {
        if caps.lacks(Feature::BrxIdx) {
            Dispatch::Branches
        } else {
            Dispatch::Table
        }
    }
}

/// What the instruction text fixes for one vector.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Variant {
    dsel: Option<Sel>,
    /// Per input: written (an optional operand may be absent), negated, selector, immediate bits.
    ins: Vec<(bool, bool, Option<Sel>, Option<u128>)>,
    /// Per input: a constant written instead of the register ([`immediate`]).
    text: Vec<Option<String>>,
    /// `prmt` byte permutations of source registers (index, selector) before the instruction,
    /// which a respelled `.b1024` selector reads through ([`selector`]).
    prmt: Vec<(usize, u16)>,
}

impl Variant {
    fn of(form: &Form, v: &Vector) -> Variant {
        Variant {
            dsel: v.dsel,
            ins: form
                .inputs
                .iter()
                .enumerate()
                .map(|(k, o)| match v.ins.get(k) {
                    None => (false, false, None, None),
                    Some(i) => (true, i.negated, i.sel, o.flags.imm.then_some(i.bits)),
                })
                .collect(),
            text: vec![None; form.inputs.len()],
            prmt: Vec::new(),
        }
    }
}

/// Where one operand lives in a record.
#[derive(Clone, Copy, Debug)]
struct Slot {
    offset: u32,
    bytes: u32,
}

/// The record layout of a form.
#[derive(Clone, Debug)]
struct Layout {
    variant: Option<u32>,
    ins: Vec<Option<Slot>>,
    in_stride: u32,
    outs: Vec<Slot>,
    out_stride: u32,
}

/// Bytes of an operand's slot: predicates and the carry flag as u32.
fn slot_bytes(o: &Operand) -> u32 {
    if o.ty.kind == Kind::Pred {
        4
    } else {
        o.ty.bits().div_ceil(8).next_power_of_two()
    }
}

fn place(offset: &mut u32, bytes: u32) -> Slot {
    let align = bytes.min(16);
    *offset = offset.div_ceil(align) * align;
    let s = Slot { offset: *offset, bytes };
    *offset += bytes;
    s
}

fn finish(offset: u32, slots: impl Iterator<Item = u32>) -> u32 {
    let align = slots.fold(4, |a, b| a.max(b.min(16)));
    offset.div_ceil(align).max(1) * align
}

impl Layout {
    fn new(form: &Form, variants: bool) -> Layout {
        let mut off = 0;
        let variant = variants.then(|| place(&mut off, 4).offset);
        let ins: Vec<Option<Slot>> = form
            .inputs
            .iter()
            .map(|o| (!o.flags.imm).then(|| place(&mut off, slot_bytes(o))))
            .collect();
        let in_stride = finish(off, form.inputs.iter().map(slot_bytes));
        let mut off = 0;
        let outs: Vec<Slot> = form.outputs.iter().map(|o| place(&mut off, slot_bytes(o))).collect();
        let out_stride = finish(off, form.outputs.iter().map(slot_bytes));
        Layout {
            variant,
            ins,
            in_stride,
            outs,
            out_stride,
        }
    }
}

/// One launch: the job, and which of the form's vectors its threads evaluate.
#[derive(Clone, Debug)]
pub struct Batch {
    /// The launch.
    pub job: Job,
    /// Indices into the vectors given to [`build`], thread `t` evaluating `vectors[t]`; a vector
    /// may come twice, its second run writing sources into the instruction ([`Batch::note`]).
    pub vectors: Vec<usize>,
    records: Records,
}

/// How a launch's records are laid out: one thread per vector, or a warp per matrix
/// multiply-accumulate ([`matrix`]).
#[derive(Clone, Debug)]
enum Records {
    /// One thread per vector; per thread, what its immediate-operand run writes differently
    /// ([`immediate`]; `None` for the register run).
    Scalar(Layout, Vec<Option<String>>),
    Matrix(Box<matrix::Plan>),
    /// A warp per `ldmatrix`/`stmatrix`/`movmatrix` ([`movement`]).
    Movement(Box<movement::Plan>),
    /// A warp per block-scaled `mma` ([`scaled`]).
    Scaled(Box<scaled::Plan>),
    /// A warp per `wmma.load`/`wmma.store` round trip ([`wmma`]).
    Wmma(Box<wmma::Plan>),
    /// A form the manual forbids ([`refused`]): what a kernel that ran wrote says nothing.
    Refused,
}

/// The PTX ISA version each target first appears in (§12 release notes): a kernel's `.version`
/// is at least the one its `.target` needs.
fn min_ptx_for(t: Target) -> PtxVersion {
    // The catalog's table of when each target string was introduced (§11.1.2).
    spec::catalog::catalog().target_version(t).unwrap_or(PtxVersion(8, 7))
}

/// The `.version` and `.target` of a form's kernels: the form's own, raised to what the kernel
/// itself uses (sm_50, the oldest target CUDA 12 compiles for; 128-bit loads need PTX 8.3 and
/// sm_70); PTX 7.0 at least, which has everything else the kernel uses (`brx.idx`: 6.0).
pub fn header_for(form: &Form) -> (PtxVersion, Target) {
    let wide = form.inputs.iter().chain(&form.outputs).any(|o| o.ty.bits() == 128);
    // Deprecated sm_1x forms (`mad.f32` without rounding: "for sm_20 and later a rounding
    // modifier is required", L8030) keep their sm_1x target, which is what gives them their
    // meaning: JIT-compiled sm_1x code runs `mad.f32` as `fma.rn.ftz.f32` (L7976).
    let floor = if wide {
        70
    } else if form.flag("deprecated") && form.target.sm < 20 {
        form.target.sm
    } else {
        50
    };
    let target = if form.target.sm >= floor {
        form.target
    } else {
        Target {
            sm: floor,
            suffix: None,
        }
    };
    let mut ptx = form.ptx.max(PtxVersion(7, 0)).max(min_ptx_for(target));
    if wide {
        ptx = ptx.max(PtxVersion(8, 3));
    }
    (ptx, target)
}

/// Why [`build`] could not make a form's kernels.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BuildError {
    /// An index of `pick` is past the end of `vectors`.
    VectorOutOfRange {
        /// The index.
        index: usize,
    },
    /// A vector has more inputs, or another number of outputs, than the form has operands.
    OperandMismatch {
        /// The vector's index.
        index: usize,
        /// The form's PTX name.
        form: String,
    },
    /// `pick` is empty: there is nothing to run.
    NoVectors,
    /// A matrix form whose kernel cannot be made (a layout or companion form missing).
    Matrix(String),
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::VectorOutOfRange { index } => write!(f, "vector {index} out of range"),
            BuildError::OperandMismatch { index, form } => write!(f, "vector {index} does not have {form}'s operands"),
            BuildError::NoVectors => f.write_str("no vectors to run"),
            BuildError::Matrix(why) => write!(f, "no matrix kernel: {why}"),
        }
    }
}

impl std::error::Error for BuildError {}

/// Why [`Batch::decode`] could not read a launch's results.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DecodeError {
    /// The backend returned no `out` buffer.
    NoOutBuffer,
    /// The `out` buffer is not one record per thread.
    OutSize {
        /// Its size in bytes.
        found: usize,
        /// The size the launch's threads fill.
        expected: usize,
    },
    /// D's registers do not cover its matrix (a layout defect).
    Matrix(String),
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeError::NoOutBuffer => f.write_str("the backend returned no `out` buffer"),
            DecodeError::OutSize { found, expected } => {
                write!(f, "the `out` buffer has {found} bytes, expected {expected}")
            }
            DecodeError::Matrix(why) => write!(f, "cannot read D: {why}"),
        }
    }
}

impl std::error::Error for DecodeError {}

/// The start of a tensor-core conformance kernel: a comment naming `form` and `how` it is run,
/// `.version`/`.target` (`header`), and the opened entry `conform(.param .u64 in, .param .u64
/// out)` that [`in_out_job`] launches.
fn in_out_entry(form: &Form, (ptx, target): (PtxVersion, Target), how: &str) -> String {
    format!(
        "// ptxconf conformance kernel for `{}` ({}): {how}\n.version {ptx}\n.target {target}\n.address_size 64\n\n\
         .visible .entry {ENTRY}(.param .u64 in, .param .u64 out)\n{{\n",
        form.name,
        form.signature()
    )
}

/// The picked vectors of a tensor-core form with their indices, each of which `fits` must accept
/// (its operand counts, and whatever else the form's kernel needs); picking none is an error.
fn picked<'v>(
    form: &Form,
    vectors: &'v [Vector],
    pick: &[usize],
    fits: impl Fn(&Vector) -> bool,
) -> Result<Vec<(usize, &'v Vector)>, BuildError> {
    let mut chosen = Vec::with_capacity(pick.len());
    for &i in pick {
        let v = vectors.get(i).ok_or(BuildError::VectorOutOfRange { index: i })?;
        if !fits(v) {
            return Err(BuildError::OperandMismatch {
                index: i,
                form: form.name.clone(),
            });
        }
        chosen.push((i, v));
    }
    if chosen.is_empty() {
        return Err(BuildError::NoVectors);
    }
    Ok(chosen)
}

/// The launch of a conformance kernel `conform(.param .u64 in, .param .u64 out)` (tensor-core
/// forms, operational scenarios):
/// `blocks` blocks of `block` threads, `input` as the `in` buffer, `out_bytes` of `out`.
fn in_out_job(ptx: &str, blocks: usize, block: usize, input: &[u8], out_bytes: usize) -> Job {
    Job {
        ptx: ptx.to_string(),
        entry: ENTRY.to_string(),
        grid: [blocks as u32, 1, 1],
        block: [block as u32, 1, 1],
        buffers: vec![
            JobBuffer {
                name: "in".into(),
                hex: Some(oracle::launch::encode_hex(input)),
                size: None,
            },
            JobBuffer {
                name: "out".into(),
                hex: None,
                size: Some(out_bytes as u64),
            },
        ],
        params: vec![
            JobParam::Buffer { buffer: "in".into() },
            JobParam::Buffer { buffer: "out".into() },
        ],
        shared_bytes: 0,
        cluster: None,
    }
}

/// Builds the launches that evaluate `vectors` (the subset `pick`, in order) of `form`, at most
/// `max_threads` vectors per launch, variants dispatched through a `brx.idx` table.
pub fn build(form: &Form, vectors: &[Vector], pick: &[usize], max_threads: usize) -> Result<Vec<Batch>, BuildError> {
    build_with(form, vectors, pick, max_threads, Dispatch::Table)
}

/// [`build`] for a backend with capabilities `caps`: the variants dispatched as it can
/// ([`Dispatch::for_caps`]), and the SIMD selector `.b1024` written another way where it lacks
/// [`Feature::SelB1024`] (`src/kernel/selector.rs`).
pub fn build_for(
    form: &Form,
    vectors: &[Vector],
    pick: &[usize],
    max_threads: usize,
    caps: &Caps,
) -> Result<Vec<Batch>, BuildError> {
    build_inner(
        form,
        vectors,
        pick,
        max_threads,
        Dispatch::for_caps(caps),
        caps.lacks(Feature::SelB1024),
    )
}

/// [`build`], the variants dispatched as `dispatch` says (a backend's: [`Dispatch::for_caps`]).
pub fn build_with(
    form: &Form,
    vectors: &[Vector],
    pick: &[usize],
    max_threads: usize,
    dispatch: Dispatch,
) -> Result<Vec<Batch>, BuildError> {
    build_inner(form, vectors, pick, max_threads, dispatch, false)
}

/// [`build_with`], `.b1024` respelled when `respell_b1024`.
fn build_inner(
    form: &Form,
    vectors: &[Vector],
    pick: &[usize],
    max_threads: usize,
    dispatch: Dispatch,
    respell_b1024: bool,
) -> Result<Vec<Batch>, BuildError> {
    if matrix::is_matrix(form) {
        return matrix::build(form, vectors, pick, max_threads);
    }
    if movement::is_movement(form) {
        return movement::build(form, vectors, pick, max_threads);
    }
    if scaled::is_scaled(form) {
        return scaled::build(form, vectors, pick, max_threads);
    }
    if wmma::is_wmma(form) {
        return wmma::build(form, vectors, pick, max_threads);
    }
    if refused::is_refused(form) {
        return refused::build(form, vectors, pick);
    }
    if spec::vector::wgctl::columns(form).is_some() {
        return matrix::build_control(form, vectors, pick, max_threads);
    }
    // A kernel for an sm_1x target (the deprecated `mad.f32` forms keep theirs, `header_for`)
    // cannot hold `brx.idx`, which needs sm_30 (§9.7.12.4, L16769): its variants (the
    // immediate-operand runs') are reached by the branch search, whatever the backend has.
    let dispatch = if header_for(form).1.sm < 30 {
        Dispatch::Branches
    } else {
        dispatch
    };
    // Per thread: its vector's index, the vector as its record holds it, its variant, and what
    // an immediate-operand run writes differently.
    let mut threads: Vec<Thread> = Vec::with_capacity(pick.len());
    for &i in pick {
        let v = vectors.get(i).ok_or(BuildError::VectorOutOfRange { index: i })?;
        if v.ins.len() > form.inputs.len() || v.outs.len() != form.outputs.len() {
            return Err(BuildError::OperandMismatch {
                index: i,
                form: form.name.clone(),
            });
        }
        threads.push((i, v, Variant::of(form, v), None));
    }
    let extras = immediate::extras(form, vectors, pick);
    let written = |rare: bool| -> Vec<Thread> {
        extras
            .iter()
            .filter(|e| e.rare == rare)
            .map(|e| (e.index, &e.written, e.variant.clone(), Some(e.note.clone())))
            .collect()
    };
    let threads = respelled(threads, respell_b1024);
    // The immediate-operand runs are launches of their own, the rarer spellings apart from the
    // common ones: an implementation that cannot take one spelling (GPGPU-Sim aborts on octal
    // constants) still has the instruction judged on every vector's own run, by the kernel it
    // had before these runs existed, and on the constants compilers write.
    let mut batches = scalar_batches(form, &threads, max_threads, dispatch)?;
    for group in [
        respelled(written(false), respell_b1024),
        respelled(written(true), respell_b1024),
    ] {
        if !group.is_empty() {
            batches.extend(scalar_batches(form, &group, max_threads, dispatch)?);
        }
    }
    Ok(batches)
}

/// `threads` with their variants' `.b1024` selectors respelled ([`selector`]) when `on`.
fn respelled(mut threads: Vec<Thread<'_>>, on: bool) -> Vec<Thread<'_>> {
    if on {
        for t in &mut threads {
            t.2 = selector::respell(&t.2);
        }
    }
    threads
}

/// A scalar kernel's thread: its vector's index, the vector as its record holds it, its
/// variant, and what an immediate-operand run writes differently.
type Thread<'a> = (usize, &'a Vector, Variant, Option<String>);

/// The launches of `threads` (at most `max_threads` each), one module holding their variants.
fn scalar_batches(
    form: &Form,
    threads: &[Thread],
    max_threads: usize,
    dispatch: Dispatch,
) -> Result<Vec<Batch>, BuildError> {
    let mut variants: Vec<Variant> = Vec::new();
    let mut index: HashMap<Variant, u32> = HashMap::new();
    let mut of_vector = Vec::with_capacity(threads.len());
    for (_, _, var, _) in threads {
        let n = *index.entry(var.clone()).or_insert_with(|| {
            variants.push(var.clone());
            variants.len() as u32 - 1
        });
        of_vector.push(n);
    }
    let layout = Layout::new(form, variants.len() > 1);
    let ptx = module(form, &variants, &layout, dispatch)?;
    let mut batches = Vec::new();
    for (chunk, vars) in threads
        .chunks(max_threads.max(1))
        .zip(of_vector.chunks(max_threads.max(1)))
    {
        let mut input = vec![0u8; chunk.len() * layout.in_stride as usize];
        for (t, (&(_, v, _, _), &var)) in chunk.iter().zip(vars).enumerate() {
            let rec = &mut input[t * layout.in_stride as usize..][..layout.in_stride as usize];
            if let Some(off) = layout.variant {
                rec[off as usize..][..4].copy_from_slice(&var.to_le_bytes());
            }
            for (inp, slot) in v.ins.iter().zip(&layout.ins) {
                if let Some(s) = slot {
                    let bytes = inp.bits.to_le_bytes();
                    rec[s.offset as usize..][..s.bytes as usize].copy_from_slice(&bytes[..s.bytes as usize]);
                }
            }
        }
        let n = chunk.len() as u32;
        batches.push(Batch {
            job: Job {
                ptx: ptx.clone(),
                entry: ENTRY.to_string(),
                grid: [n.div_ceil(BLOCK), 1, 1],
                block: [BLOCK, 1, 1],
                buffers: vec![
                    JobBuffer {
                        name: "in".into(),
                        hex: Some(oracle::launch::encode_hex(&input)),
                        size: None,
                    },
                    JobBuffer {
                        name: "out".into(),
                        hex: None,
                        size: Some(u64::from(n) * u64::from(layout.out_stride)),
                    },
                ],
                params: vec![
                    JobParam::Buffer { buffer: "in".into() },
                    JobParam::Buffer { buffer: "out".into() },
                    JobParam::Scalar {
                        ty: "u32".into(),
                        value: n.to_string(),
                    },
                ],
                shared_bytes: 0,
                cluster: None,
            },
            vectors: chunk.iter().map(|t| t.0).collect(),
            records: Records::Scalar(layout.clone(), chunk.iter().map(|t| t.3.clone()).collect()),
        });
    }
    Ok(batches)
}

impl Batch {
    /// What thread `t`'s run writes into the instruction text that the vector's line does not
    /// (an immediate-operand run: a sample of the vectors runs again with constants and `!p`
    /// written in); `None` for a vector's own run.
    pub fn note(&self, t: usize) -> Option<&str> {
        match &self.records {
            Records::Scalar(_, notes) => notes.get(t)?.as_deref(),
            _ => None,
        }
    }

    /// Every destination's bits, per thread, from the buffers the backend returned.
    pub fn decode(&self, form: &Form, bufs: &Buffers) -> Result<Vec<Vec<u128>>, DecodeError> {
        let out = bufs
            .iter()
            .find(|(n, _)| n == "out")
            .map(|(_, b)| b)
            .ok_or(DecodeError::NoOutBuffer)?;
        let layout = match &self.records {
            Records::Scalar(l, _) => l,
            Records::Matrix(plan) => return plan.decode(self.vectors.len(), out),
            Records::Movement(plan) => return plan.decode(self.vectors.len(), out),
            Records::Scaled(plan) => return plan.decode(self.vectors.len(), out),
            Records::Wmma(plan) => return plan.decode(self.vectors.len(), out),
            Records::Refused => return Ok(vec![Vec::new(); self.vectors.len()]),
        };
        let stride = layout.out_stride as usize;
        if out.len() != self.vectors.len() * stride {
            return Err(DecodeError::OutSize {
                found: out.len(),
                expected: self.vectors.len() * stride,
            });
        }
        Ok(out
            .chunks(stride)
            .map(|rec| {
                form.outputs
                    .iter()
                    .zip(&layout.outs)
                    .map(|(o, s)| {
                        let mut b = [0u8; 16];
                        b[..s.bytes as usize].copy_from_slice(&rec[s.offset as usize..][..s.bytes as usize]);
                        u128::from_le_bytes(b) & o.ty.mask()
                    })
                    .collect()
            })
            .collect())
    }
}

/// The register class of an operand's value.
fn reg_type(o: &Operand) -> String {
    write::reg_class(o.ty)
}

/// The operand list of the instruction in one variant: destinations, then sources, vector
/// operands in braces.
fn operands(form: &Form, var: &Variant) -> String {
    let outs: Vec<String> = form
        .outputs
        .iter()
        .enumerate()
        .map(|(k, o)| match var.dsel {
            Some(s) if o.flags.sel => format!("%d{k}.{s}"),
            _ => format!("%d{k}"),
        })
        .collect();
    let ins: Vec<Option<String>> = form
        .inputs
        .iter()
        .zip(&var.ins)
        .enumerate()
        .map(|(k, (o, &(written, negated, sel, imm)))| {
            written.then(|| {
                if let Some(t) = &var.text[k] {
                    return t.clone();
                }
                let mut r = String::new();
                if negated {
                    r.push(if o.ty.kind == Kind::Pred { '!' } else { '-' });
                }
                match imm {
                    Some(bits) => r.push_str(&write::immediate(o.ty, bits)),
                    None => {
                        let _ = write!(r, "%a{k}");
                    }
                }
                if let Some(s) = sel {
                    let _ = write!(r, ".{s}");
                }
                r
            })
        })
        .collect();
    write::operand_list(form, &outs, &ins)
}

/// [`Dispatch::Branches`] over the variants `range`: a thread whose `%var` is in it reaches
/// `variant`'s code for its own. The upper half is branched to (`$R{mid}`), the lower half falls
/// through, down to one variant each.
fn search(s: &mut String, range: std::ops::Range<usize>, variant: &mut impl FnMut(&mut String, usize)) {
    if range.len() == 1 {
        variant(s, range.start);
        return;
    }
    let mid = range.start + range.len() / 2;
    let _ = writeln!(s, "\tsetp.ge.u32 %upper, %var, {mid};\n\t@%upper bra $R{mid};");
    search(s, range.start..mid, variant);
    let _ = writeln!(s, "$R{mid}:");
    search(s, mid..range.end, variant);
}

/// The kernel: `conform(.param .u64 in, .param .u64 out, .param .u32 n)`.
fn module(form: &Form, variants: &[Variant], layout: &Layout, dispatch: Dispatch) -> Result<String, BuildError> {
    let (ptx, target) = header_for(form);
    let mut s = String::new();
    let _ = writeln!(
        s,
        "// ptxconf conformance kernel for `{}` ({})",
        form.name,
        form.signature()
    );
    let _ = writeln!(s, ".version {ptx}\n.target {target}\n.address_size 64\n");
    let _ = writeln!(
        s,
        ".visible .entry {ENTRY}(.param .u64 in, .param .u64 out, .param .u32 n)\n{{"
    );
    for (ty, names) in [
        (".pred", &["%done"][..]),
        (".b32", &["%i", "%n", "%c", "%t", "%var"]),
        (".b64", &["%ia", "%oa", "%off"]),
    ] {
        for n in names {
            let _ = writeln!(s, "\t.reg {ty} {n};");
        }
    }
    if dispatch == Dispatch::Branches && variants.len() > 1 {
        s.push_str("\t.reg .pred %upper;\n");
    }
    for (k, o) in form.inputs.iter().enumerate() {
        if layout.ins[k].is_some() {
            let _ = writeln!(s, "\t.reg {} %a{k};", reg_type(o));
            if o.ty.kind == Kind::Pred {
                let _ = writeln!(s, "\t.reg .b32 %a{k}w;");
            }
        }
    }
    for (k, o) in form.outputs.iter().enumerate() {
        if !o.flags.cc {
            let _ = writeln!(s, "\t.reg {} %d{k};", reg_type(o));
        }
    }
    s.push_str(concat!(
        "\tld.param.u64 %ia, [in];\n",
        "\tld.param.u64 %oa, [out];\n",
        "\tld.param.u32 %n, [n];\n",
        "\tmov.u32 %c, %ctaid.x;\n",
        "\tmov.u32 %t, %ntid.x;\n",
        "\tmov.u32 %i, %tid.x;\n",
        "\tmad.lo.u32 %i, %c, %t, %i;\n",
        "\tsetp.ge.u32 %done, %i, %n;\n",
        "\t@%done bra $DONE;\n",
    ));
    let _ = writeln!(s, "\tmul.wide.u32 %off, %i, {};", layout.in_stride);
    s.push_str("\tadd.u64 %ia, %ia, %off;\n");
    let _ = writeln!(s, "\tmul.wide.u32 %off, %i, {};", layout.out_stride);
    s.push_str("\tadd.u64 %oa, %oa, %off;\n");
    let mut carry_in = None;
    for (k, o) in form.inputs.iter().enumerate() {
        let Some(slot) = layout.ins[k] else { continue };
        if o.ty.kind == Kind::Pred {
            let _ = writeln!(s, "\tld.global.u32 %a{k}w, [%ia+{}];", slot.offset);
            if o.flags.cc {
                carry_in = Some(k);
            } else {
                let _ = writeln!(s, "\tsetp.ne.u32 %a{k}, %a{k}w, 0;");
            }
        } else {
            let _ = writeln!(s, "\tld.global.b{} %a{k}, [%ia+{}];", slot.bytes * 8, slot.offset);
        }
    }
    let instr = |var: &Variant| {
        let mut t = String::new();
        if let Some(k) = carry_in {
            // CC.CF = the vector's carry: 0 + 0xffffffff carries nothing, 1 + 0xffffffff carries 1.
            let _ = writeln!(t, "\tadd.cc.u32 %t, %a{k}w, 0xffffffff;");
        }
        for &(k, sel) in &var.prmt {
            let _ = writeln!(t, "\tprmt.b32 %a{k}, %a{k}, 0, 0x{sel:04x};");
        }
        let _ = writeln!(t, "\t{} {};", form.name, operands(form, var));
        t
    };
    if variants.len() <= 1 {
        s.push_str(&instr(variants.first().ok_or(BuildError::NoVectors)?));
    } else {
        let off = layout.variant.expect("variant slot");
        let _ = writeln!(s, "\tld.global.u32 %var, [%ia+{off}];");
        let mut variant = |s: &mut String, v: usize| {
            let _ = writeln!(s, "$V{v}:");
            s.push_str(&instr(&variants[v]));
            s.push_str("\tbra $JOIN;\n");
        };
        match dispatch {
            Dispatch::Table => {
                let labels: Vec<String> = (0..variants.len()).map(|v| format!("$V{v}")).collect();
                let _ = writeln!(s, "$TABLE: .branchtargets {};", labels.join(", "));
                s.push_str("\tbrx.idx %var, $TABLE;\n");
                for v in 0..variants.len() {
                    variant(&mut s, v);
                }
            }
            Dispatch::Branches => search(&mut s, 0..variants.len(), &mut variant),
        }
        s.push_str("$JOIN:\n");
    }
    for (k, o) in form.outputs.iter().enumerate() {
        let slot = layout.outs[k];
        if o.flags.cc {
            let _ = writeln!(s, "\taddc.u32 %t, 0, 0;\n\tst.global.u32 [%oa+{}], %t;", slot.offset);
        } else if o.ty.kind == Kind::Pred {
            let _ = writeln!(
                s,
                "\tselp.u32 %t, 1, 0, %d{k};\n\tst.global.u32 [%oa+{}], %t;",
                slot.offset
            );
        } else {
            let _ = writeln!(s, "\tst.global.b{} [%oa+{}], %d{k};", slot.bytes * 8, slot.offset);
        }
    }
    s.push_str("$DONE:\n\tret;\n}\n");
    Ok(s)
}
