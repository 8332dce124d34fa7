//! Operands against the types they must have: source and destination registers and constants
//! (§9.4 type agreement, Tables 23-25; literal rules), addresses and the state space of the
//! variable they name, and the elements of a vector data operand.

use super::body::FuncCx;
use super::consts::{addr_name_off, const_int, contains_float, float_literal, mask};
use super::errors::{terr, CheckError, Mismatch, NotExecuted, Result, What};
use super::layout::{generic_var_addr, space_of};
use super::symbols::{vec_elements, Sym};
use crate::ast::{Expr, Instr, Loc, Operand};
use crate::program::*;
use spec::catalog::{catalog, Form};
use spec::sreg::Unmodeled;
use spec::types::{Kind, Type};

/// The instruction whose operands are being checked, as the rules that depend on it see it:
/// where it is (the location of every error) and its opcode (special registers are read by
/// `mov` and `cvt` only).
#[derive(Clone, Copy, Debug)]
pub(super) struct Site<'i> {
    /// The instruction's line and column.
    pub(super) loc: Loc,
    /// Its opcode (`mov`, `ld`, ...).
    pub(super) opcode: &'i str,
}

impl<'i> Site<'i> {
    /// The site of instruction `i`.
    pub(super) fn of(i: &'i Instr) -> Site<'i> {
        Site {
            loc: i.loc,
            opcode: &i.opcode,
        }
    }
}

/// §9.4 operand/instruction type agreement. `relaxed` is Tables 24/25 (`ld`, `st`, `cvt`):
/// registers wider than the instruction type. Returns the sign-extension width for a
/// destination (0: zero-extend).
pub(super) fn agree(instr: Type, reg: Type, relaxed: bool) -> std::result::Result<u8, Mismatch> {
    let (ib, rb) = (instr.bits(), reg.bits());
    let bad = || Err(Mismatch { instr, reg, relaxed });
    if instr.kind == Kind::Pred || reg.kind == Kind::Pred {
        return if instr.kind == reg.kind { Ok(0) } else { bad() };
    }
    let int = |k: Kind| matches!(k, Kind::Signed | Kind::Unsigned);
    let kinds_ok = match (instr.kind, reg.kind) {
        (Kind::Bits, _) | (_, Kind::Bits) => true,
        (a, b) if int(a) && int(b) => true,
        (Kind::Float(a), Kind::Float(b)) => a == b,
        _ => false,
    };
    if !kinds_ok {
        return bad();
    }
    if rb == ib {
        return Ok(0);
    }
    // Wider registers only where §9.4.1 allows them; floats must match unless the register is
    // bit-size (Table 24 note 4), and the register is never narrower.
    let float_exact = matches!(instr.kind, Kind::Float(_)) && reg.kind != Kind::Bits
        || matches!(reg.kind, Kind::Float(_)) && instr.kind != Kind::Bits;
    if relaxed && rb > ib && !float_exact {
        return Ok(if instr.kind == Kind::Signed { ib as u8 } else { 0 });
    }
    // Table 23's b16 ↔ f16 agreement: "bit-size types agree with any type of the same size".
    bad()
}

impl FuncCx<'_> {
    /// The elements of a memory instruction's data operand: a `{...}` of `n` registers of one
    /// size for `.vN` (ptxas: "Incompatible elements of vector expression"), else the operand,
    /// which ptxas also takes as a one-element vector (`ld.global.b32 { %r1 }, [%rd1]`, as
    /// Triton's inline asm writes it).
    pub(super) fn elements(&self, o: &Operand, n: usize, loc: Loc) -> Result<Vec<Operand>> {
        if let Operand::Expr(Expr::Name(name)) = o {
            if let Some(Sym::VecReg(k)) = self.lookup(name) {
                if *k as usize != n {
                    return terr(
                        loc,
                        format!("`{name}` is a `.v{k}` register; the instruction moves `.v{n}`"),
                    );
                }
                return Ok(vec_elements(name, n));
            }
        }
        let v: Vec<&Operand> = match o {
            Operand::Vector(v) if n > 1 && v.len() == n => v.iter().collect(),
            Operand::Vector(v) if n == 1 && v.len() == 1 => return Ok(vec![v[0].clone()]),
            o if n == 1 && !matches!(o, Operand::Vector(_)) => return Ok(vec![o.clone()]),
            Operand::Vector(v) if n == 1 => {
                return terr(
                    loc,
                    format!(
                        "a vector of {} elements needs a `.v{}` instruction; without `.vN` the operand is one register (or `{{ reg }}`)",
                        v.len(),
                        v.len()
                    ),
                )
            }
            _ => return terr(loc, format!("`.v{n}` needs a vector of {n} elements here")),
        };
        let sizes = v.iter().filter_map(|o| match o {
            Operand::Expr(Expr::Name(n)) => match self.lookup(n) {
                Some(Sym::Reg { ty, .. }) => Some(ty.bits()),
                _ => None,
            },
            _ => None,
        });
        if sizes.collect::<std::collections::BTreeSet<_>>().len() > 1 {
            return terr(loc, "the registers of a vector operand must all have the same size");
        }
        Ok(v.into_iter().cloned().collect())
    }

