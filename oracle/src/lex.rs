//! The PTX lexer (§4 "Syntax": §4.2 comments, §4.3 statements, §4.4 identifiers, §4.5 constants):
//! text in, tokens with their line and column out, or an error that says where and what.
//!
//! Tokens are the units the parser needs, no more: a `.word` is one token whether it is a
//! directive (`.reg`), a type (`.u32`) or an instruction modifier (`.shared::cta`, `.L2::cache_hint`);
//! the parser gives it a meaning by position. Signs are punctuation: `-1` is `-` then `1`, so the
//! parser's constant expressions see them as operators (§4.6).

use std::fmt;

/// Where a token starts: 1-based line and column (columns count characters), and its byte range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    /// 1-based line.
    pub line: u32,
    /// 1-based column, in characters.
    pub col: u32,
    /// Byte offset of the token's first byte.
    pub start: usize,
    /// Byte offset just past the token.
    pub end: usize,
}

/// A token (§4).
#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    /// `.version`, `.u32`, `.shared::cta`: the text after the dot.
    Dot(String),
    /// An identifier (§4.4): `add`, `%r1`, `$L__BB0_2`, `_Z3fooPf`, `%tid`.
    Ident(String),
    /// An integer constant (§4.5.1): decimal, `0x` hex, leading-`0` octal, `0b` binary, with an
    /// optional `U` suffix marking it unsigned. The value is the 64-bit pattern.
    Int {
        /// The 64-bit pattern.
        value: u64,
        /// Written with the `U` suffix.
        unsigned: bool,
    },
    /// A floating-point constant (§4.5.2): `0fXXXXXXXX` (f32 bits), `0dXXXXXXXXXXXXXXXX` (f64 bits),
    /// or a decimal with a point or exponent, which PTX reads as f64.
    Float {
        /// The bits of the f32 or f64 value.
        bits: u64,
        /// `0f`: `bits` is an f32.
        f32: bool,
    },
    /// A string (`.file 1 "k.cu"`, `.pragma "nounroll"`), escapes resolved.
    Str(String),
    /// One punctuation character: `{ } ( ) [ ] , ; : @ ! + - * / % < > = | & ^ ~ ?`.
    Punct(char),
}

impl fmt::Display for Tok {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tok::Dot(s) => write!(f, "`.{s}`"),
            Tok::Ident(s) => write!(f, "`{s}`"),
            Tok::Int { value, .. } => write!(f, "`{value}`"),
            Tok::Float { bits, f32: true } => write!(f, "`0f{bits:08X}`"),
            Tok::Float { bits, .. } => write!(f, "`0d{bits:016X}`"),
            Tok::Str(s) => write!(f, "{s:?}"),
            Tok::Punct(c) => write!(f, "`{c}`"),
        }
    }
}

/// A lexing error: where, and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LexError {
    /// 1-based line.
    pub line: u32,
    /// 1-based column, in characters.
    pub col: u32,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for LexError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.col, self.message)
    }
}

impl std::error::Error for LexError {}

/// Splits PTX text into tokens. Comments (`//` to the end of the line, `/* */`) and whitespace
/// separate tokens and are dropped.
pub fn lex(src: &str) -> Result<Vec<(Tok, Span)>, LexError> {
    Lexer {
        src,
        pos: 0,
        line: 1,
        col: 1,
    }
    .run()
}

struct Lexer<'a> {
    src: &'a str,
    pos: usize,
    line: u32,
    col: u32,
}

const PUNCT: &str = "{}()[],;:@!+-*/%<>=|&^~?";

fn ident_start(c: char) -> bool {
    c.is_ascii_alphabetic() || matches!(c, '_' | '$' | '%')
}

fn ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '$')
}

