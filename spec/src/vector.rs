//! The golden-vector text format: one evaluation of one form per line, operands and results as
//! hex bit patterns, each result followed by its acceptance tag.
//!
//! ```text
//! # ptxconf golden vectors 1
//! # form: add.rn.ftz.f32
//! # columns: a:f32 b:f32 -> d:f32
//! 3f800000 3f800000 40000000 exact
//! 7f800000 ff800000 7fffffff nan
//! ```
//!
//! A line is the source operands in PTX order, then for every destination its value and its tag.
//! Operands and values are hex without `0x`, zero-padded to the operand's width (a predicate or
//! the carry flag is one digit, `0` or `1`); an operand may carry `!` (a negated predicate, `!p`),
//! `-` (a negated video operand, `vmad`'s `-a`) and a video selector suffix (`0000ff00.b1`). Forms
//! whose destination takes a video selector or mask start the line with `d` or `d.SEL`. Vector
//! operands (`{a,b}`) are written element by element; an optional operand left out is `_`
//! (`vadd d, a, b` without `c`). Header lines start with `#`; `form:` names
//! the form (see [`form_key`]), the others are informative.
//!
//! Tags ([`tag`], [`parse_tag`]) spell out the acceptance set around the model value:
//!
//! | tag | accepted results |
//! |---|---|
//! | `exact` | the value only |
//! | `any` | anything: the manual leaves the result unspecified |
//! | `nan` | any NaN of the destination's format (the value is the canonical NaN hardware returns) |
//! | `oneof:V1,V2,..` | the listed values (the model first) |
//! | `ulp:N@REF` | within N units in the last place of the true value REF |
//! | `abs:2^E@REF` | within 2^E of REF |
//! | `rel:2^E@REF` | within 2^E × \|REF\| of REF |
//! | `lanes:T1/T0` | per lane of a packed result, most significant first, each a tag (`-` = exact) |
//!
//! REF is the true result as the 16 hex digits of an f64. A bound may end with `+ftz` (a signed
//! zero is accepted where the bound reaches below the smallest normal) and `+zero:MASK` (these bits
//! are zero in every accepted result: `rcp.approx.ftz.f64`'s low word). A `nan` whose format is
//! not the destination's own is written `nan:FORMAT`.

pub mod matrix;
pub mod movement;
pub mod refused;
pub mod scaled;
pub mod wgctl;
pub mod wmma;

use crate::catalog::{catalog, Form, FormId, Operand};
use crate::types::{FloatFormat, Kind, Type};
use crate::value::{Accept, Bound, ErrBound, Input, Outcome, Sel};
use std::fmt::{self, Write as _};

/// The first line of every vector file; the number is the format's version.
pub const MAGIC: &str = "# ptxconf golden vectors 1";

/// One evaluation: the operands and the destination selector that produced it, and every
/// destination's outcome.
#[derive(Clone, Debug, PartialEq)]
pub struct Vector {
    /// The destination selector or mask (`d.SEL` at the start of the line).
    pub dsel: Option<Sel>,
    /// The source operands, in PTX order.
    pub ins: Vec<Input>,
    /// One outcome per destination, in PTX order.
    pub outs: Vec<Outcome>,
}

impl Vector {
    /// A whole-operation line's vector (the tensor-core forms): every input a plain bit pattern,
    /// no selector.
    pub fn whole(ins: &[u128], outs: Vec<Outcome>) -> Vector {
        Vector {
            dsel: None,
            ins: ins
                .iter()
                .map(|&bits| Input {
                    bits,
                    ..Input::default()
                })
                .collect(),
            outs,
        }
    }
}

/// A form's name in vector files and filters: its PTX name, plus `~iN`/`~oN` for every vector
/// operand of N elements among inputs/outputs, which separates forms PTX spells alike
/// (`mov.b32 d, {a,b}` is `mov.b32~i2`, `mov.b32 {d1,d2}, a` is `mov.b32~o2`).
pub fn form_key(form: &Form) -> String {
    let mut key = form.name.clone();
    for (ops, side) in [(&form.inputs, 'i'), (&form.outputs, 'o')] {
        let mut groups: Vec<(u32, usize)> = Vec::new();
        for g in ops.iter().filter_map(|o| o.group) {
            match groups.last_mut() {
                Some((last, n)) if *last == g => *n += 1,
                _ => groups.push((g, 1)),
            }
        }
        for (_, n) in groups {
            let _ = write!(key, "~{side}{n}");
        }
    }
    key
}

/// Whether the form's first column is the destination selector (`d` or `d.b2`).
pub fn has_dsel(form: &Form) -> bool {
    form.outputs.iter().any(|o| o.flags.sel)
}