    /// A memory instruction's address, its space checked against the instruction's; a generic
    /// access naming a variable uses the variable's generic address.
    pub(super) fn mem_addr(&self, a: &Operand, form: &Form, loc: Loc) -> Result<(Addr, Space)> {
        let (addr, space) = self.mem_addr_in(a, space_of(form), loc)?;
        match addr {
            // 32-bit addresses in a 64-bit module: ptxas 12.9 takes them for the per-CTA
            // and per-thread windows (.shared, .local, .const, .param) only ("Program uses
            // 32-bit address ... conflicting with .address_size 64", then no code).
            // (A 16-bit register is taken, zero-extended: ptxas 12.9 flags 32-bit ones only.)
            // (A 32-bit module's addresses are 32 bits: any register is taken, a wider one
            // truncated, L3114.)
            Addr::Reg(slot, _)
                if matches!(space, Space::Global | Space::Generic)
                    && self.reg_bits(slot) == 32
                    && self.ck.windows.bits == 64 =>
            {
                return terr(
                    loc,
                    format!("a 32-bit register cannot address `.{}` memory in a 64-bit module (ptxas 12.9: 32-bit compilation is no longer supported)", space.name()),
                );
            }
            _ => {}
        }
        Ok((addr, space))
    }

    /// [`Self::mem_addr`] for an instruction that names the operand's state space itself
    /// (`cp.async`'s `.shared` destination and `.global` source), without the rule against
    /// 32-bit registers for `.global`, which ptxas 12.9 does not apply there (`cp.async.ca.
    /// shared.global [%rd0], [%r0], 16` assembles; the register is zero-extended).
    pub(super) fn mem_addr_in(&self, a: &Operand, space: Space, loc: Loc) -> Result<(Addr, Space)> {
        let (addr, sym_space) = self.addr(a, loc)?;
        let space = self.check_space(space, sym_space, loc)?;
        immediate_address_ok(addr, sym_space, space, loc)?;
        Ok((generic_var_addr(&self.ck.windows, space, sym_space, addr), space))
    }

