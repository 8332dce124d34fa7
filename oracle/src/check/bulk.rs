//! The decoders of the bulk asynchronous operations (`exec/bulk.rs` runs them): the non-tensor
//! bulk copies of §9.7.9.25.4 (`cp.async.bulk`, `cp.reduce.async.bulk`,
//! `cp.async.bulk.prefetch`), the bulk async-groups of §9.7.9.25.6, `st.async` (§9.7.9.12),
//! `st.bulk` (§9.7.9.13) and `red.async` (§9.7.13.7). The operands are checked as the catalog
//! writes them (`shape`), then bound by the catalog's operand names.

use super::body::FuncCx;
use super::consts::const_int;
use super::errors::{terr, Result};
use super::layout::{space_named, space_of, vector_count};
use super::operands::Site;
use crate::ast::{Instr, Operand};
use crate::program::*;
use spec::atom::{AtomOp, Op as RedOp};
use spec::catalog::Form;
use spec::types::{Kind, Type};

/// The state space a bulk copy's `.dst`/`.src` choice names.
fn bulk_space(s: Option<&str>) -> BulkSpace {
    match s {
        Some("shared::cluster") => BulkSpace::SharedCluster,
        Some("global") => BulkSpace::Global,
        _ => BulkSpace::SharedCta,
    }
}

/// The element operation of a `cp.reduce.async.bulk` or `red.async` form (`.redOp.type`), as
/// the atomics' arithmetic ([`spec::atom::apply`]) takes it. Two readings where `AtomOp` has no
/// such combination of its own: `.add.s64` (`red.async.release.global`, L17850) is `.add.u64`
/// (two's complement addition modulo 2^64 is the same on both); `.min`/`.max` on scalar
/// `.f16`/`.bf16` (`cp.reduce.async.bulk`, L14681) is the element operation of the vector
/// atomics on those types (the manual defines none of its own, `spec/src/atom.rs`).
pub(super) fn reduce_op(form: &Form) -> Option<AtomOp> {
    let op = RedOp::parse(form.var("op")?)?;
    let mut ty = form.ty("t")?;
    if op == RedOp::Add && ty.kind == Kind::Signed && ty.bits() == 64 {
        ty = Type::parse("u64")?;
    }
    let half = matches!(ty.kind, Kind::Float(_)) && ty.bits() == 16;
    let vec = if half && op != RedOp::Add { 2 } else { 1 };
    AtomOp::new(op, ty, vec, half)
}

