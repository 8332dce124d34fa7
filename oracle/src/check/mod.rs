//! The type checker: a parsed [`Module`] to a decoded [`Program`], or the first error with its
//! line and column.
//!
//! Instruction names are resolved against the catalog (the one table of legal forms, with the
//! PTX version and target each needs); operands are checked by the rules of §9.4 (Table 23, and
//! Tables 24/25 for `ld`, `st` and `cvt`); names are resolved in nested scopes (a call sequence's
//! `{ .param ... }` block declares its own `param0`). Everything the interpreter needs per
//! instruction is decided here, once.
//!
//! The modules follow the data flow:
//! - this one: the entry points ([`check`], [`check_generic`], [`check_with`]) and the module
//!   level (`Checker`: directives, function signatures, module variables and their
//!   initializers);
//! - `body`: one function (`body::FuncCx`): parameters, labels, statements, scopes;
//! - `symbols`: what names denote (`symbols::Sym`), declarations, call prototypes;
//! - `instr`: one instruction: its name resolved against the catalog, availability, the
//!   grammar ptxas takes, then the decoder that fits;
//! - `decode`: the decoders of the operational instructions (`ld`, `st`, `atom`, `call`, ...);
//!   `cluster`: those of `mapa`, `getctarank`, `barrier.cluster`;
//! - `bind`: value-level forms: the written operands bound to a form's outputs and inputs;
//! - `select`: a fast function (`crate::fast`) or the spec's semantics for a bound form;
//! - `shape`: the operands of forms the oracle does not execute, as far as the catalog knows;
//! - `operands`: registers, constants and addresses against the types they must have (§9.4);
//! - `consts`, `layout`: constant expressions; sizes, alignments, state spaces;
//! - `errors`: the typed errors (`errors::CheckError`), rendered at the boundary.

mod address_size;
mod bind;
mod body;
mod bulk;
mod cluster;
mod consts;
mod control;
mod decode;
mod errors;
mod instr;
mod layout;
mod operands;
mod select;
mod shape;
mod symbols;
mod tensor;
mod tma;

pub use consts::{const_int, literals};

use crate::ast::{Expr, Function, Init, Item, Loc, Module, VarDecl};
use crate::error::Error;
use crate::mem;
use crate::program::*;
use consts::float_literal;
use errors::{terr, Result};
use layout::{align_of, decl_bytes, type_bytes};
use spec::catalog::catalog;
use spec::types::{Kind, Type};
use std::collections::HashMap;
use symbols::Sym;

/// Whose grammar the checker follows where the manual's and ptxas 12.9's differ: the forms of
/// `corpus/findings/ptxas-12.9-rejects.txt` ([`spec::catalog::Catalog::ptxas_rejects`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Grammar {
    /// Refuse them, as ptxas (the judge of what PTX is valid) does.
    #[default]
    Ptxas,
    /// Accept them, as the manual's grammar does (the conformance runner's own kernels test
    /// their semantics).
    Manual,
}

/// How a module is checked.
#[derive(Clone, Copy, Debug, Default)]
pub struct Options {
    /// No [`crate::fast`] shortcuts: every value-level form is evaluated through the spec with
    /// its full acceptance set (what [`crate::exec::Machine::perturb`] needs).
    pub generic: bool,
    /// Whose grammar decides the forms the manual and ptxas 12.9 disagree on.
    pub grammar: Grammar,
}

/// Checks and decodes a module (ptxas's grammar, fast paths on).
pub fn check(m: &Module) -> crate::error::Result<Program> {
    check_with(m, Options::default())
}

/// [`check`] without the [`crate::fast`] shortcuts.
pub fn check_generic(m: &Module) -> crate::error::Result<Program> {
    check_with(
        m,
        Options {
            generic: true,
            ..Options::default()
        },
    )
}

/// Checks and decodes a module as `o` says.
pub fn check_with(m: &Module, o: Options) -> crate::error::Result<Program> {
    let mut c = Checker::new();
    c.generic = o.generic;
    c.grammar = o.grammar;
    c.module(m).map_err(Error::from)
}

