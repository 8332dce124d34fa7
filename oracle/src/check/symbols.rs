//! What names denote: the symbols of scopes ([`Sym`]), declarations in a function body, labels,
//! the `.callprototype`/`.branchtargets` lists, and lookups of registers and `.param` variables.

use super::body::FuncCx;
use super::errors::{terr, Result};
use super::layout::{align_of, decl_bytes, type_bytes, vec_len};
use crate::ast::{self, Expr, Loc, Operand, Stmt, VarDecl};
use crate::program::Space;
use spec::types::{Kind, Type};

/// What a name denotes.
#[derive(Clone, Debug)]
pub(super) enum Sym {
    /// A register (`.b128`: two slots, low half first).
    Reg { slot: u32, ty: Type },
    /// A variable at a fixed address of its space.
    Var { space: Space, addr: u64 },
    /// A `.local`/`.param` variable of the current activation.
    FrameVar { space: Space, off: u32, size: u32 },
    /// A function, by its index in the program.
    Func(u32),
    /// A `.callprototype` (parameter and return sizes).
    Proto { params: Vec<u32>, rets: Vec<u32> },
    /// A `.branchtargets` list.
    Targets(Vec<String>),
    /// A vector register `.reg .v4 .b32 v` of this many elements (§5.4.2), in consecutive
    /// slots: read element by element as `v.x`/`v.r` ... (declared as their own [`Sym::Reg`]s)
    /// or whole as the data operand of a `.vN` load or store.
    VecReg(u32),
}

/// The element names of a vector register (§5.4.2, §6.4.2: `.x .y .z .w` and `.r .g .b .a`).
const VEC_COMPONENTS: [[&str; 2]; 4] = [["x", "r"], ["y", "g"], ["z", "b"], ["w", "a"]];

/// The first `n` elements of vector register `name` as operands (`v.x`, `v.y`, ...).
pub(super) fn vec_elements(name: &str, n: usize) -> Vec<Operand> {
    VEC_COMPONENTS[..n]
        .iter()
        .map(|c| Operand::Expr(Expr::Name(format!("{name}.{}", c[0]))))
        .collect()
}

/// The meaning of a labelled `.callprototype`, `.branchtargets` or `.calltargets` directive.
pub(super) fn list_sym(d: &ast::Directive) -> Result<Sym> {
    if d.name == "callprototype" {
        return proto(&d.text, d.loc);
    }
    let names = d
        .text
        .split([',', ';', ' '])
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect();
    Ok(Sym::Targets(names))
}

/// `(.param .b32 _) _ (.param .b32 _, .param .b64 _)`: return and parameter sizes.
fn proto(text: &str, loc: Loc) -> Result<Sym> {
    let mut lists: Vec<Vec<u32>> = Vec::new();
    let mut cur: Option<Vec<u32>> = None;
    let toks: Vec<&str> = text.split(' ').filter(|t| !t.is_empty()).collect();
    let mut k = 0;
    let mut pending_rets = true;
    let mut rets = Vec::new();
    while k < toks.len() {
        match toks[k] {
            "(" => cur = Some(Vec::new()),
            ")" => lists.push(cur.take().unwrap_or_default()),
            "_" if cur.is_none() => pending_rets = false,
            t if t.starts_with('.') && cur.is_some() && Type::parse(&t[1..]).is_some() => {
                let mut size = type_bytes(&t[1..]) as u32;
                // `.param .align 8 .b8 _[12]`: an aggregate's size from its array length.
                if toks.get(k + 1) == Some(&"_") && toks.get(k + 2) == Some(&"[") {
                    if let Some(n) = toks.get(k + 3).and_then(|n| n.parse::<u32>().ok()) {
                        size *= n;
                    }
                }
                cur.as_mut().unwrap().push(size);
            }
            _ => {}
        }
        k += 1;
    }
    match lists.len() {
        1 if pending_rets => Ok(Sym::Proto {
            params: lists.remove(0),
            rets,
        }),
        1 => Ok(Sym::Proto {
            params: lists.remove(0),
            rets,
        }),
        2 => {
            rets = lists.remove(0);
            Ok(Sym::Proto {
                params: lists.remove(0),
                rets,
            })
        }
        _ => terr(loc, "malformed `.callprototype`"),
    }
}

