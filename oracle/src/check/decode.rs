//! The decoders of the operational instructions, each from an instruction and the form it names
//! to the [`Op`] the interpreter runs: address `mov`, `ld`, `st`, `atom`/`red`, `cvta`,
//! `isspacep`, `brx`, `call`, `bar`/`barrier`.

use super::body::FuncCx;
use super::consts::{addr_name, addr_name_off, const_int};
use super::errors::{terr, CheckError, NotExecuted, Result, What};
use super::layout::{bits_type, mem_ty, space_named, space_of, vector_count, wide_as_halves};
use super::operands::Site;
use super::symbols::Sym;
use super::Grammar;
use crate::ast::{Expr, Instr, Operand};
use crate::mem;
use crate::program::*;
use spec::catalog::{rules, Exec, Form};
use spec::matrix::Which;
use spec::types::{Kind, Type};

impl FuncCx<'_> {
    /// `mov.u64 %rd, var` / `mov.u64 %rd, func`: an address, not a register value.
    pub(super) fn is_address_mov(&self, i: &Instr) -> bool {
        matches!(&i.operands[..], [_, Operand::Expr(e)] if addr_name(e).is_some_and(|n| matches!(self.lookup(n), Some(Sym::Var { .. } | Sym::FrameVar { .. } | Sym::Func(_)))))
    }

    /// `mov` of a variable's or function's address (plus a constant): the address as an
    /// immediate, or the frame offset of a `.local`/`.param` variable of the activation.
    pub(super) fn mov_address(&self, i: &Instr, form: &Form) -> Result<Op> {
        let loc = i.loc;
        let ty = form.outputs[0].ty;
        let [d, Operand::Expr(e)] = &i.operands[..] else {
            unreachable!()
        };
        let d = self.dst(d, ty, false, loc)?;
        let (n, off) = addr_name_off(e).ok_or_else(|| CheckError::invalid(loc, "bad address expression"))?;
        // ptxas 12.9 takes 32-bit addresses of `.shared`/`.const`/`.local`/`.param` variables
        // and of functions, not of a `.global` variable, in a 64-bit module (`gbuf+4` it takes:
        // a constant expression to it).
        if ty.bits() < 64
            && off == 0
            && matches!(
                self.lookup(n),
                Some(Sym::Var {
                    space: Space::Global,
                    ..
                })
            )
        {
            return terr(
                loc,
                format!("the address of `{n}` does not fit {} bits in a 64-bit module (ptxas 12.9: 32-bit compilation is no longer supported)", ty.bits()),
            );
        }
        let a = match self.lookup(n) {
            Some(Sym::Var { addr, .. }) => Src::Imm(addr.wrapping_add(off as u64)),
            Some(Sym::Func(f)) => Src::Imm(mem::FUNC_BASE + 16 * *f as u64),
            Some(Sym::FrameVar { off: o, .. }) => {
                if off != 0 {
                    return Ok(Op::Fast {
                        f: crate::fast::add64,
                        d,
                        a: Src::Frame(*o),
                        b: Src::Imm(off as u64),
                        c: Src::Imm(0),
                    });
                }
                Src::Frame(*o)
            }
            _ => unreachable!("checked by is_address_mov"),
        };
        Ok(Op::Fast {
            f: crate::fast::mov,
            d,
            a,
            b: Src::Imm(0),
            c: Src::Imm(0),
        })
    }

    /// A plain load: `ld{.ss}{.vN}.t d, [a]{, policy}`.
    pub(super) fn ld(&self, i: &Instr, form: &Form) -> Result<Op> {
        let loc = i.loc;
        let ty = mem_ty(form);
        let n = vector_count(form);
        let (d, a) = match &i.operands[..] {
            [d, a] => (d, a),
            [d, a, _] => {
                cache_policy_hinted(i)?;
                (d, a)
            }
            _ => return terr(loc, "`ld` takes a destination and an address"),
        };
        let dsts = self
            .elements(d, n, loc)?
            .into_iter()
            .map(|o| self.dst(&o, ty, true, loc))
            .collect::<Result<Vec<_>>>()?;
        let (dsts, ty) = wide_as_halves(dsts, ty, |d| {
            [
                Dst { bits: 64, ..d },
                Dst {
                    slot: d.slot + 1,
                    bits: 64,
                    ..d
                },
            ]
        });
        let (addr, space) = self.mem_addr(a, form, loc)?;
        Ok(Op::Ld {
            space,
            ty: MemTy {
                bytes: (ty.bits() / 8) as u8,
                signed: ty.kind == Kind::Signed,
            },
            dsts,
            addr,
        })
    }

    /// A plain store: `st{.ss}{.vN}.t [a], b{, policy}` (not into `.const` or a kernel's
    /// parameters).
    pub(super) fn st(&self, i: &Instr, form: &Form) -> Result<Op> {
        let loc = i.loc;
        let at = Site::of(i);
        let ty = mem_ty(form);
        let n = vector_count(form);
        let (a, s) = match &i.operands[..] {
            [a, s] => (a, s),
            [a, s, _] => {
                cache_policy_hinted(i)?;
                (a, s)
            }
            _ => return terr(loc, "`st` takes an address and a source"),
        };
        let srcs = self
            .elements(s, n, loc)?
            .into_iter()
            .map(|o| self.src(&o, ty, true, at))
            .collect::<Result<Vec<_>>>()?;
        let (srcs, ty) = wide_as_halves(srcs, ty, |s| match s {
            Src::Reg(r) => [Src::Reg(r), Src::Reg(r + 1)],
            other => [other, Src::Imm(0)],
        });
        let (addr, space) = self.mem_addr(a, form, loc)?;
        if space == Space::Const {
            return terr(loc, "`.const` memory is read-only");
        }
        if space == Space::Param && matches!(addr, Addr::Abs(x) if x >= mem::KPARAM) {
            return terr(
                loc,
                "kernel parameters are read-only (§5.1.6.1: `st.param` writes a function's parameters)",
            );
        }
        Ok(Op::St {
            space,
            bytes: (ty.bits() / 8) as u8,
            srcs,
            addr,
        })
    }

    /// `atom{.sem}{.scope}{.space}.op.type d, [a], b{, c}` and `red ... [a], b`.
    pub(super) fn atom(&self, i: &Instr, form: &Form) -> Result<Op> {
        let loc = i.loc;
        let at = Site::of(i);
        let Some(op) = spec::atom::AtomOp::of(form) else {
            self.shape(i, form)?;
            return Err(CheckError {
                loc,
                what: What::NotExecuted(NotExecuted::Form(form.name.clone())),
            });
        };
        let ty = op.ty();
        let n = op.lanes() as usize;
        let ops = &i.operands[..];
        let (d, rest) = if op.is_red() {
            (None, ops)
        } else {
            match ops.split_first() {
                Some((d, rest)) => (Some(d), rest),
                None => return terr(loc, "`atom` takes a destination, an address and operands"),
            }
        };
        let want_c = op.op() == spec::atom::Op::Cas;
        let (a, b, c, policy) = match (rest, want_c) {
            ([a, b], false) => (a, b, None, None),
            ([a, b, p], false) => (a, b, None, Some(p)),
            ([a, b, c], true) => (a, b, Some(c), None),
            ([a, b, c, p], true) => (a, b, Some(c), Some(p)),
            _ => return terr(loc, format!("wrong number of operands for `{}`", form.name)),
        };
        // The cache policy (a 64-bit register or constant) goes with `.L2::cache_hint`; it is a
        // hint, with no effect on the result.
        if let Some(p) = policy {
            cache_policy_hinted(i)?;
            self.src(p, Type::parse("b64").unwrap(), false, at)?;
        }
        let d = match d {
            // A discarded result: `_` stands for the whole vector (ptxas 12.9 takes
            // `atom.global.v2.f32.add _, [a], {b0, b1}`).
            Some(Operand::Sink) => vec![Dst::SINK; n],
            Some(d) => self
                .elements(d, n, loc)?
                .into_iter()
                .map(|o| self.dst(&o, ty, false, loc))
                .collect::<Result<_>>()?,
            None => Vec::new(),
        };
        let b = self
            .elements(b, n, loc)?
            .into_iter()
            .map(|o| self.src(&o, ty, false, at))
            .collect::<Result<_>>()?;
        let c = match c {
            Some(c) => vec![self.src(c, ty, false, at)?],
            None => vec![Src::Imm(0)],
        };
        // `.b128` (`exch`, `cas`): each operand as its register's two halves, low first.
        let (d, _) = wide_as_halves(d, ty, |d| {
            if d == Dst::SINK {
                return [Dst::SINK; 2];
            }
            [
                Dst { bits: 64, ..d },
                Dst {
                    slot: d.slot + 1,
                    bits: 64,
                    ..d
                },
            ]
        });
        let src_halves = |s| match s {
            Src::Reg(r) => [Src::Reg(r), Src::Reg(r + 1)],
            other => [other, Src::Imm(0)],
        };
        let (b, _) = wide_as_halves(b, ty, src_halves);
        let (c, _) = wide_as_halves(c, ty, src_halves);
        let (addr, space) = self.mem_addr(a, form, loc)?;
        if self.ck.grammar == Grammar::Ptxas && rules::cache_hint(&i.mods) {
            self.hint_refused(i, op.op() == spec::atom::Op::Cas, space)?;
        }
        Ok(Op::Atom {
            op,
            space,
            d,
            addr,
            b,
            c,
        })
    }

    /// Where ptxas 12.9 refuses the manual's `.L2::cache_hint` on `atom`/`red`
    /// (corpus/findings/ptxas-12.9-atom-disagreements.txt): on a `.shared` address in any of its
    /// spellings, and on `cas` (the manual's `.cas.b128` takes a cache-policy operand, L17386).
    /// A launch asking for the manual's grammar takes them.
    fn hint_refused(&self, i: &Instr, cas: bool, space: Space) -> Result<()> {
        let shared = i
            .mods
            .iter()
            .find(|m| m.starts_with("shared"))
            .filter(|_| matches!(space, Space::Shared | Space::SharedCluster));
        let why = match (shared, cas) {
            (Some(ss), _) => format!("Modifier '.L2::cache_hint' cannot be applied to '.{ss}' space"),
            (None, true) => "Illegal modifier '.L2::cache_hint'".to_string(),
            (None, false) => return Ok(()),
        };
        terr(
            i.loc,
            format!(
                "ptxas 12.9 refuses this hint the manual's grammar allows: \"{why}\" \
                 (corpus/findings/ptxas-12.9-atom-disagreements.txt; a launch with `\"grammar\": \"manual\"` accepts it)"
            ),
        )
    }

    /// `cvta{.to}.space.size d, a`: an address converted to or from generic.
    pub(super) fn cvta(&self, i: &Instr, form: &Form) -> Result<Op> {
        let loc = i.loc;
        let at = Site::of(i);
        let space = space_of(form);
        let to_generic = !i.mods.iter().any(|m| m == "to");
        let ty = form.outputs[0].ty;
        let [d, a] = &i.operands[..] else {
            return terr(loc, "`cvta` takes a destination and a source");
        };
        if ty.bits() < 64 {
            return terr(
                loc,
                "`cvta` with 32-bit addresses: ptxas 12.9 refuses 32-bit addresses in 64-bit modules (\"32-Bit compilation is no longer supported\")",
            );
        }
        let d = self.dst(d, ty, false, loc)?;
        // A variable operand must live in the space converted from (ptxas: "State space
        // mismatch").
        // (`cvta.to.space d, var+k` takes the sum as a generic address; `cvta.space d, var+k`
        // wants `var` in `.space` too: "State space mismatch".)
        if let Operand::Expr(e) = a {
            let bare = matches!(e, Expr::Name(_));
            let var_space = addr_name(e).and_then(|n| match self.lookup(n) {
                Some(Sym::Var { space, .. } | Sym::FrameVar { space, .. }) => Some(*space),
                _ => None,
            });
            if let Some(v) = var_space {
                // (A `.shared` variable converts with `.shared::cluster` too: its address is
                // in that window, L1290.)
                let same = v == space || (v, space) == (Space::Shared, Space::SharedCluster);
                if to_generic && !same || !to_generic && bare {
                    return terr(
                        loc,
                        format!(
                            "`cvta{}.{}` cannot take the `.{}` variable `{}`",
                            if to_generic { "" } else { ".to" },
                            space.name(),
                            v.name(),
                            addr_name(e).unwrap_or("")
                        ),
                    );
                }
            }
        }
        // `cvta.local.u64 %rd, var` converts a variable's address (`var+k` is an immediate,
        // `src` takes it: the offset used to be dropped here).
        let a = match a {
            Operand::Expr(e @ Expr::Name(_))
                if addr_name(e)
                    .is_some_and(|n| matches!(self.lookup(n), Some(Sym::Var { .. } | Sym::FrameVar { .. }))) =>
            {
                match self.lookup(addr_name(e).unwrap()) {
                    Some(Sym::Var { addr, .. }) => Src::Imm(*addr),
                    Some(Sym::FrameVar { off, .. }) => Src::Frame(*off),
                    _ => unreachable!(),
                }
            }
            // ptxas 12.9 takes a function's name too in `cvta.to` (`cvta.to.shared::cta.u64 d,
            // f`): its address, as `mov` gives it (`cvta.shared d, f`: "State space mismatch").
            Operand::Expr(Expr::Name(n)) if !to_generic && matches!(self.lookup(n), Some(Sym::Func(_))) => {
                match self.lookup(n) {
                    Some(Sym::Func(f)) => Src::Imm(mem::FUNC_BASE + 16 * *f as u64),
                    _ => unreachable!(),
                }
            }
            a => self.src(a, ty, false, at)?,
        };
        Ok(Op::Cvta {
            space,
            to_generic,
            d,
            a,
        })
    }

    /// `isspacep.space p, a`: whether a generic address is in a space.
    pub(super) fn isspacep(&self, i: &Instr, form: &Form) -> Result<Op> {
        let loc = i.loc;
        let at = Site::of(i);
        let space = space_of(form);
        let [d, a] = &i.operands[..] else {
            return terr(loc, "`isspacep` takes a predicate and an address");
        };
        // `a` is a `.u32` or `.u64` address (L13476): a 32-bit register is taken zero-extended
        // (ptxas 12.9 takes it in a 64-bit module too).
        let narrow = matches!(a, Operand::Expr(Expr::Name(n)) if matches!(self.lookup(n), Some(Sym::Reg { ty, .. }) if ty.bits() == 32));
        let aty = Type::parse(if narrow { "u32" } else { "u64" }).unwrap();
        Ok(Op::Isspacep {
            space,
            d: self.dst(d, Type::parse("pred").unwrap(), false, loc)?,
            a: self.src(a, aty, false, at)?,
        })
    }

    /// `brx.idx index, targets`: an indirect branch through a `.branchtargets` list.
    pub(super) fn brx(&self, i: &Instr) -> Result<Op> {
        let loc = i.loc;
        let at = Site::of(i);
        let [idx, Operand::Expr(Expr::Name(t))] = &i.operands[..] else {
            return terr(loc, "`brx.idx` takes an index and a `.branchtargets` label");
        };
        let index = self.src(idx, Type::parse("u32").unwrap(), false, at)?;
        let Some(Sym::Targets(names)) = self.lookup(t) else {
            return terr(loc, format!("`{t}` is not a `.branchtargets` list"));
        };
        let mut targets = Vec::new();
        for n in names {
            match self.resolve_label(n) {
                Some((_, pc)) => targets.push(pc),
                None => return terr(loc, format!("branch target `{n}` is not a label of this function")),
            }
        }
        Ok(Op::Brx { index, targets })
    }

    /// `call{.uni} (rets), f, (args) {, proto}`: a direct call, or an indirect one through a
    /// `.callprototype`.
    pub(super) fn call(&self, i: &Instr) -> Result<Op> {
        let loc = i.loc;
        let at = Site::of(i);
        // call{.uni} (rets), f, (args) [, proto-or-targets]
        let mut ops = &i.operands[..];
        let mut ret_list: &[Operand] = &[];
        if let Some(Operand::List(r)) = ops.first() {
            ret_list = r;
            ops = &ops[1..];
        }
        let Some(Operand::Expr(fexpr)) = ops.first() else {
            return terr(loc, "`call` needs a function name or address");
        };
        ops = &ops[1..];
        let mut arg_list: &[Operand] = &[];
        if let Some(Operand::List(a)) = ops.first() {
            arg_list = a;
            ops = &ops[1..];
        }
        let (callee, psizes, rsizes) = match fexpr {
            Expr::Name(n) if matches!(self.lookup(n), Some(Sym::Func(_))) => {
                let Some(Sym::Func(f)) = self.lookup(n) else {
                    unreachable!()
                };
                let func = &self.ck.funcs[*f as usize];
                if func.entry {
                    return terr(loc, format!("`{n}` is a kernel (`.entry`); only `.func` can be called"));
                }
                let ps: Vec<u32> = func.params.iter().map(|p| p.1).collect();
                let rs: Vec<u32> = func.rets.iter().map(|p| p.1).collect();
                (Callee::Direct(*f), ps, rs)
            }
            e => {
                let fptr = self.src(&Operand::Expr(e.clone()), Type::parse("u64").unwrap(), false, at)?;
                let (params, rets) = match ops.first() {
                    Some(Operand::Expr(Expr::Name(p))) => match self.lookup(p) {
                        Some(Sym::Proto { params, rets }) => (params.clone(), rets.clone()),
                        Some(Sym::Targets(_)) => {
                            return terr(loc, "indirect calls through `.calltargets` are not supported by the oracle yet; use a `.callprototype`")
                        }
                        _ => return terr(loc, format!("`{p}` is not a `.callprototype`")),
                    },
                    _ => return terr(loc, "an indirect call needs a `.callprototype` label as its last operand"),
                };
                (
                    Callee::Indirect {
                        fptr,
                        params: params.clone(),
                        rets: rets.clone(),
                    },
                    params,
                    rets,
                )
            }
        };
        if arg_list.len() != psizes.len() {
            return terr(
                loc,
                format!(
                    "the callee takes {} parameters; the call passes {}",
                    psizes.len(),
                    arg_list.len()
                ),
            );
        }
        if ret_list.len() != rsizes.len() {
            return terr(
                loc,
                format!(
                    "the callee returns {} values; the call receives {}",
                    rsizes.len(),
                    ret_list.len()
                ),
            );
        }
        let mut args = Vec::new();
        for (a, &size) in arg_list.iter().zip(&psizes) {
            args.push(match self.param_var(a) {
                Some((_, off, s)) if s == size => Arg::Frame(off, size),
                Some((n, _, s)) => return terr(loc, format!("argument `{n}` has {s} bytes; the parameter has {size}")),
                None => match bits_type(size) {
                    Some(ty) => Arg::Val(self.src(a, ty, false, at)?),
                    None => {
                        return terr(
                            loc,
                            format!("a {size}-byte parameter must be passed in a `.param` variable"),
                        )
                    }
                },
            });
        }
        let mut rets = Vec::new();
        for (r, &size) in ret_list.iter().zip(&rsizes) {
            rets.push(match self.param_var(r) {
                Some((_, off, s)) if s == size => RetTo::Frame(off, size),
                Some((n, _, s)) => {
                    return terr(
                        loc,
                        format!("return variable `{n}` has {s} bytes; the callee returns {size}"),
                    )
                }
                None => match bits_type(size) {
                    Some(ty) => RetTo::Reg(self.dst(r, ty, false, loc)?),
                    None => {
                        return terr(
                            loc,
                            format!("a {size}-byte return value must go to a `.param` variable"),
                        )
                    }
                },
            });
        }
        Ok(Op::Call { callee, args, rets })
    }

    /// `bar`/`barrier` (`.sync`, `.arrive`, `.red.popc/.and/.or`): barrier, thread count and
    /// predicate checked as far as constants allow (L17006-17010).
    pub(super) fn bar(&self, i: &Instr, form: &Form) -> Result<Op> {
        let loc = i.loc;
        let at = Site::of(i);
        let op = if form.has("sync") {
            BarOp::Sync
        } else if form.has("arrive") {
            BarOp::Arrive
        } else if form.has("popc") {
            BarOp::RedPopc
        } else if form.has("and") {
            BarOp::RedAnd
        } else {
            BarOp::RedOr
        };
        let u32t = Type::parse("u32").unwrap();
        let ops = &i.operands[..];
        let (d, rest) = match op {
            BarOp::RedPopc => (Some(self.dst(&ops[0], u32t, false, loc)?), &ops[1..]),
            BarOp::RedAnd | BarOp::RedOr => (
                Some(self.dst(&ops[0], Type::parse("pred").unwrap(), false, loc)?),
                &ops[1..],
            ),
            _ => (None, ops),
        };
        let is_red = d.is_some();
        let (id, count, pred) = match (rest, is_red) {
            ([a], false) => (a, None, None),
            ([a, b], false) => (a, Some(b), None),
            ([a, c], true) => (a, None, Some(c)),
            ([a, b, c], true) => (a, Some(b), Some(c)),
            _ => return terr(loc, format!("wrong number of operands for `{}`", form.name)),
        };
        let pred = match pred {
            Some(Operand::Not(p)) => Some((Src::Reg(self.pred(p, loc)?), true)),
            Some(p) => Some((self.src(p, Type::parse("pred").unwrap(), false, at)?, false)),
            None => None,
        };
        let id = self.src(id, u32t, false, at)?;
        if matches!(id, Src::Imm(b) if b >= 16) {
            return terr(loc, "barriers are numbered 0 to 15 (L17006)");
        }
        let count = count.map(|c| self.src(c, u32t, false, at)).transpose()?;
        // "When a thread count is given, it must be a multiple of the warp size" (L17010); a
        // constant one is refused when written (ptxas 12.9), a register one at run time.
        if matches!(count, Some(Src::Imm(b)) if b % 32 != 0) {
            return terr(
                loc,
                "the thread count of a barrier must be a multiple of the warp size (L17010)",
            );
        }
        Ok(Op::Bar { op, id, count, pred, d })
    }
}