    /// A source operand of instruction type `ty`.
    pub(super) fn src(&self, o: &Operand, ty: Type, relaxed: bool, at: Site) -> Result<Src> {
        let loc = at.loc;
        let Operand::Expr(e) = o else {
            return terr(loc, format!("expected a register or constant of type `.{ty}`"));
        };
        if let Expr::Name(n) = e {
            if let Some(s) = Sreg::parse(n) {
                // §10.11-10.17: the cluster registers exist from sm_90 on (ptxas 12.9 refuses
                // them below).
                if s.is_cluster() && self.ck.sm < 90 {
                    return terr(
                        loc,
                        format!(
                            "special register `{n}` requires sm_90 (§10.11-10.17), not {}",
                            self.ck.target
                        ),
                    );
                }
                let sty = s.ty();
                // Special registers are read by mov and cvt only (§10); a 16-bit read of a
                // 32-bit one is allowed for legacy code (L31875) and takes the low half.
                if !catalog().rules(at.opcode).sreg_sources {
                    return terr(
                        loc,
                        format!("special register `{n}` can only be read with `mov` or `cvt`"),
                    );
                }
                if ty.bits() != sty.bits()
                    && !(ty.bits() == 16 && sty.bits() == 32)
                    && !(relaxed && ty.bits() < sty.bits())
                {
                    return terr(loc, format!("`{n}` is `.{sty}`; the instruction expects `.{ty}`"));
                }
                return Ok(Src::Sreg(s));
            }
            if let Some(of) = Unmodeled::of(n) {
                return Err(CheckError {
                    loc,
                    what: What::NotExecuted(NotExecuted::Sreg { name: n.clone(), of }),
                });
            }
            return match self.lookup(n) {
                Some(Sym::Reg { slot, ty: rty }) => {
                    agree(ty, *rty, relaxed).map_err(|why| mismatch(loc, n, why))?;
                    Ok(Src::Reg(*slot))
                }
                // A variable's or function's address is an operand of `mov` and `cvta` only
                // (L11748); those take it before operands reach here.
                Some(Sym::Var { .. } | Sym::FrameVar { .. } | Sym::Func(_)) => terr(
                    loc,
                    format!("`{n}` is a variable or function: take its address with `mov` (or `cvta`) first"),
                ),
                Some(_) => terr(loc, format!("`{n}` cannot be used as a value here")),
                None => match spec::sreg::predefined_constant(n) {
                    Some(v) => Ok(Src::Imm(v)),
                    None => terr(loc, format!("`{n}` is not declared")),
                },
            };
        }
        // `var+k`: ptxas 12.9 takes a variable's or function's address plus a constant as a
        // 64-bit immediate anywhere (`not.b64 d, gbuf+4`, `isspacep.global p, gbuf+8`), while a
        // bare `var` must go through `mov` ("must be register"): the address `mov` would give.
        // (In a 32-bit module a 32-bit operand takes it as well: the address fits.)
        if let (Expr::Binary(..), Some((n, off))) = (e, addr_name_off(e)) {
            if ty.bits() >= self.ck.windows.bits {
                match self.lookup(n) {
                    Some(Sym::Var { addr, .. }) => return Ok(Src::Imm(addr.wrapping_add(off as u64))),
                    Some(Sym::Func(f)) => return Ok(Src::Imm(self.ck.windows.func_addr(*f).wrapping_add(off as u64))),
                    _ => {}
                }
            }
        }
        // Packed types take registers only (ptxas 12.9: `add.f16x2 d, a, 0x3c003c00`,
        // `min.u16x2 d, a, 5`: "Arguments mismatch").
        if ty.lanes > 1 {
            return terr(loc, format!("packed `.{ty}` operands take registers, not constants"));
        }
        match ty.kind {
            // A bit-size operand takes a float literal's bits: `0f` for 32 bits, `0d` for 64
            // (`mov.b32 %r, 0f3f800000`, which LLVM emits).
            // ptxas 12.9 takes `0f` bits for 32-bit operands and `0d` bits for 64-bit ones
            // only ("Arguments mismatch" for `mov.b64 d, 0f3F800000`).
            Kind::Bits if matches!(e, Expr::Float { f32, .. } if *f32 != (ty.bits() == 32)) => terr(
                loc,
                format!(
                    "a `.{ty}` operand takes a `{}` literal",
                    if ty.bits() == 32 { "0f" } else { "0d" }
                ),
            ),
            Kind::Bits if contains_float(e) => {
                let as_float = Type::parse(match ty.bits() {
                    32 => "f32",
                    64 => "f64",
                    _ => return terr(loc, format!("a floating-point constant cannot be a `.{ty}` operand")),
                })
                .unwrap();
                match float_literal(e, as_float) {
                    Some(b) => Ok(Src::Imm(b)),
                    None => terr(loc, format!("expected a floating-point constant for `.{ty}`")),
                }
            }
            Kind::Float(_) => match float_literal(e, ty) {
                Some(b) => Ok(Src::Imm(b)),
                None if ty.bits() <= 16 => terr(loc, format!("`.{ty}` operands take registers, not constants")),
                None => terr(
                    loc,
                    format!("expected a floating-point constant (`0f...`, `0d...` or `1.5`) for `.{ty}`"),
                ),
            },
            Kind::Pred => match const_int(e) {
                Some(v) => Ok(Src::Imm((v != 0) as u64)),
                None => terr(loc, "expected a predicate"),
            },
            _ => {
                if contains_float(e) {
                    return terr(loc, format!("a floating-point constant cannot be a `.{ty}` operand"));
                }
                match const_int(e) {
                    Some(v) => Ok(Src::Imm(v as u64 & mask(ty.bits()))),
                    None => terr(loc, "not a constant expression (a name in it is not a constant)"),
                }
            }
        }
    }

    /// A destination register of instruction type `ty`.
    pub(super) fn dst(&self, o: &Operand, ty: Type, relaxed: bool, loc: Loc) -> Result<Dst> {
        match o {
            Operand::Sink => Ok(Dst::SINK),
            Operand::Expr(Expr::Name(n)) => {
                let (slot, rty) = self.reg(n, loc)?;
                let sext = agree(ty, rty, relaxed).map_err(|why| mismatch(loc, n, why))?;
                Ok(Dst {
                    slot,
                    bits: if rty.kind == Kind::Pred { 1 } else { rty.bits() as u8 },
                    sext,
                })
            }
            _ => terr(loc, format!("expected a destination register of type `.{ty}`")),
        }
    }

