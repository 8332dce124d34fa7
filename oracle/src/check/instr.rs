//! One instruction, from its text to the decoded [`Op`]: one-element vectors and whole vector
//! registers read as ptxas reads them, the name resolved against the catalog, the forms the
//! module's PTX version and target have, `_` results and hints, the grammar ptxas 12.9 takes,
//! then the decoder that fits: the one the form's catalog row names ([`Exec`], `@exec`: an
//! operational decoder of [`super::decode`]), or a value-level form or warp collective bound by
//! [`super::bind`]. Valid instructions the oracle does not execute (no semantics, no executor)
//! decode to [`Op::Unsupported`].

use super::body::{FuncCx, EPILOGUE};
use super::errors::{terr, CheckError, NotExecuted, Result, What};
use super::operands::Site;
use super::symbols::{vec_elements, Sym};
use super::Grammar;
use crate::ast::{Expr, Instr, Loc, Operand};
use crate::program::*;
use spec::catalog::{catalog, rules, Exec, Form, PtxVersion};
use spec::types::{Kind, Type};

impl FuncCx<'_> {
    /// Checks and decodes one instruction and appends it to the program.
    pub(super) fn instr(&mut self, i: &Instr) -> Result<()> {
        let loc = i.loc;
        let text = crate::print::instr(i);
        // Where an instruction's vectors are its elements (`mov`, `OpcodeRules::vector_elements`)
        // ptxas reads a one-element vector `{ %r1 }` of a bit-size type as the register itself
        // and a whole vector register as its elements; other value instructions refuse vectors
        // (ld/st take it as their data operand: `elements`).
        let (unwrapped, unwrapped_bf16);
        let op_rules = catalog().rules(&i.opcode);
        let bits_mov = op_rules.vector_elements
            && i.mods
                .iter()
                .any(|m| Type::parse(m).is_some_and(|t| t.kind == Kind::Bits));
        let one_element = |o: &Operand| matches!(o, Operand::Vector(v) if v.len() == 1);
        let vec_reg =
            |o: &Operand| matches!(o, Operand::Expr(Expr::Name(n)) if matches!(self.lookup(n), Some(Sym::VecReg(_))));
        // `{x}` beside a real vector is not a register there: "Illegal vector-vector operands
        // for vector-scalar or scalar-vector mov".
        let many = i
            .operands
            .iter()
            .any(|o| matches!(o, Operand::Vector(v) if v.len() > 1));
        if op_rules.vector_elements && many && i.operands.iter().any(one_element) {
            return terr(
                loc,
                format!("`{}` cannot pair a one-element vector `{{x}}` with a vector", i.opcode),
            );
        }
        // ptxas also reads `{x}` as `x` among the sources of some other instructions.
        let bf16 = rules::one_element_sources(op_rules, &i.mods);
        let has_dst = !matches!(i.operands.first(), Some(Operand::Address(_)));
        let i = if bf16 && has_dst && i.operands.iter().skip(1).any(one_element) {
            let mut j = i.clone();
            for o in j.operands.iter_mut().skip(1) {
                if let Operand::Vector(v) = o {
                    if v.len() == 1 {
                        *o = v.remove(0);
                    }
                }
            }
            unwrapped_bf16 = j;
            &unwrapped_bf16
        } else {
            i
        };
        let i = if op_rules.vector_elements && i.operands.iter().any(|o| bits_mov && one_element(o) || vec_reg(o)) {
            let mut j = i.clone();
            for o in &mut j.operands {
                match o {
                    Operand::Vector(v) if bits_mov && v.len() == 1 => *o = v.remove(0),
                    Operand::Expr(Expr::Name(n)) => {
                        if let Some(Sym::VecReg(k)) = self.lookup(n) {
                            *o = Operand::Vector(vec_elements(n, *k as usize));
                        }
                    }
                    _ => {}
                }
            }
            unwrapped = j;
            &unwrapped
        } else {
            i
        };
        let at = Site::of(i);
        let guard = match &i.guard {
            Some((neg, p)) => Some((self.pred(p, loc)?, *neg)),
            None => None,
        };
        let name = std::iter::once(i.opcode.as_str())
            .chain(i.mods.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(".");
        let cat = catalog();
        let found = cat.lookup(&name).map_err(|e| {
            let newer = if self.ck.version > (8, 7) {
                format!(
                    " (the module declares PTX ISA {}.{}; the oracle knows the forms of PTX ISA 8.7 only)",
                    self.ck.version.0, self.ck.version.1
                )
            } else {
                String::new()
            };
            CheckError::invalid(loc, format!("{}{newer}", e.0))
        })?;
        if found.forms.is_empty() {
            return terr(loc, format!("`{name}` names no instruction form"));
        }
        let forms: Vec<&'static Form> = found.forms.iter().map(|&k| &cat.forms[k]).collect();
        // Version and target: some form of this name must be available to the module.
        let version = PtxVersion(self.ck.version.0.min(255) as u8, self.ck.version.1.min(255) as u8);
        let avail: Vec<&'static Form> = forms
            .iter()
            .copied()
            .filter(|f| f.available(version, self.ck.target))
            .collect();
        if avail.is_empty() {
            let f = forms[0];
            return terr(
                loc,
                format!(
                    "`{name}` requires {} (the module declares PTX ISA {}.{} and {})",
                    f.requirement(),
                    self.ck.version.0,
                    self.ck.version.1,
                    self.ck.target
                ),
            );
        }
        // `_` for a whole first destination only where a form allows it (`+discard`, `+sink`:
        // `setp _, a, b`; not `not.pred`, `testp`, `vote`, `ld`, `isspacep`: ptxas 12.9 "Result
        // discard mode is not allowed").
        if matches!(i.operands.first(), Some(Operand::Sink))
            && !avail
                .iter()
                .any(|f| f.outputs.first().is_some_and(|o| o.flags.discard || o.flags.sink))
        {
            return terr(loc, format!("`{name}` cannot discard its result with `_`"));
        }
        // Hints with their own availability (`.L2::cache_hint`: PTX 7.4, sm_80).
        for m in &i.mods {
            if let Some((v, t)) = cat.hint_needs(m) {
                if version < v || self.ck.sm < t.sm {
                    return terr(
                        loc,
                        format!(
                            "`.{m}` requires PTX ISA {v} and {t} (the module declares PTX ISA {}.{} and {})",
                            self.ck.version.0, self.ck.version.1, self.ck.target
                        ),
                    );
                }
            }
        }
        // Forms the grammar spells but the manual's text forbids (`ldmatrix .m16n16` without
        // `.trans`, ...): not valid PTX under either grammar (ptxas 12.9 agrees). The rule is
        // the spec's (`spec::matrix::wide::forbidden`), named with its line.
        if let Some(rule) = avail
            .iter()
            .map(|f| spec::matrix::wide::forbidden(f))
            .collect::<Option<Vec<_>>>()
            .and_then(|r| r.first().copied())
        {
            let sec = cat.section_of(avail[0]);
            return terr(
                loc,
                format!(
                    "`{name}` is not valid PTX: {} (§{} {}, L{})",
                    rule.message, sec.id, sec.title, sec.line
                ),
            );
        }
        // Forms of the manual's grammar that ptxas refuses: refused as ptxas does, unless asked
        // for the manual's grammar.
        if self.ck.grammar == Grammar::Ptxas {
            let refused = |f: &&Form| cat.ptxas_rejects(f).filter(|r| r.refuses_at(version));
            if let Some(why) = avail.iter().map(refused).collect::<Option<Vec<_>>>() {
                return terr(
                    loc,
                    format!(
                        "`{name}` is in the PTX ISA 8.7 grammar ({}), but ptxas 12.9 refuses it: \"{}\" \
                         (corpus/findings/ptxas-12.9-rejects.txt; a launch with `\"grammar\": \"manual\"` accepts it)",
                        {
                            let sec = cat.section_of(avail[0]);
                            format!("§{} {}, L{}", sec.id, sec.title, sec.line)
                        },
                        why[0].message
                    ),
                );
            }
        }
        // The executor the catalog names for the form (`@exec`; the forms of a name share it:
        // spec/tests/catalog.rs), on which the decoder is chosen; no opcode names.
        let exec = avail[0].exec();
        // Operational instructions decoded without `bind` still get their operands checked.
        if exec.is_some_and(operands_unbound) {
            self.shape(i, avail[0])?;
        }
        // Forms the manual removed on newer targets (`@retired` in the catalog).
        if let Some(message) = avail[0].retired(version, self.ck.target, &name) {
            return terr(loc, message);
        }
        let op = match exec {
            // Plain loads and stores (`st.async`, `st.bulk` share the opcode, not the executor).
            Some(Exec::Ld) => self.ld(i, avail[0])?,
            Some(Exec::St) => self.st(i, avail[0])?,
            // A variable's or function's address, in any `mov` type (`mov.b64 d, avar` too); any
            // other operand makes a value form (below).
            Some(Exec::Mov) if self.is_address_mov(i) => self.mov_address(i, avail[0])?,
            Some(Exec::Cvta) => self.cvta(i, avail[0])?,
            // `atom`/`red` forms the decoder does not execute yet (vector and
            // packed-half atomics) are valid PTX: unsupported when a thread gets there, as below.
            Some(Exec::Atom) => match self.atom(i, avail[0]) {
                Err(CheckError {
                    what: What::NotExecuted(n),
                    ..
                }) => self.unsupported(loc, n),
                op => op?,
            },
            Some(Exec::Isspacep) => self.isspacep(i, avail[0])?,
            Some(Exec::Bra) => {
                let [Operand::Expr(Expr::Name(l))] = &i.operands[..] else {
                    return terr(loc, "`bra` takes one label");
                };
                let Some((key, _)) = self.resolve_label(l) else {
                    return terr(
                        loc,
                        format!("label `{l}` is not defined in this function, or not in a block around this branch"),
                    );
                };
                self.fixups.push((self.pc, key, loc));
                Op::Bra { target: 0 }
            }
            Some(Exec::Brx) => self.brx(i)?,
            Some(Exec::Call) => self.call(i)?,
            // A function with an epilogue (its return values copied out) returns through it.
            Some(Exec::Ret) if self.ret_epilogue => {
                self.fixups.push((self.pc, EPILOGUE.to_string(), loc));
                Op::Bra { target: 0 }
            }
            Some(Exec::Ret) => Op::Ret,
            Some(Exec::Exit) => Op::Exit,
            Some(Exec::Trap) => Op::Trap,
            Some(Exec::WarpSync) => {
                let ty = Type::parse("b32").unwrap();
                let [m] = &i.operands[..] else {
                    return terr(loc, "`bar.warp.sync` takes a member mask");
                };
                Op::WarpSync {
                    mask: self.src(m, ty, false, at)?,
                }
            }
            Some(Exec::Bar) => self.bar(i, avail[0])?,
            Some(e @ (Exec::BarrierCluster | Exec::Mapa | Exec::Getctarank)) => self.cluster_op(i, avail[0], e)?,
            // The address of a prefetch is checked as a load's (space, immediate, width).
            Some(Exec::Prefetch) => {
                if let Some(a) = i.operands.iter().find(|o| matches!(o, Operand::Address(_))) {
                    let (_, space) = self.mem_addr(a, avail[0], loc)?;
                    // (`prefetchu`: "Non-generic address is not supported", ptxas 12.9.)
                    if op_rules.generic_address && space != Space::Generic {
                        return terr(
                            loc,
                            format!("`{}` takes a generic address, not a `.local` variable's", i.opcode),
                        );
                    }
                }
                Op::Nop
            }
            Some(Exec::Nop) => Op::Nop,
            // `.async.global` orders only global memory (L17278): the fences that order shared
            // memory are the ones `wgmma.mma_async`'s matrices need.
            Some(Exec::ProxyFence) => Op::ProxyFence {
                shared: !avail[0].name.ends_with(".async.global"),
            },
            Some(Exec::CpAsync) => self.cp_async(i, &avail)?,
            Some(Exec::Mbarrier) => self.mbarrier(i, &avail)?,
            Some(Exec::CpAsyncCommit) => {
                self.shape(i, avail[0])?;
                Op::CpAsyncCommit
            }
            Some(Exec::CpAsyncWait) => self.cp_async_wait(i, avail[0])?,
            Some(Exec::TensormapReplace) => self.tensormap_replace(i, avail[0])?,
            Some(Exec::TensormapCpFenceproxy) => self.tensormap_cp_fenceproxy(i, avail[0])?,
            // The bulk asynchronous operations (`check/bulk.rs`, `exec/bulk.rs`).
            Some(Exec::BulkCopy) => self.bulk_copy(i, &avail)?,
            Some(Exec::BulkGroup) => self.bulk_group(i, &avail)?,
            Some(Exec::StAsync) => self.async_store(i, &avail, false)?,
            Some(Exec::RedAsync) => self.async_store(i, &avail, true)?,
            Some(Exec::StBulk) => self.st_bulk(i, &avail)?,
            // The tensor copies and the tensormap proxy fences (`check/tensor.rs`).
            Some(Exec::TensorCopy) => self.tensor_copy(i, &avail)?,
            Some(Exec::TensormapFence) => self.tensormap_fence(i, avail[0])?,
            Some(Exec::Wgmma) => {
                // The descriptor and register forms of A share a name: the one the operands fit.
                let form = avail
                    .iter()
                    .copied()
                    .find(|f| self.shape(i, f).is_ok())
                    .unwrap_or(avail[0]);
                self.wgmma(i, form)?
            }
            Some(Exec::WgmmaSync) => self.wgmma_sync(i, avail[0])?,
            // sm_90's control and cache-hint instructions: `check/control.rs`.
            Some(Exec::Setmaxnreg) => self.setmaxnreg(i, avail[0])?,
            Some(Exec::Brkpt) => {
                self.shape(i, avail[0])?;
                Op::Brkpt
            }
            Some(e @ (Exec::Stacksave | Exec::Stackrestore | Exec::Alloca)) => self.stack(i, avail[0], e)?,
            Some(e @ (Exec::Discard | Exec::Applypriority)) => self.l2_line(i, avail[0], e == Exec::Discard)?,
            Some(Exec::Createpolicy) => self.createpolicy(i, avail[0])?,
            Some(e @ (Exec::Mma | Exec::Wmma | Exec::Ldmatrix | Exec::Stmatrix | Exec::Movmatrix)) => {
                self.matrix(i, avail[0], e)?
            }
            // Value forms (`mov`'s without an address among them), the warp collectives (bound
            // like them, `bind`) and the forms not executed yet (`bind` says so).
            Some(Exec::Mov | Exec::Shfl | Exec::Vote | Exec::Match | Exec::Redux | Exec::Elect | Exec::Activemask)
            | None => match self.value(i, &avail) {
                Ok(op) => op,
                // Valid but not executed: decided when a thread gets there.
                Err(CheckError {
                    what: What::NotExecuted(n),
                    ..
                }) => self.unsupported(loc, n),
                Err(e) => return Err(e),
            },
        };
        self.push(guard, op, loc, text);
        Ok(())
    }

    /// A valid instruction the oracle does not execute yet: decided when a thread gets there
    /// (the launch's list of unsupported instructions says where).
    fn unsupported(&mut self, loc: Loc, n: NotExecuted) -> Op {
        let message = n.to_string();
        self.ck.unsupported.push((loc, message.clone()));
        Op::Unsupported { message }
    }
}

/// The executors that decode an instruction without binding its operands to a form (they take
/// none, or only an address): its operands are still checked against the catalog's shape.
fn operands_unbound(exec: Exec) -> bool {
    matches!(
        exec,
        Exec::Ret | Exec::Exit | Exec::Trap | Exec::Nop | Exec::ProxyFence | Exec::Prefetch
    )
}
