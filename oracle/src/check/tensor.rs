//! The decoders of the tensor copies (§9.7.9.25.5.2-4: `cp.async.bulk.tensor`,
//! `cp.reduce.async.bulk.tensor`, `cp.async.bulk.prefetch.tensor`) in `.tile` and
//! `.im2col`/`.im2col_no_offs` modes, and of `fence.proxy.tensormap::generic` (§9.7.13.4); their
//! execution is `exec/bulk/tensor.rs`.
//!
//! `[tensorMap, tensorCoords]` is written as one operand (`ast::Operand::AddressTuple`); the
//! catalog writes it as `tensor_map:b64 {coords:s32}`, two slots, which
//! `super::shape::written_slots` lines up with the written operands.

use super::body::FuncCx;
use super::consts::const_int;
use super::errors::{terr, Result};
use super::layout::space_named;
use super::operands::Site;
use crate::ast::{Instr, Operand};
use crate::program::*;
use spec::catalog::Form;
use spec::types::Type;

impl FuncCx<'_> {
    /// A tensor copy: the form whose operand shape the instruction has, its operands bound by
    /// the catalog's names.
    pub(super) fn tensor_copy(&self, i: &Instr, avail: &[&'static Form]) -> Result<Op> {
        let loc = i.loc;
        let at = Site::of(i);
        let form = self.shaped_form(i, avail)?;
        let ops = self.named_operands(i, form);
        let operand = |name: &str| ops.iter().find(|(n, _)| *n == name).map(|(_, o)| *o);
        let parts = |name: &str, ty: &str| -> Result<Vec<Src>> {
            let ty = Type::parse(ty).unwrap();
            match operand(name) {
                Some(Operand::Vector(v)) => v.iter().map(|o| self.src(o, ty, false, at)).collect(),
                Some(o) => Ok(vec![self.src(o, ty, false, at)?]),
                None => Ok(Vec::new()),
            }
        };
        let coords = parts("coords", "s32")?;
        let offsets = parts("im2col_info", "u16")?;
        if let Some(o) = operand("cache_policy") {
            self.src(o, Type::parse("b64").unwrap(), false, at)?;
        }
        // tensorMap: a generic address, or a `.param`/`.const`/`.global` variable (L14904).
        let Some(Operand::Expr(e)) = operand("tensor_map") else {
            return terr(loc, format!("`{}` needs `[tensorMap, tensorCoords]`", form.name));
        };
        let tm = Operand::Address(e.clone());
        let (_, sym) = self.addr(&tm, loc)?;
        let space = match sym {
            Some(s @ (Space::Param | Space::Const | Space::Global)) => s,
            _ => Space::Generic,
        };
        // ptxas 12.9 takes a `.global` variable named here but refuses a `.param` or `.const`
        // one ("State space mismatch between instruction and address"), which the manual's
        // grammar allows (L14904): its address in a register is what ptxas takes.
        if matches!(space, Space::Param | Space::Const) && self.ck.grammar == super::Grammar::Ptxas {
            return terr(
                loc,
                format!(
                    "`{}`: a `.{}` variable named as tensorMap is in the PTX ISA 8.7 grammar (L14904), but ptxas 12.9 refuses it: \"State space mismatch between instruction and address\"; put its generic address in a register (`mov.u64 %rd, name; cvta.param.u64 %rd, %rd;`) (corpus/findings/ptxas-12.9-tensormap-operand.txt; a launch with `\"grammar\": \"manual\"` accepts it)",
                    form.name,
                    if space == Space::Param { "param" } else { "const" }
                ),
            );
        }
        let tmap = self.mem_addr_in(&tm, space, loc)?;
        let shared = |name: &str, space: &str| -> Result<Option<Addr>> {
            operand(name)
                .map(|o| self.mem_addr_in(o, space_named(space), loc).map(|(a, _)| a))
                .transpose()
        };
        let kind = if form.has("prefetch") {
            TensorKind::Prefetch
        } else if form.var("dst") == Some("global") {
            let Some(src) = shared("src", "shared::cta")? else {
                return terr(loc, format!("`{}` needs its srcMem operand", form.name));
            };
            let reduce = match form.var("op") {
                Some(op) => match spec::atom::Op::parse(op) {
                    Some(op) => Some(op),
                    None => return terr(loc, format!("`{}`: no reduction the oracle knows", form.name)),
                },
                None => None,
            };
            TensorKind::Store { src, reduce }
        } else {
            let (Some(dst), Some(mbar)) = (shared("dst", "shared::cta")?, shared("mbar", "shared::cta")?) else {
                return terr(loc, format!("`{}` needs its dstMem and mbar operands", form.name));
            };
            let dspace = match form.var("dst") {
                Some("shared::cluster") => BulkSpace::SharedCluster,
                _ => BulkSpace::SharedCta,
            };
            let cta_mask = operand("cta_mask")
                .map(|o| self.src(o, Type::parse("b16").unwrap(), false, at))
                .transpose()?;
            TensorKind::Load {
                dst: (dst, dspace),
                mbar,
                cta_mask,
                pair: form.has("cta_group::2"),
            }
        };
        let mode = match form.var("mode") {
            Some("tile::gather4" | "tile::scatter4") => TensorMode::Gather4,
            Some("im2col::w") => TensorMode::Im2colW { w128: false },
            Some("im2col::w::128") => TensorMode::Im2colW { w128: true },
            Some(m) if m.starts_with("im2col") => TensorMode::Im2col,
            _ => TensorMode::Tile,
        };
        Ok(Op::TensorCopy(Box::new(TensorCopy {
            kind,
            tmap,
            coords,
            mode,
            offsets,
        })))
    }

    /// `fence.proxy.tensormap::generic.release.scope` and `.acquire.scope [addr], size` (size
    /// the constant 128, L17266).
    pub(super) fn tensormap_fence(&self, i: &Instr, form: &'static Form) -> Result<Op> {
        let loc = i.loc;
        self.shape(i, form)?;
        if form.var("sem") != Some("acquire") {
            return Ok(Op::TensormapFence { acquire: None });
        }
        let [a, n] = &i.operands[..] else {
            return terr(loc, "`fence.proxy.tensormap::generic.acquire` takes [addr], size");
        };
        match n {
            Operand::Expr(e) if const_int(e) == Some(128) => {}
            _ => return terr(loc, "the acquire proxy fence's size is the immediate 128 (L17266)"),
        }
        // A generic address, which must be in `.global` (L17266; checked when it runs).
        let (addr, space) = self.mem_addr_in(a, Space::Generic, loc)?;
        Ok(Op::TensormapFence {
            acquire: Some((addr, space, Src::Imm(128))),
        })
    }
}