impl Lexer<'_> {
    fn peek(&self) -> Option<char> {
        self.src[self.pos..].chars().next()
    }

    fn peek2(&self) -> Option<char> {
        self.src[self.pos..].chars().nth(1)
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        if c == '\n' {
            self.line += 1;
            self.col = 1;
        } else {
            self.col += 1;
        }
        Some(c)
    }

    fn error<T>(&self, line: u32, col: u32, message: impl Into<String>) -> Result<T, LexError> {
        Err(LexError {
            line,
            col,
            message: message.into(),
        })
    }

    fn take_while(&mut self, f: impl Fn(char) -> bool) -> &str {
        let start = self.pos;
        while self.peek().is_some_and(&f) {
            self.bump();
        }
        &self.src[start..self.pos]
    }

    fn run(mut self) -> Result<Vec<(Tok, Span)>, LexError> {
        let mut out = Vec::new();
        loop {
            self.skip_space_and_comments()?;
            let (line, col, start) = (self.line, self.col, self.pos);
            let Some(c) = self.peek() else { break };
            // `.5` and `.5e3` are numbers, but `.2d` (`cp.async.bulk.tensor.2d`) is no number:
            // a modifier. Decided by the text alone, so printing with other spacing keeps it.
            let numeric = || {
                // `c` is the one-byte `.`, so the word starts right after it.
                let word: String = self.src[self.pos + 1..]
                    .chars()
                    .take_while(|&c| c.is_ascii_alphanumeric() || c == '_')
                    .collect();
                parse_number(&format!(".{word}")).is_some()
                    || word.ends_with(['e', 'E']) && word[..word.len() - 1].chars().all(|c| c.is_ascii_digit())
            };
            let tok = if c == '.' && self.peek2().is_some_and(|d| d.is_ascii_digit()) && numeric() {
                self.number(line, col)?
            } else if c == '.' {
                self.bump();
                let mut word = self.take_while(ident_char).to_string();
                if word.is_empty() {
                    return self.error(
                        line,
                        col,
                        "a `.` must be followed by a directive, type or modifier name",
                    );
                }
                // `.shared::cta`, `.L2::cache_hint`, `.L1::evict_last`: one modifier.
                while self.src[self.pos..].starts_with("::") {
                    self.bump();
                    self.bump();
                    let part = self.take_while(ident_char);
                    if part.is_empty() {
                        return self.error(line, col, format!("`.{word}::` must be followed by a name"));
                    }
                    word = format!("{word}::{part}");
                }
                Tok::Dot(word)
            } else if ident_start(c) {
                self.bump();
                let rest = self.take_while(ident_char);
                let name = format!("{c}{rest}");
                if name.len() == 1 && matches!(c, '%' | '$') {
                    // A lone `%` is the remainder operator of constant expressions.
                    if c == '%' {
                        Tok::Punct('%')
                    } else {
                        return self.error(line, col, "`$` must start an identifier");
                    }
                } else {
                    Tok::Ident(name)
                }
            } else if c.is_ascii_digit() {
                self.number(line, col)?
            } else if c == '"' {
                self.string(line, col)?
            } else if PUNCT.contains(c) {
                self.bump();
                Tok::Punct(c)
            } else {
                return self.error(line, col, format!("unexpected character {c:?}"));
            };
            out.push((
                tok,
                Span {
                    line,
                    col,
                    start,
                    end: self.pos,
                },
            ));
        }
        Ok(out)
    }

    fn skip_space_and_comments(&mut self) -> Result<(), LexError> {
        loop {
            match (self.peek(), self.peek2()) {
                (Some(c), _) if c.is_whitespace() => {
                    self.bump();
                }
                (Some('/'), Some('/')) => {
                    self.take_while(|c| c != '\n');
                }
                (Some('/'), Some('*')) => {
                    let (line, col) = (self.line, self.col);
                    self.bump();
                    self.bump();
                    loop {
                        if self.src[self.pos..].starts_with("*/") {
                            self.bump();
                            self.bump();
                            break;
                        }
                        if self.bump().is_none() {
                            return self.error(line, col, "unterminated `/*` comment");
                        }
                    }
                }
                _ => return Ok(()),
            }
        }
    }

    fn number(&mut self, line: u32, col: u32) -> Result<Tok, LexError> {
        let start = self.pos;
        // A number runs over letters and digits (hex digits, suffixes, `0f`/`0d` prefixes), a
        // decimal point, and a sign right after an exponent `e`/`E` of a decimal float.
        loop {
            match self.peek() {
                Some(c) if c.is_ascii_alphanumeric() || c == '.' => {
                    self.bump();
                }
                Some('+' | '-') if self.decimal_exponent_sign(start) => {
                    self.bump();
                }
                _ => break,
            }
        }
        let text = &self.src[start..self.pos];
        parse_number(text)
            .ok_or(())
            .or_else(|()| self.error(line, col, format!("`{text}` is not a PTX constant")))
    }

    /// Whether the number so far is a decimal float ending in an exponent letter (`1.5e`, `2E`).
    fn decimal_exponent_sign(&self, start: usize) -> bool {
        let t = &self.src[start..self.pos];
        let lower = t.to_ascii_lowercase();
        (lower.ends_with('e'))
            && !lower.starts_with("0x")
            && !lower.starts_with("0f")
            && !lower.starts_with("0d")
            && !lower.starts_with("0b")
            && lower[..lower.len() - 1].chars().all(|c| c.is_ascii_digit() || c == '.')
    }

    fn string(&mut self, line: u32, col: u32) -> Result<Tok, LexError> {
        self.bump();
        let mut s = String::new();
        loop {
            match self.bump() {
                None | Some('\n') => return self.error(line, col, "unterminated string"),
                Some('"') => return Ok(Tok::Str(s)),
                Some('\\') => match self.bump() {
                    Some('n') => s.push('\n'),
                    Some('t') => s.push('\t'),
                    Some(c @ ('\\' | '"')) => s.push(c),
                    Some(c) => {
                        s.push('\\');
                        s.push(c);
                    }
                    None => return self.error(line, col, "unterminated string"),
                },
                Some(c) => s.push(c),
            }
        }
    }
}

