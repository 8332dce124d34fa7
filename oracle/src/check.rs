//! The type checker: a parsed [`Module`] to a decoded [`Program`], or the first error with its
//! line and column.
//!
//! Instruction names are resolved against the catalog (the one table of legal forms, with the
//! PTX version and target each needs); operands are checked by the rules of §9.4 (Table 23, and
//! Tables 24/25 for `ld`, `st` and `cvt`); names are resolved in nested scopes (a call sequence's
//! `{ .param ... }` block declares its own `param0`). Everything the interpreter needs per
//! instruction is decided here, once.

use crate::ast::{self, Expr, Function, Init, Instr, Item, Loc, Module, Operand, Stmt, VarDecl};
use crate::error::{Error, ErrorKind, Result};
use crate::mem;
use crate::program::*;
use spec::catalog::{catalog, fragment, Form, PtxVersion};
use spec::types::{Kind, Type};
use std::collections::HashMap;

fn terr<T>(loc: Loc, msg: impl Into<String>) -> Result<T> {
    Err(Error::at(ErrorKind::Type, loc, msg))
}

/// What a name denotes.
#[derive(Clone, Debug)]
enum Sym {
    Reg {
        slot: u32,
        ty: Type,
    },
    /// A variable at a fixed address of its space.
    Var {
        space: Space,
        addr: u64,
    },
    /// A `.local`/`.param` variable of the current activation.
    FrameVar {
        space: Space,
        off: u32,
        size: u32,
    },
    Func(u32),
    /// A `.callprototype` (parameter and return sizes).
    Proto {
        params: Vec<u32>,
        rets: Vec<u32>,
    },
    /// A `.branchtargets` list.
    Targets(Vec<String>),
    /// A vector register `.reg .v4 .b32 v` of this many elements (§5.4.2), in consecutive
    /// slots: read element by element as `v.x`/`v.r` ... (declared as their own [`Sym::Reg`]s)
    /// or whole as the data operand of a `.vN` load or store.
    VecReg(u32),
}

/// The label of a function's epilogue (not a PTX name: it cannot collide with one).
const EPILOGUE: &str = " epilogue";

/// The element names of a vector register (§5.4.2, §6.4.2: `.x .y .z .w` and `.r .g .b .a`).
const VEC_COMPONENTS: [[&str; 2]; 4] = [["x", "r"], ["y", "g"], ["z", "b"], ["w", "a"]];

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
    pub grammar: Grammar,
}

/// Checks and decodes a module (ptxas's grammar, fast paths on).
pub fn check(m: &Module) -> Result<Program> {
    check_with(m, Options::default())
}

/// [`check`] without the [`crate::fast`] shortcuts.
pub fn check_generic(m: &Module) -> Result<Program> {
    check_with(
        m,
        Options {
            generic: true,
            ..Options::default()
        },
    )
}

/// Checks and decodes a module as `o` says.
pub fn check_with(m: &Module, o: Options) -> Result<Program> {
    let mut c = Checker::new();
    c.generic = o.generic;
    c.grammar = o.grammar;
    c.module(m)
}

