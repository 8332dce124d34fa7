//! The PTX printer: [`Module`] back to text that parses to the same module (positions aside).
//! One statement a line, operands as the parser reads them; constant expressions parenthesised
//! where the parser's precedence ([`crate::parse::precedence`]) needs it.

use crate::ast::*;
use crate::parse::precedence;
use std::fmt::Write as _;

/// The module as PTX text: one item or statement a line.
pub fn print(m: &Module) -> String {
    let mut out = String::new();
    for item in &m.items {
        match item {
            Item::Version { major, minor, .. } => {
                let _ = writeln!(out, ".version {major}.{minor}");
            }
            Item::Target { targets, .. } => {
                let _ = writeln!(out, ".target {}", targets.join(", "));
            }
            Item::AddressSize { bits, .. } => {
                let _ = writeln!(out, ".address_size {bits}");
            }
            Item::Var(v) => {
                let _ = writeln!(out, "{};", decl(v));
            }
            Item::Directive(d) => {
                let _ = writeln!(out, "{}", directive(d));
            }
            Item::Function(f) => function(&mut out, f),
        }
    }
    out
}

fn directive(d: &Directive) -> String {
    if d.text.is_empty() {
        format!(".{}", d.name)
    } else {
        format!(".{} {}", d.name, d.text)
    }
}

fn function(out: &mut String, f: &Function) {
    for l in &f.linkage {
        let _ = write!(out, ".{l} ");
    }
    out.push_str(if f.entry { ".entry " } else { ".func " });
    if !f.rets.is_empty() {
        let _ = write!(out, "({}) ", f.rets.iter().map(decl).collect::<Vec<_>>().join(", "));
    }
    out.push_str(&f.name);
    let _ = writeln!(out, "({})", f.params.iter().map(decl).collect::<Vec<_>>().join(", "));
    for d in &f.directives {
        let _ = writeln!(out, "{}", directive(d));
    }
    match &f.body {
        None => out.push_str(";\n"),
        Some(body) => {
            out.push_str("{\n");
            stmts(out, body, 1);
            out.push_str("}\n");
        }
    }
}

fn stmts(out: &mut String, body: &[Stmt], depth: usize) {
    let pad = "\t".repeat(depth);
    for s in body {
        match s {
            Stmt::Label { name, .. } => {
                let _ = writeln!(out, "{name}:");
            }
            Stmt::Decl(v) => {
                let _ = writeln!(out, "{pad}{};", decl(v));
            }
            Stmt::Directive(d) => {
                let _ = writeln!(out, "{pad}{}", directive(d));
            }
            Stmt::Block { body, .. } => {
                let _ = writeln!(out, "{pad}{{");
                stmts(out, body, depth + 1);
                let _ = writeln!(out, "{pad}}}");
            }
            Stmt::Instr(i) => {
                let _ = writeln!(out, "{pad}{}", instr(i));
            }
        }
    }
}

/// One instruction as PTX text: guard, opcode, modifiers, operands and the `;`.
pub fn instr(i: &Instr) -> String {
    // Written into one buffer: the type checker prints every instruction (for its messages), so
    // this runs once per instruction of every program a campaign checks.
    let mut s = String::with_capacity(48);
    if let Some((neg, p)) = &i.guard {
        s.push('@');
        if *neg {
            s.push('!');
        }
        s.push_str(p);
        s.push(' ');
    }
    s.push_str(&i.opcode);
    for m in &i.mods {
        s.push('.');
        s.push_str(m);
    }
    for (k, o) in i.operands.iter().enumerate() {
        s.push_str(if k == 0 { " " } else { ", " });
        operand_into(o, &mut s);
    }
    s.push(';');
    s
}

fn decl(v: &VarDecl) -> String {
    let mut s = String::new();
    for l in &v.linkage {
        let _ = write!(s, ".{l} ");
    }
    let _ = write!(s, ".{}", v.space);
    for (w, arg) in &v.attrs {
        let _ = write!(s, " .{w}");
        if let Some(a) = arg {
            let _ = write!(s, " {a}");
        }
    }
    let _ = write!(s, " {}", v.name);
    if let Some(n) = v.range {
        let _ = write!(s, "<{n}>");
    }
    for d in &v.dims {
        match d {
            Some(n) => {
                let _ = write!(s, "[{n}]");
            }
            None => s.push_str("[]"),
        }
    }
    if let Some(i) = &v.init {
        let _ = write!(s, " = {}", init(i));
    }
    s
}

fn init(i: &Init) -> String {
    match i {
        Init::Expr(e) => expr(e),
        Init::List(v) => format!("{{{}}}", v.iter().map(init).collect::<Vec<_>>().join(", ")),
    }
}

fn list_into(v: &[Operand], open: char, close: char, s: &mut String) {
    s.push(open);
    for (k, o) in v.iter().enumerate() {
        if k > 0 {
            s.push_str(", ");
        }
        operand_into(o, s);
    }
    s.push(close);
}

fn operand_into(o: &Operand, s: &mut String) {
    match o {
        Operand::Expr(e) => expr_into(e, s),
        Operand::Not(p) => {
            s.push('!');
            s.push_str(p);
        }
        Operand::Vector(v) => list_into(v, '{', '}', s),
        Operand::Address(e) => {
            s.push('[');
            expr_into(e, s);
            s.push(']');
        }
        Operand::List(v) => list_into(v, '(', ')', s),
        Operand::AddressTuple(v) => list_into(v, '[', ']', s),
        Operand::Pair(p, q) => {
            s.push_str(p);
            s.push('|');
            s.push_str(q);
        }
        Operand::Sink => s.push('_'),
    }
}

/// A constant expression or name as PTX text, parenthesised where precedence needs it.
pub fn expr(e: &Expr) -> String {
    let mut s = String::new();
    expr_into(e, &mut s);
    s
}

fn expr_into(e: &Expr, s: &mut String) {
    match e {
        Expr::Int { value, unsigned } => {
            let _ = write!(s, "{value}{}", if *unsigned { "U" } else { "" });
        }
        Expr::Float { bits, f32: true } => {
            let _ = write!(s, "0f{bits:08X}");
        }
        Expr::Float { bits, f32: false } => {
            let _ = write!(s, "0d{bits:016X}");
        }
        Expr::Name(n) => s.push_str(n),
        Expr::Unary(c, a) => {
            s.push(*c);
            wrap_into(a, 11, s);
        }
        // Parentheses only where precedence needs them, so addresses stay `[%rd1+-8]` as PTX
        // writes them; binary operators associate to the left.
        Expr::Binary(op, a, b) => {
            let p = precedence(op);
            wrap_into(a, p, s);
            // `%` needs the spaces: `1%16` would lex as `1` and the register name `%16`.
            s.push_str(if op == "%" { " % " } else { op });
            wrap_into(b, p + 1, s);
        }
        Expr::Cond(c, a, b) => {
            wrap_into(c, 1, s);
            s.push_str(" ? ");
            wrap_into(a, 1, s);
            s.push_str(" : ");
            wrap_into(b, 1, s);
        }
    }
}

/// `e` printed, in parentheses when it binds less tightly than `min`.
fn wrap_into(e: &Expr, min: u8, s: &mut String) {
    let p = match e {
        Expr::Binary(op, ..) => precedence(op),
        Expr::Cond(..) => 0,
        _ => 12,
    };
    if p < min {
        s.push('(');
        expr_into(e, s);
        s.push(')');
    } else {
        expr_into(e, s);
    }
}