/// The `# columns:` header value: `a:f32 b:f32 -> d:f32`; for a matrix form
/// ([`matrix::columns`]) its matrices, `A:f16[16x16] B:f16[16x8] C:f32[16x8] -> D:f32[16x8]`.
pub fn columns(form: &Form) -> String {
    if let Some(m) = matrix::columns(form) {
        return m.header();
    }
    if let Some(m) = movement::columns(form) {
        return m.header();
    }
    if let Some(m) = scaled::columns(form) {
        return m.header();
    }
    if let Some(m) = wmma::columns(form) {
        return m.header();
    }
    if let Some(m) = refused::columns(form) {
        return m.header();
    }
    if let Some(m) = wgctl::columns(form) {
        return m.header();
    }
    let mut s = String::new();
    if has_dsel(form) {
        s.push_str("d.sel ");
    }
    for o in &form.inputs {
        let _ = write!(s, "{}:{} ", o.name, o.ty);
    }
    s.push_str("->");
    for o in &form.outputs {
        let _ = write!(s, " {}:{} tag", o.name, o.ty);
    }
    s
}

fn digits(ty: Type) -> usize {
    ty.bits().div_ceil(4) as usize
}

/// Formats one vector line (without the newline).
pub fn format_line(form: &Form, v: &Vector) -> String {
    if let Some(m) = matrix::columns(form) {
        return matrix::format_line(&m, v);
    }
    if let Some(m) = movement::columns(form) {
        return movement::format_line(&m, v);
    }
    if let Some(m) = scaled::columns(form) {
        return scaled::format_line(&m, v);
    }
    if let Some(m) = wmma::columns(form) {
        return wmma::format_line(&m, v);
    }
    if let Some(m) = refused::columns(form) {
        return refused::format_line(&m, v);
    }
    if let Some(m) = wgctl::columns(form) {
        return wgctl::format_line(&m, v);
    }
    let mut s = String::with_capacity(64);
    if has_dsel(form) {
        s.push('d');
        if let Some(sel) = v.dsel {
            let _ = write!(s, ".{sel}");
        }
        s.push(' ');
    }
    for (k, o) in form.inputs.iter().enumerate() {
        let Some(i) = v.ins.get(k) else {
            // An optional operand left out (`vadd d, a, b` without `c`).
            s.push_str("_ ");
            continue;
        };
        if i.negated {
            s.push(if o.ty.kind == Kind::Pred { '!' } else { '-' });
        }
        let _ = write!(s, "{:0w$x}", i.bits, w = digits(o.ty));
        if let Some(sel) = i.sel {
            let _ = write!(s, ".{sel}");
        }
        s.push(' ');
    }
    for (k, (o, r)) in form.outputs.iter().zip(&v.outs).enumerate() {
        if k > 0 {
            s.push(' ');
        }
        let _ = write!(s, "{:0w$x} {}", r.model, tag(r, o.ty), w = digits(o.ty));
    }
    s
}

/// A column of a vector line, as [`LineError::Missing`] names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Column {
    /// The destination selector column (`d` or `d.SEL`).
    DestinationSelector,
    /// A source operand, by name.
    Operand(String),
    /// A destination's value, by the destination's name.
    Destination(String),
    /// A destination's acceptance tag, by the destination's name.
    Tag(String),
}

impl fmt::Display for Column {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Column::DestinationSelector => f.write_str("the destination selector column (`d` or `d.SEL`)"),
            Column::Operand(name) => write!(f, "operand {name}"),
            Column::Destination(name) => write!(f, "destination {name}"),
            Column::Tag(name) => write!(f, "the tag of destination {name}"),
        }
    }
}

/// A hex word that is not a value of its operand's type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HexError {
    /// Not as many digits as the type's width takes (operands are zero-padded).
    Digits {
        /// The word.
        text: String,
        /// The digits the type takes.
        digits: usize,
    },
    /// Not a hex number.
    NotHex {
        /// The word.
        text: String,
    },
    /// Bits set above the type's width.
    TooWide {
        /// The word.
        text: String,
        /// The type's width in bits.
        bits: u32,
    },
}

impl fmt::Display for HexError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HexError::Digits { text, digits } => write!(f, "`{text}` is not {digits} hex digits"),
            HexError::NotHex { text } => write!(f, "`{text}` is not hex"),
            HexError::TooWide { text, bits } => write!(f, "`{text}` does not fit in {bits} bits"),
        }
    }
}

impl std::error::Error for HexError {}