struct Checker {
    /// No fast paths: every value form as `Op::Pure`.
    generic: bool,
    grammar: Grammar,
    version: (u32, u32),
    sm: u32,
    /// The module's `.target` architecture, suffix included (`sm_90a`).
    target: spec::catalog::Target,
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

/// Size in bytes of a declared type (`.b8` … `.b128`, `.f16x2`, ...); 0 for opaque types.
fn type_bytes(ty: &str) -> u64 {
    match Type::parse(ty) {
        Some(t) if t.kind == Kind::Pred => 1,
        Some(t) => (t.bits() as u64).div_ceil(8),
        None => 0,
    }
}

fn vec_len(d: &VarDecl) -> u64 {
    d.attrs
        .iter()
        .find_map(|(w, _)| match w.as_str() {
            "v2" => Some(2),
            "v4" => Some(4),
            "v8" => Some(8),
            _ => None,
        })
        .unwrap_or(1)
}

fn align_of(d: &VarDecl) -> u64 {
    // In `.param .u64 .ptr .global .align 1 p` the `.align` after `.ptr` is the pointee's
    // (§5.1.6.3, the `.ptr` attribute), not the parameter's: Triton writes `.align 1` there.
    d.attrs
        .iter()
        .take_while(|(w, _)| w != "ptr")
        .find_map(|(w, a)| (w == "align").then_some(a.unwrap_or(1)))
        .unwrap_or_else(|| (type_bytes(&d.ty) * vec_len(d)).max(1))
}

/// Bytes of a declaration: element size × vector length × dimensions (an unsized `[]` takes its
/// size from the initializer, or is 0).
fn decl_bytes(d: &VarDecl) -> u64 {
    let elem = type_bytes(&d.ty) * vec_len(d);
    let mut n = 1u64;
    for (i, dim) in d.dims.iter().enumerate() {
        let k = match dim {
            Some(k) => *k,
            None if i == 0 => d.init.as_ref().map_or(0, |init| match init {
                Init::List(v) => v.len() as u64,
                Init::Expr(_) => 1,
            }),
            None => 0,
        };
        n = n.saturating_mul(k);
    }
    elem.saturating_mul(n)
}

/// A constant expression's value (§4.6): 64-bit integer arithmetic, signed unless an operand is
/// unsigned; `None` when it names something or divides by zero.
pub fn const_int(e: &Expr) -> Option<i64> {
    Some(match e {
        Expr::Int { value, .. } => *value as i64,
        Expr::Float { .. } | Expr::Name(_) => return None,
        Expr::Unary(op, a) => {
            let a = const_int(a)?;
            match op {
                '-' => a.wrapping_neg(),
                '+' => a,
                '!' => (a == 0) as i64,
                '~' => !a,
                _ => return None,
            }
        }
        Expr::Binary(op, a, b) => {
            let unsigned = is_unsigned(a) || is_unsigned(b);
            let (a, b) = (const_int(a)?, const_int(b)?);
            let (ua, ub) = (a as u64, b as u64);
            match op.as_str() {
                "+" => a.wrapping_add(b),
                "-" => a.wrapping_sub(b),
                "*" => a.wrapping_mul(b),
                "/" if unsigned => ua.checked_div(ub)? as i64,
                "/" => a.checked_div(b)?,
                "%" if unsigned => ua.checked_rem(ub)? as i64,
                "%" => a.checked_rem(b)?,
                "<<" => a.wrapping_shl(b as u32),
                ">>" if unsigned => ua.wrapping_shr(b as u32) as i64,
                ">>" => a.wrapping_shr(b as u32),
                "&" => a & b,
                "|" => a | b,
                "^" => a ^ b,
                "&&" => (a != 0 && b != 0) as i64,
                "||" => (a != 0 || b != 0) as i64,
                "==" => (a == b) as i64,
                "!=" => (a != b) as i64,
                "<" if unsigned => (ua < ub) as i64,
                "<" => (a < b) as i64,
                ">" if unsigned => (ua > ub) as i64,
                ">" => (a > b) as i64,
                "<=" if unsigned => (ua <= ub) as i64,
                "<=" => (a <= b) as i64,
                ">=" if unsigned => (ua >= ub) as i64,
                ">=" => (a >= b) as i64,
                _ => return None,
            }
        }
        Expr::Cond(c, a, b) => {
            if const_int(c)? != 0 {
                const_int(a)?
            } else {
                const_int(b)?
            }
        }
    })
}

fn is_unsigned(e: &Expr) -> bool {
    match e {
        Expr::Int { unsigned, .. } => *unsigned,
        Expr::Unary(_, a) => is_unsigned(a),
        Expr::Binary(_, a, b) => is_unsigned(a) || is_unsigned(b),
        Expr::Cond(_, a, b) => is_unsigned(a) || is_unsigned(b),
        _ => false,
    }
}

/// A literal for an operand of float format `fmt` (§4.5.1: `0f` literals are f32 bits, every
/// other float constant is an f64 converted to the operand's size).
fn float_literal(e: &Expr, ty: Type) -> Option<u64> {
    let neg = matches!(e, Expr::Unary('-', _));
    let inner = match e {
        Expr::Unary('-', a) | Expr::Unary('+', a) => a,
        other => other,
    };
    let Expr::Float { bits, f32 } = inner else { return None };
    let Kind::Float(fmt) = ty.kind else { return None };
    let v = match (f32, fmt) {
        (true, spec::types::FloatFormat::F32) => *bits,
        (false, spec::types::FloatFormat::F64) => *bits,
        (true, spec::types::FloatFormat::F64) => (f32::from_bits(*bits as u32) as f64).to_bits(),
        (false, spec::types::FloatFormat::F32) => spec::float::round::from_f64(
            spec::float::Fmt::of(fmt),
            f64::from_bits(*bits),
            spec::float::round::Rnd::Rn,
        ) as u64,
        _ => return None,
    };
    let sign = if ty.bits() == 64 { 1u64 << 63 } else { 1u64 << 31 };
    Some(if neg { v ^ sign } else { v })
}

/// §9.4 operand/instruction type agreement. `relaxed` is Tables 24/25 (`ld`, `st`, `cvt`):
/// registers wider than the instruction type. Returns the sign-extension width for a
/// destination (0: zero-extend).
fn agree(instr: Type, reg: Type, relaxed: bool) -> std::result::Result<u8, String> {
    let (ib, rb) = (instr.bits(), reg.bits());
    let bad = || {
        Err(format!(
            "a `.{reg}` register cannot be used where the instruction expects `.{instr}`{}",
            if relaxed { "" } else { " (§9.4: types must agree)" }
        ))
    };
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

impl Checker {
    fn new() -> Checker {
        Checker {
            generic: false,
            grammar: Grammar::Ptxas,
            version: (0, 0),
            sm: 0,
            target: spec::catalog::Target { sm: 0, suffix: None },
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
                    if *bits != 64 {
                        // §11.1.3 allows 32; NVIDIA ptxas 12.9 no longer does ("32-Bit
                        // compilation is no longer supported"), so no GPU runs such a module.
                        return terr(
                            *loc,
                            "`.address_size 32`: the oracle runs 64-bit modules only (ptxas 12.9 refuses 32-bit compilation too: \"32-Bit compilation is no longer supported\")",
                        );
                    }
                }
                _ => {
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
            Space::Global => mem::GLOBAL_DATA + place(&mut self.global_bytes),
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
                    Some(Sym::Func(f)) if !generic => Ok(Some(mem::FUNC_BASE + 16 * *f as u64)),
                    Some(Sym::Var {
                        space: space @ (Space::Global | Space::Const),
                        addr,
                    }) => Ok(Some(if generic { mem::to_generic(*space, *addr) } else { *addr })),
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

    fn function(&mut self, idx: u32, f: &Function) -> Result<()> {
        let start = self.code.len() as u32;
        let mut fc = FuncCx {
            ck: self,
            idx,
            scopes: vec![HashMap::new()],
            nregs: 1,
            frame: 0,
            labels: HashMap::new(),
            lists: HashMap::new(),
            opcode: String::new(),
            fixups: Vec::new(),
            pc: start,
            ret_epilogue: false,
        };
        fc.frame = fc.ck.funcs[idx as usize].frame_bytes;
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
        // A kernel launched in clusters of several CTAs (§11.4.5-11.4.7) needs cluster
        // semantics the oracle does not have yet: it stops there rather than run as lone CTAs.
        let cluster = f.directives.iter().find(|d| {
            let dims: u64 = d
                .text
                .split(|c: char| c == ',' || c.is_whitespace())
                .filter_map(|w| w.parse::<u64>().ok())
                .product();
            d.name == "explicitcluster" || (d.name == "reqnctapercluster" && dims > 1)
        });
        if let (Some(d), true) = (cluster, f.entry) {
            let text = format!(".{} {}", d.name, d.text).trim_end().to_string();
            let message =
                format!("`{text}` (clusters of CTAs, §11.4) is valid PTX, but the oracle does not execute it yet");
            fc.ck.unsupported.push((d.loc, message.clone()));
            fc.push(None, Op::Unsupported { message }, d.loc, text);
        }
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
        Ok(())
    }
}

fn item_loc(i: &Item) -> Loc {
    match i {
        Item::Version { loc, .. } | Item::Target { loc, .. } | Item::AddressSize { loc, .. } => *loc,
        Item::Var(v) => v.loc,
        Item::Function(f) => f.loc,
        Item::Directive(d) => d.loc,
    }
}

/// Per-function checking state.
struct FuncCx<'a> {
    ck: &'a mut Checker,
    idx: u32,
    scopes: Vec<HashMap<String, Sym>>,
    nregs: u32,
    frame: u32,
    labels: HashMap<String, u32>,
    /// `.branchtargets`/`.callprototype` lists by label, function-wide (scoped ones win).
    lists: HashMap<String, Sym>,
    /// The opcode being checked (special registers and addresses are legal in few).
    opcode: String,
    /// Branches whose label is resolved at the end: (pc, label, loc).
    fixups: Vec<(u32, String, Loc)>,
    pc: u32,
    /// The function returns `.reg` values: `ret` branches to the epilogue that stores them.
    ret_epilogue: bool,
}

impl FuncCx<'_> {
    fn lookup(&self, name: &str) -> Option<&Sym> {
        self.scopes
            .iter()
            .rev()
            .find_map(|s| s.get(name))
            .or_else(|| self.lists.get(name))
            .or_else(|| self.ck.globals.get(name))
    }

    /// Labels are function-wide: a branch may jump forward into a later block.
    fn collect_labels(&mut self, body: &[Stmt]) -> Result<()> {
        let mut pc = self.pc;
        fn walk(fc: &mut FuncCx, body: &[Stmt], pc: &mut u32) -> Result<()> {
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
                    Stmt::Label { name, loc } if fc.labels.insert(name.clone(), *pc).is_some() => {
                        return terr(*loc, format!("label `{name}` is defined twice"));
                    }
                    Stmt::Instr(_) => *pc += 1,
                    Stmt::Block { body, .. } => walk(fc, body, pc)?,
                    _ => {}
                }
            }
            Ok(())
        }
        walk(self, body, &mut pc)
    }

    fn push(&mut self, guard: Option<(u32, bool)>, op: Op, loc: Loc, text: String) {
        self.ck.code.push(Inst { guard, op, loc, text });
        self.pc += 1;
    }

