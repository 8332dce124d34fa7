//! The PTX module as the parser sees it (§11 directives, §4 syntax): items, declarations,
//! statements and operands, with each item's source position.
//!
//! Names of types, state spaces and modifiers stay as written (`"u32"`, `"shared::cta"`): the type
//! checker gives them meaning against the catalog, so the AST does not duplicate its tables.

use std::fmt;

/// A source position. Positions do not take part in equality: a module printed and parsed back
/// equals the original though every position moved.
#[derive(Clone, Copy, Debug, Default)]
pub struct Loc {
    /// 1-based line.
    pub line: u32,
    /// 1-based column, in characters.
    pub col: u32,
}

impl PartialEq for Loc {
    fn eq(&self, _: &Loc) -> bool {
        true
    }
}

impl fmt::Display for Loc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
}

/// A parsed module.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Module {
    /// Its items, in source order.
    pub items: Vec<Item>,
}

/// A module-scope item (§11.1 module directives, §5.4 variables, §11.2 functions).
#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    /// `.version 8.7`
    Version {
        /// The major version.
        major: u32,
        /// The minor version.
        minor: u32,
        /// Where the directive is written.
        loc: Loc,
    },
    /// `.target sm_80, texmode_independent`
    Target {
        /// The targets as written (`sm_90a`, `texmode_independent`).
        targets: Vec<String>,
        /// Where the directive is written.
        loc: Loc,
    },
    /// `.address_size 64`
    AddressSize {
        /// The address size in bits.
        bits: u32,
        /// Where the directive is written.
        loc: Loc,
    },
    /// A module-scope variable (`.global`, `.shared`, `.const`, ...).
    Var(VarDecl),
    /// `.entry` or `.func`, with or without a body.
    Function(Function),
    /// Any other directive (`.file`, `.loc`, `.pragma`, `.section`, ...), kept as written.
    Directive(Directive),
}

/// A directive the semantics do not depend on, kept token by token so the printer gives it back.
#[derive(Clone, Debug, PartialEq)]
pub struct Directive {
    /// The directive's name without the dot (`pragma`).
    pub name: String,
    /// The rest of the directive as written, tokens separated by single spaces.
    pub text: String,
    /// Where the directive is written.
    pub loc: Loc,
}

/// A kernel (`.entry`) or device function (`.func`): its header, and its body unless it is a
/// declaration.
#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    /// `.visible`, `.extern`, `.weak`.
    pub linkage: Vec<String>,
    /// `true` for `.entry`, `false` for `.func`.
    pub entry: bool,
    /// Return parameters of a `.func` (`(.param .b32 retval)`).
    pub rets: Vec<VarDecl>,
    /// The function's name.
    pub name: String,
    /// Parameters, in order.
    pub params: Vec<VarDecl>,
    /// Performance directives between the header and the body (`.maxntid 256, 1, 1`, `.noreturn`).
    pub directives: Vec<Directive>,
    /// `None` for a declaration (`.extern .func f(...);`).
    pub body: Option<Vec<Stmt>>,
    /// Where the function is written.
    pub loc: Loc,
}

/// A variable or parameter declaration: `.reg .b32 %r<4>`, `.shared .align 4 .b8 s[1024]`,
/// `.param .u64 .ptr .global .align 4 p`, `.global .u32 g[2] = {1, 2}`.
#[derive(Clone, Debug, PartialEq)]
pub struct VarDecl {
    /// `.visible`, `.extern`, `.weak`, `.common`, as written.
    pub linkage: Vec<String>,
    /// `reg`, `param`, `global`, `shared`, `const`, `local`, `tex`, ...
    pub space: String,
    /// Every `.word` between the space and the name, in order, the type among them: `align 4` as
    /// ("align", Some(4)), `v4` as ("v4", None), `u64`, `ptr`, `global` as written.
    pub attrs: Vec<(String, Option<u64>)>,
    /// The type (one of `attrs`).
    pub ty: String,
    /// The declared name (the first of a range).
    pub name: String,
    /// `%r<4>`: a parameterized range of 4 names `%r0..%r3`.
    pub range: Option<u64>,
    /// Array dimensions (`[]` is `None`).
    pub dims: Vec<Option<u64>>,
    /// The initializer after `=`.
    pub init: Option<Init>,
    /// Where the declaration is written.
    pub loc: Loc,
}