/// What is wrong with a vector line ([`parse_line`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LineError {
    /// The line ends before this column.
    Missing(Column),
    /// `d.SEL` whose selector is not one.
    BadDestinationSelector {
        /// The word.
        word: String,
    },
    /// The first word of a form with a destination selector is not `d` or `d.SEL`.
    NotDestinationSelector {
        /// The word found.
        found: String,
    },
    /// `_` for an operand that is not optional.
    NotOptional {
        /// The operand's name.
        operand: String,
    },
    /// An operand written after an optional operand left out.
    AfterAbsent {
        /// The operand's name.
        operand: String,
    },
    /// `!`/`-` on an operand that takes no negation.
    NotNegatable {
        /// The operand's name.
        operand: String,
        /// The word.
        word: String,
    },
    /// A `.SEL` suffix on an operand that takes no selector.
    NoSelector {
        /// The operand's name.
        operand: String,
        /// The word.
        word: String,
    },
    /// A `.SEL` suffix that is not a selector.
    BadSelector {
        /// The word.
        word: String,
    },
    /// A source operand's value is not one of its type.
    Operand {
        /// The operand's name.
        operand: String,
        /// What is wrong with the value.
        source: HexError,
    },
    /// A destination's value is not one of its type.
    Destination {
        /// The destination's name.
        destination: String,
        /// What is wrong with the value.
        source: HexError,
    },
    /// A destination's tag does not parse.
    Tag {
        /// The destination's name.
        destination: String,
        /// What is wrong with the tag.
        source: TagError,
    },
    /// A word after the last destination's tag.
    Trailing {
        /// The first extra word.
        word: String,
    },
    /// A line of a matrix form ([`matrix`]) that does not parse.
    Matrix(matrix::MatrixLineError),
    /// A line of a form the manual forbids ([`refused`]) that is not `refused`.
    NotRefused {
        /// The line.
        found: String,
    },
}

impl fmt::Display for LineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LineError::Missing(column) => write!(f, "missing {column}"),
            LineError::BadDestinationSelector { word } => write!(f, "bad destination selector `{word}`"),
            LineError::NotDestinationSelector { found } => write!(f, "expected `d` or `d.SEL`, found `{found}`"),
            LineError::NotOptional { operand } => write!(f, "operand {operand} is not optional (`_`)"),
            LineError::AfterAbsent { operand } => write!(f, "operand {operand} follows an absent optional operand"),
            LineError::NotNegatable { operand, word } => write!(f, "operand {operand} cannot be negated (`{word}`)"),
            LineError::NoSelector { operand, word } => write!(f, "operand {operand} takes no selector (`{word}`)"),
            LineError::BadSelector { word } => write!(f, "bad selector `{word}`"),
            LineError::Operand { operand, source } => write!(f, "operand {operand}: {source}"),
            LineError::Destination { source, .. } => write!(f, "{source}"),
            LineError::Tag { destination, source } => write!(f, "destination {destination}: {source}"),
            LineError::Trailing { word } => write!(f, "unexpected `{word}` after the last destination's tag"),
            LineError::Matrix(e) => write!(f, "{e}"),
            LineError::NotRefused { found } => write!(
                f,
                "the manual forbids this form: its only line is `{}`, found `{found}`",
                refused::WORD
            ),
        }
    }
}

impl std::error::Error for LineError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            LineError::Operand { source, .. } | LineError::Destination { source, .. } => Some(source),
            LineError::Tag { source, .. } => Some(source),
            LineError::Matrix(e) => Some(e),
            _ => None,
        }
    }
}

/// Parses one vector line of `form` (the inverse of [`format_line`]).
pub fn parse_line(form: &Form, line: &str) -> Result<Vector, LineError> {
    if let Some(m) = matrix::columns(form) {
        return matrix::parse_line(&m, line);
    }
    if let Some(m) = movement::columns(form) {
        return movement::parse_line(&m, line);
    }
    if let Some(m) = scaled::columns(form) {
        return scaled::parse_line(&m, line);
    }
    if let Some(m) = wmma::columns(form) {
        return wmma::parse_line(&m, line);
    }
    if let Some(m) = refused::columns(form) {
        return refused::parse_line(&m, line);
    }
    if let Some(m) = wgctl::columns(form) {
        return wgctl::parse_line(&m, line);
    }
    let mut words = line.split_ascii_whitespace();
    // The column is named only when it is missing (lines are parsed by the million).
    let mut next = |column: &dyn Fn() -> Column| words.next().ok_or_else(|| LineError::Missing(column()));
    let dsel = if has_dsel(form) {
        let w = next(&|| Column::DestinationSelector)?;
        match w.strip_prefix("d") {
            Some("") => None,
            Some(s) => Some(
                s.strip_prefix('.')
                    .and_then(Sel::parse)
                    .ok_or_else(|| LineError::BadDestinationSelector { word: w.to_string() })?,
            ),
            None => return Err(LineError::NotDestinationSelector { found: w.to_string() }),
        }
    } else {
        None
    };
    let mut ins = Vec::with_capacity(form.inputs.len());
    let mut absent = false;
    for o in &form.inputs {
        let w = next(&|| Column::Operand(o.name.to_string()))?;
        if w == "_" {
            if !o.optional {
                return Err(LineError::NotOptional {
                    operand: o.name.to_string(),
                });
            }
            absent = true;
        } else if absent {
            return Err(LineError::AfterAbsent {
                operand: o.name.to_string(),
            });
        } else {
            ins.push(parse_input(o, w)?);
        }
    }
    let mut outs = Vec::with_capacity(form.outputs.len());
    for o in &form.outputs {
        let model = parse_hex(o.ty, next(&|| Column::Destination(o.name.to_string()))?).map_err(|source| {
            LineError::Destination {
                destination: o.name.to_string(),
                source,
            }
        })?;
        let t = next(&|| Column::Tag(o.name.to_string()))?;
        let accept = parse_tag(t, o.ty).map_err(|source| LineError::Tag {
            destination: o.name.to_string(),
            source,
        })?;
        outs.push(Outcome { model, accept });
    }
    if let Some(w) = words.next() {
        return Err(LineError::Trailing { word: w.to_string() });
    }
    Ok(Vector { dsel, ins, outs })
}