    fn block(&mut self, body: &[Stmt]) -> Result<()> {
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
                    self.block(body)?;
                    self.scopes.pop();
                }
            }
        }
        Ok(())
    }

    fn decl(&mut self, d: &VarDecl) -> Result<()> {
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

    /// The elements of a memory instruction's data operand: a `{...}` of `n` registers of one
    /// size for `.vN` (ptxas: "Incompatible elements of vector expression"), else the operand,
    /// which ptxas also takes as a one-element vector (`ld.global.b32 { %r1 }, [%rd1]`, as
    /// Triton's inline asm writes it).
    fn elements(&self, o: &Operand, n: usize, loc: Loc) -> Result<Vec<Operand>> {
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
    fn mem_addr(&self, a: &Operand, form: &Form, loc: Loc) -> Result<(Addr, Space)> {
        let (addr, sym_space) = self.addr(a, loc)?;
        let space = self.check_space(Self::space_of(form), sym_space, loc)?;
        immediate_address_ok(addr, sym_space, space, loc)?;
        match addr {
            // 32-bit addresses in a 64-bit module: ptxas 12.9 takes them for the per-CTA
            // and per-thread windows (.shared, .local, .const, .param) only ("Program uses
            // 32-bit address ... conflicting with .address_size 64", then no code).
            // (A 16-bit register is taken, zero-extended: ptxas 12.9 flags 32-bit ones only.)
            Addr::Reg(slot, _) if matches!(space, Space::Global | Space::Generic) && self.reg_bits(slot) == 32 => {
                return terr(
                    loc,
                    format!("a 32-bit register cannot address `.{}` memory in a 64-bit module (ptxas 12.9: 32-bit compilation is no longer supported)", space.name()),
                );
            }
            _ => {}
        }
        Ok((generic_var_addr(space, sym_space, addr), space))
    }

    /// The declared width of the register in `slot` (64 for a slot no name maps to).
    fn reg_bits(&self, slot: u32) -> u32 {
        self.scopes
            .iter()
            .flat_map(|s| s.values())
            .find_map(|sym| match sym {
                Sym::Reg { slot: s, ty } if *s == slot => Some(ty.bits()),
                _ => None,
            })
            .unwrap_or(64)
    }

    fn reg(&self, name: &str, loc: Loc) -> Result<(u32, Type)> {
        match self.lookup(name) {
            Some(Sym::Reg { slot, ty }) => Ok((*slot, *ty)),
            Some(_) => terr(loc, format!("`{name}` is not a register")),
            None => terr(loc, format!("`{name}` is not declared")),
        }
    }

    fn pred(&self, name: &str, loc: Loc) -> Result<u32> {
        let (slot, ty) = self.reg(name, loc)?;
        if ty.kind != Kind::Pred {
            return terr(loc, format!("`{name}` is a `.{ty}` register, not a predicate"));
        }
        Ok(slot)
    }

    /// A source operand of instruction type `ty`.
    fn src(&self, o: &Operand, ty: Type, relaxed: bool, loc: Loc) -> Result<Src> {
        let Operand::Expr(e) = o else {
            return terr(loc, format!("expected a register or constant of type `.{ty}`"));
        };
        if let Expr::Name(n) = e {
            if let Some(s) = sreg(n) {
                let sty = sreg_type(s);
                // Special registers are read by mov and cvt only (§10); a 16-bit read of a
                // 32-bit one is allowed for legacy code (L31875) and takes the low half.
                if !matches!(self.opcode.as_str(), "mov" | "cvt") {
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
            if let Some(what) = unmodeled_sreg(n) {
                // §10.8-10.14: the cluster registers exist from sm_90 on (ptxas 12.9 refuses
                // them below).
                if what.starts_with("clusters") && self.ck.sm < 90 {
                    return terr(
                        loc,
                        format!(
                            "special register `{n}` requires sm_90 (§10.8-10.14), not {}",
                            self.ck.target
                        ),
                    );
                }
                return terr(
                    loc,
                    format!("special register `{n}` of {what} is valid PTX, but the oracle does not execute it yet"),
                );
            }
            return match self.lookup(n) {
                Some(Sym::Reg { slot, ty: rty }) => {
                    agree(ty, *rty, relaxed).map_err(|m| Error::at(ErrorKind::Type, loc, format!("`{n}`: {m}")))?;
                    Ok(Src::Reg(*slot))
                }
                // A variable's or function's address is an operand of `mov` and `cvta` only
                // (L11748); those take it before operands reach here.
                Some(Sym::Var { .. } | Sym::FrameVar { .. } | Sym::Func(_)) => terr(
                    loc,
                    format!("`{n}` is a variable or function: take its address with `mov` (or `cvta`) first"),
                ),
                Some(_) => terr(loc, format!("`{n}` cannot be used as a value here")),
                None if n == "WARP_SZ" => Ok(Src::Imm(32)),
                None => terr(loc, format!("`{n}` is not declared")),
            };
        }
        // `var+k`: ptxas 12.9 takes a variable's or function's address plus a constant as a
        // 64-bit immediate anywhere (`not.b64 d, gbuf+4`, `isspacep.global p, gbuf+8`), while a
        // bare `var` must go through `mov` ("must be register"): the address `mov` would give.
        if let (Expr::Binary(..), Some((n, off))) = (e, addr_name_off(e)) {
            if ty.bits() == 64 {
                match self.lookup(n) {
                    Some(Sym::Var { addr, .. }) => return Ok(Src::Imm(addr.wrapping_add(off as u64))),
                    Some(Sym::Func(f)) => {
                        return Ok(Src::Imm((mem::FUNC_BASE + 16 * *f as u64).wrapping_add(off as u64)))
                    }
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
    fn dst(&self, o: &Operand, ty: Type, relaxed: bool, loc: Loc) -> Result<Dst> {
        match o {
            Operand::Sink => Ok(Dst::SINK),
            Operand::Expr(Expr::Name(n)) => {
                let (slot, rty) = self.reg(n, loc)?;
                let sext =
                    agree(ty, rty, relaxed).map_err(|m| Error::at(ErrorKind::Type, loc, format!("`{n}`: {m}")))?;
                Ok(Dst {
                    slot,
                    bits: if rty.kind == Kind::Pred { 1 } else { rty.bits() as u8 },
                    sext,
                })
            }
            _ => terr(loc, format!("expected a destination register of type `.{ty}`")),
        }
    }

    fn addr(&self, o: &Operand, loc: Loc) -> Result<(Addr, Option<Space>)> {
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
                            Error::at(
                                ErrorKind::Type,
                                loc,
                                "address must be `[reg]`, `[reg+imm]`, `[var+imm]` or `[imm]`",
                            )
                        })?,
                    ),
                },
            },
            Expr::Name(n) => (Some(n.as_str()), 0),
            _ => (
                None,
                const_int(e).ok_or_else(|| {
                    Error::at(
                        ErrorKind::Type,
                        loc,
                        "address must be `[reg]`, `[reg+imm]`, `[var+imm]` or `[imm]`",
                    )
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

    fn instr(&mut self, i: &Instr) -> Result<()> {
        let loc = i.loc;
        let text = crate::print::instr(i);
        // ptxas reads a one-element vector `{ %r1 }` as the register itself where `mov` takes a
        // register (`mov.b32 {%r1}, %r2`); other value instructions refuse vectors (ld/st take
        // it as their data operand: `elements`).
        // (`mov.f32 %f1, {%f2}` is "Argument vector size mismatch": bit types only.) A whole
        // vector register in a `mov` is its elements (`mov.b32 %v, %r` with `.v4 .b8 %v`).
        let (unwrapped, unwrapped_bf16);
        let bits_mov = i.opcode == "mov" && i.mods.iter().any(|m| m.starts_with('b') && Type::parse(m).is_some());
        let one_element = |o: &Operand| matches!(o, Operand::Vector(v) if v.len() == 1);
        let vec_reg =
            |o: &Operand| matches!(o, Operand::Expr(Expr::Name(n)) if matches!(self.lookup(n), Some(Sym::VecReg(_))));
        // `{x}` beside a real vector is not a register: "Illegal vector-vector operands for
        // vector-scalar or scalar-vector mov".
        let many = i
            .operands
            .iter()
            .any(|o| matches!(o, Operand::Vector(v) if v.len() > 1));
        if i.opcode == "mov" && many && i.operands.iter().any(one_element) {
            return terr(loc, "`mov` cannot pair a one-element vector `{x}` with a vector");
        }
        // ptxas also reads `{x}` as `x` for the sources of the `.bf16`/`.bf16x2` instructions
        // (`neg.bf16 d, {a}`, `ex2.approx.ftz.bf16`, `setp.gtu.and.bf16x2`), not of `.f16` ones.
        let bf16 = i.opcode != "mov" && i.mods.iter().any(|m| m == "bf16" || m == "bf16x2");
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
        let i = if i.opcode == "mov" && i.operands.iter().any(|o| bits_mov && one_element(o) || vec_reg(o)) {
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
        self.opcode = i.opcode.clone();
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
            Error::at(ErrorKind::Type, loc, format!("{}{newer}", e.0))
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
        // Forms of the manual's grammar that ptxas refuses: refused as ptxas does, unless asked
        // for the manual's grammar.
        if self.ck.grammar == Grammar::Ptxas {
            let refused = |f: &&Form| {
                cat.ptxas_rejects(f).filter(|why| {
                    // "Feature '.block32' requires PTX ISA .version 8.8 or later": refused below.
                    let from = why
                        .split_once("requires PTX ISA .version ")
                        .and_then(|(_, v)| PtxVersion::parse(v.split_whitespace().next()?));
                    from.is_none_or(|v| version < v)
                })
            };
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
                        why[0]
                    ),
                );
            }
        }
        // Operational instructions decoded without `bind` still get their operands checked.
        if matches!(
            i.opcode.as_str(),
            "ret" | "exit" | "trap" | "membar" | "fence" | "prefetch" | "prefetchu" | "nanosleep" | "pmevent"
        ) {
            self.shape(i, avail[0])?;
        }
        let op = match i.opcode.as_str() {
            // Plain loads and stores (`st.async`, `st.bulk` share the opcode, not the semantics).
            "ld" | "ldu" if matches!(cat.section_of(avail[0]).title, "ld" | "ldu" | "ld.global.nc") => {
                self.ld(i, avail[0])?
            }
            "st" if cat.section_of(avail[0]).title == "st" => self.st(i, avail[0])?,
            "mov" if self.is_address_mov(i) => self.mov_address(i, avail[0])?,
            "cvta" => self.cvta(i, avail[0])?,
            "atom" | "red" => self.atom(i, avail[0])?,
            "isspacep" => self.isspacep(i, avail[0])?,
            "bra" => {
                let [Operand::Expr(Expr::Name(l))] = &i.operands[..] else {
                    return terr(loc, "`bra` takes one label");
                };
                if !self.labels.contains_key(l) {
                    return terr(loc, format!("label `{l}` is not defined in this function"));
                }
                self.fixups.push((self.pc, l.clone(), loc));
                Op::Bra { target: 0 }
            }
            "brx" => self.brx(i)?,
            "call" => self.call(i)?,
            "ret" if self.ret_epilogue => {
                self.fixups.push((self.pc, EPILOGUE.to_string(), loc));
                Op::Bra { target: 0 }
            }
            "ret" => Op::Ret,
            "exit" => Op::Exit,
            "trap" => Op::Trap,
            "bar" | "barrier" if i.mods.first().map(String::as_str) == Some("warp") => {
                let ty = Type::parse("b32").unwrap();
                let [m] = &i.operands[..] else {
                    return terr(loc, "`bar.warp.sync` takes a member mask");
                };
                Op::WarpSync {
                    mask: self.src(m, ty, false, loc)?,
                }
            }
            "bar" | "barrier" if !i.mods.iter().any(|m| m == "cluster") => self.bar(i, avail[0])?,
            // The address of a prefetch is checked as a load's (space, immediate, width).
            "prefetch" | "prefetchu" => {
                if let Some(a) = i.operands.iter().find(|o| matches!(o, Operand::Address(_))) {
                    let (_, space) = self.mem_addr(a, avail[0], loc)?;
                    // prefetchu takes a generic address only (ptxas 12.9: "Non-generic address
                    // is not supported as operand for prefetchu", for `[lbuf]`).
                    if i.opcode == "prefetchu" && space != Space::Generic {
                        return terr(loc, "`prefetchu` takes a generic address, not a `.local` variable's");
                    }
                }
                Op::Nop
            }
            "membar" | "fence" | "nanosleep" | "pmevent" => Op::Nop,
            // "shfl and vote without .sync are not supported on sm_70 and later from PTX 6.4"
            // (L11890, L18011).
            // "mad.f32 requires a rounding modifier for sm_20 and higher" (L8030).
            "mad"
                if self.ck.sm >= 20
                    && i.mods.iter().any(|m| m == "f32")
                    && !i.mods.iter().any(|m| matches!(m.as_str(), "rn" | "rz" | "rm" | "rp")) =>
            {
                return terr(
                    loc,
                    "`mad.f32` needs a rounding modifier (`.rn`, `.rz`, `.rm`, `.rp`) on sm_20 and later",
                );
            }
            "shfl" | "vote" if !i.mods.iter().any(|m| m == "sync") && self.ck.sm >= 70 && self.ck.version >= (6, 4) => {
                return terr(
                    loc,
                    format!(
                        "`{name}` without `.sync` is not supported on sm_70 and later (use `{}.sync`)",
                        i.opcode
                    ),
                );
            }
            _ => match self.value(i, &avail) {
                Ok(op) => op,
                // Valid but not executed: decided when a thread gets there.
                Err(e) if e.message.contains("does not execute it yet") => {
                    self.ck.unsupported.push((loc, e.message.clone()));
                    Op::Unsupported { message: e.message }
                }
                Err(e) => return Err(e),
            },
        };
        self.push(guard, op, loc, text);
        Ok(())
    }

    /// Whether `i` has the shape of `form`: as many operands (optional ones may be left out),
    /// and a `{...}` (or a vector register) exactly where the form has a vector.
    fn fits(&self, i: &Instr, form: &Form) -> bool {
        let slots = slots(form);
        let written = written_slots(i);
        let required = slots.iter().filter(|s| !s[0].optional).count();
        (required..=slots.len()).contains(&written.len())
            && written.iter().zip(&slots).all(|(o, slot)| {
                let vector = match o {
                    Operand::Vector(_) => true,
                    Operand::Expr(Expr::Name(n)) => matches!(self.lookup(n), Some(Sym::VecReg(_))),
                    _ => false,
                };
                vector == slot[0].group.is_some()
            })
    }

    /// The operands of a form the oracle does not execute, as far as the catalog knows their
    /// shape: how many, a `{...}` only where the form has a vector (of the catalog's length, or
    /// where the catalog names one element, of the fragment's length [`fragment::length`], any
    /// length for the rest), constants where the form wants an immediate, `_` where the form
    /// writes nothing, and every name declared. The
    /// operands' types are left to the issues that give these forms semantics.
    fn shape(&self, i: &Instr, form: &Form) -> Result<()> {
        let loc = i.loc;
        // A cache policy is written only with `.L2::cache_hint` (a later optional operand, such
        // as cp.async.bulk's byte mask, then takes its place).
        let hinted = i.mods.iter().any(|m| m == "L2::cache_hint");
        let slots: Vec<_> = slots(form)
            .into_iter()
            .filter(|s| hinted || !(s[0].optional && s[0].name == "cache_policy"))
            .collect();
        let written = written_slots(i);
        let required = slots.iter().filter(|s| !s[0].optional).count();
        if written.len() < required || written.len() > slots.len() {
            return terr(
                loc,
                format!(
                    "`{}` takes {required}{} operands, not {}",
                    form.name,
                    if slots.len() > required {
                        format!(" to {}", slots.len())
                    } else {
                        String::new()
                    },
                    written.len()
                ),
            );
        }
        let outputs = slots
            .iter()
            .filter(|s| form.outputs.iter().any(|o| std::ptr::eq(o, s[0])))
            .count();
        for (k, (o, slot)) in written.iter().zip(&slots).enumerate() {
            let grouped = slot[0].group.is_some();
            // A destination is a register, a vector of them, `p|q`, or `_` where the catalog
            // allows it (`mbarrier.try_wait _, ...`, `mapa _, ...`: ptxas 12.9 "Result discard
            // mode is not allowed").
            if k < outputs && matches!(o, Operand::Sink) && !slot[0].flags.sink && !slot[0].flags.discard {
                return terr(loc, format!("`{}` cannot discard its result with `_`", form.name));
            }
            // A destination the instruction does not write (L18749-18750: an arrive on a
            // `.shared::cluster` mbarrier returns no state).
            if k < outputs && slot[0].flags.sink && !matches!(o, Operand::Sink) {
                return terr(
                    loc,
                    format!(
                        "`{}` returns nothing in `{}`: write the sink `_` there",
                        form.name, slot[0].name
                    ),
                );
            }
            if k < outputs {
                if let Operand::Expr(e) = o {
                    if !matches!(e, Expr::Name(n) if matches!(self.lookup(n), Some(Sym::Reg { .. } | Sym::VecReg(_)))) {
                        return terr(loc, format!("the destination of `{}` must be a register", form.name));
                    }
                }
            }
            match o {
                // (A `.vN` form's data operand is a vector though the catalog writes one
                // operand: `multimem.st.v2.f32 [a], {x, y}`.)
                // The data a store writes may be `{x}` (ptxas 12.9: `st.async [a], {b}, [m]`,
                // `multimem.st.f64 [a], {b}`, `st.bulk [a], n, {0}`).
                // (Not the st.async forms without an mbarrier: "Vector operand is not allowed".)
                Operand::Vector(v)
                    if v.len() == 1
                        && matches!(slot[0].name, "b" | "initval")
                        && (form.opcode == "st" || form.mods.first() == Some(&"st"))
                        && (form.mods.first() != Some(&"async") || form.inputs.iter().any(|o| o.name == "mbar")) => {}
                Operand::Vector(_) if !grouped && form.var("vec").is_none() => {
                    return terr(loc, format!("`{}` takes no vector operand `{{...}}` there", form.name));
                }
                Operand::Vector(v) if slot.len() > 1 && v.len() != slot.len() => {
                    return terr(
                        loc,
                        format!(
                            "`{}` takes a vector of {} elements there, not {}",
                            form.name,
                            slot.len(),
                            v.len()
                        ),
                    );
                }
                // A fragment: as many registers as the shape and types give it.
                Operand::Vector(v)
                    if slot.len() == 1 && fragment::length(form, slot[0]).is_some_and(|n| n != v.len()) =>
                {
                    return terr(
                        loc,
                        format!(
                            "`{}` takes a fragment `{}` of {} registers, not {} (§9.7.14-16 fragment sizes)",
                            form.name,
                            slot[0].name,
                            fragment::length(form, slot[0]).unwrap_or(0),
                            v.len()
                        ),
                    );
                }
                Operand::Expr(Expr::Name(n))
                    if slot.len() == 1
                        && grouped
                        && matches!(self.lookup(n), Some(Sym::VecReg(k)) if fragment::length(form, slot[0]).is_some_and(|f| f != *k as usize)) =>
                {
                    return terr(
                        loc,
                        format!(
                            "`{}` takes a fragment `{}` of {} registers, not the vector register `{n}`",
                            form.name,
                            slot[0].name,
                            fragment::length(form, slot[0]).unwrap_or(0),
                        ),
                    );
                }
                Operand::Expr(e) if slot[0].flags.imm && const_int(e).is_none() && !contains_float(e) => {
                    return terr(
                        loc,
                        format!("operand `{}` of `{}` must be a constant", slot[0].name, form.name),
                    );
                }
                _ => {}
            }
            // An address names a variable of the form's space, or is an immediate of `.local`
            // (as for the executed loads and stores).
            if let Operand::Address(_) = o {
                if let Ok((addr, sym)) = self.addr(o, loc) {
                    // `+reg` on an address: a register (plus an offset), never a variable
                    // (st.bulk; ptxas 12.9: "Argument 1 of instruction 'add': must be register").
                    if slot[0].flags.reg && !matches!(addr, Addr::Reg(..)) {
                        return terr(loc, format!("the address of `{}` must be a register", form.name));
                    }
                    // A copy's `dst`/`src` has its own space (`cp.async.shared.global`).
                    let own = form.var(slot[0].name).filter(|_| matches!(slot[0].name, "dst" | "src"));
                    let space = match own {
                        Some(s) => Self::space_named(s),
                        None => Self::space_of(form),
                    };
                    if own.is_some()
                        || form.var("ss").is_some()
                        || sym.is_some_and(|v| !matches!(v, Space::Global | Space::Shared))
                    {
                        self.check_space(space, sym, loc)?;
                    }
                    immediate_address_ok(addr, sym, space, loc)?;
                    if let Addr::Reg(r, _) = addr {
                        if slot[0].flags.wide && space == Space::Generic && self.reg_bits(r) == 32 {
                            return terr(
                                loc,
                                format!("a generic address of `{}` must be a 64-bit register (ptxas 12.9: 32-bit addressing is not supported)", form.name),
                            );
                        }
                    }
                }
            }
            let mut names = Vec::new();
            o.names(&mut names);
            for n in names {
                if self.lookup(n).is_none() && sreg(n).is_none() && unmodeled_sreg(n).is_none() && n != "WARP_SZ" {
                    return terr(loc, format!("`{n}` is not declared"));
                }
            }
            self.shape_types(o, slot, k < outputs, form, loc)?;
        }
        Ok(())
    }

    /// The registers and constants of an operand of a form the oracle does not execute, against
    /// the catalog's operand type, by the rules the executed forms follow (§9.4 `agree`, the
    /// literal rules of `src`): ptxas refuses a `.pred` for a `.u32`, a `.b16` for a `.b32`, a
    /// float literal for an integer.
    fn shape_types(
        &self,
        o: &Operand,
        slot: &[&spec::catalog::Operand],
        out: bool,
        form: &Form,
        loc: Loc,
    ) -> Result<()> {
        // Tables 24/25: the register may be wider than the type for these.
        let relaxed = matches!(form.opcode, "cvt" | "ld" | "ldu" | "st");
        let one = |e: &Expr, ty: Type| -> Result<()> {
            let reg = matches!(e, Expr::Name(n) if matches!(self.lookup(n), Some(Sym::Reg { .. }))
                || sreg(n).is_some()
                || unmodeled_sreg(n).is_some());
            let other_name = matches!(e, Expr::Name(_)) && !reg;
            // `mov.u32 d, avar` (fname, kernel) takes a name, not a register.
            if reg && matches!(slot[0].name, "avar" | "fname" | "kernel") {
                return terr(
                    loc,
                    format!("`{}` takes the name of a variable or function there", form.name),
                );
            }
            // `+reg`: a register, never a constant or a variable (`stackrestore`: "Result
            // register required"; a wgmma descriptor: "must be register").
            if slot[0].flags.reg && !reg {
                return terr(
                    loc,
                    format!("operand `{}` of `{}` must be a register", slot[0].name, form.name),
                );
            }
            // The manual's ranges for constants (`in=`, `mul=`): ptxas refuses others.
            if let Some(v) = const_int(e) {
                let f = slot[0].flags;
                let out_of_range = f.range.is_some_and(|(lo, hi)| v < lo || v > hi);
                let not_multiple = f.multiple.is_some_and(|m| v.rem_euclid(m as i64) != 0);
                if out_of_range || not_multiple {
                    return terr(
                        loc,
                        format!(
                            "operand `{}` of `{}` must be {}, not {v}",
                            slot[0].name,
                            form.name,
                            match (f.range, f.multiple) {
                                (Some((lo, hi)), Some(m)) => format!("a multiple of {m} in {lo}..={hi}"),
                                (Some((lo, hi)), None) => format!("in {lo}..={hi}"),
                                (None, Some(m)) => format!("a multiple of {m}"),
                                (None, None) => unreachable!(),
                            }
                        ),
                    );
                }
            }
            if other_name || slot[0].flags.imm || slot[0].flags.sel {
                return Ok(());
            }
            if out {
                self.dst(&Operand::Expr(e.clone()), ty, relaxed, loc).map(|_| ())
            } else {
                self.src(&Operand::Expr(e.clone()), ty, relaxed, loc).map(|_| ())
            }
        };
        match o {
            Operand::Expr(e) if slot.len() == 1 => one(e, slot[0].ty),
            Operand::Vector(v) => {
                let fragment = slot.len() == 1 && fragment::length(form, slot[0]).is_some();
                for (j, e) in v.iter().enumerate() {
                    if let Operand::Expr(e) = e {
                        // A matrix fragment is registers (ptxas 12.9: "Arguments mismatch").
                        if fragment && !matches!(e, Expr::Name(_)) {
                            return terr(
                                loc,
                                format!("the fragment `{}` of `{}` takes registers", slot[0].name, form.name),
                            );
                        }
                        one(e, slot.get(j).unwrap_or(&slot[0]).ty)?;
                    }
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// `mov.u64 %rd, var` / `mov.u64 %rd, func`: an address, not a register value.
    fn is_address_mov(&self, i: &Instr) -> bool {
        matches!(&i.operands[..], [_, Operand::Expr(e)] if addr_name(e).is_some_and(|n| matches!(self.lookup(n), Some(Sym::Var { .. } | Sym::FrameVar { .. } | Sym::Func(_)))))
    }

    fn mov_address(&self, i: &Instr, form: &Form) -> Result<Op> {
        let loc = i.loc;
        let ty = form.outputs[0].ty;
        let [d, Operand::Expr(e)] = &i.operands[..] else {
            unreachable!()
        };
        let d = self.dst(d, ty, false, loc)?;
        let (n, off) = addr_name_off(e).ok_or_else(|| Error::at(ErrorKind::Type, loc, "bad address expression"))?;
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

    fn space_of(form: &Form) -> Space {
        // `<ss:...>`, or a space the pattern writes as a word (`ld.global.nc`).
        let word = form
            .mods
            .iter()
            .copied()
            .find(|m| Self::space_named(m) != Space::Generic);
        Self::space_named(form.var("ss").or(word).unwrap_or(""))
    }

    /// `shared::cta` → `.shared`; anything else not a space → generic.
    fn space_named(s: &str) -> Space {
        match s {
            "global" => Space::Global,
            "shared" | "shared::cta" | "shared::cluster" => Space::Shared,
            "local" => Space::Local,
            "const" => Space::Const,
            "param" | "param::entry" | "param::func" => Space::Param,
            _ => Space::Generic,
        }
    }

    fn mem_ty(form: &Form) -> Type {
        form.ty("t")
            .unwrap_or_else(|| form.outputs.first().or(form.inputs.last()).map(|o| o.ty).unwrap())
    }

    fn vector_count(form: &Form) -> usize {
        match form.var("vec") {
            Some("v2") => 2,
            Some("v4") => 4,
            Some("v8") => 8,
            _ => 1,
        }
    }

    fn ld(&self, i: &Instr, form: &Form) -> Result<Op> {
        let loc = i.loc;
        let ty = Self::mem_ty(form);
        let n = Self::vector_count(form);
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

    fn st(&self, i: &Instr, form: &Form) -> Result<Op> {
        let loc = i.loc;
        let ty = Self::mem_ty(form);
        let n = Self::vector_count(form);
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
            .map(|o| self.src(&o, ty, true, loc))
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

    /// A variable used in an address must live in the instruction's space (a generic access to
    /// a named variable takes its generic address instead).
    fn check_space(&self, space: Space, sym: Option<Space>, loc: Loc) -> Result<Space> {
        match (space, sym) {
            (s, Some(v)) if s == v => Ok(s),
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

    /// `atom{.sem}{.scope}{.space}.op.type d, [a], b{, c}` and `red ... [a], b`.
    fn atom(&self, i: &Instr, form: &Form) -> Result<Op> {
        let loc = i.loc;
        let Some(op) = spec::atom::AtomOp::of(form) else {
            self.shape(i, form)?;
            return terr(
                loc,
                format!("`{}` is valid PTX, but the oracle does not execute it yet", form.name),
            );
        };
        let ty = op.ty();
        if ty.bits() > 64 {
            self.shape(i, form)?;
            return terr(
                loc,
                format!("`.{ty}` atomics are not supported by the oracle yet (registers are at most 64 bits)"),
            );
        }
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
            self.src(p, Type::parse("b64").unwrap(), false, loc)?;
        }
        let d = match d {
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
            .map(|o| self.src(&o, ty, false, loc))
            .collect::<Result<_>>()?;
        let c = match c {
            Some(c) => self.src(c, ty, false, loc)?,
            None => Src::Imm(0),
        };
        let (addr, space) = self.mem_addr(a, form, loc)?;
        Ok(Op::Atom {
            op,
            space,
            d,
            addr,
            b,
            c,
        })
    }

    fn cvta(&self, i: &Instr, form: &Form) -> Result<Op> {
        let loc = i.loc;
        let space = Self::space_of(form);
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
                if to_generic && v != space || !to_generic && bare {
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
            a => self.src(a, ty, false, loc)?,
        };
        Ok(Op::Cvta {
            space,
            to_generic,
            d,
            a,
        })
    }

    fn isspacep(&self, i: &Instr, form: &Form) -> Result<Op> {
        let loc = i.loc;
        let space = Self::space_of(form);
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
            a: self.src(a, aty, false, loc)?,
        })
    }

    fn brx(&self, i: &Instr) -> Result<Op> {
        let loc = i.loc;
        let [idx, Operand::Expr(Expr::Name(t))] = &i.operands[..] else {
            return terr(loc, "`brx.idx` takes an index and a `.branchtargets` label");
        };
        let index = self.src(idx, Type::parse("u32").unwrap(), false, loc)?;
        let Some(Sym::Targets(names)) = self.lookup(t) else {
            return terr(loc, format!("`{t}` is not a `.branchtargets` list"));
        };
        let mut targets = Vec::new();
        for n in names {
            match self.labels.get(n) {
                Some(pc) => targets.push(*pc),
                None => return terr(loc, format!("branch target `{n}` is not a label of this function")),
            }
        }
        Ok(Op::Brx { index, targets })
    }

    fn call(&self, i: &Instr) -> Result<Op> {
        let loc = i.loc;
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
                let fptr = self.src(&Operand::Expr(e.clone()), Type::parse("u64").unwrap(), false, loc)?;
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
                    Some(ty) => Arg::Val(self.src(a, ty, false, loc)?),
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

    /// A call operand naming a `.param` variable of this activation: (name, offset, size).
    fn param_var<'o>(&self, o: &'o Operand) -> Option<(&'o str, u32, u32)> {
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

    fn bar(&self, i: &Instr, form: &Form) -> Result<Op> {
        let loc = i.loc;
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
            Some(p) => Some((self.src(p, Type::parse("pred").unwrap(), false, loc)?, false)),
            None => None,
        };
        let id = self.src(id, u32t, false, loc)?;
        if matches!(id, Src::Imm(b) if b >= 16) {
            return terr(loc, "barriers are numbered 0 to 15 (L17006)");
        }
        let count = count.map(|c| self.src(c, u32t, false, loc)).transpose()?;
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

    /// A value-level form: bind the written operands to a form's outputs and inputs.
    fn value(&self, i: &Instr, forms: &[&'static Form]) -> Result<Op> {
        // Several forms may share a name (`mov.u32 d, a` and `mov.u32 d, avar`): an error of a
        // form that fits says more than one of a form that does not.
        let mut errs = Vec::new();
        for &form in forms {
            match self.bind(i, form) {
                Ok(op) => return Ok(op),
                Err(e) => {
                    // A form whose operand count the instruction does not have says least;
                    // among those that fit, "not executed" says less than a real error.
                    // A form that takes it but is not executed makes the instruction valid.
                    let rank = match (self.fits(i, form), e.message.contains("does not execute")) {
                        (_, true) => 0,
                        (true, false) => 1,
                        (false, false) => 2,
                    };
                    errs.push((rank, e));
                }
            }
        }
        let pick = (0..errs.len()).min_by_key(|&k| errs[k].0).unwrap_or(0);
        let mut errs: Vec<Error> = errs.into_iter().map(|(_, e)| e).collect();
        Err(errs.swap_remove(pick))
    }

    fn bind(&self, i: &Instr, form: &'static Form) -> Result<Op> {
        let loc = i.loc;
        let sem = spec::eval::semantics(form);
        let warp = warp_kind(form);
        if sem.is_none() && warp.is_none() {
            self.shape(i, form)?;
            return terr(
                loc,
                format!("`{}` is valid PTX, but the oracle does not execute it yet", form.name),
            );
        }
        // A second destination that is a predicate is written after `|` (`p|q`, `d|p`, L11178),
        // and `|` joins nothing else.
        let second_pred = form
            .outputs
            .get(1)
            .is_some_and(|o| o.ty.kind == Kind::Pred && !o.flags.cc);
        for (n, o) in i.operands.iter().enumerate() {
            if let Operand::Pair(a, b) = o {
                if n != 0 || !second_pred {
                    return terr(loc, format!("`{}` has no `{a}|{b}` destination pair", form.name));
                }
            }
        }
        // `_` for a destination (L4266: "for some instructions"), as ptxas 12.9 takes it: a
        // whole result where the catalog says `+discard` (checked in `instr` for every form);
        // in `p|q` the first anywhere, the second where the pair is of predicates or it is
        // optional (`elect.sync d|_`: "Predicate output expected").
        let pred_pair = form.outputs.len() == 2 && form.outputs.iter().all(|o| o.ty.kind == Kind::Pred);
        if let Some(Operand::Pair(_, b)) = i.operands.first() {
            if b == "_" && !pred_pair && !form.outputs.get(1).is_some_and(|o| o.optional) {
                return terr(loc, format!("`{}` needs its second destination, not `_`", form.name));
            }
        }
        let paired = matches!(i.operands.first(), Some(Operand::Pair(..)));
        if second_pred && !paired && !form.outputs[1].optional {
            return terr(
                loc,
                format!(
                    "`{}` writes its destinations as `{}|{}`",
                    form.name, form.outputs[0].name, form.outputs[1].name
                ),
            );
        }
        // `{...}` only where the form has a vector operand (ptxas: "Vector operand is not
        // allowed for instruction 'add'").
        let grouped = form.outputs.iter().chain(&form.inputs).any(|o| o.group.is_some());
        if !grouped && i.operands.iter().any(|o| matches!(o, Operand::Vector(_))) {
            return terr(loc, format!("`{}` takes no vector operand `{{...}}`", form.name));
        }
        // Flatten the written operands: `p|q` and `{a, b}` are several.
        let mut atoms: Vec<Operand> = Vec::new();
        for o in &i.operands {
            match o {
                Operand::Vector(v) => atoms.extend(v.iter().cloned()),
                Operand::Pair(a, b) => {
                    let one = |n: &String| {
                        if n == "_" {
                            Operand::Sink
                        } else {
                            Operand::Expr(Expr::Name(n.clone()))
                        }
                    };
                    atoms.push(one(a));
                    atoms.push(one(b));
                }
                o => atoms.push(o.clone()),
            }
        }
        let all: Vec<&spec::catalog::Operand> = form.outputs.iter().chain(&form.inputs).collect();
        // The carry flag (`.cc`) is an implicit operand, never written.
        let required = all.iter().filter(|o| !o.optional && !o.flags.cc).count();
        let optional = all.len() - required;
        let writable = all.iter().filter(|o| !o.flags.cc).count();
        // Without `|` the optional second predicate is absent (`setp.eq.s32 p, q, a, b` is not `p|q`).
        let writable = writable - usize::from(second_pred && !paired);
        if atoms.len() < required || atoms.len() > writable {
            return terr(
                loc,
                format!(
                    "`{}` takes {} operands{}, not {}",
                    form.name,
                    required,
                    if optional > 0 {
                        format!(" (or up to {})", all.len())
                    } else {
                        String::new()
                    },
                    atoms.len()
                ),
            );
        }
        // §9.4.1: `cvt` (like `ld` and `st`) takes registers wider than its types.
        let relaxed = form.opcode == "cvt";
        let mut take_optional = atoms.len() - required;
        let mut dsts = Vec::new();
        let mut srcs = Vec::new();
        let mut dsel = None;
        let mut k = 0;
        let nout = form.outputs.len();
        for (j, fo) in all.iter().enumerate() {
            if fo.optional {
                if take_optional == 0 {
                    // An absent optional source is not given to the spec at all: whether it is
                    // written changes the meaning (`vadd d, a, b` vs `vadd d.b0, a, b, c`).
                    if j < nout {
                        dsts.push(Dst::SINK);
                    }
                    continue;
                }
                take_optional -= 1;
            }
            if fo.flags.cc {
                if j < nout {
                    dsts.push(Dst {
                        slot: CC_SLOT,
                        bits: 1,
                        sext: 0,
                    });
                } else {
                    srcs.push(PureIn {
                        src: Src::Reg(CC_SLOT),
                        negated: false,
                        sel: None,
                        bits: 1,
                        invert: false,
                    });
                }
                continue;
            }
            let Some(o) = atoms.get(k) else {
                return terr(loc, format!("`{}` is missing operand `{}`", form.name, fo.name));
            };
            k += 1;
            // In a SIMD video source (`+reg`) `%v.x` reads as register `%v` with a selector
            // (ptxas 12.9: "Incorrect video selector"), not as an element of a vector register;
            // the scalar video instructions take the element.
            if let Operand::Expr(Expr::Name(n)) = o {
                let element = n
                    .rsplit_once('.')
                    .is_some_and(|(b, _)| matches!(self.lookup(b), Some(Sym::VecReg(_))));
                if fo.flags.reg && element {
                    return terr(
                        loc,
                        format!("`{n}` in a video instruction reads as a selector, not a vector element; copy the element first"),
                    );
                }
            }
            if j < nout {
                // A video destination's selector or mask (`d.b2`, `d.h10`) is part of the
                // instruction's meaning (the spec merges into `c`, L30910), not of the register.
                let o = match o {
                    Operand::Expr(Expr::Name(n)) if fo.flags.sel && self.lookup(n).is_none() => {
                        match n
                            .rsplit_once('.')
                            .and_then(|(b, s)| Some((b, spec::value::Sel::parse(s)?)))
                        {
                            Some((base, sel)) => {
                                dsel = Some(sel);
                                &Operand::Expr(Expr::Name(base.to_string()))
                            }
                            None => o,
                        }
                    }
                    _ => o,
                };
                dsts.push(self.dst(o, fo.ty, relaxed, loc)?);
            } else {
                let mut invert = false;
                let (o, negated) = match o {
                    Operand::Not(p) if fo.flags.not => (Operand::Expr(Expr::Name(p.clone())), true),
                    Operand::Not(p) if fo.ty.kind == Kind::Pred => {
                        invert = true;
                        (Operand::Expr(Expr::Name(p.clone())), false)
                    }
                    Operand::Not(_) => {
                        return terr(
                            loc,
                            format!("operand `{}` of `{}` cannot be negated with `!`", fo.name, form.name),
                        )
                    }
                    Operand::Expr(Expr::Unary('-', a)) if fo.flags.neg && matches!(**a, Expr::Name(_)) => {
                        (Operand::Expr((**a).clone()), true)
                    }
                    o => (o.clone(), false),
                };
                let (o, sel) = match &o {
                    Operand::Expr(Expr::Name(n)) if fo.flags.sel && self.lookup(n).is_none() => {
                        match n.rsplit_once('.') {
                            Some((base, s)) => match spec::value::Sel::parse(s) {
                                Some(sel) => (Operand::Expr(Expr::Name(base.to_string())), Some(sel)),
                                None => (o.clone(), None),
                            },
                            None => (o.clone(), None),
                        }
                    }
                    _ => (o.clone(), None),
                };
                if fo.flags.imm && !matches!(o, Operand::Expr(ref e) if const_int(e).is_some()) {
                    return terr(
                        loc,
                        format!("operand `{}` of `{}` must be an immediate", fo.name, form.name),
                    );
                }
                let src = self.src(&o, fo.ty, relaxed, loc)?;
                if fo.flags.reg && matches!(src, Src::Imm(_)) {
                    return terr(
                        loc,
                        format!(
                            "operand `{}` of `{}` must be a register, not a constant",
                            fo.name, form.name
                        ),
                    );
                }
                srcs.push(PureIn {
                    src,
                    negated,
                    sel,
                    bits: if fo.ty.kind == Kind::Pred { 1 } else { fo.ty.bits() },
                    invert,
                });
            }
        }
        if k != atoms.len() {
            return terr(
                loc,
                format!("`{}` has {} operands too many", form.name, atoms.len() - k),
            );
        }
        if let Some(kind) = warp {
            return Ok(Op::Warp { kind, form, dsts, srcs });
        }
        let sem = sem.expect("checked above");
        if let Some(f) = crate::fast::lookup(form).filter(|_| !self.ck.generic) {
            if dsts.iter().skip(1).all(|d| *d == Dst::SINK)
                && srcs.len() <= 3
                && srcs.iter().all(|s| !s.negated && !s.invert && s.sel.is_none())
                && dsel.is_none()
                && dsts[0].sext == 0
            {
                let get = |n: usize| srcs.get(n).map_or(Src::Imm(0), |s| s.src);
                return Ok(Op::Fast {
                    f,
                    d: dsts[0],
                    a: get(0),
                    b: get(1),
                    c: get(2),
                });
            }
        }
        Ok(Op::Pure {
            form,
            sem,
            dsts,
            srcs,
            dsel,
        })
    }
}

/// The bit-size type of a `size`-byte value passed in a register.
fn bits_type(size: u32) -> Option<Type> {
    Type::parse(match size {
        1 => "b8",
        2 => "b16",
        4 => "b32",
        8 => "b64",
        _ => return None,
    })
}

/// A generic access naming a `.global`, `.const` or `.shared` variable (L3137) uses its generic
/// address.
fn generic_var_addr(space: Space, sym: Option<Space>, addr: Addr) -> Addr {
    match (space, sym, addr) {
        (Space::Generic, Some(v), Addr::Abs(x)) => Addr::Abs(mem::to_generic(v, x)),
        _ => addr,
    }
}

/// A `.b128` access moves the register's two 64-bit halves, low first (little-endian memory);
/// narrower types pass through.
fn wide_as_halves<T: Copy>(v: Vec<T>, ty: Type, halves: impl Fn(T) -> [T; 2]) -> (Vec<T>, Type) {
    if ty.bits() != 128 {
        return (v, ty);
    }
    (v.into_iter().flat_map(halves).collect(), Type::parse("b64").unwrap())
}

fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

fn contains_float(e: &Expr) -> bool {
    match e {
        Expr::Float { .. } => true,
        Expr::Unary(_, a) => contains_float(a),
        Expr::Binary(_, a, b) => contains_float(a) || contains_float(b),
        Expr::Cond(c, a, b) => contains_float(c) || contains_float(a) || contains_float(b),
        _ => false,
    }
}

fn addr_name(e: &Expr) -> Option<&str> {
    addr_name_off(e).map(|(n, _)| n)
}

/// `var`, `var+8`, `var-4`.
fn addr_name_off(e: &Expr) -> Option<(&str, i64)> {
    match e {
        Expr::Name(n) => Some((n.as_str(), 0)),
        Expr::Binary(op, a, b) if op == "+" || op == "-" => match (&**a, const_int(b)) {
            (Expr::Name(n), Some(k)) => Some((n.as_str(), if op == "+" { k } else { k.wrapping_neg() })),
            _ => None,
        },
        _ => None,
    }
}

/// The meaning of a labelled `.callprototype`, `.branchtargets` or `.calltargets` directive.
fn list_sym(d: &ast::Directive) -> Result<Sym> {
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

/// The warp collective a form is, if any.
fn warp_kind(form: &Form) -> Option<WarpKind> {
    use spec::warp::{ShflMode, VoteMode};
    let sync = form.has("sync");
    Some(match form.opcode {
        "shfl" => WarpKind::Shfl(ShflMode::parse(form.var("mode")?)?, sync),
        "vote" => WarpKind::Vote(
            match form.var("mode") {
                Some(m) => VoteMode::parse(m)?,
                None => VoteMode::Ballot,
            },
            sync,
        ),
        "match" if form.has("any") => WarpKind::MatchAny,
        "match" => WarpKind::MatchAll,
        "redux" => WarpKind::Redux,
        "elect" => WarpKind::Elect,
        "activemask" => WarpKind::Activemask,
        _ => return None,
    })
}

fn sreg(n: &str) -> Option<Sreg> {
    let comp = |c: &str| match c {
        "x" => Some(0),
        "y" => Some(1),
        "z" => Some(2),
        // The fourth element of the v4 special registers reads 0 (L31857).
        "w" => Some(3),
        _ => None,
    };
    if let Some((base, c)) = n.split_once('.') {
        let c = comp(c)?;
        return Some(match base {
            "%tid" => Sreg::Tid(c),
            "%ntid" => Sreg::Ntid(c),
            "%ctaid" => Sreg::Ctaid(c),
            "%nctaid" => Sreg::Nctaid(c),
            _ => return None,
        });
    }
    Some(match n {
        "%laneid" => Sreg::Laneid,
        "%warpid" => Sreg::Warpid,
        "%nwarpid" => Sreg::Nwarpid,
        "%smid" => Sreg::Smid,
        "%nsmid" => Sreg::Nsmid,
        "%gridid" => Sreg::Gridid,
        "%lanemask_eq" => Sreg::LanemaskEq,
        "%lanemask_le" => Sreg::LanemaskLe,
        "%lanemask_lt" => Sreg::LanemaskLt,
        "%lanemask_ge" => Sreg::LanemaskGe,
        "%lanemask_gt" => Sreg::LanemaskGt,
        "%clock" => Sreg::Clock,
        "%clock64" => Sreg::Clock64,
        "%globaltimer" => Sreg::Globaltimer,
        "%globaltimer_lo" => Sreg::GlobaltimerLo,
        "%globaltimer_hi" => Sreg::GlobaltimerHi,
        "%dynamic_smem_size" => Sreg::DynamicSmemSize,
        "%total_smem_size" => Sreg::TotalSmemSize,
        _ => {
            let k: u8 = n.strip_prefix("%envreg")?.parse().ok()?;
            if k > 31 {
                return None;
            }
            Sreg::Envreg(k)
        }
    })
}

/// ptxas 12.9: "Immediate addresses allowed only for .local state space" (the manual lists
/// `[immAddr]` for every space, L3100); a variable's address is no immediate.
fn immediate_address_ok(addr: Addr, sym: Option<Space>, space: Space, loc: Loc) -> Result<()> {
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

/// A cache-policy operand comes with `.L2::cache_hint` (ptxas 12.9; L12507).
fn cache_policy_hinted(i: &Instr) -> Result<()> {
    if i.mods.iter().any(|m| m == "L2::cache_hint") {
        Ok(())
    } else {
        terr(
            i.loc,
            "a cache policy operand needs `.L2::cache_hint` (ptxas 12.9; L12507)",
        )
    }
}

/// The first `n` elements of vector register `name` as operands (`v.x`, `v.y`, ...).
fn vec_elements(name: &str, n: usize) -> Vec<Operand> {
    VEC_COMPONENTS[..n]
        .iter()
        .map(|c| Operand::Expr(Expr::Name(format!("{name}.{}", c[0]))))
        .collect()
}

/// A form's operand slots in order, as PTX writes them: one operand, or one `{...}` group (the
/// carry flag is never written).
fn slots(form: &Form) -> Vec<Vec<&spec::catalog::Operand>> {
    let mut slots: Vec<Vec<&spec::catalog::Operand>> = Vec::new();
    for o in form.outputs.iter().chain(&form.inputs).filter(|o| !o.flags.cc) {
        match slots.last_mut() {
            Some(last) if o.group.is_some() && last[0].group == o.group => last.push(o),
            _ => slots.push(vec![o]),
        }
    }
    slots
}

/// The operands as written, slot by slot: `p|q` fills two, `[tmap, {x, y}]` one per part.
fn written_slots(i: &Instr) -> Vec<&Operand> {
    let mut written = Vec::new();
    for o in &i.operands {
        match o {
            Operand::Pair(..) => {
                written.push(o);
                written.push(o);
            }
            Operand::AddressTuple(v) => written.extend(v.iter()),
            o => written.push(o),
        }
    }
    written
}

/// Special registers of §10 the oracle does not model yet, with what they belong to: valid in
/// PTX (ptxas takes them), so a read decodes to `Op::Unsupported` rather than a type error.
fn unmodeled_sreg(n: &str) -> Option<&'static str> {
    let base = n
        .split_once('.')
        .map_or(n, |(b, c)| if matches!(c, "x" | "y" | "z" | "w") { b } else { n });
    Some(match base {
        "%cluster_ctarank"
        | "%cluster_nctarank"
        | "%clusterid"
        | "%nclusterid"
        | "%cluster_ctaid"
        | "%cluster_nctaid"
        | "%is_explicit_cluster" => "clusters (§10.8-10.14)",
        "%aggr_smem_size"
        | "%reserved_smem_offset_begin"
        | "%reserved_smem_offset_end"
        | "%reserved_smem_offset_cap"
        | "%reserved_smem_offset_0"
        | "%reserved_smem_offset_1" => "shared-memory reservations (§10.29-10.32)",
        "%current_graph_exec" => "CUDA graphs (§10.33)",
        _ if n.strip_prefix("%pm").is_some_and(|k| {
            let k = k.strip_suffix("_64").unwrap_or(k);
            k.len() == 1 && k.as_bytes()[0].is_ascii_digit() && k < "8"
        }) =>
        {
            "performance-monitoring counters (§10.20-10.21)"
        }
        _ => return None,
    })
}

/// The type of a special register (§10).
fn sreg_type(s: Sreg) -> Type {
    Type::parse(match s {
        Sreg::Clock64 | Sreg::Globaltimer | Sreg::Gridid => "u64",
        Sreg::Envreg(_) => "b32",
        _ => "u32",
    })
    .unwrap()
}

#[allow(dead_code)]
fn _uses(_: &ast::Module) {}