/// The module being checked: what its directives declare, its symbols, and the program decoded
/// so far.
struct Checker {
    /// No fast paths: every value form as `Op::Pure`.
    generic: bool,
    grammar: Grammar,
    version: (u32, u32),
    sm: u32,
    /// The module's `.target` architecture, suffix included (`sm_90a`).
    target: spec::catalog::Target,
    /// The module's address size and the generic windows that go with it (`address_size.rs`).
    windows: mem::Windows,
    globals: HashMap<String, Sym>,
    funcs: Vec<Func>,
    func_ast: Vec<Option<Function>>,
    code: Vec<Inst>,
    data: Vec<Data>,
    global_bytes: u64,
    const_bytes: u64,
    shared_bytes: u64,
    shared_align: u64,
    local_bytes: u32,
    /// Dynamic shared arrays (`.extern .shared .b8 s[]`) placed after the static ones.
    dyn_shared: Vec<(String, u64)>,
    /// Instructions decoded as `Op::Unsupported`.
    unsupported: Vec<(Loc, String)>,
}

impl Checker {
    fn new() -> Checker {
        Checker {
            generic: false,
            grammar: Grammar::Ptxas,
            version: (0, 0),
            sm: 0,
            target: spec::catalog::Target { sm: 0, suffix: None },
            windows: mem::Windows::A64,
            globals: HashMap::new(),
            funcs: Vec::new(),
            func_ast: Vec::new(),
            code: Vec::new(),
            data: Vec::new(),
            global_bytes: 0,
            const_bytes: 0,
            shared_bytes: 0,
            shared_align: 16,
            local_bytes: 0,
            dyn_shared: Vec::new(),
            unsupported: Vec::new(),
        }
    }

    fn module(mut self, m: &Module) -> Result<Program> {
        let mut have_version = false;
        let mut have_target = false;
        let mut have_address_size = false;
        let mut have_decl = false;
        for item in &m.items {
            match item {
                Item::Version { major, minor, loc } => {
                    if have_version {
                        return terr(*loc, "a second `.version` directive");
                    }
                    have_version = true;
                    // A module may declare a newer ISA than the catalog's (NVRTC 12.9 writes 8.8,
                    // CUDA 13 9.x): what 8.7 has is read as 8.7 says; a form 8.7 does not have
                    // is refused where it is used, naming both versions.
                    self.version = (*major, *minor);
                }
                Item::Target { targets, loc } => {
                    have_target = true;
                    for t in targets {
                        if let Some(tg) = spec::catalog::Target::parse(t) {
                            // A target string exists from the PTX version that introduced it
                            // (§11.1.2, `targets.forms`).
                            if let Some(v) = catalog().target_version(tg) {
                                if (v.0 as u32, v.1 as u32) > self.version {
                                    return terr(
                                        *loc,
                                        format!(
                                            "`.target {t}` needs PTX ISA {v} or later (the module declares {}.{})",
                                            self.version.0, self.version.1
                                        ),
                                    );
                                }
                            }
                            self.sm = tg.sm;
                            self.target = tg;
                        } else if !matches!(
                            t.as_str(),
                            "texmode_unified" | "texmode_independent" | "debug" | "map_f64_to_f32"
                        ) {
                            return terr(
                                *loc,
                                format!("unknown target `{t}` (expected sm_NN or a target option)"),
                            );
                        }
                    }
                }
                Item::AddressSize { bits, loc } => {
                    self.address_size(*bits, *loc, have_address_size, have_target && !have_decl)?;
                    have_address_size = true;
                }
                _ => {
                    have_decl = true;
                    if !have_version {
                        return terr(item_loc(item), "the module must begin with `.version`");
                    }
                    if !have_target {
                        return terr(
                            item_loc(item),
                            "`.target` must follow `.version` before any declaration",
                        );
                    }
                }
            }
        }
        if !have_version {
            return terr(Loc { line: 1, col: 1 }, "the module has no `.version` directive");
        }
        if !have_address_size {
            self.windows = self.default_windows();
        }
        // Functions first: variables' initializers may name them (`{op_add, op_xor}`).
        for item in &m.items {
            if let Item::Function(f) = item {
                self.declare_func(f)?;
            }
        }
        for item in &m.items {
            if let Item::Var(v) = item {
                self.module_var(v)?;
            }
        }
        // Dynamic shared arrays start after every static one, at their declared alignment.
        for (name, align) in std::mem::take(&mut self.dyn_shared) {
            self.shared_align = self.shared_align.max(align);
            if let Some(Sym::Var { addr, .. }) = self.globals.get_mut(&name) {
                *addr = self.shared_bytes.div_ceil(align) * align;
            }
        }
        self.shared_bytes = self.shared_bytes.div_ceil(self.shared_align) * self.shared_align;
        for (i, slot) in std::mem::take(&mut self.func_ast).into_iter().enumerate() {
            if let Some(f) = slot {
                self.function(i as u32, &f)?;
            }
        }
        Ok(Program {
            funcs: self.funcs,
            code: self.code,
            data: self.data,
            global_bytes: self.global_bytes,
            const_bytes: self.const_bytes,
            shared_bytes: self.shared_bytes,
            shared_align: self.shared_align,
            local_bytes: self.local_bytes,
            sm: self.sm,
            version: self.version,
            windows: self.windows,
            unsupported: self.unsupported,
        })
    }

