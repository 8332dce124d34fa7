//! One function: its parameters (a kernel's in the parameter buffer, a function's and its `.reg`
//! ones in its frame), its labels, its statements in order with their scopes, and the epilogue
//! that returns `.reg` values; branch targets are resolved when the body is done.

use super::errors::{terr, CheckError, Result};
use super::layout::vec_len;
use super::symbols::{list_sym, Sym};
use super::Checker;
use crate::ast::{Function, Loc, Stmt};
use crate::mem;
use crate::program::*;
use spec::types::{Kind, Type};
use std::collections::HashMap;

/// The label of a function's epilogue (not a PTX name: it cannot collide with one).
pub(super) const EPILOGUE: &str = " epilogue";

/// Per-function checking state.
pub(super) struct FuncCx<'a> {
    /// The module being checked.
    pub(super) ck: &'a mut Checker,
    /// The function's index in the program.
    pub(super) idx: u32,
    /// Nested scopes, the innermost last.
    pub(super) scopes: Vec<HashMap<String, Sym>>,
    /// Register slots used so far.
    pub(super) nregs: u32,
    /// Frame bytes used so far (`.param` and `.local` variables of the activation).
    pub(super) frame: u32,
    /// Labels and the pc each names, keyed by name and declaring block (`symbols::label_key`).
    pub(super) labels: HashMap<String, u32>,
    /// The blocks enclosing the statement being checked, outermost (the body, 0) first: where
    /// a label is looked up (see `resolve_label`).
    pub(super) block_path: Vec<u32>,
    /// Blocks entered so far, in the order `collect_labels` numbers them.
    pub(super) blocks_seen: u32,
    /// `.branchtargets`/`.callprototype` lists by label, function-wide (scoped ones win).
    pub(super) lists: HashMap<String, Sym>,
    /// Branches whose label is resolved at the end: (pc, label, loc).
    pub(super) fixups: Vec<(u32, String, Loc)>,
    /// The pc of the next instruction.
    pub(super) pc: u32,
    /// The function returns `.reg` values: `ret` branches to the epilogue that stores them.
    pub(super) ret_epilogue: bool,
}