impl FuncCx<'_> {
    /// `cp.async` (§9.7.9.25.3.1, L14246-14330): `[dst], [src], cp-size{, src-size |
    /// ignore-src}{, cache-policy}`. The operands are first checked as the catalog writes them
    /// (`shape`, against each form of the name: the src-size and ignore-src forms); then `dst`
    /// is a `.shared` and `src` a `.global` address, cp-size 4, 8 or 16 (16 with `.cg`, L14257),
    /// src-size a constant at most cp-size or a register, read when the copy is made.
    pub(super) fn cp_async(&self, i: &Instr, avail: &[&'static Form]) -> Result<Op> {
        let loc = i.loc;
        let at = Site::of(i);
        // The src-size and ignore-src forms share the name: a predicate (or `!p`) after cp-size
        // is ignore-src, a constant is src-size (ignore-src is a "non-immediate predicate",
        // L14283; ptxas 12.9 range-checks a constant as src-size), and for another register
        // (src-size, or the cache policy) the src-size form is tried first.
        let ignore_form = |f: &&'static Form| f.inputs.iter().any(|o| o.name == "ignore_src");
        let mut order: Vec<&'static Form> = avail.to_vec();
        match i.operands.get(3) {
            Some(Operand::Not(_)) => order.retain(ignore_form),
            Some(Operand::Expr(Expr::Name(n))) if matches!(self.lookup(n), Some(Sym::Reg { ty, .. }) if ty.kind == Kind::Pred) => {
                order.retain(ignore_form)
            }
            Some(Operand::Expr(Expr::Int { .. })) => order.retain(|f| !ignore_form(f)),
            _ => order.sort_by_key(ignore_form),
        }
        // As `value` picks among a name's forms: the first that takes the operands, else the
        // error of a form whose operand count fits before one whose does not.
        let mut errs = Vec::new();
        let mut form = None;
        for f in order {
            match self.shape(i, f) {
                Ok(()) => {
                    form = Some(f);
                    break;
                }
                Err(e) => errs.push((if self.fits(i, f) { 1 } else { 2 }, e)),
            }
        }
        let Some(form) = form else {
            let e = errs.into_iter().min_by_key(|(rank, _)| *rank).map(|(_, e)| e);
            return Err(e.unwrap_or_else(|| CheckError::invalid(loc, "`cp.async` has no form here")));
        };
        let ops = &i.operands[..];
        let (dst, _) = self.mem_addr_in(&ops[0], space_named(form.var("dst").unwrap_or("shared")), loc)?;
        let (src, _) = self.mem_addr_in(&ops[1], space_named(form.var("src").unwrap_or("global")), loc)?;
        let size = match &ops[2] {
            Operand::Expr(e) => const_int(e),
            _ => None,
        };
        let size = match size {
            Some(n @ (4 | 8 | 16)) if n == 16 || !form.has("cg") => n as u8,
            Some(n) if form.has("cg") => {
                return terr(loc, format!("`cp.async.cg` copies 16 bytes, not {n} (L14257)"));
            }
            _ => return terr(loc, "`cp.async`'s cp-size is the constant 4, 8 or 16 (L14267)"),
        };
        let u32t = Type::parse("u32").unwrap();
        let pred = Type::parse("pred").unwrap();
        let mut src_size = None;
        let mut ignore = None;
        let mut rest = ops[3..].iter();
        let takes = |name: &str| form.inputs.iter().any(|o| o.name == name);
        let extra = if takes("cache_policy") && rules::cache_hint(&i.mods) {
            1
        } else {
            0
        };
        if ops.len() > 3 + extra {
            let o = rest.next().expect("counted");
            if takes("src_size") {
                let n = self.src(o, u32t, false, at)?;
                if let Src::Imm(k) = n {
                    if k > size as u64 {
                        // L14281: a src-size larger than cp-size is undefined.
                        return terr(
                            loc,
                            format!("`cp.async`'s src-size {k} exceeds its cp-size {size} (undefined, L14281)"),
                        );
                    }
                }
                src_size = Some(n);
            } else {
                ignore = Some(match o {
                    Operand::Not(p) => (Src::Reg(self.pred(p, loc)?), true),
                    p => (self.src(p, pred, false, at)?, false),
                });
            }
        }
        if let Some(o) = rest.next() {
            cache_policy_hinted(i)?;
            self.src(o, Type::parse("b64").unwrap(), false, at)?;
        }
        Ok(Op::CpAsync {
            dst,
            src,
            size,
            src_size,
            ignore,
        })
    }

    /// The warp-wide matrix instructions (§9.7.14.5.14-17): operands checked as the catalog
    /// writes them (`shape`), then each fragment's registers, as many as the catalog's fragment
    /// length, of `.f64` for f64 fragments and `.b32` otherwise. A form whose layout or numerics
    /// the spec does not cover yet is decoded as not executed.
    pub(super) fn matrix(&self, i: &Instr, form: &'static Form, exec: Exec) -> Result<Op> {
        let loc = i.loc;
        let at = Site::of(i);
        self.shape(i, form)?;
        let not_yet = |why: String| -> Result<Op> {
            Ok(Op::Unsupported {
                message: format!(
                    "`{}` is valid PTX, but the oracle does not execute it yet ({why})",
                    form.name
                ),
            })
        };
        // Block-scaled `mma` (§9.7.14.3): its own operands (the scale data and selectors).
        if let Some(op) = spec::tensor::scaled::ScaledOp::of_form(form) {
            return self.mma_block_scale(i, form, op);
        }
        let op = match (exec, form.mods.first().copied()) {
            (Exec::Wmma, Some("load")) => MatrixOp::WmmaLoad,
            (Exec::Wmma, Some("store")) => MatrixOp::WmmaStore,
            // `mma.sp` (§9.7.14.6): as `mma`, with the form's sparsity.
            (Exec::Mma, _) if form.var("sp").is_some() => match Self::sparse_mma(&self.ck.target.to_string(), form) {
                Ok(op) => op,
                Err(why) => return not_yet(why),
            },
            // `mma` and `wmma.mma`: the numerics of the target, and the four fragment layouts,
            // found once here rather than at every execution.
            (Exec::Mma | Exec::Wmma, _) => {
                let arch = spec::tensor::Arch::from_target(&self.ck.target.to_string());
                let Some(op) = arch.and_then(|a| spec::tensor::MmaOp::of_form(form, a)) else {
                    return not_yet("its numerics".into());
                };
                let mut layouts = Vec::new();
                for w in [Which::A, Which::B, Which::C, Which::D] {
                    match spec::matrix::layout(form, w) {
                        Ok(l) => layouts.push(l),
                        Err(e) => return not_yet(e.to_string()),
                    }
                }
                let [a, b, c, d] = layouts[..] else {
                    unreachable!("four layouts")
                };
                MatrixOp::Mma {
                    op,
                    layouts: Box::new([a, b, c, d]),
                }
            }
            (Exec::Ldmatrix, _) => MatrixOp::Ldmatrix,
            (Exec::Stmatrix, _) => MatrixOp::Stmatrix,
            _ => MatrixOp::Movmatrix,
        };
        // The layout of a `wmma.load`/`wmma.store` fragment must be known before it runs.
        for o in form.outputs.iter().chain(&form.inputs) {
            if o.group.is_some() && matches!(op, MatrixOp::WmmaLoad | MatrixOp::WmmaStore) {
                if let Err(e) = spec::matrix::layout::of_operand(form, o) {
                    return not_yet(e.to_string());
                }
            }
        }
        // `.m8n8.b16` ([`spec::matrix::Access`]) or an sm_100a shape ([`spec::matrix::wide`]).
        if matches!(op, MatrixOp::Ldmatrix | MatrixOp::Stmatrix) && spec::matrix::wide::WideAccess::of(form).is_err() {
            if let Err(e) = spec::matrix::Access::of(form) {
                return not_yet(e.to_string());
            }
        }
        if matches!(op, MatrixOp::WmmaLoad | MatrixOp::WmmaStore) {
            if let Err(e) = spec::matrix::WmmaAccess::of(form) {
                return not_yet(e.to_string());
            }
        }
        let reg_ty = |o: &spec::catalog::Operand| {
            if o.ty.bits() == 64 {
                Type::parse("f64").unwrap()
            } else {
                Type::parse("b32").unwrap()
            }
        };
        let len = |o: &spec::catalog::Operand| spec::catalog::fragment::length(form, o).unwrap_or(1);
        let ops = &i.operands[..];
        let mut dsts = Vec::new();
        let mut srcs = Vec::new();
        let mut addr = None;
        let mut k = 0;
        for o in &form.outputs {
            let Some(w) = ops.get(k) else {
                return terr(loc, format!("`{}` needs a `{}` operand", form.name, o.name));
            };
            for e in self.elements(w, len(o), loc)? {
                dsts.push(self.dst(&e, reg_ty(o), false, loc)?);
            }
            k += 1;
        }
        for o in &form.inputs {
            let Some(w) = ops.get(k) else {
                if o.optional {
                    break;
                }
                return terr(loc, format!("`{}` needs a `{}` operand", form.name, o.name));
            };
            if matches!(w, Operand::Address(_)) {
                addr = Some(self.mem_addr(w, form, loc)?);
            } else {
                let mut v = Vec::new();
                for e in self.elements(w, len(o), loc)? {
                    v.push(self.src(&e, reg_ty(o), false, at)?);
                }
                srcs.push(v);
            }
            k += 1;
        }
        Ok(Op::Matrix {
            op,
            form,
            dsts,
            srcs,
            addr,
        })
    }

    /// `mma.sp{::ordered_metadata}` (§9.7.14.6): the dense K's numerics on the target
    /// ([`spec::tensor::MmaOp::of_form`] reads the instruction's M×N×K, K being the dense one),
    /// the four fragment layouts (A compressed) and the sparsity of the form; `Err` says why a
    /// form is not executed yet (the block-scaled ones have their own decoding,
    /// [`Self::mma_block_scale`]).
    fn sparse_mma(target: &str, form: &'static Form) -> std::result::Result<MatrixOp, String> {
        let arch = spec::tensor::Arch::from_target(target);
        let op = arch
            .and_then(|a| spec::tensor::MmaOp::of_form(form, a))
            .ok_or_else(|| "its numerics".to_string())?;
        let sparsity = spec::matrix::sparsity(form).map_err(|e| e.to_string())?;
        let layout = |w| spec::matrix::layout(form, w).map_err(|e| e.to_string());
        let layouts = Box::new([
            layout(Which::A)?,
            layout(Which::B)?,
            layout(Which::C)?,
            layout(Which::D)?,
        ]);
        Ok(MatrixOp::MmaSp { op, layouts, sparsity })
    }

    /// Block-scaled `mma.sync` (§9.7.14.3, L22842-22859): `d, a, b, c` as the dense forms'
    /// fragments, then `scale-a-data` (`.b32`), `{byte-id-a, thread-id-a}` (u16 registers or
    /// constants), `scale-b-data`, `{byte-id-b, thread-id-b}` (L22900). The selectors' values
    /// are checked against Table 36 when the warp executes it (they may be registers).
    ///
    /// `mma.sp::ordered_metadata` with `.block_scale` (§9.7.14.6.3, L24431-24449) writes the
    /// metadata `e` and the sparsity selector `f` between `c` and `scale-a-data` (`d, a, b, c,
    /// e, f, scale-a-data, ...`; ptxas 12.9 takes this order and no other); they are decoded
    /// as plain `mma.sp`'s and kept after the selectors.
    fn mma_block_scale(&self, i: &Instr, form: &'static Form, op: spec::tensor::scaled::ScaledOp) -> Result<Op> {
        let loc = i.loc;
        let at = Site::of(i);
        let not_yet = |e: &dyn std::fmt::Display| {
            Ok(Op::Unsupported {
                message: format!(
                    "`{}` is valid PTX, but the oracle does not execute it yet ({e})",
                    form.name
                ),
            })
        };
        let sparsity = match form.var("sp") {
            Some(_) => match spec::matrix::sparsity(form) {
                Ok(s) => Some(s),
                Err(e) => return not_yet(&e),
            },
            None => None,
        };
        let mut layouts = Vec::new();
        for w in Which::ALL {
            match spec::matrix::layout(form, w) {
                Ok(l) => layouts.push(l),
                Err(e) => return not_yet(&e),
            }
        }
        let [a, b, c, d] = layouts[..] else {
            unreachable!("four layouts")
        };
        let b32 = Type::parse("b32").unwrap();
        let u16t = Type::parse("u16").unwrap();
        let ops = &i.operands[..];
        let operand = |k: usize, what: &str| -> Result<&Operand> {
            match ops.get(k) {
                Some(o) => Ok(o),
                None => terr(loc, format!("`{}` needs a `{what}` operand", form.name)),
            }
        };
        let regs = |k: usize, what: &str, n: usize| -> Result<Vec<Src>> {
            self.elements(operand(k, what)?, n, loc)?
                .iter()
                .map(|e| self.src(e, b32, false, at))
                .collect()
        };
        let mut dsts = Vec::new();
        for e in self.elements(operand(0, "d")?, d.regs, loc)? {
            dsts.push(self.dst(&e, b32, false, loc)?);
        }
        let selector = |k: usize, what: &str| -> Result<Vec<Src>> {
            self.elements(operand(k, what)?, 2, loc)?
                .iter()
                .map(|e| self.src(e, u16t, false, at))
                .collect()
        };
        // Operands after `c`: two more (`e`, `f`) on a sparse form.
        let s = if sparsity.is_some() { 2 } else { 0 };
        let mut srcs = vec![
            regs(1, "a", a.regs)?,
            regs(2, "b", b.regs)?,
            regs(3, "c", c.regs)?,
            regs(4 + s, "scale-a-data", 1)?,
            selector(5 + s, "{byte-id-a, thread-id-a}")?,
            regs(6 + s, "scale-b-data", 1)?,
            selector(7 + s, "{byte-id-b, thread-id-b}")?,
        ];
        if sparsity.is_some() {
            srcs.push(regs(4, "e", 1)?);
            srcs.push(regs(5, "f", 1)?);
        }
        Ok(Op::Matrix {
            op: MatrixOp::MmaBlockScale {
                op,
                layouts: Box::new([a, b, c, d]),
                sparsity,
            },
            form,
            dsts,
            srcs,
            addr: None,
        })
    }

    /// `wgmma.mma_async` (§9.7.15.5.2): the accumulator fragment (`.b32` registers, as many as
    /// the catalog's fragment length), A as a descriptor (`.b64`) or a fragment, `b-desc`,
    /// `scale-d` (a predicate or a constant) and the immediates `imm-scale-a/b` (1 or -1) and
    /// `imm-trans-a/b` (0 or 1, L25770-25781); for `wgmma.mma_async.sp` (§9.7.15.6.3) also
    /// `sp-meta` and the constant `sp-sel`. Forms whose numerics the spec does not cover are
    /// decoded as not executed. `.b1` forms (`.and.popc`, K = 256) have neither scale nor
    /// transpose immediates: A and B are K-major.
    pub(super) fn wgmma(&self, i: &Instr, form: &'static Form) -> Result<Op> {
        let loc = i.loc;
        let at = Site::of(i);
        self.shape(i, form)?;
        let not_yet = |why: &str| -> Result<Op> {
            Ok(Op::Unsupported {
                message: format!(
                    "`{}` is valid PTX, but the oracle does not execute it yet ({why})",
                    form.name
                ),
            })
        };
        let arch = spec::tensor::Arch::from_target(&self.ck.target.to_string());
        let Some(op) = arch.and_then(|a| spec::tensor::MmaOp::of_form(form, a)) else {
            return not_yet("its numerics");
        };
        let b32 = Type::parse("b32").unwrap();
        let b64 = Type::parse("b64").unwrap();
        let pred = Type::parse("pred").unwrap();
        let len = |o: &spec::catalog::Operand| spec::catalog::fragment::length(form, o).unwrap_or(1);
        let ops = &i.operands[..];
        let operand = |name: &str| -> Result<(usize, &spec::catalog::Operand)> {
            let k = form.inputs.iter().position(|o| o.name == name);
            match k {
                Some(k) if ops.get(k + 1).is_some() => Ok((k + 1, &form.inputs[k])),
                _ => terr(loc, format!("`{}` needs a `{name}` operand", form.name)),
            }
        };
        let imm = |name: &str, allowed: &[i64]| -> Result<Option<i64>> {
            if !form.inputs.iter().any(|o| o.name == name) {
                return Ok(None);
            }
            let (k, _) = operand(name)?;
            match &ops[k] {
                Operand::Expr(e) => match const_int(e) {
                    Some(v) if allowed.contains(&v) => Ok(Some(v)),
                    _ => terr(
                        loc,
                        format!(
                            "`{name}` of `{}` is a constant, one of {allowed:?} (L25770-25781)",
                            form.name
                        ),
                    ),
                },
                _ => terr(loc, format!("`{name}` of `{}` is a constant (L25770-25781)", form.name)),
            }
        };
        let Some(dop) = form.outputs.first() else {
            return terr(loc, format!("`{}` needs a `d` operand", form.name));
        };
        let Some(dw) = ops.first() else {
            return terr(loc, format!("`{}` needs a `d` operand", form.name));
        };
        let mut d = Vec::new();
        let mut c = Vec::new();
        for e in self.elements(dw, len(dop), loc)? {
            d.push(self.dst(&e, b32, false, loc)?);
            c.push(self.src(&e, b32, false, at)?);
        }
        let a = if form.inputs.iter().any(|o| o.name == "a_desc") {
            let (k, _) = operand("a_desc")?;
            WgmmaA::Desc(self.src(&ops[k], b64, false, at)?)
        } else {
            let (k, o) = operand("a")?;
            let mut v = Vec::new();
            for e in self.elements(&ops[k], len(o), loc)? {
                v.push(self.src(&e, b32, false, at)?);
            }
            WgmmaA::Regs(v)
        };
        let (kb, _) = operand("b_desc")?;
        let b = self.src(&ops[kb], b64, false, at)?;
        let (ks, _) = operand("scale_d")?;
        let scale_d = self.src(&ops[ks], pred, false, at)?;
        let neg_a = imm("imm_scale_a", &[1, -1])? == Some(-1);
        let neg_b = imm("imm_scale_b", &[1, -1])? == Some(-1);
        let trans_a = imm("imm_trans_a", &[0, 1])? == Some(1);
        let trans_b = imm("imm_trans_b", &[0, 1])? == Some(1);
        // `wgmma.mma_async.sp` (§9.7.15.6): the metadata and the selector.
        let sparse = match form.mods.contains(&"sp") {
            true => match spec::matrix::sparsity(form) {
                Ok(sparsity) => Some(WgmmaSparse {
                    sparsity,
                    meta: self.src(&ops[operand("sp_meta")?.0], b32, false, at)?,
                    sel: self.src(&ops[operand("sp_sel")?.0], b32, false, at)?,
                }),
                Err(e) => return not_yet(&e.to_string()),
            },
            false => None,
        };
        Ok(Op::Wgmma(Box::new(Wgmma {
            op,
            form,
            d,
            c,
            a,
            b,
            scale_d,
            neg_a,
            neg_b,
            trans_a,
            trans_b,
            sparse,
        })))
    }

    /// `wgmma.fence`, `wgmma.commit_group` and `wgmma.wait_group N` (§9.7.15.7.1-3).
    pub(super) fn wgmma_sync(&self, i: &Instr, form: &Form) -> Result<Op> {
        self.shape(i, form)?;
        Ok(match form.mods.first().copied() {
            Some("fence") => Op::WgmmaFence,
            Some("commit_group") => Op::WgmmaCommit,
            _ => match i.operands.first() {
                Some(Operand::Expr(e)) => match const_int(e) {
                    Some(n) if (0..=u32::MAX as i64).contains(&n) => Op::WgmmaWait { n: n as u32 },
                    _ => return terr(i.loc, "`wgmma.wait_group` takes a constant group count N (L26472)"),
                },
                _ => return terr(i.loc, "`wgmma.wait_group` takes a constant group count N (L26472)"),
            },
        })
    }

    /// `cp.async.wait_group N` and `cp.async.wait_all` (§9.7.9.25.3.3).
    pub(super) fn cp_async_wait(&self, i: &Instr, form: &Form) -> Result<Op> {
        self.shape(i, form)?;
        if form.has("wait_all") {
            return Ok(Op::CpAsyncWait { n: None });
        }
        match i.operands.first() {
            Some(Operand::Expr(e)) => match const_int(e) {
                Some(n) if (0..=u32::MAX as i64).contains(&n) => Ok(Op::CpAsyncWait { n: Some(n as u32) }),
                _ => terr(i.loc, "`cp.async.wait_group` takes a constant group count N (L14376)"),
            },
            _ => terr(i.loc, "`cp.async.wait_group` takes a constant group count N (L14376)"),
        }
    }
}

