//! Conformance kernels of `wmma.load.{a,b,c}` and `wmma.store.d` (§9.7.14.4.3-4): one warp
//! (one block) per vector. Fragments are unspecified (L20114-20116), so the kernel is the round
//! trip of [`spec::vector::wmma`]: the form under test moves its matrix, the companion loads
//! and store of the companion `wmma.mma` move the others (default stride, `.global`), the
//! companion `wmma.mma` multiplies, and the host sees D only. A load or store that misplaces an
//! element shows as wrong elements of D, whatever the fragment layout.
//!
//! Records: warp `w` reads the stride (u32) at `in + w·in_stride`, then A, B, C at 256-byte
//! aligned offsets — the tested matrix laid out at the line's stride, in room for four times the
//! default — and D is written at `out + w·out_stride` (at the line's stride when the store is
//! the form under test). The state space:
//!
//! - `.global`, and the forms without one (a generic address; the global buffer's address is
//!   one): the operand is the record's address.
//! - `.shared`, `.shared::cta`: the warp copies the tested image into shared memory first
//!   (`bar.warp.sync` before the load), or, for a store, stores there and copies it out after.

use super::{BuildError, DecodeError};
use spec::catalog::Form;
use spec::matrix::{Layout, WmmaAccess};
use spec::vector::wmma::{columns, Columns};
use spec::vector::Vector;
use std::fmt::Write as _;

/// One launch's records.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The accesses of the round trip's A, B, C, D (the tested one included).
    acc: [WmmaAccess; 4],
    /// Which of the four is the form under test.
    slot: usize,
    /// The stride of every vector of the launch (the store's matrix lies at it).
    strides: Vec<u32>,
    out_stride: usize,
}

fn round256(n: usize) -> usize {
    n.div_ceil(256) * 256
}

/// Whether `form` is a load or store with vectors (and its kernels built here).
pub fn is_wmma(form: &Form) -> bool {
    columns(form).is_some()
}

/// Byte offsets of A, B, C in a record (after the stride's 256 bytes) and the record's size.
fn offsets(cols: &Columns, acc: &[WmmaAccess; 4]) -> ([usize; 3], usize) {
    let mut at = 256;
    let mut offs = [0; 3];
    for (k, o) in offs.iter_mut().enumerate() {
        *o = at;
        at += round256(if k == cols.slot {
            cols.max_image_bytes()
        } else {
            acc[k].image_bytes()
        });
    }
    (offs, at)
}

/// The fragment registers of a layout: declarations into `decls`, the operand text back.
fn fragment(decls: &mut String, name: &str, l: &Layout) -> String {
    let class = if l.reg_bits == 64 { ".f64" } else { ".b32" };
    let _ = writeln!(decls, "\t.reg {class} %{name}<{}>;", l.regs);
    let regs: Vec<String> = (0..l.regs).map(|r| format!("%{name}{r}")).collect();
    format!("{{{}}}", regs.join(", "))
}

/// A loop of the warp copying `bytes` (a multiple of 4) from `[src]` to `[dst]`, each lane a
/// word in 32; `ld`/`st` are the state spaces. Ends converged (`bar.warp.sync`).
fn copy(s: &mut String, label: &str, bytes: usize, src: (&str, &str), dst: (&str, &str)) {
    let _ = writeln!(
        s,
        concat!(
            "\tmov.u32 %j, %lane;\n",
            "{l}:\n",
            "\tsetp.ge.u32 %p, %j, {n};\n",
            "\t@%p bra {l}_done;\n",
            "\tmul.wide.u32 %off, %j, 4;\n",
            "\tadd.u64 %g, {src}, %off;\n",
            "\tld.{ss}.b32 %x, [%g];\n",
            "\tadd.u64 %g, {dst}, %off;\n",
            "\tst.{ds}.b32 [%g], %x;\n",
            "\tadd.u32 %j, %j, 32;\n",
            "\tbra {l};\n",
            "{l}_done:\n",
            "\tbar.warp.sync -1;",
        ),
        l = label,
        n = bytes / 4,
        src = src.0,
        ss = src.1,
        dst = dst.0,
        ds = dst.1,
    );
}