impl Checker {
    /// Checks and decodes the body of function `idx` (its signature is laid out already).
    pub(super) fn function(&mut self, idx: u32, f: &Function) -> Result<()> {
        let start = self.code.len() as u32;
        let mut fc = FuncCx {
            ck: self,
            idx,
            scopes: vec![HashMap::new()],
            nregs: 1,
            frame: 0,
            labels: HashMap::new(),
            block_path: vec![0],
            blocks_seen: 0,
            lists: HashMap::new(),
            fixups: Vec::new(),
            pc: start,
            ret_epilogue: false,
        };
        fc.frame = fc.ck.funcs[idx as usize].frame_bytes;
        // `.maxnreg n` (§11.4.1): the register count `setmaxnreg` starts from.
        fc.ck.funcs[idx as usize].maxnreg = f
            .directives
            .iter()
            .find(|d| d.name == "maxnreg")
            .and_then(|d| d.text.trim().parse().ok());
        // Parameters: a kernel's are at fixed `.param` addresses, a function's in its frame.
        let func = fc.ck.funcs[idx as usize].clone();
        let (rets_ast, params_ast) = (&f.rets, &f.params);
        // `.reg` parameters and returns (§7.1; PTX 1.x's only kind, still legal): registers of
        // the callee, passed through its frame like `.param` ones — loaded from there on entry,
        // stored back in an epilogue every `ret` branches to.
        let mut reg_rets = Vec::new();
        for (k, (d, (off, size))) in params_ast
            .iter()
            .zip(&func.params)
            .chain(rets_ast.iter().zip(&func.rets))
            .enumerate()
        {
            let sym = if d.space == "reg" {
                if f.entry {
                    return terr(
                        d.loc,
                        format!("kernel parameter `{}` must be `.param`, not `.reg`", d.name),
                    );
                }
                let Some(ty) = Type::parse(&d.ty).filter(|t| t.bits() <= 64) else {
                    return terr(
                        d.loc,
                        format!("`.{}` is not a register type for `.reg` parameter `{}`", d.ty, d.name),
                    );
                };
                if !d.dims.is_empty() || vec_len(d) > 1 {
                    return terr(d.loc, format!("`.reg` parameter `{}` must be a scalar", d.name));
                }
                let slot = fc.nregs;
                fc.nregs += 1;
                let bits = if ty.kind == Kind::Pred { 1 } else { ty.bits() as u8 };
                if k < params_ast.len() {
                    let ld = Op::Ld {
                        space: Space::Param,
                        ty: MemTy {
                            bytes: *size as u8,
                            signed: false,
                        },
                        dsts: vec![Dst { slot, bits, sext: 0 }],
                        addr: Addr::Frame(*off, 0),
                    };
                    fc.push(
                        None,
                        ld,
                        d.loc,
                        format!("(`.reg` parameter `{}` from the caller)", d.name),
                    );
                } else {
                    reg_rets.push((slot, *off, *size as u8, d.loc, d.name.clone()));
                }
                Sym::Reg { slot, ty }
            } else if f.entry {
                Sym::Var {
                    space: Space::Param,
                    addr: mem::KPARAM + *off as u64,
                }
            } else {
                Sym::FrameVar {
                    space: Space::Param,
                    off: *off,
                    size: *size,
                }
            };
            fc.scopes[0].insert(d.name.clone(), sym);
        }
        // The cluster directives (§11.7): the launch's geometry follows them (`crate::cluster`).
        let cluster = crate::cluster::directives(&f.directives, f.entry, fc.ck.sm)
            .map_err(|(loc, m)| CheckError::invalid(loc, m))?;
        let body = f.body.as_deref().unwrap_or(&[]);
        fc.collect_labels(body)?;
        fc.ret_epilogue = !reg_rets.is_empty();
        fc.block(body)?;
        // A body that runs off its end returns (ptxas accepts it; the ABI's epilogue is `ret`).
        let loc = f.loc;
        fc.labels.insert(EPILOGUE.to_string(), fc.pc);
        for (slot, off, bytes, loc, name) in reg_rets {
            let st = Op::St {
                space: Space::Param,
                bytes,
                srcs: vec![Src::Reg(slot)],
                addr: Addr::Frame(off, 0),
            };
            fc.push(None, st, loc, format!("(`.reg` return `{name}` to the caller)"));
        }
        fc.push(None, Op::Ret, loc, "ret (end of function)".into());
        let (nregs, frame, fixups) = (fc.nregs, fc.frame, std::mem::take(&mut fc.fixups));
        for (pc, name, loc) in fixups {
            let Some(target) = fc.labels.get(&name).copied() else {
                return terr(loc, format!("label `{name}` is not defined in `{}`", f.name));
            };
            match &mut fc.ck.code[pc as usize].op {
                Op::Bra { target: t } => *t = target,
                _ => unreachable!("fixups are recorded for branches only"),
            }
        }
        let func = &mut self.funcs[idx as usize];
        func.start = start;
        func.nregs = nregs;
        func.frame_bytes = frame.div_ceil(16) * 16;
        func.cluster = cluster;
        Ok(())
    }
}

impl FuncCx<'_> {
    /// Appends an instruction to the program.
    pub(super) fn push(&mut self, guard: Option<(u32, bool)>, op: Op, loc: Loc, text: String) {
        self.ck.code.push(Inst { guard, op, loc, text });
        self.pc += 1;
    }

    /// Checks the statements of a block in order.
    pub(super) fn block(&mut self, body: &[Stmt]) -> Result<()> {
        let mut pending_label: Option<String> = None;
        for s in body {
            match s {
                Stmt::Label { name, .. } => pending_label = Some(name.clone()),
                Stmt::Decl(d) => {
                    pending_label = None;
                    self.decl(d)?
                }
                Stmt::Directive(d) => {
                    // `name: .callprototype ...` and `name: .branchtargets ...` give the label a
                    // meaning; other directives (`.loc`, `.pragma`) do not change semantics.
                    if let Some(label) = pending_label.take() {
                        if matches!(d.name.as_str(), "callprototype" | "branchtargets" | "calltargets") {
                            let sym = list_sym(d)?;
                            self.scopes.last_mut().unwrap().insert(label, sym);
                        }
                    }
                }
                Stmt::Instr(i) => {
                    pending_label = None;
                    self.instr(i)?
                }
                Stmt::Block { body, .. } => {
                    pending_label = None;
                    self.scopes.push(HashMap::new());
                    self.blocks_seen += 1;
                    self.block_path.push(self.blocks_seen);
                    self.block(body)?;
                    self.block_path.pop();
                    self.scopes.pop();
                }
            }
        }
        Ok(())
    }
}
