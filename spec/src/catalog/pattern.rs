//! The compact form descriptions the catalog is written in, and their expansion into forms.
//!
//! A pattern reads like the manual's syntax line: dot-separated parts, each one of
//!
//! | part | meaning |
//! |---|---|
//! | `word` | a literal modifier (`sat`, `cc`, `shared::cta`) |
//! | `{a\|b\|}` | exactly one alternative; an empty alternative makes the part optional; an alternative may span several modifiers (`{u32.s32\|s32.u32}`) |
//! | `<name:a\|b>` | the same, and the choice is recorded under `name` (`<t:u32\|s32>`) so the operand list and the semantics can refer to it |
//! | `[a\|b]` | an optional performance hint (cache operator, eviction priority): accepted where the pattern allows it but not part of the form's identity, so hints do not multiply the forms |
//!
//! Every combination of alternatives is one form; its name is the opcode and chosen modifiers
//! joined by dots, exactly as PTX source writes it (`add.sat.s32`).

/// One part of a pattern.
#[derive(Clone, Debug)]
pub enum Part {
    /// `word`: a literal modifier, or the opcode as the first part.
    Lit(&'static str),
    /// `{a|b|}` or `<name:a|b>`: exactly one alternative is written.
    Alt {
        /// The name the choice is recorded under (`t` of `<t:u32|s32>`); `None` for `{...}`.
        name: Option<&'static str>,
        /// The alternatives as written, each one or more dot-joined modifiers; `""` makes the
        /// part optional.
        alts: Vec<&'static str>,
    },
    /// `[a|b]`: an optional performance hint, not part of the form's identity.
    Hint(Vec<&'static str>),
}

/// Splits `s` at top-level dots (dots inside `{}`, `<>` or `[]` belong to alternatives).
fn split_top(s: &'static str) -> Result<Vec<&'static str>, String> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0usize);
    for (i, c) in s.char_indices() {
        match c {
            '{' | '<' | '[' => depth += 1,
            '}' | '>' | ']' => depth -= 1,
            '.' if depth == 0 => {
                out.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
        if depth < 0 {
            return Err(format!("unbalanced bracket in `{s}`"));
        }
    }
    if depth != 0 {
        return Err(format!("unbalanced bracket in `{s}`"));
    }
    out.push(&s[start..]);
    Ok(out)
}

/// Parses a pattern into parts. The first part must be a literal (the opcode).
pub fn parse(pattern: &'static str) -> Result<Vec<Part>, String> {
    let mut parts = Vec::new();
    for p in split_top(pattern)? {
        let part = if parts.is_empty() && p == "{}" {
            // §9.7.12.1: the instruction-grouping braces `{ ... }` are their own opcode.
            Part::Lit(p)
        } else if let Some(inner) = p.strip_prefix('{').and_then(|r| r.strip_suffix('}')) {
            Part::Alt {
                name: None,
                alts: inner.split('|').collect(),
            }
        } else if let Some(inner) = p.strip_prefix('<').and_then(|r| r.strip_suffix('>')) {
            let (name, alts) = inner.split_once(':').ok_or_else(|| format!("`{p}` lacks `name:`"))?;
            Part::Alt {
                name: Some(name),
                alts: alts.split('|').collect(),
            }
        } else if let Some(inner) = p.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
            Part::Hint(inner.split('|').filter(|a| !a.is_empty()).collect())
        } else if p.is_empty() || p.contains(['{', '}', '<', '>', '[', ']', '|', ' ']) {
            return Err(format!("bad pattern part `{p}` in `{pattern}`"));
        } else {
            Part::Lit(p)
        };
        parts.push(part);
    }
    if opcodes(&parts).is_empty() {
        return Err(format!(
            "pattern `{pattern}` must start with its opcode (or `<op:a|b>`, opcodes sharing a row)"
        ));
    }
    Ok(parts)
}

/// The opcodes a pattern's first part names: its literal, or the alternatives of a leading
/// `<op:vadd|vsub>` / `{vadd|vsub}` (each a single, non-empty modifier-free word). Empty if the
/// first part is anything else.
pub fn opcodes(parts: &[Part]) -> Vec<&'static str> {
    match parts.first() {
        Some(Part::Lit(l)) => vec![*l],
        Some(Part::Alt { alts, .. }) if alts.iter().all(|a| !a.is_empty() && !a.contains('.')) => alts.clone(),
        _ => Vec::new(),
    }
}

/// One expansion of a pattern: the chosen modifier tokens and the named choices.
#[derive(Clone, Debug, Default)]
pub struct Choice {
    /// The opcode and the chosen modifiers, in order (`["add", "sat", "s32"]`).
    pub tokens: Vec<&'static str>,
    /// The choices of named parts (`[("t", "s32")]`).
    pub vars: Vec<(&'static str, &'static str)>,
}

/// Every form of a pattern (hints excluded), in the order the alternatives are written.
pub fn expand(parts: &[Part]) -> Vec<Choice> {
    let mut acc = vec![Choice::default()];
    for part in parts {
        match part {
            Part::Lit(l) => acc.iter_mut().for_each(|c| c.tokens.push(l)),
            Part::Hint(_) => {}
            Part::Alt { name, alts } => {
                let mut next = Vec::with_capacity(acc.len() * alts.len());
                for c in &acc {
                    for alt in alts {
                        let mut c = c.clone();
                        c.tokens.extend(alt.split('.').filter(|t| !t.is_empty()));
                        if let Some(n) = name {
                            c.vars.push((n, alt));
                        }
                        next.push(c);
                    }
                }
                acc = next;
            }
        }
    }
    acc
}

/// Result of matching written modifier tokens against a pattern.
pub struct Matched {
    /// The form the tokens denote.
    pub choice: Choice,
    /// Hint tokens that were written (`ca`, `L1::evict_last`); they do not change the form.
    pub hints: Vec<String>,
}

/// Matches `toks` (the instruction as written, split at dots) against `parts`.
/// On failure returns how many tokens matched before the first mismatch and what would have fit there.
pub fn matches(parts: &[Part], toks: &[&str]) -> Result<Matched, (usize, Vec<String>)> {
    let mut best = (0usize, Vec::new());
    let mut m = Matched {
        choice: Choice::default(),
        hints: Vec::new(),
    };
    if go(parts, toks, 0, &mut m, &mut best) {
        Ok(m)
    } else {
        Err(best)
    }
}

fn note(best: &mut (usize, Vec<String>), at: usize, want: impl IntoIterator<Item = String>) {
    if at > best.0 {
        *best = (at, Vec::new());
    }
    if at == best.0 {
        for w in want {
            if !best.1.contains(&w) {
                best.1.push(w);
            }
        }
    }
}

fn go(parts: &[Part], toks: &[&str], at: usize, m: &mut Matched, best: &mut (usize, Vec<String>)) -> bool {
    let Some((part, rest)) = parts.split_first() else {
        if at == toks.len() {
            return true;
        }
        note(best, at, ["end of instruction".to_string()]);
        return false;
    };
    let fits = |alt: &str| -> Option<usize> {
        let n = alt.split('.').filter(|t| !t.is_empty()).count();
        let ok = alt
            .split('.')
            .filter(|t| !t.is_empty())
            .zip(toks.get(at..at + n)?)
            .all(|(a, t)| a == *t);
        ok.then_some(n)
    };
    match part {
        Part::Lit(l) => {
            if toks.get(at) == Some(l) {
                m.choice.tokens.push(l);
                if go(rest, toks, at + 1, m, best) {
                    return true;
                }
                m.choice.tokens.pop();
            } else {
                note(best, at, [format!(".{l}")]);
            }
            false
        }
        Part::Alt { name, alts } => {
            // Longest alternatives first so `{u32.s32|u32}`-style overlaps resolve greedily.
            let mut order: Vec<&&'static str> = alts.iter().collect();
            order.sort_by_key(|a| std::cmp::Reverse(a.len()));
            for alt in order {
                let Some(n) = fits(alt) else { continue };
                let (tl, vl) = (m.choice.tokens.len(), m.choice.vars.len());
                m.choice.tokens.extend(alt.split('.').filter(|t| !t.is_empty()));
                if let Some(nm) = name {
                    m.choice.vars.push((nm, alt));
                }
                if go(rest, toks, at + n, m, best) {
                    return true;
                }
                m.choice.tokens.truncate(tl);
                m.choice.vars.truncate(vl);
            }
            note(best, at, alts.iter().filter(|a| !a.is_empty()).map(|a| format!(".{a}")));
            false
        }
        Part::Hint(alts) => {
            for alt in alts {
                let Some(n) = fits(alt) else { continue };
                m.hints.push(alt.to_string());
                if go(rest, toks, at + n, m, best) {
                    return true;
                }
                m.hints.pop();
            }
            go(rest, toks, at, m, best)
        }
    }
}

/// How ptxas lets modifiers move (catalog `@fixed`, `@free`, `@space` lines; see
/// [`matches_unordered`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct Order<'a> {
    /// Modifiers of this opcode that must be written right after it.
    pub fixed: &'a [&'a str],
    /// Qualifiers that may stand anywhere (rounding, `.ftz`, scopes, cache operators, ...).
    pub free: &'a [&'a str],
    /// State spaces: anywhere, but in their order among themselves (`cp.async.shared.global`).
    pub spaces: &'a [&'a str],
}

