//! Conformance kernels of the block-scaled `mma.sync` forms (§9.7.14.3): one warp per vector.
//! The host scatters A, B and C by the manual's fragment layouts, as for `mma`
//! ([`super::matrix`]), and puts each scale factor in the byte of the thread that the vector's
//! selectors name (`spec::matrix::scale`, the reading of Figures 42-44); every other byte of
//! `scale-a-data`/`scale-b-data` is 0. The selectors are registers loaded from the record (the
//! same in every lane of the warp), so one kernel serves every vector.
//!
//! Record of lane `t`: A's, B's, C's registers (4 bytes each), `scale-a-data`,
//! `scale-b-data`, then the four selectors as u16 (`byte-id-a`, `thread-id-a`, `byte-id-b`,
//! `thread-id-b`); a sparse form's record ends with the lane's metadata `e`. Output: D's
//! registers.
//!
//! The sparse forms (`mma.sp::ordered_metadata ... .block_scale`, §9.7.14.6.3) are the matrix
//! kernels' `mma.sp` ([`super::matrix`]) with the scale operands: A is scattered compressed
//! with the metadata [`spec::matrix::Sparsity::compress`] derives (in the elements'
//! containers), and the sparsity selector `f`, an immediate, gets one module per value.

use super::BuildError;
use spec::catalog::Form;
use spec::matrix::{layout, Layout, Sparsity, Which};
use spec::vector::scaled::{columns, Columns};
use spec::vector::Vector;
use std::fmt::Write as _;

/// Threads per block: four warps.
const BLOCK: usize = 128;

/// The record layout of a form's launches.
#[derive(Clone, Debug)]
pub struct Plan {
    layouts: [Layout; 4],
    /// `mma.sp::ordered_metadata`: the sparsity and this launch's selector `f`.
    sparse: Option<(Sparsity, u32)>,
    in_stride: usize,
    out_stride: usize,
}

/// Whether `form`'s vectors are block-scaled ones (and its kernels built here).
pub fn is_scaled(form: &Form) -> bool {
    columns(form).is_some()
}

fn plan(form: &Form, cols: &Columns) -> Result<Plan, String> {
    let mut ls = Vec::new();
    for w in Which::ALL {
        ls.push(layout(form, w).map_err(|e| e.to_string())?);
    }
    let layouts: [Layout; 4] = ls.try_into().map_err(|_| "four layouts".to_string())?;
    let regs: usize = layouts[..3].iter().map(|l| l.regs).sum();
    let e_bytes = if cols.sparsity.is_some() { 4 } else { 0 };
    Ok(Plan {
        sparse: cols.sparsity.map(|sp| (sp, 0)),
        in_stride: (regs + 2) * 4 + 8 + e_bytes,
        out_stride: layouts[3].regs * 4,
        layouts,
    })
}