fn module(form: &Form, cols: &Columns, acc: &[WmmaAccess; 4], in_stride: usize, out_stride: usize) -> String {
    let (p1, t1) = super::header_for(form);
    let (p2, t2) = super::header_for(cols.mma);
    let (ptx, target) = (p1.max(p2), if t2.sm > t1.sm { t2 } else { t1 });
    // The state space is the catalog's `ss` choice; no choice (empty) is a generic address.
    let shared = form.var("ss").is_some_and(|s| s.starts_with("shared"));
    let image = cols.max_image_bytes().div_ceil(4) * 4;
    let (offs, _) = offsets(cols, acc);
    let how = format!("one warp per vector, through `{}`", cols.mma.name);
    let mut s = super::in_out_entry(form, (ptx, target), &how);
    s.push_str("\t.reg .b32 %c, %lane, %s, %j, %x;\n\t.reg .b64 %ia, %oa, %off, %sa, %g, %ta;\n\t.reg .pred %p;\n");
    if shared {
        let _ = writeln!(s, "\t.shared .align 256 .b8 smem[{image}];");
    }
    let names = ["a", "b", "c", "d"];
    let ops: Vec<String> = acc
        .iter()
        .zip(names)
        .map(|(a, n)| fragment(&mut s, n, &a.layout))
        .collect();
    let mut b = String::new();
    b.push_str(concat!(
        "\tld.param.u64 %ia, [in];\n",
        "\tld.param.u64 %oa, [out];\n",
        "\tmov.u32 %c, %ctaid.x;\n",
        "\tmov.u32 %lane, %laneid;\n",
    ));
    let _ = writeln!(b, "\tmul.wide.u32 %off, %c, {in_stride};\n\tadd.u64 %ia, %ia, %off;");
    let _ = writeln!(b, "\tmul.wide.u32 %off, %c, {out_stride};\n\tadd.u64 %oa, %oa, %off;");
    b.push_str("\tld.global.u32 %s, [%ia];\n");
    if shared {
        b.push_str("\tmov.u64 %sa, smem;\n");
    }
    for k in 0..3 {
        if k != cols.slot {
            let _ = writeln!(b, "\t{} {}, [%ia+{}];", cols.forms[k].name, ops[k], offs[k]);
            continue;
        }
        let _ = writeln!(b, "\tadd.u64 %ta, %ia, {};", offs[k]);
        if shared {
            copy(&mut b, "copy_in", image, ("%ta", "global"), ("%sa", "shared"));
            let _ = writeln!(b, "\t{} {}, [%sa], %s;", form.name, ops[k]);
        } else {
            let _ = writeln!(b, "\t{} {}, [%ta], %s;", form.name, ops[k]);
        }
    }
    let _ = writeln!(b, "\t{} {}, {}, {}, {};", cols.mma.name, ops[3], ops[0], ops[1], ops[2]);
    if cols.slot != 3 {
        let _ = writeln!(b, "\t{} [%oa], {};", cols.forms[3].name, ops[3]);
    } else if shared {
        let _ = writeln!(b, "\t{} [%sa], {}, %s;\n\tbar.warp.sync -1;", form.name, ops[3]);
        copy(&mut b, "copy_out", image, ("%sa", "shared"), ("%oa", "global"));
    } else {
        let _ = writeln!(b, "\t{} [%oa], {}, %s;", form.name, ops[3]);
    }
    s.push_str(&b);
    s.push_str("\tret;\n}\n");
    s
}