/// The key of label `name` declared in block `block` (0: the function body) in
/// `FuncCx::labels`.
fn label_key(name: &str, block: u32) -> String {
    format!("{name}@{block}")
}

impl FuncCx<'_> {
    /// What `name` denotes here: the innermost scope first, then the function's labelled lists,
    /// then the module.
    pub(super) fn lookup(&self, name: &str) -> Option<&Sym> {
        self.scopes
            .iter()
            .rev()
            .find_map(|s| s.get(name))
            .or_else(|| self.lists.get(name))
            .or_else(|| self.ck.globals.get(name))
    }

    /// Collects the labels of the body with the pc each names, before any branch is checked
    /// (a branch may jump forward). A label belongs to the block that declares it, as variables
    /// do (§9.7.12.1 `{ }`, L16647): ptxas 12.9 accepts the same label in two sibling blocks (each
    /// of Triton 3.9's inline-asm `{ ... waitLoop: ... }` wait loops declares one) and an inner
    /// one shadowing an outer one, and rejects a branch into a block from outside it ("Unknown
    /// symbol") and the same label twice in one block ("Duplicate definition of label").
    pub(super) fn collect_labels(&mut self, body: &[Stmt]) -> Result<()> {
        let mut pc = self.pc;
        let mut blocks = 0;
        fn walk(fc: &mut FuncCx, body: &[Stmt], pc: &mut u32, block: u32, blocks: &mut u32) -> Result<()> {
            for (k, s) in body.iter().enumerate() {
                match s {
                    // `name: .callprototype` and `name: .branchtargets` label a directive, not
                    // code; they are scoped to their block (see `block`).
                    // A list may be used before it is written: it is also known function-wide.
                    Stmt::Label { name, .. }
                        if matches!(body.get(k + 1), Some(Stmt::Directive(d))
                            if matches!(d.name.as_str(), "callprototype" | "branchtargets" | "calltargets")) =>
                    {
                        if let Some(Stmt::Directive(d)) = body.get(k + 1) {
                            let sym = list_sym(d)?;
                            fc.lists.entry(name.clone()).or_insert(sym);
                        }
                    }
                    Stmt::Label { name, loc } if fc.labels.insert(label_key(name, block), *pc).is_some() => {
                        return terr(*loc, format!("label `{name}` is defined twice in the same block"));
                    }
                    Stmt::Instr(_) => *pc += 1,
                    Stmt::Block { body, .. } => {
                        // Numbered in the order `block` enters them (see `FuncCx::block_path`).
                        *blocks += 1;
                        let b = *blocks;
                        walk(fc, body, pc, b, blocks)?
                    }
                    _ => {}
                }
            }
            Ok(())
        }
        walk(self, body, &mut pc, 0, &mut blocks)
    }

    /// Label `name` as the current block sees it: declared there or in the innermost enclosing
    /// block that declares it. Its key in `labels` and its pc.
    pub(super) fn resolve_label(&self, name: &str) -> Option<(String, u32)> {
        self.block_path.iter().rev().find_map(|&b| {
            let k = label_key(name, b);
            self.labels.get(&k).map(|&pc| (k, pc))
        })
    }

    /// Declares the names of a declaration in the innermost scope.
    pub(super) fn decl(&mut self, d: &VarDecl) -> Result<()> {
        let names: Vec<String> = match d.range {
            Some(n) if n > 1 << 20 => return terr(d.loc, format!("`{}<{n}>` declares too many registers", d.name)),
            Some(n) => (0..n).map(|i| format!("{}{i}", d.name)).collect(),
            None => vec![d.name.clone()],
        };
        let scope = self.scopes.len() - 1;
        for name in names {
            if self.scopes[scope].contains_key(&name) {
                return terr(d.loc, format!("`{name}` is declared twice in the same scope"));
            }
            let sym = match d.space.as_str() {
                "reg" => {
                    let Some(ty) = Type::parse(&d.ty) else {
                        return terr(d.loc, format!("`.{}` is not a register type", d.ty));
                    };
                    if !d.dims.is_empty() {
                        // ptxas 12.9: "Variable 'ra' cannot be allocated into a register".
                        return terr(
                            d.loc,
                            format!("`{name}`: an array cannot be a register (declare it in `.local` memory)"),
                        );
                    }
                    if ty.bits() > 64 && ty.kind != Kind::Bits {
                        return terr(d.loc, format!("`.{}` is not a register type (§5.2.1)", d.ty));
                    }
                    let n = vec_len(d) as u32;
                    if n > 1 {
                        // §5.4.2: vectors of 2 or 4 non-predicate elements, at most 128 bits.
                        if ty.kind == Kind::Pred || n > 4 || ty.bits() * n > 128 || ty.bits() > 64 {
                            return terr(
                                d.loc,
                                format!("`.v{n} .{ty}` is not a vector register type (§5.4.2: at most 128 bits, no `.pred`)"),
                            );
                        }
                        let slot = self.nregs;
                        self.nregs += n;
                        for (k, names) in VEC_COMPONENTS.iter().take(n as usize).enumerate() {
                            for c in names {
                                self.scopes[scope].insert(
                                    format!("{name}.{c}"),
                                    Sym::Reg {
                                        slot: slot + k as u32,
                                        ty,
                                    },
                                );
                            }
                        }
                        self.scopes[scope].insert(name, Sym::VecReg(n));
                        continue;
                    }
                    // A `.b128` register is two slots, low half first.
                    let slot = self.nregs;
                    self.nregs += ty.bits().div_ceil(64);
                    Sym::Reg { slot, ty }
                }
                "local" | "param" => {
                    let size = decl_bytes(d).max(1) as u32;
                    let align = align_of(d).clamp(1, 256) as u32;
                    let off = self.frame.div_ceil(align) * align;
                    self.frame = off + size;
                    Sym::FrameVar {
                        space: if d.space == "local" { Space::Local } else { Space::Param },
                        off,
                        size,
                    }
                }
                "shared" | "global" | "const" => {
                    // Function-scope static variables are module variables with a narrower scope.
                    let mut v = d.clone();
                    v.name = format!("{}::{}", self.ck.funcs[self.idx as usize].name, name);
                    self.ck.module_var(&v)?;
                    let sym = self.ck.globals[&v.name].clone();
                    self.ck.globals.remove(&v.name);
                    sym
                }
                s => return terr(d.loc, format!("`.{s}` declarations are not allowed in a function body")),
            };
            self.scopes[scope].insert(name, sym);
        }
        Ok(())
    }

    /// The declared width of the register in `slot` (64 for a slot no name maps to).
    pub(super) fn reg_bits(&self, slot: u32) -> u32 {
        self.scopes
            .iter()
            .flat_map(|s| s.values())
            .find_map(|sym| match sym {
                Sym::Reg { slot: s, ty } if *s == slot => Some(ty.bits()),
                _ => None,
            })
            .unwrap_or(64)
    }

    /// The slot and type of register `name`.
    pub(super) fn reg(&self, name: &str, loc: Loc) -> Result<(u32, Type)> {
        match self.lookup(name) {
            Some(Sym::Reg { slot, ty }) => Ok((*slot, *ty)),
            Some(_) => terr(loc, format!("`{name}` is not a register")),
            None => terr(loc, format!("`{name}` is not declared")),
        }
    }

    /// The slot of predicate register `name`.
    pub(super) fn pred(&self, name: &str, loc: Loc) -> Result<u32> {
        let (slot, ty) = self.reg(name, loc)?;
        if ty.kind != Kind::Pred {
            return terr(loc, format!("`{name}` is a `.{ty}` register, not a predicate"));
        }
        Ok(slot)
    }

    /// A call operand naming a `.param` variable of this activation: (name, offset, size).
    pub(super) fn param_var<'o>(&self, o: &'o Operand) -> Option<(&'o str, u32, u32)> {
        match o {
            Operand::Expr(Expr::Name(n)) => match self.lookup(n) {
                Some(Sym::FrameVar {
                    space: Space::Param,
                    off,
                    size,
                }) => Some((n.as_str(), *off, *size)),
                _ => None,
            },
            _ => None,
        }
    }
}