fn parse_input(o: &Operand, w: &str) -> Result<Input, LineError> {
    let mut s = w;
    let mut inp = Input::default();
    let neg = if o.ty.kind == Kind::Pred { '!' } else { '-' };
    if let Some(r) = s.strip_prefix(neg) {
        if !(o.flags.not || o.flags.neg) {
            return Err(LineError::NotNegatable {
                operand: o.name.to_string(),
                word: w.to_string(),
            });
        }
        inp.negated = true;
        s = r;
    }
    if let Some((v, sel)) = s.split_once('.') {
        if !o.flags.sel {
            return Err(LineError::NoSelector {
                operand: o.name.to_string(),
                word: w.to_string(),
            });
        }
        inp.sel = Some(Sel::parse(sel).ok_or_else(|| LineError::BadSelector { word: w.to_string() })?);
        s = v;
    }
    inp.bits = parse_hex(o.ty, s).map_err(|source| LineError::Operand {
        operand: o.name.to_string(),
        source,
    })?;
    Ok(inp)
}

fn parse_hex(ty: Type, s: &str) -> Result<u128, HexError> {
    if s.len() != digits(ty) {
        return Err(HexError::Digits {
            text: s.to_string(),
            digits: digits(ty),
        });
    }
    let v = u128::from_str_radix(s, 16).map_err(|_| HexError::NotHex { text: s.to_string() })?;
    if v & !ty.mask() != 0 {
        return Err(HexError::TooWide {
            text: s.to_string(),
            bits: ty.bits(),
        });
    }
    Ok(v)
}

/// The float format of one lane of `ty`, if it is a float type.
fn lane_format(ty: Type) -> Option<FloatFormat> {
    match ty.kind {
        Kind::Float(f) => Some(f),
        _ => None,
    }
}

fn lane_type(ty: Type, lane_bits: u32) -> Type {
    match ty.kind {
        Kind::Float(f) if f.bits() == lane_bits => Type {
            kind: ty.kind,
            lane_bits,
            lanes: 1,
        },
        _ => Type::int(Kind::Bits, lane_bits),
    }
}

/// The acceptance tag of a destination of type `ty` (`exact` when only the model is accepted).
pub fn tag(out: &Outcome, ty: Type) -> String {
    tag_of(&out.accept, out.model, ty).unwrap_or_else(|| "exact".to_string())
}

/// The tag, or `None` for an exact result (`ptxconf eval` prints nothing then).
pub fn tag_of(accept: &Accept, model: u128, ty: Type) -> Option<String> {
    let hex = |x: u128| format!("0x{:0w$x}", x, w = digits(ty));
    Some(match accept {
        Accept::Exact => return None,
        Accept::Any => "any".to_string(),
        Accept::OneOf(v) => {
            let all: Vec<String> = std::iter::once(model).chain(v.iter().copied()).map(hex).collect();
            format!("oneof:{}", all.join(","))
        }
        Accept::Nan(f) if lane_format(ty) == Some(*f) => "nan".to_string(),
        Accept::Nan(f) => format!("nan:{}", f.name()),
        Accept::Bound(b) => {
            let mut s = match b.err {
                ErrBound::Ulp(n) => format!("ulp:{n}"),
                ErrBound::Abs { log2 } => format!("abs:2^{log2}"),
                ErrBound::Rel { log2 } => format!("rel:2^{log2}"),
            };
            let _ = write!(s, "@{:016x}", b.reference.to_bits());
            if lane_format(ty) != Some(b.format) {
                let _ = write!(s, "+fmt:{}", b.format.name());
            }
            if b.ftz {
                s.push_str("+ftz");
            }
            if b.zero_bits != 0 {
                let _ = write!(s, "+zero:{}", hex(b.zero_bits));
            }
            s
        }
        Accept::Lanes { lane_bits, lanes } => {
            let lt = lane_type(ty, *lane_bits);
            let ts: Vec<String> = lanes
                .iter()
                .rev()
                .map(|o| tag_of(&o.accept, o.model, lt).unwrap_or_else(|| "-".to_string()))
                .collect();
            format!("lanes:{}", ts.join("/"))
        }
    })
}

/// A tag that does not parse ([`parse_tag`]): the whole tag, and what is wrong with it (with the
/// lane's part, for a `lanes:` tag).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TagError {
    /// The tag as written.
    pub tag: String,
    /// What is wrong with it.
    pub kind: TagErrorKind,
}

