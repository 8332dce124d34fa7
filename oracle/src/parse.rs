//! The PTX parser: tokens to [`Module`] (§11 module directives, §5.3/§5.4 declarations, §4.3
//! statements, §6 operands, §4.6 constant expressions). Errors name the line and column and what
//! was expected; no input panics.

use crate::ast::*;
use crate::lex::{lex, Span, Tok};
use std::fmt;

/// A parse (or lexing) error: where, and what was expected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// 1-based line.
    pub line: u32,
    /// 1-based column, in characters.
    pub col: u32,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.col, self.message)
    }
}

impl std::error::Error for ParseError {}

type R<T> = Result<T, ParseError>;

/// State spaces that start a declaration (§5.1).
const SPACES: [&str; 7] = ["reg", "sreg", "const", "global", "local", "param", "shared"];
/// Opaque-type spaces and other declaration starters (§5.3).
const OTHER_DECLS: [&str; 3] = ["tex", "surfref", "samplerref"];
const LINKAGE: [&str; 4] = ["visible", "extern", "weak", "common"];

/// Parses a PTX module.
pub fn parse(src: &str) -> R<Module> {
    let toks = lex(src).map_err(|e| ParseError {
        line: e.line,
        col: e.col,
        message: e.message,
    })?;
    let mut p = Parser {
        src,
        toks,
        i: 0,
        end: end_loc(src),
        pending: Vec::new(),
    };
    let mut items = Vec::new();
    while !p.done() {
        items.push(p.item()?);
        items.append(&mut p.pending);
    }
    Ok(Module { items })
}

fn end_loc(src: &str) -> Loc {
    let line = src.matches('\n').count() as u32 + 1;
    let col = src.rsplit('\n').next().map_or(0, |l| l.chars().count()) as u32 + 1;
    Loc { line, col }
}

struct Parser<'a> {
    src: &'a str,
    toks: Vec<(Tok, Span)>,
    i: usize,
    end: Loc,
    /// Items parsed with the last one (the further names of a multi-name declaration).
    pending: Vec<Item>,
}

