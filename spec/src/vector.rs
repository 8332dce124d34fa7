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

use crate::catalog::{catalog, Form, Operand};
use crate::types::{FloatFormat, Kind, Type};
use crate::value::{Accept, Bound, ErrBound, Input, Outcome, Sel};
use std::fmt::Write as _;

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

/// The `# columns:` header value: `a:f32 b:f32 -> d:f32`.
pub fn columns(form: &Form) -> String {
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

/// Parses one vector line of `form` (the inverse of [`format_line`]).
pub fn parse_line(form: &Form, line: &str) -> Result<Vector, String> {
    let mut words = line.split_ascii_whitespace();
    let mut next = |what: &str| words.next().ok_or_else(|| format!("missing {what}"));
    let dsel = if has_dsel(form) {
        let w = next("the destination selector column (`d` or `d.SEL`)")?;
        match w.strip_prefix("d") {
            Some("") => None,
            Some(s) => Some(
                s.strip_prefix('.')
                    .and_then(Sel::parse)
                    .ok_or_else(|| format!("bad destination selector `{w}`"))?,
            ),
            None => return Err(format!("expected `d` or `d.SEL`, found `{w}`")),
        }
    } else {
        None
    };
    let mut ins = Vec::with_capacity(form.inputs.len());
    let mut absent = false;
    for o in &form.inputs {
        let w = next(&format!("operand {}", o.name))?;
        if w == "_" {
            if !o.optional {
                return Err(format!("operand {} is not optional (`_`)", o.name));
            }
            absent = true;
        } else if absent {
            return Err(format!("operand {} follows an absent optional operand", o.name));
        } else {
            ins.push(parse_input(o, w)?);
        }
    }
    let mut outs = Vec::with_capacity(form.outputs.len());
    for o in &form.outputs {
        let model = parse_hex(o.ty, next(&format!("destination {}", o.name))?)?;
        let t = next(&format!("the tag of destination {}", o.name))?;
        let accept = parse_tag(t, o.ty).map_err(|e| format!("destination {}: {e}", o.name))?;
        outs.push(Outcome { model, accept });
    }
    if let Some(w) = words.next() {
        return Err(format!("unexpected `{w}` after the last destination's tag"));
    }
    Ok(Vector { dsel, ins, outs })
}

fn parse_input(o: &Operand, w: &str) -> Result<Input, String> {
    let mut s = w;
    let mut inp = Input::default();
    let neg = if o.ty.kind == Kind::Pred { '!' } else { '-' };
    if let Some(r) = s.strip_prefix(neg) {
        if !(o.flags.not || o.flags.neg) {
            return Err(format!("operand {} cannot be negated (`{w}`)", o.name));
        }
        inp.negated = true;
        s = r;
    }
    if let Some((v, sel)) = s.split_once('.') {
        if !o.flags.sel {
            return Err(format!("operand {} takes no selector (`{w}`)", o.name));
        }
        inp.sel = Some(Sel::parse(sel).ok_or_else(|| format!("bad selector `{w}`"))?);
        s = v;
    }
    inp.bits = parse_hex(o.ty, s).map_err(|e| format!("operand {}: {e}", o.name))?;
    Ok(inp)
}

fn parse_hex(ty: Type, s: &str) -> Result<u128, String> {
    if s.len() != digits(ty) {
        return Err(format!("`{s}` is not {} hex digits", digits(ty)));
    }
    let v = u128::from_str_radix(s, 16).map_err(|_| format!("`{s}` is not hex"))?;
    if v & !ty.mask() != 0 {
        return Err(format!("`{s}` does not fit in {} bits", ty.bits()));
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

/// Parses a tag of a destination of type `ty` back into its acceptance set. A `lanes:` tag's
/// lane models are taken from the destination value, so the caller fills them in with
/// [`Outcome`]'s `model` (see [`parse_line`]); [`Outcome::accepts`] uses only the lanes' sets
/// and models.
pub fn parse_tag(s: &str, ty: Type) -> Result<Accept, String> {
    parse_tag_lane(s, ty).map_err(|e| format!("bad tag `{s}`: {e}"))
}

fn parse_tag_lane(s: &str, ty: Type) -> Result<Accept, String> {
    let fmt_named = |n: &str| {
        FloatFormat::NAMES
            .iter()
            .find(|(name, _)| *name == n)
            .map(|(_, f)| *f)
            .ok_or_else(|| format!("unknown format `{n}`"))
    };
    let own_format = || lane_format(ty).ok_or_else(|| format!("`{ty}` is not a float type"));
    Ok(match s {
        "exact" | "-" => Accept::Exact,
        "any" => Accept::Any,
        "nan" => Accept::Nan(own_format()?),
        _ if s.starts_with("nan:") => Accept::Nan(fmt_named(&s[4..])?),
        _ if s.starts_with("oneof:") => {
            let mut v = Vec::new();
            for w in s[6..].split(',') {
                let h = w.strip_prefix("0x").ok_or("values are written 0x..")?;
                v.push(u128::from_str_radix(h, 16).map_err(|_| format!("`{w}` is not hex"))?);
            }
            // The model comes first; the set proper is the rest.
            if v.len() < 2 {
                return Err("oneof lists the model and at least one more value".into());
            }
            Accept::OneOf(v.split_off(1))
        }
        _ if s.starts_with("lanes:") => {
            let parts: Vec<&str> = s[6..].split('/').collect();
            if parts.len() < 2 || !ty.bits().is_multiple_of(parts.len() as u32) {
                return Err(format!("{} lanes do not divide {} bits", parts.len(), ty.bits()));
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
            let (kind, rest) = s.split_once(':').ok_or("unknown tag")?;
            let (bound, mods) = rest.split_once('@').ok_or("a bound is written KIND:N@REF")?;
            let mut mods = mods.split('+');
            let r = mods.next().unwrap_or("");
            if r.len() != 16 {
                return Err("REF is 16 hex digits".into());
            }
            let reference = f64::from_bits(u64::from_str_radix(r, 16).map_err(|_| "REF is not hex")?);
            let pow2 = |b: &str| -> Result<f64, String> {
                b.strip_prefix("2^")
                    .and_then(|e| e.parse::<f64>().ok())
                    .ok_or_else(|| format!("`{b}` is not 2^E"))
            };
            let err = match kind {
                "ulp" => ErrBound::Ulp(bound.parse().map_err(|_| format!("`{bound}` is not a count"))?),
                "abs" => ErrBound::Abs { log2: pow2(bound)? },
                "rel" => ErrBound::Rel { log2: pow2(bound)? },
                _ => return Err("unknown tag".into()),
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
                    b.zero_bits = u128::from_str_radix(z, 16).map_err(|_| format!("`{m}` is not hex"))?;
                } else {
                    return Err(format!("unknown bound modifier `+{m}`"));
                }
            }
            if !named {
                return Err(format!("`{ty}` is not a float type; write +fmt:FORMAT"));
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
    /// Index of the form in the catalog.
    pub form: usize,
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
pub fn form_by_key(key: &str) -> Option<usize> {
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

/// Parses a whole file. Errors name the line (`12: operand b: ...`).
pub fn parse_file(text: &str) -> Result<VectorFile, String> {
    let mut lines = text.lines().enumerate();
    match lines.next() {
        Some((_, l)) if l.trim_end() == MAGIC => {}
        _ => return Err(format!("1: not a vector file (the first line must be `{MAGIC}`)")),
    }
    let mut header = Vec::new();
    let mut form: Option<usize> = None;
    let mut vectors = Vec::new();
    for (n, line) in lines {
        let at = |e: String| format!("{}: {e}", n + 1);
        if let Some(h) = line.strip_prefix('#') {
            let Some((k, v)) = h.split_once(':') else { continue };
            let (k, v) = (k.trim(), v.trim());
            if k == "form" {
                form = Some(form_by_key(v).ok_or_else(|| at(format!("unknown form `{v}`")))?);
            } else if k != "columns" {
                header.push((k.to_string(), v.to_string()));
            }
            continue;
        }
        if line.trim().is_empty() {
            continue;
        }
        let f = form.ok_or_else(|| at("a vector before the `# form:` line".into()))?;
        let mut v = parse_line(&catalog().forms[f], line).map_err(at)?;
        v.outs.iter_mut().for_each(fill_lane_models);
        vectors.push(v);
    }
    let form = form.ok_or("no `# form:` line")?;
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
        assert!(parse_line(f, "3f800000 3f80000 3f800000 exact")
            .unwrap_err()
            .contains("8 hex digits"));
        assert!(parse_line(f, "3f800000 3f800000 3f800000").unwrap_err().contains("tag"));
        assert!(parse_line(f, "3f800000 3f800000 3f800000 exact x")
            .unwrap_err()
            .contains("unexpected"));
        assert!(parse_line(f, "3f800000 3f800000 3f800000 ulp:x@1")
            .unwrap_err()
            .contains("bad tag"));
        let text = format!("{MAGIC}\n# form: add.rn.f32\n3f800000 zz 3f800000 exact\n");
        assert!(parse_file(&text).unwrap_err().starts_with("3: operand b"));
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
        for (i, f) in cat.forms.iter().enumerate() {
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