/// What is wrong with a tag (see [`TagError`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TagErrorKind {
    /// `nan:FORMAT` or `+fmt:FORMAT` names no float format.
    UnknownFormat {
        /// The name written.
        name: String,
    },
    /// `nan` on a destination that is not a float.
    NotFloat {
        /// The destination's (or lane's) type.
        ty: Type,
    },
    /// A `oneof:` value without `0x`.
    OneOfNotPrefixed {
        /// The value as written.
        value: String,
    },
    /// A `oneof:` value that is not hex.
    OneOfNotHex {
        /// The value as written.
        value: String,
    },
    /// `oneof:` with fewer than two values (the model and at least one more).
    OneOfTooShort,
    /// A `lanes:` tag whose lane count does not divide the destination's width.
    LanesDoNotDivide {
        /// The lanes written.
        lanes: usize,
        /// The destination's width in bits.
        bits: u32,
    },
    /// Not a tag of the format.
    Unknown,
    /// A bound not written `KIND:N@REF`.
    NotBound,
    /// REF is not 16 hex digits.
    RefDigits {
        /// REF as written.
        reference: String,
    },
    /// REF is not hex.
    RefNotHex {
        /// REF as written.
        reference: String,
    },
    /// An `abs:`/`rel:` bound that is not `2^E`.
    NotPowerOfTwo {
        /// The bound as written.
        bound: String,
    },
    /// An `ulp:` bound that is not a count.
    NotCount {
        /// The bound as written.
        bound: String,
    },
    /// A `+zero:0x..` mask that is not hex.
    ZeroMaskNotHex {
        /// The modifier as written (without `+`).
        modifier: String,
    },
    /// A bound modifier other than `+ftz`, `+fmt:` and `+zero:`.
    UnknownModifier {
        /// The modifier as written (without `+`).
        modifier: String,
    },
    /// A bound on a destination that is not a float, without `+fmt:FORMAT`.
    NoFormat {
        /// The destination's (or lane's) type.
        ty: Type,
    },
}

impl fmt::Display for TagErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TagErrorKind::UnknownFormat { name } => write!(f, "unknown format `{name}`"),
            TagErrorKind::NotFloat { ty } => write!(f, "`{ty}` is not a float type"),
            TagErrorKind::OneOfNotPrefixed { .. } => f.write_str("values are written 0x.."),
            TagErrorKind::OneOfNotHex { value } => write!(f, "`{value}` is not hex"),
            TagErrorKind::OneOfTooShort => f.write_str("oneof lists the model and at least one more value"),
            TagErrorKind::LanesDoNotDivide { lanes, bits } => write!(f, "{lanes} lanes do not divide {bits} bits"),
            TagErrorKind::Unknown => f.write_str("unknown tag"),
            TagErrorKind::NotBound => f.write_str("a bound is written KIND:N@REF"),
            TagErrorKind::RefDigits { .. } => f.write_str("REF is 16 hex digits"),
            TagErrorKind::RefNotHex { .. } => f.write_str("REF is not hex"),
            TagErrorKind::NotPowerOfTwo { bound } => write!(f, "`{bound}` is not 2^E"),
            TagErrorKind::NotCount { bound } => write!(f, "`{bound}` is not a count"),
            TagErrorKind::ZeroMaskNotHex { modifier } => write!(f, "`{modifier}` is not hex"),
            TagErrorKind::UnknownModifier { modifier } => write!(f, "unknown bound modifier `+{modifier}`"),
            TagErrorKind::NoFormat { ty } => write!(f, "`{ty}` is not a float type; write +fmt:FORMAT"),
        }
    }
}

impl fmt::Display for TagError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "bad tag `{}`: {}", self.tag, self.kind)
    }
}

impl std::error::Error for TagError {}

/// Parses a tag of a destination of type `ty` back into its acceptance set. A `lanes:` tag's
/// lane models are taken from the destination value, so the caller fills them in with
/// [`Outcome`]'s `model` (see [`parse_line`]); [`Outcome::accepts`] uses only the lanes' sets
/// and models.
pub fn parse_tag(s: &str, ty: Type) -> Result<Accept, TagError> {
    parse_tag_lane(s, ty).map_err(|kind| TagError {
        tag: s.to_string(),
        kind,
    })
}