impl Parser<'_> {
    fn done(&self) -> bool {
        self.i >= self.toks.len()
    }
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.i).map(|(t, _)| t)
    }
    fn peek_at(&self, k: usize) -> Option<&Tok> {
        self.toks.get(self.i + k).map(|(t, _)| t)
    }
    fn loc(&self) -> Loc {
        self.toks.get(self.i).map_or(self.end, |(_, s)| Loc {
            line: s.line,
            col: s.col,
        })
    }
    fn next(&mut self) -> Option<Tok> {
        let t = self.toks.get(self.i).map(|(t, _)| t.clone());
        self.i += 1;
        t
    }
    /// Whether token `i+k` starts right where token `i+k-1` ends (no space between).
    fn adjacent(&self, k: usize) -> bool {
        match (self.toks.get(self.i + k - 1), self.toks.get(self.i + k)) {
            (Some((_, a)), Some((_, b))) => a.end == b.start,
            _ => false,
        }
    }
    fn line_of(&self, k: usize) -> Option<u32> {
        self.toks.get(self.i + k).map(|(_, s)| s.line)
    }

    fn fail<T>(&self, message: impl Into<String>) -> R<T> {
        let l = self.loc();
        Err(ParseError {
            line: l.line,
            col: l.col,
            message: message.into(),
        })
    }
    fn found(&self) -> String {
        self.peek().map_or("the end of the file".to_string(), |t| t.to_string())
    }
    fn expected<T>(&self, what: &str) -> R<T> {
        self.fail(format!("expected {what}, found {}", self.found()))
    }

    fn eat_punct(&mut self, c: char) -> bool {
        if self.peek() == Some(&Tok::Punct(c)) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    fn punct(&mut self, c: char) -> R<()> {
        if self.eat_punct(c) {
            Ok(())
        } else {
            self.expected(&format!("`{c}`"))
        }
    }
    fn dot(&self) -> Option<&str> {
        match self.peek() {
            Some(Tok::Dot(s)) => Some(s),
            _ => None,
        }
    }
    fn ident(&mut self, what: &str) -> R<String> {
        match self.peek() {
            Some(Tok::Ident(s)) => {
                let s = s.clone();
                self.i += 1;
                Ok(s)
            }
            _ => self.expected(what),
        }
    }
    fn uint(&mut self, what: &str) -> R<u64> {
        match self.peek() {
            Some(Tok::Int { value, .. }) => {
                let v = *value;
                self.i += 1;
                Ok(v)
            }
            _ => self.expected(what),
        }
    }

    fn item(&mut self) -> R<Item> {
        let loc = self.loc();
        match self.dot() {
            Some("version") => {
                self.i += 1;
                // `8.7` lexes as a decimal float: read the digits from the source text.
                let text = self.toks.get(self.i).map_or("", |(_, s)| &self.src[s.start..s.end]);
                let version = text
                    .split_once('.')
                    .and_then(|(a, b)| Some((a.parse::<u32>().ok()?, b.parse::<u32>().ok()?)));
                let Some((major, minor)) = version else {
                    return self.expected("a version such as `8.7`");
                };
                self.i += 1;
                Ok(Item::Version { major, minor, loc })
            }
            Some("target") => {
                self.i += 1;
                let mut targets = vec![self.ident("a target such as `sm_80`")?];
                while self.eat_punct(',') {
                    targets.push(self.ident("a target")?);
                }
                Ok(Item::Target { targets, loc })
            }
            Some("address_size") => {
                self.i += 1;
                let bits = self.uint("32 or 64")?;
                if bits != 32 && bits != 64 {
                    self.i -= 1;
                    return self.fail(format!(".address_size must be 32 or 64, not {bits}"));
                }
                Ok(Item::AddressSize { bits: bits as u32, loc })
            }
            Some(_) => {
                let mut linkage = Vec::new();
                while let Some(l) = self.dot().filter(|d| LINKAGE.contains(d)) {
                    linkage.push(l.to_string());
                    self.i += 1;
                }
                match self.dot() {
                    Some("entry") | Some("func") => Ok(Item::Function(self.function(linkage, loc)?)),
                    Some(d) if SPACES.contains(&d) || OTHER_DECLS.contains(&d) => {
                        let mut v = self.decls(linkage, loc)?;
                        self.punct(';')?;
                        let first = v.remove(0);
                        self.pending.extend(v.into_iter().map(Item::Var));
                        Ok(Item::Var(first))
                    }
                    Some(_) if linkage.is_empty() => Ok(Item::Directive(self.directive()?)),
                    _ => self.expected("`.entry`, `.func` or a variable declaration after the linkage"),
                }
            }
            None => self.expected("a directive (`.version`, `.target`, `.entry`, ...)"),
        }
    }

    /// An unknown directive: its tokens up to a `;` (taken) or the end of its line, or a `{` (not
    /// taken, it opens a body); `.section` takes its braced block.
    fn directive(&mut self) -> R<Directive> {
        let loc = self.loc();
        let name = self.dot().unwrap_or_default().to_string();
        let line = self.line_of(0);
        self.i += 1;
        let mut text = Vec::new();
        let mut depth = 0usize;
        // A `.section` (DWARF: `.section .debug_info` then, usually on the next line, `{ ... }`)
        // takes its braced block, whatever lines it spans.
        let mut section_open = name == "section";
        while let Some(t) = self.peek() {
            // Target and prototype lists run to their `;` across lines (nvcc writes one label
            // per line); other unknown directives end with their line.
            let multiline = matches!(name.as_str(), "branchtargets" | "calltargets" | "callprototype");
            let opens_section = section_open && *t == Tok::Punct('{');
            if depth == 0
                && !opens_section
                && (self.line_of(0) != line && !multiline || *t == Tok::Punct('{') && name != "section")
            {
                break;
            }
            if opens_section {
                section_open = false;
            }
            let t = self.next().unwrap_or(Tok::Punct(';'));
            match t {
                Tok::Punct('{') => depth += 1,
                Tok::Punct('}') => depth = depth.saturating_sub(1),
                Tok::Punct(';') if depth == 0 => {
                    text.push(";".to_string());
                    break;
                }
                _ => {}
            }
            text.push(token_text(&t));
        }
        Ok(Directive {
            name,
            text: text.join(" "),
            loc,
        })
    }

    fn function(&mut self, linkage: Vec<String>, loc: Loc) -> R<Function> {
        let entry = self.dot() == Some("entry");
        self.i += 1;
        let mut rets = Vec::new();
        if !entry && self.peek() == Some(&Tok::Punct('(')) {
            rets = self.param_list()?;
        }
        let name = self.ident("the function's name")?;
        let params = if self.peek() == Some(&Tok::Punct('(')) {
            self.param_list()?
        } else {
            Vec::new()
        };
        let mut directives = Vec::new();
        while self.dot().is_some() {
            directives.push(self.directive()?);
        }
        let body = if self.eat_punct(';') {
            None
        } else if self.peek() == Some(&Tok::Punct('{')) {
            self.i += 1;
            Some(self.stmts()?)
        } else {
            return self.expected("`{` or `;` after the function header");
        };
        Ok(Function {
            linkage,
            entry,
            rets,
            name,
            params,
            directives,
            body,
            loc,
        })
    }

    fn param_list(&mut self) -> R<Vec<VarDecl>> {
        self.punct('(')?;
        let mut v = Vec::new();
        if self.eat_punct(')') {
            return Ok(v);
        }
        loop {
            let loc = self.loc();
            v.push(self.decl(Vec::new(), loc)?);
            if self.eat_punct(')') {
                return Ok(v);
            }
            self.punct(',')?;
        }
    }

    /// `.space {.attr}* .type name{<N>}{[dim]}*{= init}` (the `;` is the caller's).
    fn decl(&mut self, linkage: Vec<String>, loc: Loc) -> R<VarDecl> {
        let Some(space) = self.dot().map(str::to_string) else {
            return self.expected("a state space such as `.reg` or `.param`");
        };
        self.i += 1;
        // Attributes and the type: every `.word` up to the name; the last is the type.
        let mut words: Vec<(String, Option<u64>)> = Vec::new();
        while let Some(d) = self.dot().map(str::to_string) {
            self.i += 1;
            let arg = if d == "align" {
                Some(self.uint("the alignment")?)
            } else {
                None
            };
            words.push((d, arg));
        }
        // The type is the last fundamental type among the words (`.param .u64 .ptr .global
        // .align 4 p` has it first), else the last bare word (`.texref`, opaque types).
        let is_type = |w: &(String, Option<u64>)| w.1.is_none() && spec::types::Type::parse(&w.0).is_some();
        let ty = words
            .iter()
            .rev()
            .find(|w| is_type(w))
            .or_else(|| words.iter().rev().find(|w| w.1.is_none()))
            .map(|w| w.0.clone());
        let Some(ty) = ty else {
            return self.expected("a type such as `.b32` before the name");
        };
        self.declarator(linkage, space, words, ty, loc)
    }

    /// Every declarator of a declaration: `.reg .pred p, q, r;` and `.reg .f16 low, high;` (the
    /// manual's and CUDA's headers' style) declare one variable per name, sharing the space,
    /// attributes and type (§5.4.1).
    fn decls(&mut self, linkage: Vec<String>, loc: Loc) -> R<Vec<VarDecl>> {
        let first = self.decl(linkage, loc)?;
        let mut v = vec![first];
        while self.eat_punct(',') {
            let d = &v[0];
            let (linkage, space, attrs, ty) = (d.linkage.clone(), d.space.clone(), d.attrs.clone(), d.ty.clone());
            let loc = self.loc();
            v.push(self.declarator(linkage, space, attrs, ty, loc)?);
        }
        Ok(v)
    }

    /// One declarator after the type: `name{<N>}{[dim]}*{= init}`.
    fn declarator(
        &mut self,
        linkage: Vec<String>,
        space: String,
        words: Vec<(String, Option<u64>)>,
        ty: String,
        loc: Loc,
    ) -> R<VarDecl> {
        let name = self.ident("a name")?;
        let mut range = None;
        if self.peek() == Some(&Tok::Punct('<')) {
            self.i += 1;
            range = Some(self.uint("the number of registers in `%name<N>`")?);
            self.punct('>')?;
        }
        let mut dims = Vec::new();
        while self.eat_punct('[') {
            if self.eat_punct(']') {
                dims.push(None);
            } else {
                dims.push(Some(self.uint("an array size")?));
                self.punct(']')?;
            }
        }
        let init = if self.eat_punct('=') { Some(self.init()?) } else { None };
        Ok(VarDecl {
            linkage,
            space,
            attrs: words,
            ty,
            name,
            range,
            dims,
            init,
            loc,
        })
    }

    fn init(&mut self) -> R<Init> {
        if self.eat_punct('{') {
            let mut v = Vec::new();
            if !self.eat_punct('}') {
                loop {
                    v.push(self.init()?);
                    if self.eat_punct('}') {
                        break;
                    }
                    self.punct(',')?;
                }
            }
            Ok(Init::List(v))
        } else {
            Ok(Init::Expr(self.expr()?))
        }
    }

    /// Statements up to the closing `}` (taken).
    fn stmts(&mut self) -> R<Vec<Stmt>> {
        let mut body = Vec::new();
        loop {
            let loc = self.loc();
            match self.peek() {
                None => return self.expected("`}` closing the block"),
                Some(Tok::Punct('}')) => {
                    self.i += 1;
                    return Ok(body);
                }
                Some(Tok::Punct('{')) => {
                    self.i += 1;
                    body.push(Stmt::Block {
                        body: self.stmts()?,
                        loc,
                    });
                }
                Some(Tok::Ident(name)) if self.peek_at(1) == Some(&Tok::Punct(':')) => {
                    body.push(Stmt::Label {
                        name: name.clone(),
                        loc,
                    });
                    self.i += 2;
                }
                Some(Tok::Dot(d)) => {
                    if SPACES.contains(&d.as_str()) || OTHER_DECLS.contains(&d.as_str()) {
                        let v = self.decls(Vec::new(), loc)?;
                        self.punct(';')?;
                        body.extend(v.into_iter().map(Stmt::Decl));
                    } else {
                        body.push(Stmt::Directive(self.directive()?));
                    }
                }
                Some(_) => body.push(Stmt::Instr(self.instr()?)),
            }
        }
    }

    fn instr(&mut self) -> R<Instr> {
        let loc = self.loc();
        let mut guard = None;
        if self.eat_punct('@') {
            let neg = self.eat_punct('!');
            guard = Some((neg, self.ident("a predicate after `@`")?));
        }
        let opcode = self.ident("an instruction")?;
        let mut mods = Vec::new();
        while let Some(d) = self.dot() {
            mods.push(d.to_string());
            self.i += 1;
        }
        let mut operands = Vec::new();
        if !self.eat_punct(';') {
            // A call's operands are parenthesized lists (§9.7.12.5).
            let call = spec::catalog::catalog().effects(&opcode).call;
            loop {
                operands.push(self.operand(call)?);
                if self.eat_punct(';') {
                    break;
                }
                if !self.eat_punct(',') {
                    return self.expected("`,` or `;` after an operand");
                }
            }
        }
        Ok(Instr {
            guard,
            opcode,
            mods,
            operands,
            loc,
        })
    }

    /// An operand; `lists`: a `(` opens a call's return or argument list, not a parenthesized
    /// constant expression (`(1+2)*3`).
    fn operand(&mut self, lists: bool) -> R<Operand> {
        match self.peek() {
            Some(Tok::Punct('{')) => {
                self.i += 1;
                Ok(Operand::Vector(self.operand_list('}', lists)?))
            }
            Some(Tok::Punct('(')) if lists => {
                self.i += 1;
                Ok(Operand::List(self.operand_list(')', lists)?))
            }
            Some(Tok::Punct('[')) => {
                self.i += 1;
                let e = self.expr()?;
                if self.eat_punct(',') {
                    // `[tmap, {x, y}]`: the address, then its coordinates.
                    let mut v = vec![Operand::Expr(e)];
                    v.extend(self.operand_list(']', lists)?);
                    return Ok(Operand::AddressTuple(v));
                }
                self.punct(']')?;
                Ok(Operand::Address(e))
            }
            Some(Tok::Punct('!')) if matches!(self.peek_at(1), Some(Tok::Ident(_))) => {
                self.i += 1;
                Ok(Operand::Not(self.ident("a predicate")?))
            }
            // `p|q`, `d|p`, also with a sink on either side (`_|p`, `d|_`: ptxas takes them).
            Some(Tok::Ident(a)) if self.peek_at(1) == Some(&Tok::Punct('|')) => {
                let a = a.clone();
                self.i += 2;
                Ok(Operand::Pair(a, self.ident("the second predicate of `p|q`")?))
            }
            Some(Tok::Ident(s)) if s == "_" => {
                self.i += 1;
                Ok(Operand::Sink)
            }
            _ => Ok(Operand::Expr(self.expr()?)),
        }
    }

    fn operand_list(&mut self, close: char, lists: bool) -> R<Vec<Operand>> {
        let mut v = Vec::new();
        if self.eat_punct(close) {
            return Ok(v);
        }
        loop {
            v.push(self.operand(lists)?);
            if self.eat_punct(close) {
                return Ok(v);
            }
            self.punct(',')?;
        }
    }

    // Constant expressions, by C precedence (§4.6.1, Table 5).
    fn expr(&mut self) -> R<Expr> {
        let c = self.binary(0)?;
        if self.eat_punct('?') {
            let a = self.expr()?;
            self.punct(':')?;
            let b = self.expr()?;
            return Ok(Expr::Cond(Box::new(c), Box::new(a), Box::new(b)));
        }
        Ok(c)
    }

    /// The binary operator at the cursor (two-character ones from adjacent tokens) and its width.
    fn binop(&self) -> Option<(&'static str, usize)> {
        let Some(Tok::Punct(a)) = self.peek() else { return None };
        let b = match self.peek_at(1) {
            Some(Tok::Punct(b)) if self.adjacent(1) => Some(*b),
            _ => None,
        };
        let two = match (a, b) {
            ('<', Some('<')) => Some("<<"),
            ('>', Some('>')) => Some(">>"),
            ('<', Some('=')) => Some("<="),
            ('>', Some('=')) => Some(">="),
            ('=', Some('=')) => Some("=="),
            ('!', Some('=')) => Some("!="),
            ('&', Some('&')) => Some("&&"),
            ('|', Some('|')) => Some("||"),
            _ => None,
        };
        if let Some(op) = two {
            return Some((op, 2));
        }
        let one = match a {
            '*' => "*",
            '/' => "/",
            '%' => "%",
            '+' => "+",
            '-' => "-",
            '<' => "<",
            '>' => ">",
            '&' => "&",
            '^' => "^",
            '|' => "|",
            _ => return None,
        };
        Some((one, 1))
    }

    fn binary(&mut self, min: u8) -> R<Expr> {
        let mut lhs = self.unary()?;
        while let Some((op, width)) = self.binop() {
            let prec = precedence(op);
            if prec < min.max(1) {
                break;
            }
            self.i += width;
            let rhs = self.binary(prec + 1)?;
            lhs = Expr::Binary(op.to_string(), Box::new(lhs), Box::new(rhs));
        }
        Ok(lhs)
    }

    fn unary(&mut self) -> R<Expr> {
        match self.peek().cloned() {
            Some(Tok::Punct(c @ ('-' | '+' | '!' | '~'))) => {
                self.i += 1;
                Ok(Expr::Unary(c, Box::new(self.unary()?)))
            }
            Some(Tok::Punct('(')) => {
                self.i += 1;
                let e = self.expr()?;
                self.punct(')')?;
                Ok(e)
            }
            Some(Tok::Int { value, unsigned }) => {
                self.i += 1;
                Ok(Expr::Int { value, unsigned })
            }
            Some(Tok::Float { bits, f32 }) => {
                self.i += 1;
                Ok(Expr::Float { bits, f32 })
            }
            Some(Tok::Ident(mut name)) => {
                self.i += 1;
                // `%tid.x`, `%r1.b0`: a component written right after the name.
                while let Some(Tok::Dot(c)) = self.peek() {
                    if !self.adjacent(0) {
                        break;
                    }
                    name = format!("{name}.{c}");
                    self.i += 1;
                }
                // `generic(var)` in an initializer (§5.4.4): the variable's generic address, kept
                // as one name so it prints back as written.
                if name == "generic" && self.peek() == Some(&Tok::Punct('(')) {
                    self.i += 1;
                    let inner = self.ident("a variable name in `generic(...)`")?;
                    self.punct(')')?;
                    return Ok(Expr::Name(format!("generic({inner})")));
                }
                Ok(Expr::Name(name))
            }
            _ => self.expected("an operand (register, name or constant)"),
        }
    }
}

