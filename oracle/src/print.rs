//! The PTX printer: [`Module`] back to text that parses to the same module (positions aside).
//! One statement a line, operands as the parser reads them; constant expressions fully
//! parenthesised, so precedence never depends on the printer.

use crate::ast::*;
use crate::parse::precedence;
use std::fmt::Write as _;

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

pub fn instr(i: &Instr) -> String {
    let mut s = String::new();
    if let Some((neg, p)) = &i.guard {
        let _ = write!(s, "@{}{p} ", if *neg { "!" } else { "" });
    }
    s.push_str(&i.opcode);
    for m in &i.mods {
        let _ = write!(s, ".{m}");
    }
    if !i.operands.is_empty() {
        let ops: Vec<String> = i.operands.iter().map(operand).collect();
        let _ = write!(s, " {}", ops.join(", "));
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

fn operand(o: &Operand) -> String {
    match o {
        Operand::Expr(e) => expr(e),
        Operand::Not(p) => format!("!{p}"),
        Operand::Vector(v) => format!("{{{}}}", v.iter().map(operand).collect::<Vec<_>>().join(", ")),
        Operand::Address(e) => format!("[{}]", expr(e)),
        Operand::List(v) => format!("({})", v.iter().map(operand).collect::<Vec<_>>().join(", ")),
        Operand::Pair(p, q) => format!("{p}|{q}"),
        Operand::Sink => "_".to_string(),
    }
}

pub fn expr(e: &Expr) -> String {
    match e {
        Expr::Int { value, unsigned } => format!("{value}{}", if *unsigned { "U" } else { "" }),
        Expr::Float { bits, f32: true } => format!("0f{bits:08X}"),
        Expr::Float { bits, f32: false } => format!("0d{bits:016X}"),
        Expr::Name(n) => n.clone(),
        Expr::Unary(c, a) => format!("{c}{}", wrap(a, 11)),
        // Parentheses only where precedence needs them, so addresses stay `[%rd1+-8]` as PTX
        // writes them; binary operators associate to the left.
        Expr::Binary(op, a, b) => {
            let p = precedence(op);
            // `%` needs the spaces: `1%16` would lex as `1` and the register name `%16`.
            let op = if op == "%" { " % " } else { op };
            format!("{}{op}{}", wrap(a, p), wrap(b, p + 1))
        }
        Expr::Cond(c, a, b) => format!("{} ? {} : {}", wrap(c, 1), wrap(a, 1), wrap(b, 1)),
    }
}

/// `e` printed, in parentheses when it binds less tightly than `min`.
fn wrap(e: &Expr, min: u8) -> String {
    let p = match e {
        Expr::Binary(op, ..) => precedence(op),
        Expr::Cond(..) => 0,
        _ => 12,
    };
    if p < min {
        format!("({})", expr(e))
    } else {
        expr(e)
    }
}