fn records(plan: &Plan, cols: &Columns, vectors: &[&Vector]) -> Result<(Vec<u8>, usize), String> {
    let threads = (vectors.len() * 32).div_ceil(BLOCK) * BLOCK;
    let mut input = vec![0u8; threads * plan.in_stride];
    let s = cols.scalars.len();
    let sizes = cols.ins.map(|m| m.len());
    let k = cols.op.shape.2;
    // A sparse form's padding warps need meaningful metadata too (an all-zero `e` is not,
    // L23778): that of an all-zero A.
    if let Some((sp, f)) = &plan.sparse {
        let (_, e) = sp.compress(k, &vec![0; 16 * k], *f).map_err(|e| e.to_string())?;
        for t in vectors.len() * 32..threads {
            let at = (t + 1) * plan.in_stride - 4;
            input[at..at + 4].copy_from_slice(&(e[t % 32] as u32).to_le_bytes());
        }
    }
    for (w, v) in vectors.iter().enumerate() {
        let ins: Vec<u128> = v.ins.iter().map(|i| i.bits).collect();
        let mut at = s;
        let mut mats = Vec::with_capacity(5);
        for n in sizes {
            mats.push(&ins[at..at + n]);
            at += n;
        }
        let mut regs: Vec<Vec<Vec<u64>>> = vec![vec![Vec::new(); 32]; 3];
        let mut meta = vec![0u64; 32];
        for j in 0..3 {
            let l = &plan.layouts[j];
            let fmt = match cols.ins[j].ty.kind {
                spec::types::Kind::Float(f) => Some(f),
                _ => None,
            };
            // fp6/fp4 elements in 8-bit containers under `.kind::mxf8f6f4` (L22916).
            let m: Vec<u64> = mats[j]
                .iter()
                .map(|&x| match fmt {
                    Some(f) if j < 2 => spec::tensor::container_of_element(f, l.bits, x) as u64,
                    _ => x as u64,
                })
                .collect();
            // A sparse A: the dense one as the compressed one and its metadata.
            let m = match (&plan.sparse, j) {
                (Some((sp, f)), 0) => {
                    let (compressed, e) = sp.compress(k, &m, *f).map_err(|e| e.to_string())?;
                    meta = e;
                    compressed
                }
                _ => m,
            };
            l.scatter(0, &m, &mut regs[j]).map_err(|e| e.to_string())?;
        }
        // The scale factors in the selected threads' bytes (spec::matrix::scale's reading).
        let sel = cols.selectors(&ins);
        let [ba, ta, bb, tb] = sel.map(|x| x as usize);
        let vec = cols.op.vec;
        let mut sa = [0u32; 32];
        let mut sb = [0u32; 32];
        for g in 0..8 {
            for (half, row) in [(0, g), (1, g + 8)] {
                for b in 0..vec {
                    sa[4 * g + 2 * ta + half] |= (mats[3][row * vec + b] as u32 & 0xff) << (8 * (ba + b));
                }
            }
            for b in 0..vec {
                sb[4 * g + tb] |= (mats[4][b * 8 + g] as u32 & 0xff) << (8 * (bb + b));
            }
        }
        for lane in 0..32 {
            let rec = &mut input[(w * 32 + lane) * plan.in_stride..][..plan.in_stride];
            let mut words: Vec<u32> = Vec::new();
            for r in &regs {
                words.extend(r[lane].iter().map(|&x| x as u32));
            }
            words.push(sa[lane]);
            words.push(sb[lane]);
            for (j, x) in words.iter().enumerate() {
                rec[4 * j..4 * j + 4].copy_from_slice(&x.to_le_bytes());
            }
            let at = 4 * words.len();
            for (j, &x) in sel.iter().enumerate() {
                rec[at + 2 * j..at + 2 * j + 2].copy_from_slice(&(x as u16).to_le_bytes());
            }
            if plan.sparse.is_some() {
                rec[at + 8..at + 12].copy_from_slice(&(meta[lane] as u32).to_le_bytes());
            }
        }
    }
    Ok((input, threads))
}

fn module(form: &Form, plan: &Plan) -> String {
    let mut s = super::in_out_entry(form, super::header_for(form), "one warp per vector");
    s.push_str("\t.reg .b32 %i, %c, %t, %sa, %sb;\n\t.reg .b64 %ia, %oa, %off;\n\t.reg .b16 %ba, %ta, %bb, %tb;\n");
    if plan.sparse.is_some() {
        s.push_str("\t.reg .b32 %e;\n");
    }
    let names = ["a", "b", "c", "d"];
    let mut ops = Vec::new();
    for (l, n) in plan.layouts.iter().zip(names) {
        let _ = writeln!(s, "\t.reg .b32 %{n}<{}>;", l.regs);
        let regs: Vec<String> = (0..l.regs).map(|r| format!("%{n}{r}")).collect();
        ops.push(format!("{{{}}}", regs.join(", ")));
    }
    s.push_str(concat!(
        "\tld.param.u64 %ia, [in];\n",
        "\tld.param.u64 %oa, [out];\n",
        "\tmov.u32 %c, %ctaid.x;\n",
        "\tmov.u32 %t, %ntid.x;\n",
        "\tmov.u32 %i, %tid.x;\n",
        "\tmad.lo.u32 %i, %c, %t, %i;\n",
    ));
    let _ = writeln!(
        s,
        "\tmul.wide.u32 %off, %i, {};\n\tadd.u64 %ia, %ia, %off;",
        plan.in_stride
    );
    let _ = writeln!(
        s,
        "\tmul.wide.u32 %off, %i, {};\n\tadd.u64 %oa, %oa, %off;",
        plan.out_stride
    );
    let mut off = 0;
    for (l, n) in plan.layouts[..3].iter().zip(names) {
        for r in 0..l.regs {
            let _ = writeln!(s, "\tld.global.b32 %{n}{r}, [%ia+{off}];");
            off += 4;
        }
    }
    let _ = writeln!(
        s,
        "\tld.global.b32 %sa, [%ia+{off}];\n\tld.global.b32 %sb, [%ia+{}];",
        off + 4
    );
    off += 8;
    for (j, r) in ["%ba", "%ta", "%bb", "%tb"].iter().enumerate() {
        let _ = writeln!(s, "\tld.global.b16 {r}, [%ia+{}];", off + 2 * j);
    }
    // `mma.sp`: `e, f` between `c` and `scale-a-data` (L24431-24449).
    let sparse = match plan.sparse {
        Some((_, f)) => {
            let _ = writeln!(s, "\tld.global.b32 %e, [%ia+{}];", off + 8);
            format!(", %e, {f}")
        }
        None => String::new(),
    };
    let _ = writeln!(
        s,
        "\t{} {}, {}, {}, {}{sparse}, %sa, {{%ba, %ta}}, %sb, {{%bb, %tb}};",
        form.name, ops[3], ops[0], ops[1], ops[2]
    );
    for r in 0..plan.layouts[3].regs {
        let _ = writeln!(s, "\tst.global.b32 [%oa+{}], %d{r};", 4 * r);
    }
    s.push_str("\tret;\n}\n");
    s
}

