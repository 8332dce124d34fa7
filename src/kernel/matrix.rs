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

use super::{BuildError, ENTRY};
use crate::backend::{Job, JobBuffer, JobParam};
use spec::catalog::{catalog, Form};
use spec::matrix::{layout, Layout, Which, WmmaAccess};
use spec::tensor::Kind as MmaKind;
use spec::vector::matrix::{columns, Columns};
use spec::vector::Vector;
use std::fmt::Write as _;

/// Threads per block: four warps.
const BLOCK: usize = 128;

/// How one launch's records are laid out.
#[derive(Clone, Debug)]
pub struct Plan {
    kind: Plumbing,
    /// Vectors per warp: 4 for the quad-pairs of `m8n8k4` f16, 1 otherwise.
    per_warp: usize,
    in_stride: usize,
    out_stride: usize,
}

#[derive(Clone, Debug)]
enum Plumbing {
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
            let in_stride = ls[..3].iter().map(|l| l.regs * reg_bytes(l)).sum();
            let out_stride = ls[3].regs * reg_bytes(&ls[3]);
            Ok((
                Plan {
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
                    kind: Plumbing::Memory(acc),
                    per_warp: 1,
                    in_stride: at,
                    out_stride,
                },
                Some(forms),
            ))
        }
        MmaKind::Wgmma => Err("wgmma has no conformance kernel yet".into()),
    }
}

/// Whether `form`'s vectors are matrices (and its kernels built here).
pub fn is_matrix(form: &Form) -> bool {
    columns(form).is_some()
}

/// The input records of the warps that evaluate `vectors` (padded with zero matrices to whole
/// blocks), and the number of threads.
fn records(plan: &Plan, cols: &Columns, vectors: &[&Vector]) -> Result<(Vec<u8>, usize), String> {
    let warps = vectors.len().div_ceil(plan.per_warp);
    let threads = (warps * 32).div_ceil(BLOCK) * BLOCK;
    let mut input = match plan.kind {
        Plumbing::Registers(_) => vec![0u8; threads * plan.in_stride],
        Plumbing::Memory(_) => vec![0u8; threads / 32 * plan.in_stride],
    };
    let sizes = cols.ins.map(|m| m.len());
    for (w, chunk) in vectors.chunks(plan.per_warp).enumerate() {
        match &plan.kind {
            Plumbing::Registers(ls) => {
                let mut regs: Vec<Vec<Vec<u64>>> = vec![vec![Vec::new(); 32]; 3];
                for (g, v) in chunk.iter().enumerate() {
                    let mut at = 0;
                    for (k, l) in ls[..3].iter().enumerate() {
                        let m: Vec<u64> = v.ins[at..at + sizes[k]].iter().map(|i| i.bits as u64).collect();
                        at += sizes[k];
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
                }
            }
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
    let (ptx, target) = super::header_for(form);
    let mut s = String::new();
    let _ = writeln!(
        s,
        "// ptxconf conformance kernel for `{}` ({}): one warp per vector",
        form.name,
        form.signature()
    );
    let _ = writeln!(s, ".version {ptx}\n.target {target}\n.address_size 64\n");
    let _ = writeln!(s, ".visible .entry {ENTRY}(.param .u64 in, .param .u64 out)\n{{");
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
            let _ = writeln!(body, "\t{} {}, {}, {}, {};", form.name, ops[3], ops[0], ops[1], ops[2]);
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
    let (plan, companions) = plan(form, &cols).map_err(BuildError::Matrix)?;
    let ptx = module(form, &plan, companions);
    let (a, b, c) = (cols.ins[0].len(), cols.ins[1].len(), cols.ins[2].len());
    let mut chosen = Vec::with_capacity(pick.len());
    for &i in pick {
        let v = vectors.get(i).ok_or(BuildError::VectorOutOfRange { index: i })?;
        if v.ins.len() != a + b + c || v.outs.len() != cols.out.len() {
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
    // At most `max_threads` vectors per launch, each a warp (or a quarter of one).
    let per_launch = (max_threads / 32).max(1) * plan.per_warp;
    let mut batches = Vec::new();
    for chunk in chosen.chunks(per_launch) {
        let vs: Vec<&Vector> = chunk.iter().map(|(_, v)| *v).collect();
        let (input, threads) = records(&plan, &cols, &vs).map_err(BuildError::Matrix)?;
        let out_bytes = match plan.kind {
            Plumbing::Registers(_) => threads * plan.out_stride,
            Plumbing::Memory(_) => threads / 32 * plan.out_stride,
        };
        batches.push(super::Batch {
            job: Job {
                ptx: ptx.clone(),
                entry: ENTRY.to_string(),
                grid: [(threads / BLOCK) as u32, 1, 1],
                block: [BLOCK as u32, 1, 1],
                buffers: vec![
                    JobBuffer {
                        name: "in".into(),
                        hex: Some(oracle::launch::encode_hex(&input)),
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
            },
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
        };
        if out.len() != expected {
            return Err(super::DecodeError::OutSize {
                found: out.len(),
                expected,
            });
        }
        let mut ds = Vec::with_capacity(vectors);
        for w in 0..warps {
            match &self.kind {
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