/// A variable's initializer (§5.4.4).
#[derive(Clone, Debug, PartialEq)]
pub enum Init {
    /// One value.
    Expr(Expr),
    /// `{a, b, ...}`: the elements of an array, nested for each dimension.
    List(Vec<Init>),
}

/// A statement of a function body (§4.3).
#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    /// `name:`.
    Label {
        /// The label's name.
        name: String,
        /// Where the label is written.
        loc: Loc,
    },
    /// A variable declaration (`.reg`, `.local`, `.param`, `.shared`, ...).
    Decl(VarDecl),
    /// An instruction.
    Instr(Instr),
    /// Any other directive (`.loc`, `.pragma`, ...), kept as written.
    Directive(Directive),
    /// `{ ... }`: a nested scope (call sequences declare their `.param`s in one).
    Block {
        /// The statements inside.
        body: Vec<Stmt>,
        /// Where the `{` is written.
        loc: Loc,
    },
}

/// An instruction statement (§4.3.2): guard, opcode, modifiers, operands.
#[derive(Clone, Debug, PartialEq)]
pub struct Instr {
    /// `@p` or `@!p`: (negated, predicate).
    pub guard: Option<(bool, String)>,
    /// The opcode without modifiers (`ld`).
    pub opcode: String,
    /// The modifiers in order, without dots (`["global", "v2", "u32"]`).
    pub mods: Vec<String>,
    /// The operands, in order.
    pub operands: Vec<Operand>,
    /// Where the instruction is written.
    pub loc: Loc,
}

/// An instruction operand (§6).
#[derive(Clone, Debug, PartialEq)]
pub enum Operand {
    /// A register, symbol, label, special register (`%tid.x`) or constant expression.
    Expr(Expr),
    /// `!p`
    Not(String),
    /// `{a, b, _}`
    Vector(Vec<Operand>),
    /// `[a]`, `[a+4]`, `[var+8]`, `[0x10]`
    Address(Expr),
    /// `[tmap, {x, y}]`: an address with a tuple of coordinates (the tensor copies of §9.7.9.25,
    /// `cp.async.bulk.tensor`, `tex`).
    AddressTuple(Vec<Operand>),
    /// `(a, b)`: a call's return or argument list.
    List(Vec<Operand>),
    /// `p|q`: the two predicate destinations of setp.
    Pair(String, String),
    /// `_`: a sink.
    Sink,
}

/// A constant expression (§4.6), or a name.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    /// An integer constant (§4.5.1).
    Int {
        /// The 64-bit pattern.
        value: u64,
        /// Written with the `U` suffix (L632).
        unsigned: bool,
    },
    /// A float constant: f32 bits (`0f`) or f64 bits (`0d`, decimal).
    Float {
        /// The bits of the f32 or f64 value.
        bits: u64,
        /// `0f`: `bits` is an f32.
        f32: bool,
    },
    /// A name as written, with its component (`%tid.x`, `%r1`, `$L__BB0_2`, `g`).
    Name(String),
    /// A unary operator (`-`, `+`, `!`, `~`) and its operand.
    Unary(char, Box<Expr>),
    /// An operator as written (`+`, `<<`, `&&`, ...).
    Binary(String, Box<Expr>, Box<Expr>),
    /// `c ? a : b`.
    Cond(Box<Expr>, Box<Expr>, Box<Expr>),
}

impl Expr {
    /// The names the expression mentions, in order (registers, variables, labels).
    pub fn names<'e>(&'e self, out: &mut Vec<&'e str>) {
        match self {
            Expr::Name(n) => out.push(n),
            Expr::Unary(_, a) => a.names(out),
            Expr::Binary(_, a, b) => {
                a.names(out);
                b.names(out);
            }
            Expr::Cond(c, a, b) => {
                c.names(out);
                a.names(out);
                b.names(out);
            }
            Expr::Int { .. } | Expr::Float { .. } => {}
        }
    }
}

impl Operand {
    /// The names the operand mentions, in order (`p|q` both, `!p` its predicate).
    pub fn names<'o>(&'o self, out: &mut Vec<&'o str>) {
        match self {
            Operand::Expr(e) | Operand::Address(e) => e.names(out),
            Operand::Not(p) => out.push(p),
            Operand::Vector(v) | Operand::List(v) | Operand::AddressTuple(v) => v.iter().for_each(|o| o.names(out)),
            Operand::Pair(a, b) => {
                out.push(a);
                out.push(b);
            }
            Operand::Sink => {}
        }
    }
}