/// A token as PTX writes it (for directives kept verbatim).
fn token_text(t: &Tok) -> String {
    match t {
        Tok::Dot(s) => format!(".{s}"),
        Tok::Ident(s) => s.clone(),
        Tok::Int { value, unsigned } => format!("{value}{}", if *unsigned { "U" } else { "" }),
        Tok::Float { bits, f32: true } => format!("0f{bits:08X}"),
        Tok::Float { bits, f32: false } => format!("0d{bits:016X}"),
        Tok::Str(s) => quoted(s),
        Tok::Punct(c) => c.to_string(),
    }
}

/// A string literal as the lexer reads it back: only `\\`, `\"`, `\n` and `\t` are escapes
/// there (`lex.rs`), so every other character is written as it is (Rust's `{:?}` wrote `\r`,
/// `\0` and `\u{..}`, which came back as two characters: found by the `roundtrip` fuzz target).
fn quoted(s: &str) -> String {
    let mut o = String::with_capacity(s.len() + 2);
    o.push('"');
    for c in s.chars() {
        match c {
            '\\' => o.push_str("\\\\"),
            '"' => o.push_str("\\\""),
            '\n' => o.push_str("\\n"),
            '\t' => o.push_str("\\t"),
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

/// Binding strength of a binary operator (§4.6.1, C's order): higher binds tighter.
pub fn precedence(op: &str) -> u8 {
    match op {
        "*" | "/" | "%" => 10,
        "+" | "-" => 9,
        "<<" | ">>" => 8,
        "<" | ">" | "<=" | ">=" => 7,
        "==" | "!=" => 6,
        "&" => 5,
        "^" => 4,
        "|" => 3,
        "&&" => 2,
        _ => 1,
    }
}