/// The launches that evaluate `pick` of `vectors`, at most `max_threads` threads each.
pub fn build(
    form: &Form,
    vectors: &[Vector],
    pick: &[usize],
    max_threads: usize,
) -> Result<Vec<super::Batch>, BuildError> {
    let cols = columns(form).ok_or_else(|| BuildError::Matrix("not a block-scaled form".into()))?;
    let base = plan(form, &cols).map_err(BuildError::Matrix)?;
    let width = cols.scalars.len() + cols.ins.iter().map(|m| m.len()).sum::<usize>();
    let chosen = super::picked(form, vectors, pick, |v| {
        v.ins.len() == width && v.outs.len() == cols.out.len()
    })?;
    // A sparse form: one module per sparsity selector (an immediate operand, the line's first
    // scalar).
    let mut groups: Vec<(Plan, Vec<(usize, &Vector)>)> = Vec::new();
    for (i, v) in chosen {
        let mut p = base.clone();
        if let Some((sp, _)) = base.sparse {
            p.sparse = Some((sp, v.ins[0].bits as u32));
        }
        let f = p.sparse.map(|x| x.1);
        match groups.iter_mut().find(|(q, _)| q.sparse.map(|x| x.1) == f) {
            Some((_, g)) => g.push((i, v)),
            None => groups.push((p, vec![(i, v)])),
        }
    }
    let mut batches = Vec::new();
    for (plan, chosen) in &groups {
        let ptx = module(form, plan);
        for chunk in chosen.chunks((max_threads / 32).max(1)) {
            let vs: Vec<&Vector> = chunk.iter().map(|(_, v)| *v).collect();
            let (input, threads) = records(plan, &cols, &vs).map_err(BuildError::Matrix)?;
            batches.push(super::Batch {
                job: super::in_out_job(&ptx, threads / BLOCK, BLOCK, &input, threads * plan.out_stride),
                vectors: chunk.iter().map(|(i, _)| *i).collect(),
                records: super::Records::Scaled(Box::new(plan.clone())),
            });
        }
    }
    Ok(batches)
}

impl Plan {
    /// D of every vector of the launch (row-major), from the `out` buffer.
    pub fn decode(&self, vectors: usize, out: &[u8]) -> Result<Vec<Vec<u128>>, super::DecodeError> {
        let threads = (vectors * 32).div_ceil(BLOCK) * BLOCK;
        if out.len() != threads * self.out_stride {
            return Err(super::DecodeError::OutSize {
                found: out.len(),
                expected: threads * self.out_stride,
            });
        }
        let l = &self.layouts[3];
        (0..vectors)
            .map(|w| {
                let regs: Vec<Vec<u64>> = (0..32)
                    .map(|lane| {
                        let rec = &out[(w * 32 + lane) * self.out_stride..][..self.out_stride];
                        rec.chunks(4)
                            .map(|c| u64::from(u32::from_le_bytes(c.try_into().expect("four bytes"))))
                            .collect()
                    })
                    .collect();
                let m = l
                    .gather(0, &regs)
                    .map_err(|e| super::DecodeError::Matrix(e.to_string()))?;
                Ok(m.into_iter().map(u128::from).collect())
            })
            .collect()
    }
}
