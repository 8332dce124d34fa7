//! The cluster instructions (`exec/cluster.rs` runs them): `mapa` (§9.7.9.23, L14081),
//! `getctarank` (§9.7.9.24, L14132) and `barrier.cluster` (§9.7.13.3, L17150).

use super::body::FuncCx;
use super::consts::addr_name_off;
use super::errors::{terr, Result};
use super::layout::space_of;
use super::operands::Site;
use super::symbols::Sym;
use crate::ast::{Expr, Instr, Operand};
use crate::program::*;
use spec::catalog::{Exec, Form};
use spec::types::Type;

impl FuncCx<'_> {
    /// `mapa{.shared::cluster}.type d, a, b`, `getctarank{.shared::cluster}.type d, a`,
    /// `barrier.cluster.{arrive,wait}{.sem}{.aligned}`. (Not through `shape`, which takes no
    /// `var+imm` source: the operands are checked here, L14086-14098, L14140-14151.)
    pub(super) fn cluster_op(&self, i: &Instr, form: &Form, exec: Exec) -> Result<Op> {
        let loc = i.loc;
        let at = Site::of(i);
        let generic = space_of(form) == Space::Generic;
        let op = match (exec, &i.operands[..]) {
            (Exec::BarrierCluster, []) => ClusterOp::Barrier {
                arrive: form.has("arrive"),
                aligned: form.has("aligned"),
            },
            (Exec::Mapa, [d, a, b]) => {
                let t = form.outputs[0].ty;
                ClusterOp::Mapa {
                    generic,
                    d: self.dst(d, t, false, loc)?,
                    a: self.cluster_address(a, t, generic, at)?,
                    rank: self.src(b, Type::parse("u32").unwrap(), false, at)?,
                }
            }
            (Exec::Getctarank, [d, a]) => ClusterOp::Getctarank {
                generic,
                d: self.dst(d, Type::parse("u32").unwrap(), false, loc)?,
                a: self.cluster_address(a, form.inputs[0].ty, generic, at)?,
            },
            _ => return terr(loc, format!("wrong operands for `{}`", form.name)),
        };
        Ok(Op::Cluster(op))
    }

    /// The address operand of `mapa`/`getctarank`: with `.shared::cluster`, a register holding a
    /// shared address or a `.shared` variable, plus a constant (L14112, L14163); without it, a
    /// register holding a generic address.
    fn cluster_address(&self, a: &Operand, ty: Type, generic: bool, at: Site) -> Result<Src> {
        if let Operand::Expr(e @ (Expr::Name(_) | Expr::Binary(..))) = a {
            if let Some((n, off)) = addr_name_off(e) {
                if let Some(Sym::Var { space, addr }) = self.lookup(n) {
                    if generic || *space != Space::Shared {
                        return terr(
                            at.loc,
                            format!(
                                "`{n}` is a `.{}` variable: `{}` takes {} (L14112, L14163)",
                                space.name(),
                                at.opcode,
                                if generic {
                                    "a register holding a generic address here; take the address with `cvta` first"
                                } else {
                                    "a `.shared` variable or a register here"
                                }
                            ),
                        );
                    }
                    return Ok(Src::Imm(addr.wrapping_add(off as u64)));
                }
            }
        }
        self.src(a, ty, false, at)
    }
}