/// A cache-policy operand comes with `.L2::cache_hint` (ptxas 12.9; L12507).
fn cache_policy_hinted(i: &Instr) -> Result<()> {
    if rules::cache_hint(&i.mods) {
        Ok(())
    } else {
        terr(
            i.loc,
            "a cache policy operand needs `.L2::cache_hint` (ptxas 12.9; L12507)",
        )
    }
}

impl FuncCx<'_> {
    /// The mbarrier instructions (§9.7.13.15.9-17): the operands checked as the catalog writes
    /// them (`shape`, against each form of the name: `mbarrier.arrive` with and without a
    /// count), then bound by their catalog names. A `.shared::cluster` address may be another
    /// CTA's of the cluster (`exec/cluster.rs`).
    pub(super) fn mbarrier(&self, i: &Instr, avail: &[&'static Form]) -> Result<Op> {
        let loc = i.loc;
        let at = Site::of(i);
        let form = self.shaped_form(i, avail)?;
        let u32t = Type::parse("u32").unwrap();
        let b64 = Type::parse("b64").unwrap();
        let pred = Type::parse("pred").unwrap();
        // The written operands, by the catalog's names: outputs first, then inputs; optional
        // ones (a count, a time hint) are last and may be left out.
        let names: Vec<&str> = form.outputs.iter().chain(&form.inputs).map(|o| o.name).collect();
        let operand = |name: &str| names.iter().position(|n| *n == name).and_then(|k| i.operands.get(k));
        let addr = match operand("addr") {
            Some(a) => Some(self.mem_addr_in(a, space_of(form), loc)?),
            None => None,
        };
        let src = |name: &str, ty: Type| operand(name).map(|o| self.src(o, ty, false, at)).transpose();
        let dst = |name: &str, ty: Type| match operand(name) {
            Some(o) => self.dst(o, ty, false, loc),
            None => terr(loc, format!("`{}` needs its `{name}` operand", form.name)),
        };
        let need = |s: Option<Src>, name: &str| match s {
            Some(s) => Ok(s),
            None => terr(loc, format!("`{}` needs its `{name}` operand", form.name)),
        };
        // The catalog's modifiers say which: the first after the opcode (`mbarrier.init` →
        // `init`); `cp.async.mbarrier.arrive` is the one row of opcode `cp` with this executor.
        let op = match form.mods.first().copied() {
            Some("async") => MbarOp::CpAsyncArrive {
                noinc: form.has("noinc"),
            },
            Some("init") => MbarOp::Init {
                count: need(src("count", u32t)?, "count")?,
            },
            Some("inval") => MbarOp::Inval,
            Some(m @ ("expect_tx" | "complete_tx")) => MbarOp::Tx {
                n: need(src("tx_count", u32t)?, "tx_count")?,
                complete: m == "complete_tx",
            },
            Some(m @ ("arrive" | "arrive_drop")) => MbarOp::Arrive {
                d: dst("state", b64)?,
                count: src("count", u32t)?,
                drop: m == "arrive_drop",
                no_complete: form.has("noComplete"),
                expect_tx: src("tx_count", u32t)?,
            },
            Some("test_wait" | "try_wait") => {
                // try_wait's suspendTimeHint is read (checked as a `.u32`) and has no effect:
                // the oracle's try_wait returns at once (spec/INTERPRETATIONS.md).
                src("suspend_time_hint", u32t)?;
                let parity = form.has("parity");
                MbarOp::Wait {
                    d: dst("wait_complete", pred)?,
                    phase: match parity {
                        true => need(src("phase_parity", u32t)?, "phaseParity")?,
                        false => need(src("state", b64)?, "state")?,
                    },
                    parity,
                }
            }
            Some("pending_count") => MbarOp::PendingCount {
                d: dst("count", u32t)?,
                state: need(src("state", b64)?, "state")?,
            },
            _ => {
                return terr(
                    loc,
                    format!("`{}` is no mbarrier instruction the oracle knows", form.name),
                )
            }
        };
        Ok(Op::Mbarrier { op, addr })
    }
}