fn parse_tag_lane(s: &str, ty: Type) -> Result<Accept, TagErrorKind> {
    let fmt_named = |n: &str| {
        FloatFormat::NAMES
            .iter()
            .find(|(name, _)| *name == n)
            .map(|(_, f)| *f)
            .ok_or_else(|| TagErrorKind::UnknownFormat { name: n.to_string() })
    };
    let own_format = || lane_format(ty).ok_or(TagErrorKind::NotFloat { ty });
    Ok(match s {
        "exact" | "-" => Accept::Exact,
        "any" => Accept::Any,
        "nan" => Accept::Nan(own_format()?),
        _ if s.starts_with("nan:") => Accept::Nan(fmt_named(&s[4..])?),
        _ if s.starts_with("oneof:") => {
            let mut v = Vec::new();
            for w in s[6..].split(',') {
                let h = w
                    .strip_prefix("0x")
                    .ok_or_else(|| TagErrorKind::OneOfNotPrefixed { value: w.to_string() })?;
                v.push(u128::from_str_radix(h, 16).map_err(|_| TagErrorKind::OneOfNotHex { value: w.to_string() })?);
            }
            // The model comes first; the set proper is the rest.
            if v.len() < 2 {
                return Err(TagErrorKind::OneOfTooShort);
            }
            Accept::OneOf(v.split_off(1))
        }
        _ if s.starts_with("lanes:") => {
            let parts: Vec<&str> = s[6..].split('/').collect();
            if parts.len() < 2 || !ty.bits().is_multiple_of(parts.len() as u32) {
                return Err(TagErrorKind::LanesDoNotDivide {
                    lanes: parts.len(),
                    bits: ty.bits(),
                });
            }
            let lane_bits = ty.bits() / parts.len() as u32;
            let lt = lane_type(ty, lane_bits);
            let lanes = parts
                .iter()
                .rev()
                .map(|p| parse_tag_lane(p, lt).map(|accept| Outcome { model: 0, accept }))
                .collect::<Result<Vec<_>, _>>()?;
            Accept::Lanes { lane_bits, lanes }
        }
        _ => {
            let (kind, rest) = s.split_once(':').ok_or(TagErrorKind::Unknown)?;
            let (bound, mods) = rest.split_once('@').ok_or(TagErrorKind::NotBound)?;
            let mut mods = mods.split('+');
            let r = mods.next().unwrap_or("");
            if r.len() != 16 {
                return Err(TagErrorKind::RefDigits {
                    reference: r.to_string(),
                });
            }
            let reference = f64::from_bits(u64::from_str_radix(r, 16).map_err(|_| TagErrorKind::RefNotHex {
                reference: r.to_string(),
            })?);
            let pow2 = |b: &str| -> Result<f64, TagErrorKind> {
                b.strip_prefix("2^")
                    .and_then(|e| e.parse::<f64>().ok())
                    .ok_or_else(|| TagErrorKind::NotPowerOfTwo { bound: b.to_string() })
            };
            let err = match kind {
                "ulp" => ErrBound::Ulp(bound.parse().map_err(|_| TagErrorKind::NotCount {
                    bound: bound.to_string(),
                })?),
                "abs" => ErrBound::Abs { log2: pow2(bound)? },
                "rel" => ErrBound::Rel { log2: pow2(bound)? },
                _ => return Err(TagErrorKind::Unknown),
            };
            let mut b = Bound {
                format: lane_format(ty).unwrap_or(FloatFormat::F32),
                reference,
                err,
                ftz: false,
                zero_bits: 0,
            };
            let mut named = lane_format(ty).is_some();
            for m in mods {
                if m == "ftz" {
                    b.ftz = true;
                } else if let Some(f) = m.strip_prefix("fmt:") {
                    b.format = fmt_named(f)?;
                    named = true;
                } else if let Some(z) = m.strip_prefix("zero:0x") {
                    b.zero_bits = u128::from_str_radix(z, 16).map_err(|_| TagErrorKind::ZeroMaskNotHex {
                        modifier: m.to_string(),
                    })?;
                } else {
                    return Err(TagErrorKind::UnknownModifier {
                        modifier: m.to_string(),
                    });
                }
            }
            if !named {
                return Err(TagErrorKind::NoFormat { ty });
            }
            Accept::Bound(b)
        }
    })
}

/// Fills in the lane models of a parsed `lanes:` set from the destination value, so that the
/// outcome compares equal to the one the spec computed.
fn fill_lane_models(out: &mut Outcome) {
    if let Accept::Lanes { lane_bits, lanes } = &mut out.accept {
        let mask = (1u128 << *lane_bits) - 1;
        for (i, l) in lanes.iter_mut().enumerate() {
            l.model = (out.model >> (i as u32 * *lane_bits)) & mask;
            fill_lane_models(l);
        }
    }
}

/// A parsed vector file: the form, its header lines (`key: value`, in order) and its vectors.
#[derive(Clone, Debug)]
pub struct VectorFile {
    /// The form.
    pub form: FormId,
    /// The `# key: value` header lines, in file order.
    pub header: Vec<(String, String)>,
    /// The vector lines, in file order.
    pub vectors: Vec<Vector>,
}

impl VectorFile {
    /// The value of header field `key`.
    pub fn field(&self, key: &str) -> Option<&str> {
        self.header.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }
}

/// The form a key names (see [`form_key`]).
pub fn form_by_key(key: &str) -> Option<FormId> {
    let cat = catalog();
    let name = key.split('~').next()?;
    cat.by_name(name)
        .iter()
        .copied()
        .filter(|&i| form_key(&cat.forms[i]) == key)
        .min_by_key(|&i| crate::eval::semantics(&cat.forms[i]).is_none())
}