impl FuncCx<'_> {
    /// `cp.async.bulk`, `cp.reduce.async.bulk` (the `reduce` modifier) and
    /// `cp.async.bulk.prefetch` (the `prefetch` modifier), §9.7.9.25.4.1-3.
    pub(super) fn bulk_copy(&self, i: &Instr, avail: &[&'static Form]) -> Result<Op> {
        let loc = i.loc;
        let at = Site::of(i);
        let form = self.shaped_form(i, avail)?;
        let ops = self.named_operands(i, form);
        let operand = |name: &str| ops.iter().find(|(n, _)| *n == name).map(|(_, o)| *o);
        let u32t = Type::parse("u32").unwrap();
        let b16 = Type::parse("b16").unwrap();
        let b64 = Type::parse("b64").unwrap();
        let src_of = |name: &str, ty: Type| operand(name).map(|o| self.src(o, ty, false, at)).transpose();
        let size = match src_of("size", u32t)? {
            Some(s) => s,
            None => return terr(loc, format!("`{}` needs its size operand", form.name)),
        };
        if let Some(o) = operand("cache_policy") {
            self.src(o, b64, false, at)?;
        }
        let addr_in = |name: &str, space: BulkSpace| -> Result<Option<Addr>> {
            let s = match space {
                BulkSpace::Global => space_named("global"),
                _ => space_named("shared::cta"),
            };
            operand(name)
                .map(|o| self.mem_addr_in(o, s, loc).map(|(a, _)| a))
                .transpose()
        };
        if form.has("prefetch") {
            let Some(src) = addr_in("src", BulkSpace::Global)? else {
                return terr(loc, format!("`{}` needs its srcMem operand", form.name));
            };
            return Ok(Op::Bulk(Box::new(BulkOp::Prefetch { src, size })));
        }
        let dspace = bulk_space(form.var("dst"));
        let sspace = bulk_space(form.var("src"));
        let (Some(dst), Some(src)) = (addr_in("dst", dspace)?, addr_in("src", sspace)?) else {
            return terr(loc, format!("`{}` needs its dstMem and srcMem operands", form.name));
        };
        let mbar = addr_in("mbar", BulkSpace::SharedCta)?;
        let reduce = if form.has("reduce") {
            match reduce_op(form) {
                Some(r) => Some(r),
                None => return terr(loc, format!("`{}`: no reduction the oracle knows", form.name)),
            }
        } else {
            None
        };
        Ok(Op::Bulk(Box::new(BulkOp::Copy {
            dst: (dst, dspace),
            src: (src, sspace),
            size,
            mbar,
            cta_mask: src_of("cta_mask", b16)?,
            byte_mask: src_of("byte_mask", b16)?,
            reduce,
        })))
    }

    /// `cp.async.bulk.commit_group` and `cp.async.bulk.wait_group{.read} N` (§9.7.9.25.6).
    pub(super) fn bulk_group(&self, i: &Instr, avail: &[&'static Form]) -> Result<Op> {
        let form = self.shaped_form(i, avail)?;
        if form.has("commit_group") {
            return Ok(Op::Bulk(Box::new(BulkOp::Commit)));
        }
        let n = match i.operands.first() {
            Some(Operand::Expr(e)) => const_int(e),
            _ => None,
        };
        match n {
            Some(n) if (0..=u32::MAX as i64).contains(&n) => Ok(Op::Bulk(Box::new(BulkOp::Wait {
                n: n as u32,
                read: form.has("read"),
            }))),
            _ => terr(
                i.loc,
                "`cp.async.bulk.wait_group` takes a constant group count N (L15350)",
            ),
        }
    }

    /// `st.async` (§9.7.9.12) and `red.async` (§9.7.13.7): `[a], b{, [mbar]}`; the forms with an
    /// mbarrier address `.shared::cluster` (generic when `.ss` is not written, L13020, L17950).
    pub(super) fn async_store(&self, i: &Instr, avail: &[&'static Form], red: bool) -> Result<Op> {
        let loc = i.loc;
        let at = Site::of(i);
        let form = self.shaped_form(i, avail)?;
        let ops = self.named_operands(i, form);
        let operand = |name: &str| ops.iter().find(|(n, _)| *n == name).map(|(_, o)| *o);
        let cluster = form.inputs.iter().any(|o| o.name == "mbar");
        let space = space_of(form);
        let (Some(a), Some(b)) = (operand("addr"), operand("b")) else {
            return terr(loc, format!("`{}` needs its address and value", form.name));
        };
        let (addr, space) = self.mem_addr_in(a, space, loc)?;
        let ty = form.ty("t").unwrap_or_else(|| Type::parse("b32").unwrap());
        let vals = self
            .elements(b, vector_count(form), loc)?
            .into_iter()
            .map(|o| self.src(&o, ty, true, at))
            .collect::<Result<Vec<_>>>()?;
        let mbar = match operand("mbar") {
            Some(m) => Some(self.mem_addr_in(m, space, loc)?.0),
            None => None,
        };
        let reduce = match red {
            true => match reduce_op(form) {
                Some(r) => Some(r),
                None => return terr(loc, format!("`{}`: no reduction the oracle knows", form.name)),
            },
            false => None,
        };
        Ok(Op::Bulk(Box::new(BulkOp::Async {
            addr: (addr, space),
            cluster,
            vals,
            bytes: (ty.bits() / 8) as u8,
            reduce,
            mbar,
        })))
    }

    /// `st.bulk{.weak}{.shared::cta} [a], size, initval` (§9.7.9.13): initval must be the
    /// immediate 0 (L13078).
    pub(super) fn st_bulk(&self, i: &Instr, avail: &[&'static Form]) -> Result<Op> {
        let loc = i.loc;
        let at = Site::of(i);
        let form = self.shaped_form(i, avail)?;
        let u64t = Type::parse("u64").unwrap();
        let [a, size, init] = &i.operands[..] else {
            return terr(loc, "`st.bulk` takes an address, a size and initval");
        };
        let (addr, space) = self.mem_addr_in(a, space_of(form), loc)?;
        let init = match init {
            Operand::Vector(v) if v.len() == 1 => self.src(&v[0], u64t, false, at)?,
            o => self.src(o, u64t, false, at)?,
        };
        if init != Src::Imm(0) {
            return terr(loc, "`st.bulk`'s initval must be the immediate 0 (L13078)");
        }
        Ok(Op::Bulk(Box::new(BulkOp::StBulk {
            addr: (addr, space),
            size: self.src(size, u64t, false, at)?,
            init,
        })))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spec::catalog::{catalog, Exec};

    /// Every `cp.reduce.async.bulk` and `red.async` form decodes to its element operation: the
    /// operation it names, on its type (`.add.s64` read as `.add.u64`).
    #[test]
    fn every_reduction_form_has_its_element_operation() {
        let cat = catalog();
        let forms: Vec<_> = cat
            .forms
            .iter()
            .filter(|f| (f.exec() == Some(Exec::BulkCopy) && f.has("reduce")) || f.exec() == Some(Exec::RedAsync))
            .collect();
        let bulk = forms.iter().filter(|f| f.exec() == Some(Exec::BulkCopy)).count();
        assert_eq!(
            (bulk, forms.len() - bulk),
            (39, 56),
            "the forms of L14591-14690 and L17836-17890"
        );
        for f in forms {
            let op = reduce_op(f).unwrap_or_else(|| panic!("{}", f.name));
            assert_eq!(Some(op.op().name()), f.var("op"), "{}", f.name);
            assert_eq!(op.ty().bits(), f.ty("t").unwrap().bits(), "{}", f.name);
        }
    }
}