    fn declare_func(&mut self, f: &Function) -> Result<()> {
        let idx = match self.globals.get(&f.name) {
            Some(Sym::Func(i)) => {
                let i = *i;
                if f.body.is_some() && self.funcs[i as usize].defined {
                    return terr(f.loc, format!("function `{}` is defined twice", f.name));
                }
                i
            }
            Some(_) => return terr(f.loc, format!("`{}` is already declared as a variable", f.name)),
            None => {
                let i = self.funcs.len() as u32;
                self.globals.insert(f.name.clone(), Sym::Func(i));
                self.funcs.push(Func {
                    name: f.name.clone(),
                    entry: f.entry,
                    start: 0,
                    nregs: 1,
                    frame_bytes: 0,
                    params: Vec::new(),
                    param_types: Vec::new(),
                    rets: Vec::new(),
                    defined: false,
                    loc: f.loc,
                    maxnreg: None,
                    cluster: ClusterDirectives::default(),
                });
                self.func_ast.push(None);
                i
            }
        };
        // Parameter layout: a kernel's in its parameter buffer (CUDA's: each at its alignment),
        // a function's at the start of its frame, returns after them.
        let mut off = 0u32;
        let mut layout = |ds: &[VarDecl]| -> Result<Vec<(u32, u32)>> {
            let mut v = Vec::new();
            for d in ds {
                if d.space != "param" && d.space != "reg" {
                    return terr(
                        d.loc,
                        format!("parameter `{}` must be `.param` or `.reg`, not `.{}`", d.name, d.space),
                    );
                }
                let size = decl_bytes(d).max(if d.dims.is_empty() { 0 } else { 1 }) as u32;
                if size == 0 {
                    return terr(d.loc, format!("parameter `{}` has no size (type `.{}`)", d.name, d.ty));
                }
                let align = align_of(d).clamp(1, 256) as u32;
                off = off.div_ceil(align) * align;
                v.push((off, size));
                off += size;
            }
            Ok(v)
        };
        let params = layout(&f.params)?;
        let rets = layout(&f.rets)?;
        let func = &mut self.funcs[idx as usize];
        if func.entry != f.entry {
            return terr(f.loc, format!("`{}` is declared both as `.entry` and `.func`", f.name));
        }
        func.params = params;
        func.rets = rets;
        func.param_types = f.params.iter().map(|p| p.ty.clone()).collect();
        func.frame_bytes = off;
        if f.body.is_some() {
            func.defined = true;
            func.loc = f.loc;
            self.func_ast[idx as usize] = Some(f.clone());
        }
        Ok(())
    }

    fn module_var(&mut self, v: &VarDecl) -> Result<()> {
        if self.globals.contains_key(&v.name) {
            return terr(v.loc, format!("`{}` is declared twice", v.name));
        }
        let size = decl_bytes(v);
        let align = align_of(v).max(1);
        if !align.is_power_of_two() {
            return terr(v.loc, format!("alignment {align} is not a power of two"));
        }
        let space = match v.space.as_str() {
            "global" => Space::Global,
            "const" => Space::Const,
            "shared" => Space::Shared,
            "local" => Space::Local,
            "tex" | "surfref" | "samplerref" => {
                return terr(
                    v.loc,
                    format!(
                        "`.{}` variables (textures, surfaces) are not executed by the oracle",
                        v.space
                    ),
                )
            }
            s => return terr(v.loc, format!("`.{s}` variables cannot be declared at module scope")),
        };
        let place = |used: &mut u64| {
            let a = used.div_ceil(align) * align;
            *used = a + size;
            a
        };
        let addr = match space {
            Space::Global => self.windows.global_data + place(&mut self.global_bytes),
            Space::Const => place(&mut self.const_bytes),
            Space::Shared if v.linkage.iter().any(|l| l == "extern") && size == 0 => {
                self.dyn_shared.push((v.name.clone(), align));
                0
            }
            Space::Shared => {
                self.shared_align = self.shared_align.max(align);
                place(&mut self.shared_bytes)
            }
            _ => {
                let mut used = self.local_bytes as u64;
                let a = place(&mut used);
                self.local_bytes = used as u32;
                a
            }
        };
        if let Some(init) = &v.init {
            if !matches!(space, Space::Global | Space::Const) {
                return terr(v.loc, format!("`.{}` variables cannot have initializers", v.space));
            }
            let bytes = self.init_bytes(v, init, size)?;
            self.data.push(Data {
                name: v.name.clone(),
                space,
                addr,
                bytes,
            });
        }
        self.globals.insert(v.name.clone(), Sym::Var { space, addr });
        Ok(())
    }