impl Order<'_> {
    fn is_free(&self, t: &str) -> bool {
        self.free.iter().any(|f| glob(f, t)) || t.starts_with("L1::") || t.starts_with("L2::")
    }
    fn is_space(&self, t: &str) -> bool {
        self.spaces.contains(&t)
    }
}

/// `*` in `pat` matches any run of characters (`m*n*k*` matches `m16n8k16`, not `m8n8`).
fn glob(pat: &str, t: &str) -> bool {
    match pat.split_once('*') {
        None => pat == t,
        Some((head, rest)) => {
            let Some(t) = t.strip_prefix(head) else { return false };
            (0..=t.len())
                .filter(|&i| t.is_char_boundary(i))
                .any(|i| glob(rest, &t[i..]))
        }
    }
}

/// Matches `toks` whose modifiers may be written in another order than the pattern's, as ptxas
/// 12.9 reads them (`div.ftz.rn.f32` for `div.rn.ftz.f32`, `atom.global.gpu.acq_rel.add.u32`,
/// `min.s16x2.relu`, `cvt.f32.s32.rn`). Every modifier must be used exactly once, and:
/// - types (`s32`, `f16x2`: whatever [`crate::types::Type::parse`] reads) keep their written
///   order, since it means something (`cvt.f32.s32` is not `cvt.s32.f32`); so do state spaces
///   (`cp.async.global.shared`: "State space incorrect");
/// - the pattern's leading modifiers that are `@fixed` for the opcode or not free qualifiers
///   stay in front, together and in order: ptxas reads `mul.lo`, `div.full`, `mbarrier.init`,
///   `mbarrier.test_wait.parity`, `cp.async.bulk.prefetch`, `wmma.load.a`, `fence.proxy` as one
///   word (`mul.s32.lo`, `mbarrier.shared.init`, `wmma.load.aligned.c`: errors);
/// - the other modifiers that are not free keep their order (`cp.commit_group.async`: error).
///
/// Returns the match in the pattern's order, or `None`.
pub fn matches_unordered(parts: &[Part], toks: &[&str], order: Order) -> Option<Matched> {
    let mut m = Matched {
        choice: Choice::default(),
        hints: Vec::new(),
    };
    let mut used = vec![false; toks.len()];
    let is_type = |t: &str| crate::types::Type::parse(t).is_some();
    let class = |t: &str| {
        if is_type(t) {
            0
        } else if order.is_space(t) {
            1
        } else if order.is_free(t) {
            3
        } else {
            2
        }
    };
    let seq = |v: &[&str], c: u8| -> Vec<String> {
        v.iter()
            .skip(1)
            .filter(|t| class(t) == c)
            .map(|t| t.to_string())
            .collect()
    };
    let mut ok = false;
    go_unordered(parts, toks, &mut used, &mut m, &mut |m| {
        let canon: Vec<&str> = m.choice.tokens.clone();
        // The pattern's leading words that are neither free, types nor spaces are read as part
        // of the name and stay in front, together and in order (`mbarrier.test_wait.parity`,
        // `wmma.load.a`, `cp.async.bulk.prefetch`, `barrier.cluster.wait`).
        let pinned = |f: &str| order.fixed.contains(&f) || class(f) == 2;
        let lead = canon.iter().skip(1).take_while(|f| pinned(f)).count();
        let first_stays = toks.len() > lead && canon[1..=lead] == toks[1..=lead];
        // A fixed word written anywhere but first is an error even if the pattern would place it.
        let stray_fixed = toks
            .iter()
            .skip(2)
            .any(|t| order.fixed.contains(t) && canon.contains(t));
        ok = first_stays && !stray_fixed && (0..3).all(|c| seq(&canon, c) == seq(toks, c));
        ok
    });
    ok.then_some(m)
}