/// The launches that evaluate `pick` of `vectors`, at most `max_threads / 32` vectors each.
pub fn build(
    form: &Form,
    vectors: &[Vector],
    pick: &[usize],
    max_threads: usize,
) -> Result<Vec<super::Batch>, BuildError> {
    let cols = columns(form).ok_or_else(|| BuildError::Matrix("not a wmma.load/store form".into()))?;
    let mut acc = Vec::with_capacity(4);
    for f in cols.forms {
        acc.push(WmmaAccess::of(f).map_err(|e| BuildError::Matrix(e.to_string()))?);
    }
    let acc: [WmmaAccess; 4] = acc.try_into().map_err(|_| BuildError::Matrix("four accesses".into()))?;
    let (offs, in_stride) = offsets(&cols, &acc);
    let out_stride = round256(if cols.slot == 3 {
        cols.max_image_bytes()
    } else {
        acc[3].image_bytes()
    });
    let sizes = cols.lines.ins.map(|m| m.len());
    let chosen = super::picked(form, vectors, pick, |v| {
        v.ins.len() == 1 + sizes.iter().sum::<usize>()
            && v.outs.len() == cols.lines.out.len()
            && cols.stride_ok(v.ins[0].bits)
    })?;
    let ptx = module(form, &cols, &acc, in_stride, out_stride);
    let mut batches = Vec::new();
    for chunk in chosen.chunks((max_threads / 32).max(1)) {
        let mut input = vec![0u8; chunk.len() * in_stride];
        let mut strides = Vec::with_capacity(chunk.len());
        for (w, (_, v)) in chunk.iter().enumerate() {
            let rec = &mut input[w * in_stride..][..in_stride];
            let stride = v.ins[0].bits as u32;
            strides.push(stride);
            rec[..4].copy_from_slice(&stride.to_le_bytes());
            let mut at = 1;
            for k in 0..3 {
                let m: Vec<u64> = v.ins[at..at + sizes[k]].iter().map(|x| x.bits as u64).collect();
                at += sizes[k];
                let img = if k == cols.slot {
                    cols.image_at(&m, stride)
                        .ok_or_else(|| BuildError::Matrix("the tested matrix's image".into()))?
                } else {
                    acc[k].image(&m).map_err(|e| BuildError::Matrix(e.to_string()))?
                };
                rec[offs[k]..offs[k] + img.len()].copy_from_slice(&img);
            }
        }
        batches.push(super::Batch {
            job: super::in_out_job(&ptx, chunk.len(), 32, &input, chunk.len() * out_stride),
            vectors: chunk.iter().map(|(i, _)| *i).collect(),
            records: super::Records::Wmma(Box::new(Plan {
                acc,
                slot: cols.slot,
                strides,
                out_stride,
            })),
        });
    }
    Ok(batches)
}

impl Plan {
    /// D of every vector of the launch (row-major elements), from the `out` buffer.
    pub fn decode(&self, vectors: usize, out: &[u8]) -> Result<Vec<Vec<u128>>, DecodeError> {
        let expected = vectors * self.out_stride;
        if out.len() != expected || self.strides.len() != vectors {
            return Err(DecodeError::OutSize {
                found: out.len(),
                expected,
            });
        }
        let d = &self.acc[3];
        out.chunks(self.out_stride)
            .zip(&self.strides)
            .map(|(rec, &stride)| {
                let dense: Vec<u8> = if self.slot == 3 {
                    // The store's rows (columns) lie `stride` elements apart: gather them.
                    let n = d.instances().0;
                    let each = d.image_bytes() / n;
                    let step = (u64::from(stride) * d.layout.bits as u64 / 8) as usize;
                    (0..n)
                        .map(|k| rec.get(k * step..k * step + each))
                        .collect::<Option<Vec<_>>>()
                        .ok_or_else(|| DecodeError::Matrix("D past its record".into()))?
                        .concat()
                } else {
                    rec.to_vec()
                };
                let m = d.matrix(&dense).map_err(|e| DecodeError::Matrix(e.to_string()))?;
                Ok(m.into_iter().map(u128::from).collect())
            })
            .collect()
    }
}