    /// Initial bytes of a variable: elements in order, little-endian, the rest zero.
    /// An initializer naming a variable or function (§5.4.4): `var` is the variable's address
    /// in its space (as `mov` gives it), `generic(var)` its generic address, either `+`/`-` a
    /// constant; only `.global` and `.const` variables may appear. `None`: no name in it.
    fn init_address(&self, e: &Expr, loc: Loc) -> Result<Option<u64>> {
        match e {
            Expr::Name(n) => {
                let (inner, generic) = match n.strip_prefix("generic(").and_then(|r| r.strip_suffix(')')) {
                    Some(inner) => (inner, true),
                    None => (n.as_str(), false),
                };
                match self.globals.get(inner) {
                    Some(Sym::Func(f)) if !generic => Ok(Some(self.windows.func_addr(*f))),
                    Some(Sym::Var {
                        space: space @ (Space::Global | Space::Const),
                        addr,
                    }) => Ok(Some(if generic { self.windows.to_generic(*space, *addr) } else { *addr })),
                    _ => terr(
                        loc,
                        format!(
                            "initializer `{n}`: `{inner}` is not a function or a `.global`/`.const` variable declared before it"
                        ),
                    ),
                }
            }
            Expr::Binary(op, a, b) if op == "+" || op == "-" => {
                let (base, k, neg) = match (self.init_address(a, loc)?, const_int(b)) {
                    (Some(base), Some(k)) => (base, k, op == "-"),
                    _ if op == "+" => match (const_int(a), self.init_address(b, loc)?) {
                        (Some(k), Some(base)) => (base, k, false),
                        (_, None) => return Ok(None),
                        _ => return terr(loc, "an address in an initializer takes `+`/`-` a constant only"),
                    },
                    (None, _) => return Ok(None),
                    _ => return terr(loc, "an address in an initializer takes `+`/`-` a constant only"),
                };
                Ok(Some(if neg {
                    base.wrapping_sub(k as u64)
                } else {
                    base.wrapping_add(k as u64)
                }))
            }
            _ => Ok(None),
        }
    }

    fn init_bytes(&self, v: &VarDecl, init: &Init, size: u64) -> Result<Vec<u8>> {
        let Some(ty) = Type::parse(&v.ty) else {
            return terr(v.loc, format!("`.{}` variables cannot be initialized", v.ty));
        };
        let elem = type_bytes(&v.ty) as usize;
        let mut flat = Vec::new();
        fn walk<'a>(i: &'a Init, out: &mut Vec<&'a Expr>) {
            match i {
                Init::Expr(e) => out.push(e),
                Init::List(l) => l.iter().for_each(|x| walk(x, out)),
            }
        }
        walk(init, &mut flat);
        let mut bytes = vec![0u8; size as usize];
        if flat.len() * elem > bytes.len() {
            return terr(
                v.loc,
                format!(
                    "`{}` has {} initializers for {} elements",
                    v.name,
                    flat.len(),
                    bytes.len() / elem.max(1)
                ),
            );
        }
        for (i, e) in flat.iter().enumerate() {
            let val = match self.init_address(e, v.loc)? {
                Some(a) => a,
                None => match ty.kind {
                    Kind::Float(_) => match float_literal(e, ty) {
                        Some(b) => b,
                        None => {
                            return terr(
                                v.loc,
                                format!(
                                    "initializer of `.{}` `{}` must be a floating-point constant",
                                    v.ty, v.name
                                ),
                            )
                        }
                    },
                    _ => match const_int(e) {
                        Some(x) => x as u64,
                        None => {
                            return terr(
                                v.loc,
                                format!("initializer of `{}` is not a constant expression", v.name),
                            )
                        }
                    },
                },
            };
            bytes[i * elem..(i + 1) * elem].copy_from_slice(&val.to_le_bytes()[..elem]);
        }
        Ok(bytes)
    }
}

/// Where a module item is.
fn item_loc(i: &Item) -> Loc {
    match i {
        Item::Version { loc, .. } | Item::Target { loc, .. } | Item::AddressSize { loc, .. } => *loc,
        Item::Var(v) => v.loc,
        Item::Function(f) => f.loc,
        Item::Directive(d) => d.loc,
    }
}
