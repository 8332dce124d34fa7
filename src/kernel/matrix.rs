//! Conformance kernels of the matrix multiply-accumulate forms (`mma.sync`, `wmma.mma`): one
//! warp per vector (per quad-pair of lanes for `mma.m8n8k4` with f16 A and B, which multiplies
//! four independent matrices), whole warps only, as `.sync.aligned` requires.
//!
//! - `mma`: the manual fixes where each element sits in the threads' registers
//!   (`spec::matrix::layout`), so the host scatters A, B and C into per-lane records, each lane
//!   loads its fragment registers, runs the instruction and stores D's registers, and the host
//!   gathers D. A wrong fragment layout in the implementation shows as wrong elements of D.
//! - `wmma.mma`: the fragments are unspecified (L20114), so the kernel goes through memory —
//!   `wmma.load.a/b/c` from each warp's matrices (in the instruction's `.row`/`.col` layouts,
//!   default stride), `wmma.mma`, `wmma.store.d` row-major — and the host only ever sees
//!   matrices: the check holds for any fragment layout.
//!
//! Records: `mma`: lane `t` of the launch reads its registers of A, B, C (in that order, each
//! register 4 bytes, or 8 for f64 fragments) at `in + t·in_stride` and writes its D registers at
//! `out + t·out_stride`. `wmma`: warp `w` reads A, B, C at `in + w·in_stride` (each at a
//! 256-byte aligned offset) and writes D at `out + w·out_stride`.

use super::BuildError;
use spec::catalog::{catalog, Form};
use spec::matrix::{layout, Layout, Which, WmmaAccess};
use spec::tensor::Kind as MmaKind;
use spec::vector::matrix::{columns, Columns};
use spec::vector::wgctl::Control;
use spec::vector::Vector;
use std::fmt::Write as _;

/// Threads per block: four warps.
const BLOCK: usize = 128;

/// How one launch's records are laid out.
#[derive(Clone, Debug)]
pub struct Plan {
    kind: Plumbing,
    /// `mma.sp`: the sparsity and the selector `f` of this launch's module (an immediate, so
    /// vectors of different selectors go to different launches); the lanes' metadata `e`
    /// follows C in each lane's record.
    sparse: Option<(spec::matrix::Sparsity, u32)>,
    /// Vectors per warp: 4 for the quad-pairs of `m8n8k4` f16, 1 otherwise.
    per_warp: usize,
    in_stride: usize,
    out_stride: usize,
}

#[derive(Clone, Debug)]
enum Plumbing {
    /// `wgmma`: one CTA (a warpgroup) per vector, see [`Warpgroup`].
    Warpgroup(Warpgroup),
    /// `mma`: the layouts of A, B, C, D.
    Registers([Layout; 4]),
    /// `wmma`: the memory access of A, B, C (their loads) and D (its store), with each one's
    /// byte offset in the warp's record.
    Memory([(WmmaAccess, usize); 4]),
}

/// Bytes of one register of a layout.
fn reg_bytes(l: &Layout) -> usize {
    l.reg_bits / 8
}

/// The `wmma.load.a/b/c` and `wmma.store.d` forms a `wmma.mma` form's round trip uses (global
/// state space, the `wmma.mma`'s A and B layouts, C and D row-major).
fn companions(form: &Form) -> Result<[&'static Form; 4], String> {
    let cat = catalog();
    let names = spec::matrix::movement::wmma_round_trip(form).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    for n in names {
        let id = *cat
            .by_name(&n)
            .first()
            .ok_or_else(|| format!("the round trip's `{n}` is not a catalog form"))?;
        out.push(&cat.forms[id]);
    }
    out.try_into().map_err(|_| "four companions".to_string())
}