/// Parses the text of a numeric constant (§4.5): `0x1F`, `017`, `0b101`, `42U`, `0f3F800000`,
/// `0d3FF0000000000000`, `1.5`, `1e-3`, `.5`.
pub fn parse_number(t: &str) -> Option<Tok> {
    let lower = t.to_ascii_lowercase();
    let hex_bits = |h: &str, n: usize| {
        (h.len() == n && h.chars().all(|c| c.is_ascii_hexdigit()))
            .then(|| u64::from_str_radix(h, 16).ok())
            .flatten()
    };
    if let Some(h) = lower.strip_prefix("0f") {
        return hex_bits(h, 8).map(|bits| Tok::Float { bits, f32: true });
    }
    if let Some(h) = lower.strip_prefix("0d") {
        return hex_bits(h, 16).map(|bits| Tok::Float { bits, f32: false });
    }
    let (body, unsigned) = match lower.strip_suffix('u') {
        Some(b) => (b, true),
        None => (lower.as_str(), false),
    };
    let int = if let Some(h) = body.strip_prefix("0x") {
        u64::from_str_radix(h, 16).ok()
    } else if let Some(b) = body.strip_prefix("0b") {
        u64::from_str_radix(b, 2).ok()
    } else if body.len() > 1 && body.starts_with('0') && body.chars().all(|c| c.is_ascii_digit()) {
        u64::from_str_radix(&body[1..], 8).ok()
    } else if !body.is_empty() && body.chars().all(|c| c.is_ascii_digit()) {
        body.parse::<u64>().ok()
    } else {
        None
    };
    if let Some(value) = int {
        return Some(Tok::Int { value, unsigned });
    }
    // A decimal float: digits with a point and/or an exponent, no suffix.
    let is_decimal = !lower.starts_with("0x")
        && lower
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | '+' | '-'))
        && (lower.contains('.') || lower.contains('e'));
    if is_decimal {
        // ptxas 12.9 refuses a decimal whose f64 is subnormal ("Constant overflow": `1e-310`,
        // `5e-324`); those values are written as `0d` bits.
        let representable = |x: &f64| x.is_finite() && (*x == 0.0 || x.is_normal());
        return lower.parse::<f64>().ok().filter(representable).map(|x| Tok::Float {
            bits: x.to_bits(),
            f32: false,
        });
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// No input makes the lexer panic; tokens come in order, inside the text, on the lines
        /// their positions name.
        #[test]
        fn never_panics_and_spans_are_sane(src in "[ -~\n\t\u{e9}]{0,80}") {
            if let Ok(toks) = lex(&src) {
                let mut last = 0;
                for (_, sp) in toks {
                    prop_assert!(sp.start >= last && sp.end > sp.start && sp.end <= src.len());
                    prop_assert_eq!(sp.line as usize, src[..sp.start].matches('\n').count() + 1);
                    last = sp.end;
                }
            }
        }
    }

    fn toks(s: &str) -> Vec<Tok> {
        lex(s).unwrap().into_iter().map(|(t, _)| t).collect()
    }

    fn int(value: u64) -> Tok {
        Tok::Int { value, unsigned: false }
    }

    #[test]
    fn a_kernel_header_and_instructions() {
        let src = ".version 8.7\n.target sm_80 // comment\n.reg .b32 %r<4>;\n@!%p1 ld.global.nc.L1::evict_last.v2.u32 {%r1, _}, [%rd2+-8];";
        let t = toks(src);
        assert_eq!(t[0], Tok::Dot("version".into()));
        assert_eq!(
            t[1],
            Tok::Float {
                bits: 8.7f64.to_bits(),
                f32: false
            }
        );
        assert_eq!(t[2], Tok::Dot("target".into()));
        assert_eq!(t[3], Tok::Ident("sm_80".into()));
        assert_eq!(
            &t[4..10],
            &[
                Tok::Dot("reg".into()),
                Tok::Dot("b32".into()),
                Tok::Ident("%r".into()),
                Tok::Punct('<'),
                int(4),
                Tok::Punct('>')
            ]
        );
        assert!(t.contains(&Tok::Dot("L1::evict_last".into())));
        assert!(t.contains(&Tok::Ident("_".into())));
        assert!(t.ends_with(&[
            Tok::Punct('+'),
            Tok::Punct('-'),
            int(8),
            Tok::Punct(']'),
            Tok::Punct(';')
        ]));
    }

    #[test]
    fn every_constant_syntax() {
        // §4.5.1: hex, octal, binary, decimal, the U suffix; §4.5.2: 0f/0d bit literals.
        assert_eq!(
            toks("0x1F 017 0b101 42U 0"),
            vec![
                int(31),
                int(15),
                int(5),
                Tok::Int {
                    value: 42,
                    unsigned: true
                },
                int(0)
            ]
        );
        assert_eq!(
            toks("0f3F800000 0D3FF0000000000000"),
            vec![
                Tok::Float {
                    bits: 0x3f80_0000,
                    f32: true
                },
                Tok::Float {
                    bits: 0x3ff0_0000_0000_0000,
                    f32: false
                }
            ]
        );
        assert_eq!(
            toks("1.5e-3"),
            vec![Tok::Float {
                bits: 1.5e-3f64.to_bits(),
                f32: false
            }]
        );
        assert_eq!(toks("-1"), vec![Tok::Punct('-'), int(1)]);
        assert_eq!(toks("18446744073709551615"), vec![int(u64::MAX)]);
        // ptxas 12.9: a decimal whose f64 is subnormal is "Constant overflow"; the smallest
        // normal one is a constant.
        assert!(lex("1e-310").is_err());
        assert!(lex("5e-324").is_err());
        assert_eq!(
            toks("2.2250738585072014e-308 0e0"),
            vec![
                Tok::Float {
                    bits: f64::MIN_POSITIVE.to_bits(),
                    f32: false
                },
                Tok::Float { bits: 0, f32: false }
            ]
        );
    }

    #[test]
    fn positions_are_line_and_column() {
        let l = lex("a\n  /* x\n y */ b  \"s\\\"q\"").unwrap();
        assert_eq!((l[0].1.line, l[0].1.col), (1, 1));
        assert_eq!((l[1].1.line, l[1].1.col), (3, 7));
        assert_eq!(l[2].0, Tok::Str("s\"q".into()));
    }

    #[test]
    fn errors_say_where_and_what() {
        let e = lex("add.u32 %r1,\n   0f3F80;").unwrap_err();
        assert_eq!((e.line, e.col), (2, 4));
        assert!(e.message.contains("`0f3F80` is not a PTX constant"), "{e}");
        assert_eq!(lex("/* open").unwrap_err().message, "unterminated `/*` comment");
        assert_eq!(lex("\"abc").unwrap_err().to_string(), "1:1: unterminated string");
        assert!(lex("mov.u32 %r1, #3;")
            .unwrap_err()
            .message
            .contains("unexpected character '#'"));
        assert!(
            lex(". u32").is_err()
                && lex(".shared::").is_err()
                && lex("0x").is_err()
                && lex("99999999999999999999").is_err()
        );
    }
}