/// Formats a whole file: the magic line, `form:` and `columns:`, the caller's header fields,
/// then one line per vector.
pub fn format_file(form: &Form, header: &[(String, String)], vectors: &[Vector]) -> String {
    let mut s = String::with_capacity(64 * vectors.len() + 512);
    let _ = writeln!(s, "{MAGIC}");
    let _ = writeln!(s, "# form: {}", form_key(form));
    let _ = writeln!(s, "# columns: {}", columns(form));
    for (k, v) in header {
        let _ = writeln!(s, "# {k}: {v}");
    }
    for v in vectors {
        s.push_str(&format_line(form, v));
        s.push('\n');
    }
    s
}

/// What is wrong with a vector file ([`parse_file`]); all but [`FileError::NoForm`] name the
/// line (1-based), and show as `LINE: what`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FileError {
    /// The first line is not [`MAGIC`].
    NotVectorFile,
    /// `# form:` names no form of the catalog.
    UnknownForm {
        /// The line.
        line: usize,
        /// The key written.
        key: String,
    },
    /// A vector line before the `# form:` line.
    VectorBeforeForm {
        /// The line.
        line: usize,
    },
    /// A vector line that does not parse.
    Line {
        /// The line.
        line: usize,
        /// What is wrong with it.
        source: LineError,
    },
    /// No `# form:` line.
    NoForm,
}

impl FileError {
    /// The line the error is on (1-based), if it is on one.
    pub fn line(&self) -> Option<usize> {
        match self {
            FileError::NotVectorFile => Some(1),
            FileError::UnknownForm { line, .. }
            | FileError::VectorBeforeForm { line }
            | FileError::Line { line, .. } => Some(*line),
            FileError::NoForm => None,
        }
    }
}

impl fmt::Display for FileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FileError::NotVectorFile => write!(f, "1: not a vector file (the first line must be `{MAGIC}`)"),
            FileError::UnknownForm { line, key } => write!(f, "{line}: unknown form `{key}`"),
            FileError::VectorBeforeForm { line } => write!(f, "{line}: a vector before the `# form:` line"),
            FileError::Line { line, source } => write!(f, "{line}: {source}"),
            FileError::NoForm => f.write_str("no `# form:` line"),
        }
    }
}

impl std::error::Error for FileError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            FileError::Line { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// Parses a whole file. Errors name the line (`12: operand b: ...`).
pub fn parse_file(text: &str) -> Result<VectorFile, FileError> {
    let mut lines = text.lines().enumerate();
    match lines.next() {
        Some((_, l)) if l.trim_end() == MAGIC => {}
        _ => return Err(FileError::NotVectorFile),
    }
    let mut header = Vec::new();
    let mut form: Option<FormId> = None;
    let mut vectors = Vec::new();
    for (n, line) in lines {
        if let Some(h) = line.strip_prefix('#') {
            let Some((k, v)) = h.split_once(':') else { continue };
            let (k, v) = (k.trim(), v.trim());
            if k == "form" {
                form = Some(form_by_key(v).ok_or_else(|| FileError::UnknownForm {
                    line: n + 1,
                    key: v.to_string(),
                })?);
            } else if k != "columns" {
                header.push((k.to_string(), v.to_string()));
            }
            continue;
        }
        if line.trim().is_empty() {
            continue;
        }
        let f = form.ok_or(FileError::VectorBeforeForm { line: n + 1 })?;
        let mut v = parse_line(&catalog().forms[f], line).map_err(|source| FileError::Line { line: n + 1, source })?;
        v.outs.iter_mut().for_each(fill_lane_models);
        vectors.push(v);
    }
    let form = form.ok_or(FileError::NoForm)?;
    Ok(VectorFile { form, header, vectors })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Args;

    fn form(key: &str) -> &'static Form {
        &catalog().forms[form_by_key(key).unwrap()]
    }

    fn eval(key: &str, dsel: Option<Sel>, ins: Vec<Input>) -> Vector {
        let f = form(key);
        let mut outs = crate::eval::eval(f, &Args { ins: &ins, dsel }).unwrap();
        outs.iter_mut().for_each(fill_lane_models);
        Vector { dsel, ins, outs }
    }