fn plan(form: &Form, cols: &Columns) -> Result<(Plan, Option<[&'static Form; 4]>), String> {
    match cols.op.kind {
        MmaKind::Mma => {
            let ls = Which::ALL.map(|w| layout(form, w));
            let [a, b, c, d] = ls;
            let ls = [a, b, c, d].map(|l| l.map_err(|e| e.to_string()));
            let ls: [Layout; 4] = match ls {
                [Ok(a), Ok(b), Ok(c), Ok(d)] => [a, b, c, d],
                [a, b, c, d] => return Err([a, b, c, d].into_iter().find_map(|x| x.err()).unwrap_or_default()),
            };
            let e_bytes = if cols.sparsity.is_some() { 4 } else { 0 };
            let in_stride = ls[..3].iter().map(|l| l.regs * reg_bytes(l)).sum::<usize>() + e_bytes;
            let out_stride = ls[3].regs * reg_bytes(&ls[3]);
            Ok((
                Plan {
                    sparse: cols.sparsity.map(|sp| (sp, 0)),
                    per_warp: ls[0].groups,
                    kind: Plumbing::Registers(ls),
                    in_stride,
                    out_stride,
                },
                None,
            ))
        }
        MmaKind::Wmma => {
            let forms = companions(form)?;
            let mut at = 0;
            let mut acc = Vec::new();
            for (k, f) in forms.iter().enumerate() {
                let a = WmmaAccess::of(f).map_err(|e| e.to_string())?;
                let bytes = a.image_bytes();
                if k == 3 {
                    acc.push((a, 0));
                } else {
                    acc.push((a, at));
                    at += bytes.div_ceil(256) * 256;
                }
            }
            let out_stride = acc[3].0.image_bytes().div_ceil(256) * 256;
            let acc: [(WmmaAccess, usize); 4] = acc.try_into().map_err(|_| "four accesses".to_string())?;
            Ok((
                Plan {
                    sparse: None,
                    kind: Plumbing::Memory(acc),
                    per_warp: 1,
                    in_stride: at,
                    out_stride,
                },
                Some(forms),
            ))
        }
        MmaKind::Wgmma => {
            let w = Warpgroup::new(form, cols)?;
            Ok((
                Plan {
                    sparse: None,
                    per_warp: 1,
                    in_stride: w.in_stride(),
                    out_stride: THREADS * w.d_regs * 4,
                    kind: Plumbing::Warpgroup(w),
                },
                None,
            ))
        }
    }
}

/// Whether `form`'s vectors are matrices (and its kernels built here).
pub fn is_matrix(form: &Form) -> bool {
    columns(form).is_some()
}

/// The input records of the warps that evaluate `vectors` (padded with zero matrices to whole
/// blocks), and the number of threads.
fn records(plan: &Plan, cols: &Columns, vectors: &[&Vector]) -> Result<(Vec<u8>, usize), String> {
    if let Plumbing::Warpgroup(w) = &plan.kind {
        let mut input = Vec::with_capacity(vectors.len() * plan.in_stride);
        for (i, v) in vectors.iter().enumerate() {
            input.extend(w.record(cols, i, v)?);
        }
        return Ok((input, vectors.len() * THREADS));
    }
    let warps = vectors.len().div_ceil(plan.per_warp);
    let threads = (warps * 32).div_ceil(BLOCK) * BLOCK;
    let mut input = match plan.kind {
        Plumbing::Memory(_) => vec![0u8; threads / 32 * plan.in_stride],
        _ => vec![0u8; threads * plan.in_stride],
    };
    let sizes = cols.ins.map(|m| m.len());
    // mma.sp: the padding warps' metadata must be meaningful too (an all-zero `e` is not,
    // L23778): that of an all-zero A.
    if let Some((sp, f)) = &plan.sparse {
        let k = cols.op.shape.2;
        let (_, e) = sp.compress(k, &vec![0; 16 * k], *f).map_err(|e| e.to_string())?;
        for t in vectors.len().div_ceil(plan.per_warp) * 32..threads {
            let at = (t + 1) * plan.in_stride - 4;
            input[at..at + 4].copy_from_slice(&(e[t % 32] as u32).to_le_bytes());
        }
    }
    for (w, chunk) in vectors.chunks(plan.per_warp).enumerate() {
        match &plan.kind {
            Plumbing::Registers(ls) => {
                let mut regs: Vec<Vec<Vec<u64>>> = vec![vec![Vec::new(); 32]; 3];
                let mut meta = vec![0u64; 32];
                for (g, v) in chunk.iter().enumerate() {
                    let mut at = cols.scalars.len();
                    for (k, l) in ls[..3].iter().enumerate() {
                        // fp6/fp4 elements sit in 8-bit containers (L22916).
                        let fmt = match cols.ins[k].ty.kind {
                            spec::types::Kind::Float(f) => Some(f),
                            _ => None,
                        };
                        let m: Vec<u64> = v.ins[at..at + sizes[k]]
                            .iter()
                            .map(|i| match fmt {
                                Some(f) => spec::tensor::container_of_element(f, l.bits, i.bits) as u64,
                                None => i.bits as u64,
                            })
                            .collect();
                        at += sizes[k];
                        // mma.sp: the dense A as the compressed one and its metadata.
                        let m = match (&plan.sparse, k) {
                            (Some((sp, f)), 0) => {
                                let (compressed, e) =
                                    sp.compress(cols.op.shape.2, &m, *f).map_err(|e| e.to_string())?;
                                meta = e;
                                compressed
                            }
                            _ => m,
                        };
                        l.scatter(g, &m, &mut regs[k]).map_err(|e| e.to_string())?;
                    }
                }
                for lane in 0..32 {
                    let rec = &mut input[(w * 32 + lane) * plan.in_stride..][..plan.in_stride];
                    let mut off = 0;
                    for (k, l) in ls[..3].iter().enumerate() {
                        let rb = reg_bytes(l);
                        for r in 0..l.regs {
                            let v = regs[k][lane].get(r).copied().unwrap_or(0);
                            rec[off..off + rb].copy_from_slice(&v.to_le_bytes()[..rb]);
                            off += rb;
                        }
                    }
                    if plan.sparse.is_some() {
                        rec[off..off + 4].copy_from_slice(&(meta[lane] as u32).to_le_bytes());
                    }
                }
            }
            Plumbing::Warpgroup(_) => unreachable!("returned above"),
            Plumbing::Memory(acc) => {
                let v = chunk[0];
                let rec = &mut input[w * plan.in_stride..][..plan.in_stride];
                let mut at = 0;
                for (k, (a, off)) in acc[..3].iter().enumerate() {
                    let m: Vec<u64> = v.ins[at..at + sizes[k]].iter().map(|i| i.bits as u64).collect();
                    at += sizes[k];
                    let img = a.image(&m).map_err(|e| e.to_string())?;
                    rec[*off..off + img.len()].copy_from_slice(&img);
                }
            }
        }
    }
    Ok((input, threads))
}

/// Declarations and the operand text of one fragment: `{%a0, %a1}`.
fn fragment(decls: &mut String, name: &str, l: &Layout) -> String {
    let class = if l.reg_bits == 64 { ".f64" } else { ".b32" };
    let _ = writeln!(decls, "\t.reg {class} %{name}<{}>;", l.regs);
    let regs: Vec<String> = (0..l.regs).map(|r| format!("%{name}{r}")).collect();
    format!("{{{}}}", regs.join(", "))
}

fn module(form: &Form, plan: &Plan, companions: Option<[&'static Form; 4]>) -> String {
    let mut s = super::in_out_entry(form, super::header_for(form), "one warp per vector");
    s.push_str("\t.reg .b32 %i, %c, %t;\n\t.reg .b64 %ia, %oa, %off;\n");
    let mut body = String::new();
    body.push_str(concat!(
        "\tld.param.u64 %ia, [in];\n",
        "\tld.param.u64 %oa, [out];\n",
        "\tmov.u32 %c, %ctaid.x;\n",
        "\tmov.u32 %t, %ntid.x;\n",
        "\tmov.u32 %i, %tid.x;\n",
        "\tmad.lo.u32 %i, %c, %t, %i;\n",
    ));
    match (&plan.kind, companions) {
        (Plumbing::Registers(ls), _) => {
            let _ = writeln!(body, "\tmul.wide.u32 %off, %i, {};", plan.in_stride);
            body.push_str("\tadd.u64 %ia, %ia, %off;\n");
            let _ = writeln!(body, "\tmul.wide.u32 %off, %i, {};", plan.out_stride);
            body.push_str("\tadd.u64 %oa, %oa, %off;\n");
            let names = ["a", "b", "c", "d"];
            let ops: Vec<String> = ls.iter().zip(names).map(|(l, n)| fragment(&mut s, n, l)).collect();
            let mut off = 0;
            for (l, n) in ls[..3].iter().zip(names) {
                let ty = if l.reg_bits == 64 { "f64" } else { "b32" };
                for r in 0..l.regs {
                    let _ = writeln!(body, "\tld.global.{ty} %{n}{r}, [%ia+{off}];");
                    off += reg_bytes(l);
                }
            }
            let sparse = match plan.sparse {
                Some((_, f)) => {
                    s.push_str("\t.reg .b32 %e;\n");
                    let _ = writeln!(body, "\tld.global.b32 %e, [%ia+{off}];");
                    format!(", %e, {f}")
                }
                None => String::new(),
            };
            let _ = writeln!(
                body,
                "\t{} {}, {}, {}, {}{sparse};",
                form.name, ops[3], ops[0], ops[1], ops[2]
            );
            let l = &ls[3];
            let ty = if l.reg_bits == 64 { "f64" } else { "b32" };
            for r in 0..l.regs {
                let _ = writeln!(body, "\tst.global.{ty} [%oa+{}], %d{r};", r * reg_bytes(l));
            }
        }
        (Plumbing::Memory(acc), Some(forms)) => {
            body.push_str("\tshr.u32 %i, %i, 5;\n");
            let _ = writeln!(body, "\tmul.wide.u32 %off, %i, {};", plan.in_stride);
            body.push_str("\tadd.u64 %ia, %ia, %off;\n");
            let _ = writeln!(body, "\tmul.wide.u32 %off, %i, {};", plan.out_stride);
            body.push_str("\tadd.u64 %oa, %oa, %off;\n");
            let names = ["a", "b", "c", "d"];
            let ops: Vec<String> = acc
                .iter()
                .zip(names)
                .map(|((a, _), n)| fragment(&mut s, n, &a.layout))
                .collect();
            for k in 0..3 {
                let _ = writeln!(body, "\t{} {}, [%ia+{}];", forms[k].name, ops[k], acc[k].1);
            }
            let _ = writeln!(body, "\t{} {}, {}, {}, {};", form.name, ops[3], ops[0], ops[1], ops[2]);
            let _ = writeln!(body, "\t{} [%oa], {};", forms[3].name, ops[3]);
        }
        (Plumbing::Memory(_), None) => unreachable!("a memory plan comes with its companions"),
        (Plumbing::Warpgroup(w), _) => w.body(form, &mut s, &mut body, plan),
    }
    s.push_str(&body);
    s.push_str("\tret;\n}\n");
    s
}

/// The launches that evaluate `pick` of `vectors`, at most `max_threads` vectors per launch.
pub fn build(
    form: &Form,
    vectors: &[Vector],
    pick: &[usize],
    max_threads: usize,
) -> Result<Vec<super::Batch>, BuildError> {
    let cols = columns(form).ok_or_else(|| BuildError::Matrix("not a matrix form".into()))?;
    build_with(form, &cols, None, vectors, pick, max_threads)
}

/// The launches of a `wgmma` control form's vectors ([`spec::vector::wgctl`]): its companion
/// `wgmma.mma_async`'s kernel, with the program of the control form around the instruction
/// ([`Warpgroup::body`]).
pub fn build_control(
    form: &Form,
    vectors: &[Vector],
    pick: &[usize],
    max_threads: usize,
) -> Result<Vec<super::Batch>, BuildError> {
    let ctl =
        spec::vector::wgctl::columns(form).ok_or_else(|| BuildError::Matrix("not a wgmma control form".into()))?;
    let mut batches = build_with(
        ctl.companion,
        &ctl.lines(),
        Some(ctl.control),
        vectors,
        pick,
        max_threads,
    )?;
    // The kernel's first line names the form it tests.
    let (was, is) = (
        format!("kernel for `{}`", ctl.companion.name),
        format!("kernel for `{}` (around `{}`)", form.name, ctl.companion.name),
    );
    for b in &mut batches {
        b.job.ptx = b.job.ptx.replacen(&was, &is, 1);
    }
    Ok(batches)
}

/// [`build`] of `form` with the line columns `cols`; `control`: the program of a `wgmma`
/// control form around `form` (then `cols.out` stacks its accumulators).
fn build_with(
    form: &Form,
    cols: &Columns,
    control: Option<Control>,
    vectors: &[Vector],
    pick: &[usize],
    max_threads: usize,
) -> Result<Vec<super::Batch>, BuildError> {
    let (mut base, companions) = plan(form, cols).map_err(BuildError::Matrix)?;
    if let (Some(c), Plumbing::Warpgroup(w)) = (control, &mut base.kind) {
        w.control = Some(c);
        base.out_stride *= c.accumulators();
    }
    let (a, b, c) = (
        cols.scalars.len() + cols.ins[0].len(),
        cols.ins[1].len(),
        cols.ins[2].len(),
    );
    let chosen = super::picked(form, vectors, pick, |v| {
        v.ins.len() == a + b + c && v.outs.len() == cols.out.len()
    })?;
    // mma.sp: one module per sparsity selector (an immediate operand).
    let mut groups: Vec<(Plan, Vec<(usize, &Vector)>)> = Vec::new();
    for (i, v) in chosen {
        let mut p = base.clone();
        if let Some((sp, _)) = base.sparse {
            p.sparse = Some((sp, v.ins[0].bits as u32));
        }
        match groups
            .iter_mut()
            .find(|(q, _)| q.sparse.map(|x| x.1) == p.sparse.map(|x| x.1))
        {
            Some((_, g)) => g.push((i, v)),
            None => groups.push((p, vec![(i, v)])),
        }
    }
    let mut batches = Vec::new();
    for (plan, chosen) in &groups {
        batches.extend(launches(form, cols, plan, companions, chosen, max_threads)?);
    }
    Ok(batches)
}

/// The launches of one module's vectors, at most `max_threads` threads' worth each.
fn launches(
    form: &Form,
    cols: &Columns,
    plan: &Plan,
    companions: Option<[&'static Form; 4]>,
    chosen: &[(usize, &Vector)],
    max_threads: usize,
) -> Result<Vec<super::Batch>, BuildError> {
    let ptx = module(form, plan, companions);
    // At most `max_threads` vectors per launch, each a warp (or a quarter of one).
    let per_launch = (max_threads / 32).max(1) * plan.per_warp;
    let mut batches = Vec::new();
    for chunk in chosen.chunks(per_launch) {
        let vs: Vec<&Vector> = chunk.iter().map(|(_, v)| *v).collect();
        let (input, threads) = records(plan, cols, &vs).map_err(BuildError::Matrix)?;
        let out_bytes = match plan.kind {
            Plumbing::Memory(_) => threads / 32 * plan.out_stride,
            Plumbing::Warpgroup(_) => vs.len() * plan.out_stride,
            Plumbing::Registers(_) => threads * plan.out_stride,
        };
        batches.push(super::Batch {
            job: super::in_out_job(&ptx, threads / BLOCK, BLOCK, &input, out_bytes),
            vectors: chunk.iter().map(|(i, _)| *i).collect(),
            records: super::Records::Matrix(Box::new(plan.clone())),
        });
    }
    Ok(batches)
}

impl Plan {
    /// D of every vector of the launch (row-major elements), from the `out` buffer.
    pub fn decode(&self, vectors: usize, out: &[u8]) -> Result<Vec<Vec<u128>>, super::DecodeError> {
        let warps = vectors.div_ceil(self.per_warp);
        let threads = (warps * 32).div_ceil(BLOCK) * BLOCK;
        let expected = match self.kind {
            Plumbing::Registers(_) => threads * self.out_stride,
            Plumbing::Memory(_) => threads / 32 * self.out_stride,
            Plumbing::Warpgroup(_) => vectors * self.out_stride,
        };
        if out.len() != expected {
            return Err(super::DecodeError::OutSize {
                found: out.len(),
                expected,
            });
        }
        let mut ds = Vec::with_capacity(vectors);
        if let Plumbing::Warpgroup(wg) = &self.kind {
            return Ok(out
                .chunks(self.out_stride)
                .map(|rec| wg.d_of(rec).into_iter().map(u128::from).collect())
                .collect());
        }
        for w in 0..warps {
            match &self.kind {
                Plumbing::Warpgroup(_) => unreachable!("returned above"),
                Plumbing::Registers(ls) => {
                    let l = &ls[3];
                    let rb = reg_bytes(l);
                    let regs: Vec<Vec<u64>> = (0..32)
                        .map(|lane| {
                            let rec = &out[(w * 32 + lane) * self.out_stride..][..self.out_stride];
                            (0..l.regs)
                                .map(|r| {
                                    let mut b = [0u8; 8];
                                    b[..rb].copy_from_slice(&rec[r * rb..][..rb]);
                                    u64::from_le_bytes(b)
                                })
                                .collect()
                        })
                        .collect();
                    for g in 0..self.per_warp {
                        if ds.len() == vectors {
                            break;
                        }
                        let m = l
                            .gather(g, &regs)
                            .map_err(|e| super::DecodeError::Matrix(e.to_string()))?;
                        ds.push(m.into_iter().map(u128::from).collect());
                    }
                }
                Plumbing::Memory(acc) => {
                    let rec = &out[w * self.out_stride..][..self.out_stride];
                    let m = acc[3]
                        .0
                        .matrix(rec)
                        .map_err(|e| super::DecodeError::Matrix(e.to_string()))?;
                    ds.push(m.into_iter().map(u128::from).collect());
                }
            }
        }
        Ok(ds)
    }
}

/// Threads of a warpgroup.
const THREADS: usize = spec::matrix::wgmma::THREADS;

/// Bytes of a vector record's header: variant (u32), `scale-d` (u32), padding, A's and B's
/// descriptors (u64 each, start addresses relative to the shared image).
const HEADER: usize = 32;

/// The `wgmma.mma_async` kernel: one CTA of 128 threads per vector. Its record holds the header,
/// the image of shared memory (A, when it comes from a descriptor, and B, each in a canonical
/// layout whose swizzle mode and major-ness change from vector to vector,
/// [`spec::matrix::wgmma::canonical`]) and every thread's registers (A's fragment, when A comes
/// from registers, and the accumulator C). The threads copy the image into shared memory, fence
/// it for the async proxy (`fence.proxy.async`, L24880-24884) and meet at a barrier; then
/// `wgmma.fence`, the instruction (one branch per combination of its immediates: `imm-scale`,
/// `imm-trans`), `commit_group`, `wait_group 0`, and each thread stores its D registers.
#[derive(Clone, Debug)]
struct Warpgroup {
    /// A from registers: registers per thread.
    a_regs: Option<usize>,
    d_regs: usize,
    a_bits: usize,
    b_bits: usize,
    d_bits: usize,
    /// Offsets of A's and B's images in shared memory, and the image's size.
    b_at: usize,
    smem: usize,
    /// The immediates of each variant, in the order of the form's immediate operands.
    imms: Vec<&'static str>,
    /// `wgmma.mma_async.sp`: the sparsity; A is stored packed (M×K/2) and each thread's
    /// `sp-meta` follows its D registers (each warp's from its 16 rows of A, §9.7.15.6).
    sparse: Option<spec::matrix::Sparsity>,
    /// A `wgmma` control form's program around the instruction (`None`: the instruction's own
    /// kernel): see [`Warpgroup::body`].
    control: Option<Control>,
}

/// Bits of a `wgmma` element in registers or shared memory.
fn wg_bits(e: spec::tensor::Elem) -> usize {
    use spec::tensor::Elem;
    use spec::types::FloatFormat as F;
    match e {
        Elem::Float(F::F16 | F::Bf16) => 16,
        Elem::Float(F::Tf32 | F::F32) | Elem::S32 => 32,
        Elem::B1 => 1,
        _ => 8,
    }
}

impl Warpgroup {
    fn new(form: &Form, cols: &Columns) -> Result<Warpgroup, String> {
        use spec::matrix::wgmma::{canonical, Major, Swizzle};
        let (m, n, k) = cols.op.shape;
        let (a_bits, b_bits, d_bits) = (wg_bits(cols.op.a), wg_bits(cols.op.b), wg_bits(cols.op.d));
        let a_from_regs = form.inputs.iter().any(|o| o.group.is_some());
        // A's stored columns: K, or K/2 for a sparse A.
        let ka = cols.sparsity.map_or(k, |sp| k * sp.nonzeros / sp.block);
        // The largest image over the modes a vector may use (MN-major only where the form has
        // the transpose operand: a `.b1` A at MN-major would need 32 KB it never uses).
        let has = |name: &str| cols.scalars.iter().any(|x| x.name == name);
        let biggest = |mn: usize, k: usize, bits: usize, trans: bool| {
            let mut most = 0;
            for sw in Swizzle::ALL {
                for major in [Major::K, Major::Mn] {
                    if major == Major::K || trans {
                        most = most.max(canonical(major, sw, mn, k, bits, 0).1);
                    }
                }
            }
            most
        };
        let a_size = if a_from_regs {
            0
        } else {
            biggest(m, ka, a_bits, has("imm_trans_a"))
        };
        let b_at = a_size.div_ceil(1024) * 1024;
        let smem = (b_at + biggest(n, k, b_bits, has("imm_trans_b"))).div_ceil(16) * 16;
        Ok(Warpgroup {
            a_regs: a_from_regs.then_some(m * ka * a_bits / 32 / THREADS),
            d_regs: m * n * d_bits / 32 / THREADS,
            a_bits,
            b_bits,
            d_bits,
            b_at,
            smem,
            imms: cols
                .scalars
                .iter()
                .map(|x| x.name)
                .filter(|name| name.starts_with("imm_") || *name == "sp_sel")
                .collect(),
            sparse: cols.sparsity,
            control: None,
        })
    }

    fn regs(&self) -> usize {
        self.a_regs.unwrap_or(0) + self.d_regs + usize::from(self.sparse.is_some())
    }

    fn in_stride(&self) -> usize {
        HEADER + self.smem + THREADS * self.regs() * 4
    }

    /// The swizzle and major-ness of vector `i`'s A and B (the kernel's choice, varied so the
    /// form's vectors between them use several modes).
    fn modes(
        &self,
        cols: &Columns,
        i: usize,
        ins: &[u128],
    ) -> [(spec::matrix::wgmma::Major, spec::matrix::wgmma::Swizzle); 2] {
        use spec::matrix::wgmma::{Major, Swizzle};
        let n = cols.op.shape.1;
        let major = |name: &str| {
            let trans = cols
                .scalars
                .iter()
                .position(|x| x.name == name)
                .is_some_and(|p| ins[p] == 1);
            if trans {
                Major::Mn
            } else {
                Major::K
            }
        };
        // A K-major swizzle atom holds one row of K: where a row is wider than the mode (the
        // 64-byte rows of a sparse form's B), the widest mode.
        let (k, ka) = (
            cols.op.shape.2,
            cols.sparsity
                .map_or(cols.op.shape.2, |sp| cols.op.shape.2 * sp.nonzeros / sp.block),
        );
        let fit = |major: Major, sw: Swizzle, cols_k: usize, bits: usize| {
            let row = (cols_k * bits / 8) as u64;
            if major == Major::K && sw != Swizzle::None && sw.width() < row {
                Swizzle::B128
            } else {
                sw
            }
        };
        let (ma, mb) = (major("imm_trans_a"), major("imm_trans_b"));
        [
            (ma, fit(ma, Swizzle::ALL[(i + n / 8) % 4], ka, self.a_bits)),
            (mb, fit(mb, Swizzle::ALL[(i + n / 8 + 1) % 4], k, self.b_bits)),
        ]
    }

    /// The variant number of a vector: its immediates as one index (each `imm-scale` ±1 and
    /// `imm-trans` 0/1 one bit).
    fn variant(&self, cols: &Columns, ins: &[u128]) -> u32 {
        self.imms.iter().enumerate().fold(0, |acc, (bit, name)| {
            let p = cols
                .scalars
                .iter()
                .position(|x| x.name == *name)
                .expect("an immediate of the form");
            let set = if name.starts_with("imm_scale") {
                ins[p] as u32 as i32 == -1
            } else {
                ins[p] == 1
            };
            acc | u32::from(set) << bit
        })
    }

    fn record(&self, cols: &Columns, i: usize, v: &Vector) -> Result<Vec<u8>, String> {
        use spec::matrix::wgmma::{a_fragment, accumulator, canonical};
        let (m, n, k) = cols.op.shape;
        let ins: Vec<u128> = v.ins.iter().map(|x| x.bits).collect();
        let s = cols.scalars.len();
        let (a, rest) = ins[s..].split_at(m * k);
        let (b, c) = rest.split_at(k * n);
        // A sparse A: each warp's 16 rows packed, with that warp's metadata.
        let mut meta = vec![0u64; THREADS];
        let packed: Vec<u128>;
        let (a, ka) = match &self.sparse {
            Some(sp) => {
                let f = cols
                    .scalars
                    .iter()
                    .position(|x| x.name == "sp_sel")
                    .map_or(0, |p| ins[p] as u32);
                let ka = k * sp.nonzeros / sp.block;
                let mut p = Vec::with_capacity(m * ka);
                for w in 0..m / 16 {
                    let rows: Vec<u64> = a[16 * w * k..16 * (w + 1) * k].iter().map(|&x| x as u64).collect();
                    let (c, e) = sp.compress(k, &rows, f).map_err(|e| e.to_string())?;
                    p.extend(c.into_iter().map(u128::from));
                    meta[32 * w..32 * (w + 1)].copy_from_slice(&e);
                }
                packed = p;
                (&packed[..], ka)
            }
            None => (a, k),
        };
        let mut rec = vec![0u8; self.in_stride()];
        rec[0..4].copy_from_slice(&self.variant(cols, &ins).to_le_bytes());
        let scale_d = cols
            .scalars
            .iter()
            .position(|x| x.name == "scale_d")
            .map_or(1, |p| ins[p] as u32);
        rec[4..8].copy_from_slice(&scale_d.to_le_bytes());
        let [(ma, sa), (mb, sb)] = self.modes(cols, i, &ins);
        /// Element `x` of `bits` bits at (byte, bit) of the shared image: whole bytes, or a
        /// `.b1` element's bit.
        fn put(rec: &mut [u8], (at, bit): (u64, u32), bits: usize, x: u128) {
            let at = HEADER + at as usize;
            if bits < 8 {
                rec[at] |= ((x as u8) & ((1 << bits) - 1)) << bit;
            } else {
                rec[at..at + bits / 8].copy_from_slice(&x.to_le_bytes()[..bits / 8]);
            }
        }
        if self.a_regs.is_none() {
            let (d, _) = canonical(ma, sa, m, ka, self.a_bits, 0);
            for r in 0..m {
                for kk in 0..ka {
                    put(
                        &mut rec,
                        d.bit_address(ma, r, kk, self.a_bits),
                        self.a_bits,
                        a[r * ka + kk],
                    );
                }
            }
            rec[16..24].copy_from_slice(&d.encode().to_le_bytes());
        }
        let (d, _) = canonical(mb, sb, n, k, self.b_bits, self.b_at as u64);
        for kk in 0..k {
            for col in 0..n {
                put(
                    &mut rec,
                    d.bit_address(mb, col, kk, self.b_bits),
                    self.b_bits,
                    b[kk * n + col],
                );
            }
        }
        rec[24..32].copy_from_slice(&d.encode().to_le_bytes());
        for (t, &e) in meta.iter().enumerate() {
            let base = HEADER + self.smem + t * self.regs() * 4;
            let mut words = Vec::with_capacity(self.regs());
            if let Some(na) = self.a_regs {
                let per = 32 / self.a_bits;
                for r in 0..na {
                    let mut w = 0u32;
                    for idx in 0..per {
                        let (row, col) = a_fragment(t, r * per + idx, self.a_bits);
                        w |= (a[row * ka + col] as u32 & mask(self.a_bits)) << (idx * self.a_bits);
                    }
                    words.push(w);
                }
            }
            let per = 32 / self.d_bits;
            for r in 0..self.d_regs {
                let mut w = 0u32;
                for idx in 0..per {
                    let (row, col) = accumulator(t, r * per + idx);
                    w |= (c[row * n + col] as u32 & mask(self.d_bits)) << (idx * self.d_bits);
                }
                words.push(w);
            }
            if self.sparse.is_some() {
                words.push(e as u32);
            }
            for (j, w) in words.iter().enumerate() {
                rec[base + 4 * j..base + 4 * j + 4].copy_from_slice(&w.to_le_bytes());
            }
        }
        Ok(rec)
    }

    /// D (row-major) from one vector's output record: each accumulator read back, stacked (one
    /// but for `wgmma.wait_group`'s program).
    fn d_of(&self, rec: &[u8]) -> Vec<u64> {
        rec.chunks(THREADS * self.d_regs * 4)
            .flat_map(|acc| self.d_of_one(acc))
            .collect()
    }

    /// D (row-major) from one accumulator's block of the output record.
    fn d_of_one(&self, rec: &[u8]) -> Vec<u64> {
        use spec::matrix::wgmma::accumulator;
        let per = 32 / self.d_bits;
        let cells = THREADS * self.d_regs * per;
        let n = cells / 64;
        let mut d = vec![0u64; cells];
        for t in 0..THREADS {
            for r in 0..self.d_regs {
                let at = (t * self.d_regs + r) * 4;
                let w = u32::from_le_bytes(rec[at..at + 4].try_into().expect("four bytes"));
                for idx in 0..per {
                    let (row, col) = accumulator(t, r * per + idx);
                    d[row * n + col] = u64::from((w >> (idx * self.d_bits)) & mask(self.d_bits));
                }
            }
        }
        d
    }

    /// Declarations into `decls`, the kernel's body into `body`.
    fn body(&self, form: &Form, decls: &mut String, body: &mut String, plan: &Plan) {
        let _ = writeln!(decls, "\t.shared .align 1024 .b8 smem[{}];", self.smem);
        decls.push_str("\t.reg .pred %p, %q;\n\t.reg .b32 %j, %s, %var, %sd, %x<4>;\n\t.reg .b64 %ad, %bd, %g;\n");
        let _ = writeln!(decls, "\t.reg .b32 %d<{}>;", self.d_regs);
        if self.control == Some(Control::WaitGroup) {
            let _ = writeln!(decls, "\t.reg .b32 %w<{}>;\n\t.reg .pred %z;", self.d_regs);
            body.push_str("\tsetp.ne.u32 %z, %t, %t;\n");
        }
        if let Some(na) = self.a_regs {
            let _ = writeln!(decls, "\t.reg .b32 %a<{na}>;");
        }
        // The vector's record (the CTA's) and this thread's registers in it.
        let _ = writeln!(body, "\tmul.wide.u32 %off, %c, {};", plan.in_stride);
        body.push_str("\tadd.u64 %ia, %ia, %off;\n");
        let _ = writeln!(body, "\tmul.wide.u32 %off, %c, {};", plan.out_stride);
        body.push_str("\tadd.u64 %oa, %oa, %off;\n");
        body.push_str("\tmov.u32 %t, %tid.x;\n");
        // Copy the shared image, 16 bytes per thread and step.
        let _ = writeln!(
            body,
            "\tmov.u32 %j, %t;\n$COPY:\n\tsetp.ge.u32 %q, %j, {};\n\t@%q bra $COPIED;\n\tmul.wide.u32 %off, %j, 16;\n\tadd.u64 %g, %ia, %off;\n\tld.global.v4.b32 {{%x0, %x1, %x2, %x3}}, [%g+{HEADER}];\n\tmov.u32 %s, smem;\n\tmad.lo.u32 %s, %j, 16, %s;\n\tst.shared.v4.b32 [%s], {{%x0, %x1, %x2, %x3}};\n\tadd.u32 %j, %j, {THREADS};\n\tbra $COPY;\n$COPIED:",
            self.smem / 16
        );
        // The generic-proxy writes made visible to the async proxy, then to every thread.
        body.push_str("\tfence.proxy.async.shared::cta;\n\tbar.sync 0;\n");
        body.push_str("\tld.global.u32 %var, [%ia+0];\n\tld.global.u32 %sd, [%ia+4];\n\tsetp.ne.u32 %p, %sd, 0;\n");
        // Descriptors: the record's, with the image's shared address added to the start field.
        body.push_str("\tmov.u32 %s, smem;\n\tshr.u32 %s, %s, 4;\n\tcvt.u64.u32 %g, %s;\n");
        body.push_str("\tld.global.u64 %ad, [%ia+16];\n\tadd.u64 %ad, %ad, %g;\n");
        body.push_str("\tld.global.u64 %bd, [%ia+24];\n\tadd.u64 %bd, %bd, %g;\n");
        let regs = self.regs() * 4;
        let _ = writeln!(body, "\tmul.wide.u32 %off, %t, {regs};\n\tadd.u64 %ia, %ia, %off;");
        let mut off = HEADER + self.smem;
        if let Some(na) = self.a_regs {
            for r in 0..na {
                let _ = writeln!(body, "\tld.global.b32 %a{r}, [%ia+{off}];");
                off += 4;
            }
        }
        for r in 0..self.d_regs {
            let _ = writeln!(body, "\tld.global.b32 %d{r}, [%ia+{off}];");
            off += 4;
        }
        if self.sparse.is_some() {
            decls.push_str("\t.reg .b32 %e;\n");
            let _ = writeln!(body, "\tld.global.b32 %e, [%ia+{off}];");
        }
        let list = |n: usize, name: &str| {
            let v: Vec<String> = (0..n).map(|r| format!("%{name}{r}")).collect();
            format!("{{{}}}", v.join(", "))
        };
        // Every combination of the immediates, but a sparsity selector the form's metadata
        // threads do not allow (ptxas refuses the text even where no vector goes).
        let sel_bit = self.imms.iter().position(|x| *x == "sp_sel");
        let variants: Vec<u32> = (0..1u32 << self.imms.len())
            .filter(|var| match (sel_bit, &self.sparse) {
                (Some(bit), Some(sp)) => sp.selector_ok(var >> bit & 1),
                _ => true,
            })
            .collect();
        for var in &variants {
            let _ = writeln!(body, "\tsetp.eq.u32 %q, %var, {var};\n\t@%q bra $V{var};");
        }
        body.push_str("\tbra $JOIN;\n");
        for &var in &variants {
            let mut ops = vec![list(self.d_regs, "d")];
            for o in &form.inputs {
                ops.push(if o.group.is_some() {
                    list(self.a_regs.unwrap_or(0), "a")
                } else if o.name == "a_desc" {
                    "%ad".into()
                } else if o.name == "b_desc" {
                    "%bd".into()
                } else if o.name == "scale_d" {
                    "%p".into()
                } else if o.name == "sp_meta" {
                    "%e".into()
                } else {
                    let bit = self.imms.iter().position(|x| *x == o.name).unwrap_or(0);
                    let set = var >> bit & 1 == 1;
                    match (o.name.starts_with("imm_scale"), set) {
                        (true, true) => "-1".into(),
                        (true, false) | (false, true) => "1".into(),
                        (false, false) => "0".into(),
                    }
                });
            }
            // The fence right before the instruction: registers written above are then the
            // accumulator's (L26392-26394), with no branch in between.
            let instr = format!("{} {}", form.name, ops.join(", "));
            let _ = writeln!(body, "$V{var}:\n\twgmma.fence.sync.aligned;\n\t{instr};");
            match self.control {
                // `commit_group`: a second multiply into the same accumulator, in the same group.
                Some(Control::CommitGroup) => {
                    let _ = writeln!(body, "\t{instr};");
                }
                // `wait_group`: group 1 closed; group 2 is `A·B` (`scale-d` false) into `%w`.
                Some(Control::WaitGroup) => {
                    let mut second = ops.clone();
                    second[0] = list(self.d_regs, "w");
                    for (o, text) in form.inputs.iter().zip(&mut second[1..]) {
                        if o.name == "scale_d" {
                            *text = "%z".into();
                        }
                    }
                    let _ = writeln!(
                        body,
                        "\twgmma.commit_group.sync.aligned;\n\t{} {};",
                        form.name,
                        second.join(", ")
                    );
                }
                Some(Control::Fence) | None => {}
            }
            body.push_str("\tbra $JOIN;\n");
        }
        let _ = writeln!(
            body,
            "$JOIN:\n\twgmma.commit_group.sync.aligned;\n\twgmma.wait_group.sync.aligned {};",
            usize::from(self.control == Some(Control::WaitGroup))
        );
        let _ = writeln!(
            body,
            "\tmul.wide.u32 %off, %t, {};\n\tadd.u64 %oa, %oa, %off;",
            self.d_regs * 4
        );
        for r in 0..self.d_regs {
            let _ = writeln!(body, "\tst.global.b32 [%oa+{}], %d{r};", 4 * r);
        }
        // `wait_group`: group 1's accumulator was read with group 2 possibly pending; now
        // group 2's, after the last wait, in the record's second block.
        if self.control == Some(Control::WaitGroup) {
            body.push_str("\twgmma.wait_group.sync.aligned 0;\n");
            for r in 0..self.d_regs {
                let _ = writeln!(
                    body,
                    "\tst.global.b32 [%oa+{}], %w{r};",
                    THREADS * self.d_regs * 4 + 4 * r
                );
            }
        }
    }
}

fn mask(bits: usize) -> u32 {
    if bits >= 32 {
        u32::MAX
    } else {
        (1u32 << bits) - 1
    }
}