/// Tokens of `toks` not yet used that spell `alt` (its dot-separated words, each found once).
fn take(alt: &str, toks: &[&str], used: &mut [bool]) -> Option<Vec<usize>> {
    let mut got = Vec::new();
    for w in alt.split('.').filter(|t| !t.is_empty()) {
        let i = (0..toks.len()).find(|&i| !used[i] && toks[i] == w && !got.contains(&i))?;
        got.push(i);
    }
    for &i in &got {
        used[i] = true;
    }
    Some(got)
}

fn go_unordered(
    parts: &[Part],
    toks: &[&str],
    used: &mut [bool],
    m: &mut Matched,
    accept: &mut dyn FnMut(&Matched) -> bool,
) -> bool {
    let Some((part, rest)) = parts.split_first() else {
        return used.iter().all(|&u| u) && accept(m);
    };
    let release = |used: &mut [bool], got: &[usize]| got.iter().for_each(|&i| used[i] = false);
    match part {
        Part::Lit(l) => {
            let Some(got) = take(l, toks, used) else { return false };
            m.choice.tokens.push(l);
            if go_unordered(rest, toks, used, m, accept) {
                return true;
            }
            m.choice.tokens.pop();
            release(used, &got);
            false
        }
        Part::Alt { name, alts } => {
            let mut order: Vec<&&'static str> = alts.iter().collect();
            order.sort_by_key(|a| std::cmp::Reverse(a.len()));
            for alt in order {
                let Some(got) = take(alt, toks, used) else { continue };
                let (tl, vl) = (m.choice.tokens.len(), m.choice.vars.len());
                m.choice.tokens.extend(alt.split('.').filter(|t| !t.is_empty()));
                if let Some(nm) = name {
                    m.choice.vars.push((nm, alt));
                }
                if go_unordered(rest, toks, used, m, accept) {
                    return true;
                }
                m.choice.tokens.truncate(tl);
                m.choice.vars.truncate(vl);
                release(used, &got);
            }
            false
        }
        Part::Hint(alts) => {
            for alt in alts {
                let Some(got) = take(alt, toks, used) else { continue };
                m.hints.push(alt.to_string());
                if go_unordered(rest, toks, used, m, accept) {
                    return true;
                }
                m.hints.pop();
                release(used, &got);
            }
            go_unordered(rest, toks, used, m, accept)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(p: &'static str) -> Vec<String> {
        expand(&parse(p).unwrap())
            .into_iter()
            .map(|c| c.tokens.join("."))
            .collect()
    }

    #[test]
    fn expands_alternatives_options_and_names() {
        assert_eq!(names("add.{sat|}.s32"), ["add.sat.s32", "add.s32"]);
        assert_eq!(
            names("mul.<m:hi|lo>.<t:u16|s16>"),
            ["mul.hi.u16", "mul.hi.s16", "mul.lo.u16", "mul.lo.s16"]
        );
        assert_eq!(names("dp4a.{u32.s32|s32.u32}"), ["dp4a.u32.s32", "dp4a.s32.u32"]);
        assert_eq!(
            names("ld.[ca|cg].global.<t:b32|b64>"),
            ["ld.global.b32", "ld.global.b64"]
        );
        let c = &expand(&parse("mul.<m:hi|lo>.<t:u16|s16>").unwrap())[1];
        assert_eq!(c.vars, [("m", "hi"), ("t", "s16")]);
    }

    #[test]
    fn matches_with_hints_and_reports_furthest_failure() {
        let p = parse("ld.[ca|cg].global.<t:b32|b64>").unwrap();
        let m = matches(&p, &["ld", "cg", "global", "b64"]).ok().unwrap();
        assert_eq!(m.choice.tokens, ["ld", "global", "b64"]);
        assert_eq!(m.hints, ["cg"]);
        let p = parse("add.{sat|}.s32").unwrap();
        let (at, want) = matches(&p, &["add", "sat", "u32"]).err().unwrap();
        assert_eq!(at, 2);
        assert_eq!(want, [".s32"]);
    }

    #[test]
    fn rejects_malformed_patterns() {
        assert!(parse("{a|}.x").is_err());
        assert!(parse("[a|b].x").is_err());
        assert_eq!(opcodes(&parse("<op:vadd|vsub>.u32").unwrap()), ["vadd", "vsub"]);
        assert!(parse("add.{sat").is_err());
        assert!(parse("add..s32").is_err());
        assert!(parse("add.<sat>").is_err());
    }
}