    /// An address operand `[...]`: a register or variable plus an offset, or an immediate; the
    /// space of the variable it names.
    pub(super) fn addr(&self, o: &Operand, loc: Loc) -> Result<(Addr, Option<Space>)> {
        let Operand::Address(e) = o else {
            return terr(loc, "expected an address `[...]`");
        };
        let (base, off) = match e {
            Expr::Binary(op, a, b) if op == "+" || op == "-" => match (&**a, const_int(b)) {
                (Expr::Name(n), Some(k)) => (Some(n.as_str()), if op == "+" { k } else { k.wrapping_neg() }),
                _ => match (const_int(a), &**b) {
                    (Some(k), Expr::Name(n)) if op == "+" => (Some(n.as_str()), k),
                    _ => (
                        None,
                        const_int(e).ok_or_else(|| {
                            CheckError::invalid(loc, "address must be `[reg]`, `[reg+imm]`, `[var+imm]` or `[imm]`")
                        })?,
                    ),
                },
            },
            Expr::Name(n) => (Some(n.as_str()), 0),
            _ => (
                None,
                const_int(e).ok_or_else(|| {
                    CheckError::invalid(loc, "address must be `[reg]`, `[reg+imm]`, `[var+imm]` or `[imm]`")
                })?,
            ),
        };
        let Some(n) = base else {
            return Ok((Addr::Abs(off as u64), None));
        };
        match self.lookup(n) {
            Some(Sym::Reg { slot, ty }) => {
                if ty.kind == Kind::Pred || ty.bits() < 16 || matches!(ty.kind, Kind::Float(_)) {
                    return terr(
                        loc,
                        format!("address register `{n}` must be a 16-, 32- or 64-bit integer, not `.{ty}`"),
                    );
                }
                Ok((Addr::Reg(*slot, off), None))
            }
            Some(Sym::Var { space, addr, .. }) => Ok((Addr::Abs(addr.wrapping_add(off as u64)), Some(*space))),
            Some(Sym::FrameVar { space, off: o, .. }) => Ok((Addr::Frame(*o, off), Some(*space))),
            Some(_) => terr(loc, format!("`{n}` is not a register or variable")),
            None => terr(loc, format!("`{n}` is not declared")),
        }
    }

    /// A variable used in an address must live in the instruction's space (a generic access to
    /// a named variable takes its generic address instead).
    pub(super) fn check_space(&self, space: Space, sym: Option<Space>, loc: Loc) -> Result<Space> {
        match (space, sym) {
            (s, Some(v)) if s == v => Ok(s),
            // A `.shared` variable's address is a `.shared::cluster` one too (L1290): the
            // executing CTA's variable.
            (Space::SharedCluster, Some(Space::Shared)) => Ok(Space::SharedCluster),
            // ptxas 12.9 names `.global` and `.shared` variables in generic accesses, not
            // `.const` ones ("State space mismatch"), nor `.param` ones.
            (Space::Generic, Some(Space::Global | Space::Shared)) => Ok(Space::Generic),
            // A `.local` variable too (`ld.u32 d, [lbuf]`, `st.mmio... [lbuf]`): the access is the
            // `.local` one at that offset, which is where the generic address would land.
            (Space::Generic, Some(Space::Local)) => Ok(Space::Local),
            (Space::Generic, Some(v)) => terr(
                loc,
                format!(
                    "a generic access cannot name the `.{}` variable directly; use `cvta` first",
                    v.name()
                ),
            ),
            (s, Some(v)) => terr(
                loc,
                format!(
                    "the variable is in `.{}`, but the instruction accesses `.{}`",
                    v.name(),
                    s.name()
                ),
            ),
            (s, None) => Ok(s),
        }
    }
}

/// The error for register `name` of a type the instruction does not take.
fn mismatch(loc: Loc, name: &str, why: Mismatch) -> CheckError {
    CheckError {
        loc,
        what: What::Mismatch {
            name: name.to_string(),
            why,
        },
    }
}

/// ptxas 12.9: "Immediate addresses allowed only for .local state space" (the manual lists
/// `[immAddr]` for every space, L3100); a variable's address is no immediate.
pub(super) fn immediate_address_ok(addr: Addr, sym: Option<Space>, space: Space, loc: Loc) -> Result<()> {
    if matches!(addr, Addr::Abs(_)) && sym.is_none() && space != Space::Local {
        return terr(
            loc,
            format!(
                "an immediate address `[imm]` is allowed only for `.local`, not `.{}` (ptxas 12.9)",
                space.name()
            ),
        );
    }
    Ok(())
}
