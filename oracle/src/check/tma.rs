//! The decoders of `tensormap.replace` (§9.7.9.26) and `tensormap.cp_fenceproxy` (§9.7.13.16);
//! their execution is `exec/tensormap.rs`.

use super::body::FuncCx;
use super::consts::const_int;
use super::errors::{terr, Result};
use super::layout::space_of;
use super::operands::Site;
use crate::ast::{Instr, Operand};
use crate::program::{Op, Space};
use spec::catalog::Form;
use spec::tma::Field;
use spec::types::Type;

impl FuncCx<'_> {
    /// `tensormap.replace.tile.FIELD{.ss}.b1024.type [addr], {ord,} new_val`.
    pub(super) fn tensormap_replace(&self, i: &Instr, form: &'static Form) -> Result<Op> {
        let loc = i.loc;
        self.shape(i, form)?;
        let Some(field) = form.var("field").and_then(Field::parse) else {
            return terr(loc, format!("`{}` names no tensor-map field", form.name));
        };
        let ops = &i.operands[..];
        let addr = self.mem_addr_in(&ops[0], space_of(form), loc)?;
        let imm = |o: &Operand| match o {
            Operand::Expr(e) => const_int(e),
            _ => None,
        };
        let (ord, val) = if field.has_ord() {
            let Some(ord) = imm(&ops[1]) else {
                return terr(loc, "`ord` is an integer immediate (L15410)");
            };
            let n = if field == Field::GlobalStride { 4 } else { 5 };
            if !(0..n).contains(&ord) {
                return terr(
                    loc,
                    format!(
                        "`ord` {ord} is not an ordinal of `.{}` within a rank of at most 5 (L15410)",
                        field.name()
                    ),
                );
            }
            (ord as u32, &ops[2])
        } else {
            (0, &ops[1])
        };
        // `.field3` values are immediates of Table 32 (L15414-15622).
        if field.is_coded() {
            let Some(v) = imm(val) else {
                return terr(loc, "this field's new_val is an immediate (L15414)");
            };
            let mut scratch = [0u8; spec::tma::encoding::SIZE];
            if let Err(e) = spec::tma::replace(&mut scratch, field, 0, v as u64) {
                return terr(loc, format!("`tensormap.replace.{}`: {e}", field.name()));
            }
        }
        let ty = form.ty("t").unwrap_or_else(|| Type::parse("b32").unwrap());
        let new_val = self.src(val, ty, false, Site::of(i))?;
        Ok(Op::TensormapReplace {
            field,
            ord,
            addr,
            new_val,
        })
    }

    /// `tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.scope.sync.aligned
    /// [dst], [src], size`: `size` is 128 (L19266).
    pub(super) fn tensormap_cp_fenceproxy(&self, i: &Instr, form: &'static Form) -> Result<Op> {
        let loc = i.loc;
        self.shape(i, form)?;
        let ops = &i.operands[..];
        let (dst, _) = self.mem_addr_in(&ops[0], Space::Global, loc)?;
        let (src, _) = self.mem_addr_in(&ops[1], Space::Shared, loc)?;
        match &ops[2] {
            Operand::Expr(e) if const_int(e) == Some(128) => {}
            _ => return terr(loc, "`tensormap.cp_fenceproxy`'s size is the immediate 128 (L19266)"),
        }
        Ok(Op::TensormapCpFenceproxy { dst, src })
    }
}