    #[test]
    fn lines_round_trip() {
        let sel = |s| Some(Sel::parse(s).unwrap());
        let cases = [
            (
                "add.rn.f32",
                None,
                vec![Input::bits(0x7f80_0000), Input::bits(0xff80_0000)],
            ),
            (
                "add.f16x2",
                None,
                vec![Input::bits(0x7e00_3c00), Input::bits(0x3c00_3c00)],
            ),
            ("rcp.approx.ftz.f64", None, vec![Input::bits(0x4000_0000_0000_0000)]),
            ("sin.approx.f32", None, vec![Input::bits(0x3f80_0000)]),
            ("rem.s32", None, vec![Input::bits(0xffff_fff9), Input::bits(3)]),
            ("mov.b32~i2", None, vec![Input::bits(1), Input::bits(2)]),
            (
                "vadd.u32.u32.u32",
                sel("b2"),
                vec![
                    Input {
                        sel: sel("b1"),
                        ..Input::bits(0x1234_5678)
                    },
                    Input::bits(0x20),
                    Input::bits(0x3333_3333),
                ],
            ),
        ];
        for (key, dsel, ins) in cases {
            let f = form(key);
            let v = eval(key, dsel, ins);
            let line = format_line(f, &v);
            assert_eq!(
                parse_line(f, &line).map(|mut p| {
                    p.outs.iter_mut().for_each(fill_lane_models);
                    p
                }),
                Ok(v.clone()),
                "{key}: {line}"
            );
        }
        let v = eval(
            "add.rn.f32",
            None,
            vec![Input::bits(0x7f80_0000), Input::bits(0xff80_0000)],
        );
        assert_eq!(format_line(form("add.rn.f32"), &v), "7f800000 ff800000 7fffffff nan");
        let v = eval("rem.s32", None, vec![Input::bits(0xffff_fff9), Input::bits(3)]);
        // -7 rem 3: -1 truncating (the model), 2 flooring.
        assert_eq!(
            format_line(form("rem.s32"), &v),
            "fffffff9 00000003 ffffffff oneof:0xffffffff,0x00000002"
        );
    }

    #[test]
    fn bad_lines_are_located_errors() {
        let f = form("add.rn.f32");
        let err = |line: &str| parse_line(f, line).unwrap_err();
        let e = err("3f800000 3f80000 3f800000 exact");
        assert_eq!(e.to_string(), "operand b: `3f80000` is not 8 hex digits");
        assert!(
            matches!(&e, LineError::Operand { operand, source: HexError::Digits { digits: 8, .. } } if operand == "b")
        );
        let e = err("3f800000 3f800000 3f800000");
        assert_eq!(e.to_string(), "missing the tag of destination d");
        assert_eq!(e, LineError::Missing(Column::Tag("d".into())));
        let e = err("3f800000 3f800000 3f800000 exact x");
        assert_eq!(e.to_string(), "unexpected `x` after the last destination's tag");
        let e = err("3f800000 3f800000 3f800000 ulp:x@1");
        assert_eq!(e.to_string(), "destination d: bad tag `ulp:x@1`: REF is 16 hex digits");
        assert!(matches!(
            &e,
            LineError::Tag {
                source: TagError {
                    kind: TagErrorKind::RefDigits { .. },
                    ..
                },
                ..
            }
        ));
        let e = err("3f800000 3f800000 3f800000 ulp:x@3ff0000000000000");
        assert_eq!(
            e.to_string(),
            "destination d: bad tag `ulp:x@3ff0000000000000`: `x` is not a count"
        );
        let e = err("3f800000 3f800000 13f800000 exact");
        assert_eq!(e.to_string(), "`13f800000` is not 8 hex digits");
        assert!(matches!(&e, LineError::Destination { destination, .. } if destination == "d"));
        let text = format!("{MAGIC}\n# form: add.rn.f32\n3f800000 zz 3f800000 exact\n");
        let e = parse_file(&text).unwrap_err();
        assert_eq!(e.to_string(), "3: operand b: `zz` is not 8 hex digits");
        assert_eq!(e.line(), Some(3));
        assert!(std::error::Error::source(&e).is_some());
        let e = parse_file("nothing").unwrap_err();
        assert_eq!(e, FileError::NotVectorFile);
        assert_eq!(
            e.to_string(),
            format!("1: not a vector file (the first line must be `{MAGIC}`)")
        );
        let e = parse_file(&format!("{MAGIC}\n# form: no.such\n")).unwrap_err();
        assert_eq!(e.to_string(), "2: unknown form `no.such`");
        assert_eq!(parse_file(MAGIC).unwrap_err().to_string(), "no `# form:` line");
        let e = parse_tag("lanes:-/-/-", Type::int(Kind::Bits, 32)).unwrap_err();
        assert_eq!(e.to_string(), "bad tag `lanes:-/-/-`: 3 lanes do not divide 32 bits");
    }

    #[test]
    fn tags_judge_like_the_spec() {
        let f = form("sqrt.approx.f32");
        let v = eval("sqrt.approx.f32", None, vec![Input::bits(0x4000_0000)]);
        let back = parse_line(f, &format_line(f, &v)).unwrap();
        let model = v.outs[0].model;
        for d in [0u128, 1, 2, 3, 100] {
            for x in [model + d, model - d] {
                assert_eq!(back.outs[0].accepts(x), v.outs[0].accepts(x), "{x:#x}");
            }
        }
    }

    #[test]
    fn keys_name_one_evaluated_form_each() {
        let cat = catalog();
        let mut seen = std::collections::HashMap::new();
        for (i, f) in cat.enumerate() {
            if crate::eval::semantics(f).is_some() {
                if let Some(j) = seen.insert(form_key(f), i) {
                    panic!(
                        "{} and {} share the key {}",
                        cat.forms[j].signature(),
                        f.signature(),
                        form_key(f)
                    );
                }
                assert_eq!(form_by_key(&form_key(f)), Some(i), "{}", f.signature());
            }
        }
    }
}
