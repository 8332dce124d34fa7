//! The variant generator of `ptxas_agreement.rs`: small complete PTX modules, each one `.entry`
//! kernel holding one to three catalog instructions, drawn deterministically from a seed.
//!
//! A variant is a *base* — the instructions written plainly (bit-size registers declared as
//! `%r<N>` ranges, `.version 8.7`, the first instruction's own minimum target, 64-bit addresses) —
//! and up to two *twists*, each changing one dimension: the header (`.version`, `.target`,
//! `.address_size 32`), the declaration style, the order of the modifiers, a performance hint,
//! one operand's notation (immediates, addresses, variables, `!p`, `_`, `{ %r }`, vector
//! registers), or a mutation that usually makes the instruction invalid (a register of the wrong
//! width or kind, a missing or extra operand, a stray modifier). Every twist and every instruction
//! is a *component* with a key (`form:add.s32`, `modorder:div.ftz.rn.f32`, `version:6.0<form`), so
//! that a disagreement can be reduced to the components that cause it.

use spec::catalog::pattern::Part;
use spec::catalog::{catalog, write, Form, FormId, FormIds, PtxVersion};
use spec::types::{Kind, Type};
use std::fmt::Write as _;

/// splitmix64: tiny, seedable, and the same on every platform.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    /// True with probability `pct`%.
    pub fn chance(&mut self, pct: u64) -> bool {
        self.next() % 100 < pct
    }
    pub fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len())]
    }
    /// An index drawn with the given weights (not all zero).
    pub fn weighted(&mut self, w: &[u32]) -> usize {
        let total: u64 = w.iter().map(|&x| x as u64).sum();
        let mut r = self.next() % total;
        for (i, &x) in w.iter().enumerate() {
            if r < x as u64 {
                return i;
            }
            r -= x as u64;
        }
        w.len() - 1
    }
}

/// Targets ptxas 12.9 knows (`ptxas --help`), with the least `.version` it takes for each
/// (measured: a bare kernel under every version 6.0–8.8).
pub const TARGETS: &[(&str, PtxVersion)] = &[
    ("50", PtxVersion(6, 0)),
    ("52", PtxVersion(6, 0)),
    ("53", PtxVersion(6, 0)),
    ("60", PtxVersion(6, 0)),
    ("61", PtxVersion(6, 0)),
    ("62", PtxVersion(6, 0)),
    ("70", PtxVersion(6, 0)),
    ("72", PtxVersion(6, 1)),
    ("75", PtxVersion(6, 3)),
    ("80", PtxVersion(7, 0)),
    ("86", PtxVersion(7, 1)),
    ("87", PtxVersion(7, 4)),
    ("89", PtxVersion(7, 8)),
    ("90", PtxVersion(7, 8)),
    ("90a", PtxVersion(8, 0)),
    ("100", PtxVersion(8, 6)),
    ("100a", PtxVersion(8, 6)),
    ("100f", PtxVersion(8, 8)),
    ("101", PtxVersion(8, 6)),
    ("101a", PtxVersion(8, 6)),
    ("101f", PtxVersion(8, 8)),
    ("103", PtxVersion(8, 8)),
    ("103a", PtxVersion(8, 8)),
    ("103f", PtxVersion(8, 8)),
    ("120", PtxVersion(8, 7)),
    ("120a", PtxVersion(8, 7)),
    ("120f", PtxVersion(8, 8)),
    ("121", PtxVersion(8, 8)),
    ("121a", PtxVersion(8, 8)),
    ("121f", PtxVersion(8, 8)),
];

/// PTX versions a `.version` twist draws from (ptxas 12.9 knows up to 8.8).
pub const VERSIONS: &[PtxVersion] = &[
    PtxVersion(6, 0),
    PtxVersion(6, 1),
    PtxVersion(6, 2),
    PtxVersion(6, 3),
    PtxVersion(6, 4),
    PtxVersion(6, 5),
    PtxVersion(7, 0),
    PtxVersion(7, 1),
    PtxVersion(7, 2),
    PtxVersion(7, 3),
    PtxVersion(7, 4),
    PtxVersion(7, 5),
    PtxVersion(7, 6),
    PtxVersion(7, 7),
    PtxVersion(7, 8),
    PtxVersion(8, 0),
    PtxVersion(8, 1),
    PtxVersion(8, 2),
    PtxVersion(8, 3),
    PtxVersion(8, 4),
    PtxVersion(8, 5),
    PtxVersion(8, 6),
    PtxVersion(8, 7),
    PtxVersion(8, 8),
];

fn target_min_ptx(t: &str) -> PtxVersion {
    TARGETS
        .iter()
        .find(|(n, _)| *n == t)
        .map_or(PtxVersion(8, 8), |(_, v)| *v)
}

fn target_sm(t: &str) -> u32 {
    t.trim_end_matches(['a', 'f']).parse().unwrap_or(0)
}

/// How often each §9.7 family is drawn (sections within a family, rows within a section and
/// forms within a row are uniform). Textures and surfaces need `.texref`/`.surfref` handles the
/// writer does not declare; tensor-core families get little weight, since their vector operands'
/// lengths depend on the shape, which the catalog does not record.
const FAMILY_WEIGHTS: &[(&str, u32)] = &[
    ("9.7.1", 10),
    ("9.7.2", 3),
    ("9.7.3", 10),
    ("9.7.4", 5),
    ("9.7.5", 2),
    ("9.7.6", 5),
    ("9.7.7", 3),
    ("9.7.8", 5),
    ("9.7.9", 22),
    ("9.7.12", 5),
    ("9.7.13", 15),
    ("9.7.14", 2),
    ("9.7.15", 1),
    ("9.7.16", 1),
    ("9.7.17", 1),
    ("9.7.18", 3),
    ("9.7.19", 2),
];

/// Sections left out: operands the writer cannot form (texture handles, tensor maps).
fn section_excluded(id: &str) -> bool {
    id.starts_with("9.7.10.") || id.starts_with("9.7.11.") || id.starts_with("9.7.9.25.5.")
}

/// The sampling menu: per family weight, its sections, each a list of rows, each a list of forms.
struct Menu {
    weights: Vec<u32>,
    families: Vec<Vec<Vec<FormIds>>>,
}

fn menu() -> &'static Menu {
    static M: std::sync::OnceLock<Menu> = std::sync::OnceLock::new();
    M.get_or_init(|| {
        let cat = catalog();
        let mut weights = Vec::new();
        let mut families = Vec::new();
        for (fam, w) in FAMILY_WEIGHTS {
            let mut sections: Vec<(usize, Vec<FormIds>)> = Vec::new();
            for row in &cat.rows {
                let sec = &cat.sections[row.section];
                if cat.families[sec.family].id != *fam || section_excluded(sec.id) || row.forms.is_empty() {
                    continue;
                }
                match sections.iter_mut().find(|(s, _)| *s == row.section) {
                    Some((_, rows)) => rows.push(row.forms.clone()),
                    None => sections.push((row.section, vec![row.forms.clone()])),
                }
            }
            if !sections.is_empty() {
                weights.push(*w);
                families.push(sections.into_iter().map(|(_, r)| r).collect());
            }
        }
        Menu { weights, families }
    })
}

fn draw_form(r: &mut Rng) -> FormId {
    let m = menu();
    let fam = &m.families[r.weighted(&m.weights)];
    let sec = &fam[r.below(fam.len())];
    let row = &sec[r.below(sec.len())];
    row.clone().nth(r.below(row.len())).expect("a form of the row")
}

/// A form's minimum target as ptxas spells it, at least sm_50 (the oldest ptxas 12.9 knows).
fn base_target(f: &Form) -> String {
    let sm = f.target.sm.max(50);
    let sm = match sm {
        // Targets ptxas does not know: the next one it does.
        51 => 52,
        54..=59 => 60,
        63..=69 => 70,
        71 => 72,
        73 | 74 => 75,
        76..=79 => 80,
        81..=85 => 86,
        88 => 89,
        91..=99 => 100,
        102 => 103,
        104..=119 => 120,
        s => s,
    };
    match f.target.suffix {
        Some(c) => format!("{sm}{c}"),
        None => sm.to_string(),
    }
}

// ---- variants ----------------------------------------------------------------------------

/// How the registers are declared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeclStyle {
    /// `.reg .b32 %r<3>;` (the base).
    Range,
    /// `.reg .b32 %r0, %r1, %r2;`
    List,
    /// `.reg .b32 %r0;` one per line.
    Single,
    /// Names without `%`: `.reg .b32 r<3>;`
    NoPrefix,
    /// Each register declared with its operand's own type where that is a register type
    /// (`.reg .f32 %r0, %r2;`, `.reg .pred %p0, %p1;`), several names per declaration.
    Typed,
    /// The declarations after the instructions that use them.
    Late,
}

impl DeclStyle {
    fn name(self) -> &'static str {
        match self {
            DeclStyle::Range => "range",
            DeclStyle::List => "list",
            DeclStyle::Single => "single",
            DeclStyle::NoPrefix => "noprefix",
            DeclStyle::Typed => "typed",
            DeclStyle::Late => "late",
        }
    }
}

/// One change to the base.
#[derive(Clone, Debug)]
pub enum Twist {
    Version(PtxVersion),
    /// Another target (and the version raised to what the target needs, if it must be).
    Target(String),
    Addr32,
    Decl(DeclStyle),
    /// The modifiers of instruction 0 in another order (the permuted token list).
    ModOrder(Vec<String>),
    /// A hint token inserted at a position of instruction 0's name.
    Hint(usize, &'static str),
    /// A modifier inserted (`at`, `text`), or one removed (`text` empty).
    BadMod(usize, String),
    /// Operand `k` (outputs then inputs) of instruction 0 written as `text` (`kind` names how).
    Operand {
        k: usize,
        kind: &'static str,
        text: OperandText,
    },
    /// The operand list edited: drop the last operand, or add one.
    DropOperand,
    ExtraOperand,
    /// `@%p` / `@!%p` before instruction 0.
    Guard(bool),
    /// A function and a call to it after the instructions: `regparams` (`.reg` parameters,
    /// `call (%r1), f, (%r2);`) or `paramcall` (`.param` parameters and a call sequence).
    Func(&'static str),
}

/// What an operand twist writes.
#[derive(Clone, Debug)]
pub enum OperandText {
    /// Literal text.
    Text(String),
    /// A fresh register of another class (`.b64` for a `.b32` operand...).
    Class(usize),
    /// A fresh register declared with this type (`.f32` where `.s32` is expected).
    Typed(&'static str),
    /// `!` before the predicate register.
    Not,
    /// `-` before the register.
    Neg,
    /// The register in braces, `{ %r1 }`.
    Brace,
    /// A vector register `.v2`/`.v4` for a vector operand written `{a, b}`.
    VecWhole,
    /// An element (`%v0.y`) of a `.v4` vector register of the operand's class.
    VecElem(usize),
    /// The register of an address operand with an offset: `[%rd1+8]`.
    AddrOffset(String),
    /// A variable of the instruction's state space, or of another (`[sbuf+4]`).
    AddrVar(&'static str, String),
    /// An undeclared register.
    Undeclared,
    /// An optional predicate destination left out (`setp.lt.s32 p, a, b` for `p|q`).
    Omit,
}

impl Twist {
    pub fn key(&self, v: &Variant) -> String {
        let f0 = &catalog().forms[v.insts[0]];
        match self {
            Twist::Version(x) => {
                let min = v
                    .insts
                    .iter()
                    .map(|&i| catalog().forms[i].ptx)
                    .max()
                    .unwrap_or(PtxVersion(1, 0));
                let below = if *x < min {
                    "<form"
                } else if *x < target_min_ptx(&v.target) {
                    "<target"
                } else {
                    ""
                };
                format!("version:{x}{below}")
            }
            Twist::Target(t) => {
                let need = v.insts.iter().map(|&i| catalog().forms[i].target.sm).max().unwrap_or(0);
                let below = if target_sm(t) < need { "<form" } else { "" };
                format!("target:sm_{t}{below}")
            }
            Twist::Addr32 => "addr32".into(),
            Twist::Decl(s) => format!("decl:{}", s.name()),
            Twist::ModOrder(toks) => format!("modorder:{}", toks.join(".")),
            Twist::Hint(_, h) => format!("hint:{}.{h}", f0.opcode),
            Twist::BadMod(_, t) if t.is_empty() => format!("mut:droptype:{}", f0.opcode),
            Twist::BadMod(_, t) if f0.mods.contains(&t.as_str()) => format!("mut:dupmod.{t}:{}", f0.opcode),
            Twist::BadMod(_, t) => format!("mut:mod.{t}:{}", f0.opcode),
            Twist::Func(kind) => format!("func:{kind}"),
            Twist::Operand { kind, k, .. } => {
                let name = f0.outputs.iter().chain(&f0.inputs).nth(*k).map_or("?", |o| o.name);
                format!("{kind}:{}.{name}", f0.opcode)
            }
            Twist::DropOperand => format!("mut:dropop:{}", f0.opcode),
            Twist::ExtraOperand => format!("mut:extraop:{}", f0.opcode),
            Twist::Guard(n) => format!("guard:{}:{}", if *n { "!p" } else { "p" }, f0.opcode),
        }
    }
}

/// A generated module, before rendering.
#[derive(Clone, Debug)]
pub struct Variant {
    pub index: u64,
    /// The instructions' forms; the first is the one under test.
    pub insts: Vec<FormId>,
    /// The base target (ptxas's spelling without `sm_`).
    pub target: String,
    pub twists: Vec<Twist>,
}

/// Which components a rendering keeps.
#[derive(Clone, Debug)]
pub struct Keep {
    pub insts: Vec<bool>,
    pub twists: Vec<bool>,
}

/// A rendered module.
#[derive(Clone, Debug)]
pub struct Rendered {
    pub text: String,
    /// `-arch` for ptxas: the `.target` without `sm_`.
    pub arch: String,
    /// 1-based lines of the instructions under test (and their own declarations).
    pub lines: Vec<u32>,
}

impl Variant {
    /// Form `fi` written plainly under its own minimum target, with no twist (the census), or
    /// `None` for forms of the sections the writer cannot form.
    pub fn plain(fi: FormId) -> Option<Variant> {
        let f = &catalog().forms[fi];
        if section_excluded(catalog().sections[catalog().rows[f.row].section].id) {
            return None;
        }
        Some(Variant {
            index: fi.index() as u64,
            insts: vec![fi],
            target: base_target(f),
            twists: Vec::new(),
        })
    }

    pub fn all(&self) -> Keep {
        Keep {
            insts: vec![true; self.insts.len()],
            twists: vec![true; self.twists.len()],
        }
    }

    /// The keys of the kept components: instructions first, then twists.
    pub fn keys(&self, keep: &Keep) -> Vec<String> {
        let listed = oracle::ptxas::rejected_forms();
        let mut v = Vec::new();
        for (i, &fi) in self.insts.iter().enumerate() {
            if keep.insts[i] {
                let f = &catalog().forms[fi];
                let key = spec::vector::form_key(f);
                // Forms sharing a name (`mov.u32 d, a` and `mov.u32 d, avar`) are told apart by
                // their operand names.
                let shape = if catalog().by_name(&f.name).len() > 1 {
                    let names: Vec<&str> = f.outputs.iter().chain(&f.inputs).map(|o| o.name).collect();
                    format!("[{}]", names.join(","))
                } else {
                    String::new()
                };
                v.push(if listed.contains(&key) {
                    format!("form:listed:{key}{shape}")
                } else {
                    format!("form:{key}{shape}")
                });
            }
        }
        for (t, &k) in self.twists.iter().zip(&keep.twists) {
            if k && (keep.insts[0] || !t.on_inst0()) {
                v.push(t.key(self));
            }
        }
        v
    }

    pub fn render(&self, keep: &Keep) -> Rendered {
        render(self, keep)
    }
}

impl Twist {
    /// Whether the twist changes instruction 0 (and goes when it goes).
    fn on_inst0(&self) -> bool {
        !matches!(
            self,
            Twist::Version(_) | Twist::Target(_) | Twist::Addr32 | Twist::Decl(_) | Twist::Func(_)
        )
    }
}

// ---- generation ---------------------------------------------------------------------------

/// Variant `index` of `seed`: the same on every run and platform.
pub fn generate(seed: u64, index: u64) -> Variant {
    let mut r = Rng::new(seed ^ index.wrapping_mul(0xd1b5_4a32_d192_ed03));
    r.next();
    if r.chance(25) {
        if let Some((i, t)) = focused(&mut r) {
            let mut v = Variant {
                index,
                insts: vec![i],
                target: base_target(&catalog().forms[i]),
                twists: vec![t],
            };
            if r.chance(20) {
                if let Some(t) = draw_twist(&mut r, &v) {
                    if std::mem::discriminant(&t) != std::mem::discriminant(&v.twists[0]) {
                        v.twists.push(t);
                    }
                }
            }
            return v;
        }
    }
    let first = draw_form(&mut r);
    let f0 = &catalog().forms[first];
    let target = base_target(f0);
    let mut insts = vec![first];
    // One or two more instructions, now and then: plain value forms the base target has.
    if r.chance(20) {
        for _ in 0..1 + r.below(2) {
            for _ in 0..20 {
                let i = draw_form(&mut r);
                let f = &catalog().forms[i];
                let fits = f.target.suffix.is_none()
                    && f.target.sm <= target_sm(&target)
                    && f.ptx <= PtxVersion(8, 7)
                    && !matches!(catalog().family_of(f).id, "9.7.12" | "9.7.14" | "9.7.15" | "9.7.16");
                if fits {
                    insts.push(i);
                    break;
                }
            }
        }
    }
    let mut v = Variant {
        index,
        insts,
        target,
        twists: Vec::new(),
    };
    let n = match r.below(100) {
        0..=44 => 0,
        45..=84 => 1,
        _ => 2,
    };
    let mut tries = 0;
    while v.twists.len() < n && tries < 20 {
        tries += 1;
        if let Some(t) = draw_twist(&mut r, &v) {
            // One twist per dimension.
            let same = v
                .twists
                .iter()
                .any(|u| std::mem::discriminant(u) == std::mem::discriminant(&t));
            if !same {
                v.twists.push(t);
            }
        }
    }
    v
}

/// A form drawn from the menu that satisfies `want` (up to 400 tries).
fn draw_where(r: &mut Rng, want: impl Fn(&Form) -> bool) -> Option<FormId> {
    (0..400).map(|_| draw_form(r)).find(|&i| want(&catalog().forms[i]))
}

/// The modifiers of `f` that are not types (their order is free in ptxas's reading, mostly).
fn free_mods(f: &Form) -> Vec<usize> {
    (1..=f.mods.len())
        .filter(|&i| Type::parse(f.mods[i - 1]).is_none())
        .collect()
}

fn modorder_twist(r: &mut Rng, f: &Form) -> Option<Twist> {
    let toks: Vec<&str> = std::iter::once(f.opcode).chain(f.mods.iter().copied()).collect();
    let free = free_mods(f);
    if free.len() < 2 || is_special(f) {
        return None;
    }
    let mut perm = free.clone();
    for i in (1..perm.len()).rev() {
        let j = r.below(i + 1);
        perm.swap(i, j);
    }
    if perm == free {
        perm.swap(0, 1);
    }
    let mut out: Vec<String> = toks.iter().map(|t| t.to_string()).collect();
    for (slot, src) in free.iter().zip(&perm) {
        out[*slot] = toks[*src].to_string();
    }
    Some(Twist::ModOrder(out))
}

/// A variant aimed at one dimension, on a form where it matters: modifier order, address
/// notations, one-element and vector-register data operands, symbols as values, predicate
/// destinations.
fn focused(r: &mut Rng) -> Option<(FormId, Twist)> {
    let memory = |f: &Form| {
        matches!(
            f.opcode,
            "ld" | "ldu" | "st" | "atom" | "red" | "prefetch" | "prefetchu"
        )
    };
    match r.below(6) {
        0 | 1 => {
            let i = draw_where(r, |f| free_mods(f).len() >= 2 && !is_special(f))?;
            Some((i, modorder_twist(r, &catalog().forms[i])?))
        }
        2 => {
            let i = draw_where(r, memory)?;
            let f = &catalog().forms[i];
            let (k, _, _) = *operands(f).iter().find(|(_, o, _)| is_address(f, o))?;
            Some((i, operand_twist_at(r, f, k)?))
        }
        3 => {
            let i = draw_where(r, |f| matches!(f.opcode, "ld" | "ldu" | "st" | "mov") && !f.has("b128"))?;
            let f = &catalog().forms[i];
            let data: Vec<(usize, &spec::catalog::Operand, bool)> = operands(f)
                .into_iter()
                .filter(|(_, o, _)| !is_address(f, o) && o.name != "cache_policy" && o.ty.kind != Kind::Pred)
                .collect();
            let &(k, o, _) = data.get(r.below(data.len().max(1)))?;
            let grouped = o.group.is_some() || has_vec(f);
            let k = match o.group {
                Some(g) => data.iter().find(|(_, p, _)| p.group == Some(g)).map_or(k, |x| x.0),
                None => k,
            };
            let (kind, text) = if grouped {
                ("vecreg:whole", OperandText::VecWhole)
            } else if r.chance(60) {
                ("brace1", OperandText::Brace)
            } else {
                ("vecreg:elem", OperandText::VecElem(r.below(4)))
            };
            Some((i, Twist::Operand { k, kind, text }))
        }
        4 => {
            let i = draw_where(r, |f| {
                f.inputs.iter().any(|o| matches!(o.name, "avar" | "fname" | "kernel"))
                    || matches!(f.opcode, "cvta" | "isspacep")
            })?;
            let f = &catalog().forms[i];
            let (k, o, _) = *operands(f).iter().find(|(_, o, out)| !out && o.ty.kind != Kind::Pred)?;
            if matches!(o.name, "avar" | "fname" | "kernel") {
                return Some((i, operand_twist_at(r, f, k)?));
            }
            let sym = r.pick(&["gbuf", "gbuf+8", "sbuf", "cbuf", "lbuf", "kp", "fvoid"]);
            Some((
                i,
                Twist::Operand {
                    k,
                    kind: "varval",
                    text: OperandText::Text(sym.to_string()),
                },
            ))
        }
        _ => {
            let i = draw_where(r, |f| {
                f.outputs.iter().any(|o| o.ty.kind == Kind::Pred) && !is_special(f)
            })?;
            let f = &catalog().forms[i];
            let preds: Vec<usize> = operands(f)
                .iter()
                .filter(|(_, o, out)| *out && o.ty.kind == Kind::Pred)
                .map(|x| x.0)
                .collect();
            if preds.is_empty() {
                return None;
            }
            let k = r.pick(&preds);
            Some((i, operand_twist_at(r, f, k)?))
        }
    }
}

/// Operands of a form that a twist can address: (index in outputs ++ inputs, operand, is output).
fn operands(f: &Form) -> Vec<(usize, &spec::catalog::Operand, bool)> {
    f.outputs
        .iter()
        .map(|o| (o, true))
        .chain(f.inputs.iter().map(|o| (o, false)))
        .enumerate()
        .filter(|(_, (o, _))| !o.flags.cc)
        .map(|(k, (o, out))| (k, o, out))
        .collect()
}

fn is_special(f: &Form) -> bool {
    matches!(f.opcode, "{}" | "@" | "bra" | "brx" | "call")
}

fn draw_twist(r: &mut Rng, v: &Variant) -> Option<Twist> {
    let f = &catalog().forms[v.insts[0]];
    let kind = r.weighted(&[9, 9, 2, 14, 12, 4, 26, 12, 4, 5, 3]);
    Some(match kind {
        0 => {
            // Mostly at or above what the module needs; sometimes below.
            let min = v
                .insts
                .iter()
                .map(|&i| catalog().forms[i].ptx)
                .max()
                .unwrap()
                .max(target_min_ptx(&v.target));
            let ok: Vec<PtxVersion> = VERSIONS.iter().copied().filter(|x| *x >= min).collect();
            let x = if r.chance(70) && !ok.is_empty() {
                r.pick(&ok)
            } else {
                r.pick(VERSIONS)
            };
            if x == PtxVersion(8, 7) {
                return None;
            }
            Twist::Version(x)
        }
        1 => {
            let t = TARGETS[r.below(TARGETS.len())].0;
            if t == v.target {
                return None;
            }
            Twist::Target(t.to_string())
        }
        2 => Twist::Addr32,
        3 => Twist::Decl(r.pick(&[
            DeclStyle::List,
            DeclStyle::List,
            DeclStyle::Single,
            DeclStyle::NoPrefix,
            DeclStyle::NoPrefix,
            DeclStyle::Typed,
            DeclStyle::Typed,
            DeclStyle::Typed,
            DeclStyle::Late,
        ])),
        4 => modorder_twist(r, f)?,
        5 => {
            let slots = hint_slots(f);
            if slots.is_empty() {
                return None;
            }
            let (at, hints) = &slots[r.below(slots.len())];
            Twist::Hint(*at, r.pick(hints))
        }
        6 => operand_twist(r, f)?,
        7 => {
            let ntok = 1 + f.mods.len();
            match r.below(4) {
                0 => {
                    // Remove a type modifier.
                    let types: Vec<usize> = (1..ntok).filter(|&i| Type::parse(f.mods[i - 1]).is_some()).collect();
                    if types.is_empty() {
                        return None;
                    }
                    Twist::BadMod(r.pick(&types), String::new())
                }
                1 => {
                    // Duplicate a modifier.
                    if f.mods.is_empty() {
                        return None;
                    }
                    let i = 1 + r.below(f.mods.len());
                    Twist::BadMod(i, f.mods[i - 1].to_string())
                }
                _ => {
                    let m = r.pick(&[
                        "sat",
                        "ftz",
                        "rn",
                        "rz",
                        "approx",
                        "relaxed",
                        "cta",
                        "gpu",
                        "global",
                        "shared",
                        "uni",
                        "wide",
                        "hi",
                        "lo",
                        "cc",
                        "sync",
                        "aligned",
                        "nc",
                        "volatile",
                        "full",
                        "foo",
                        "u32",
                        "f32",
                        "b64",
                        "s16",
                        "relu",
                        "satfinite",
                        "noftz",
                    ]);
                    Twist::BadMod(1 + r.below(ntok), m.to_string())
                }
            }
        }
        8 => {
            if is_special(f) {
                return None;
            }
            if r.chance(50) {
                Twist::DropOperand
            } else {
                Twist::ExtraOperand
            }
        }
        9 => Twist::Guard(r.chance(50)),
        _ => Twist::Func(r.pick(&["regparams", "paramcall"])),
    })
}

/// Where a hint may go in a form's name: (token index, the hints of that slot).
pub fn hint_slots(f: &Form) -> Vec<(usize, Vec<&'static str>)> {
    let toks: Vec<&str> = std::iter::once(f.opcode).chain(f.mods.iter().copied()).collect();
    let mut at = 0;
    let mut out = Vec::new();
    for part in &catalog().rows[f.row].parts {
        match part {
            Part::Lit(_) => at += 1,
            Part::Alt { alts, .. } => {
                let mut best: Option<usize> = None;
                for a in alts {
                    let w: Vec<&str> = a.split('.').filter(|t| !t.is_empty()).collect();
                    if toks.get(at..at + w.len()) == Some(&w[..]) && best.is_none_or(|b| w.len() > b) {
                        best = Some(w.len());
                    }
                }
                at += best.unwrap_or(0);
            }
            Part::Hint(h) => out.push((at, h.clone())),
        }
    }
    out
}

/// The address operands of a form: written `[reg]`.
fn is_address(f: &Form, o: &spec::catalog::Operand) -> bool {
    let bits = o.ty.bits();
    (bits == 64 && matches!(o.name, "addr" | "mbar" | "dst" | "src") && f.opcode != "redux")
        || (bits == 32 && (o.name == "taddr" || o.name.ends_with("_tmem")) && f.mods.first() != Some(&"dealloc"))
}

/// The state-space variable an address of `f` naturally names.
fn space_var(f: &Form) -> &'static str {
    let ss = f.var("ss").unwrap_or("");
    if ss.starts_with("shared") {
        "sbuf"
    } else if ss == "const" {
        "cbuf"
    } else if ss == "local" {
        "lbuf"
    } else if ss.starts_with("param") {
        "kp"
    } else {
        "gbuf"
    }
}

fn operand_twist(r: &mut Rng, f: &Form) -> Option<Twist> {
    if is_special(f) {
        return None;
    }
    let ops = operands(f);
    if ops.is_empty() {
        return None;
    }
    let (k, _, _) = ops[r.below(ops.len())];
    operand_twist_at(r, f, k)
}

/// A twist of operand `k` (outputs then inputs) of `f`.
fn operand_twist_at(r: &mut Rng, f: &Form, k: usize) -> Option<Twist> {
    let ops = operands(f);
    let (k, o, out) = *ops.iter().find(|x| x.0 == k)?;
    let addr = is_address(f, o);
    let pred = o.ty.kind == Kind::Pred;
    let t = |kind: &'static str, text: OperandText| Some(Twist::Operand { k, kind, text });
    if matches!(o.name, "avar" | "fname" | "kernel") {
        let text = r.pick(&[
            "gbuf+4",
            "gbuf+-4",
            "sbuf",
            "cbuf+8",
            "lbuf",
            "kp",
            "fvoid",
            "k",
            "gbuf+0x10",
        ]);
        return t("symbol", OperandText::Text(text.to_string()));
    }
    if out && pred && o.optional && r.chance(50) {
        return t("nopipe", OperandText::Omit);
    }
    if addr {
        return match r.below(8) {
            0 => t(
                "addr:+imm",
                OperandText::AddrOffset(format!("+{}", 4 * (1 + r.below(8)))),
            ),
            1 => t(
                "addr:+-imm",
                OperandText::AddrOffset(format!("+-{}", 4 * (1 + r.below(8)))),
            ),
            2 => t("addr:+hex", OperandText::AddrOffset("+0x10".into())),
            3 => t("addr:var", OperandText::AddrVar(space_var(f), String::new())),
            4 => t("addr:var+imm", OperandText::AddrVar(space_var(f), "+4".into())),
            5 => t(
                "addr:othervar",
                OperandText::AddrVar(r.pick(&["gbuf", "sbuf", "cbuf", "lbuf"]), String::new()),
            ),
            6 => t("addr:imm", OperandText::Text("[0x100]".into())),
            _ => t("addr:32bitreg", OperandText::Class(3)),
        };
    }
    if o.flags.imm {
        return t("mut:immreg", OperandText::Class(class_of(o.ty)));
    }
    if pred {
        return match r.below(4) {
            0 if !out => t("pred:not", OperandText::Not),
            1 if out => t("sink:pred", OperandText::Text("_".into())),
            2 => t("mut:pred-as-int", OperandText::Class(3)),
            _ => t("brace1", OperandText::Brace),
        };
    }
    let class = class_of(o.ty);
    let grouped = o.group.is_some() || has_vec(f);
    match r.below(16) {
        0..=4 if !out && o.ty.bits() <= 64 => {
            let (kind, text) = immediate(r, o.ty);
            t(kind, OperandText::Text(text))
        }
        5 if out => t("sink", OperandText::Text("_".into())),
        6 if out => t("mut:immdst", OperandText::Text("1".into())),
        7 => {
            let other = match class {
                2 => r.pick(&[3, 4]),
                3 => r.pick(&[2, 4]),
                4 => r.pick(&[2, 3]),
                _ => 3,
            };
            t("mut:width", OperandText::Class(other))
        }
        8 => {
            // A register declared with another type of the same width.
            let ty = typed_mismatch(r, o.ty)?;
            t("regtype", OperandText::Typed(ty))
        }
        9 => t("mut:undeclared", OperandText::Undeclared),
        10 if grouped => {
            // The vector register stands for the whole group: put it on the group's first member.
            let k = match o.group {
                Some(g) => ops.iter().find(|(_, p, _)| p.group == Some(g)).map_or(k, |x| x.0),
                None => k,
            };
            Some(Twist::Operand {
                k,
                kind: "vecreg:whole",
                text: OperandText::VecWhole,
            })
        }
        10 | 11 if (2..=4).contains(&class) && !grouped => t("vecreg:elem", OperandText::VecElem(r.below(4))),
        12 if !grouped => t("brace1", OperandText::Brace),
        13 if o.flags.neg || (!out && r.chance(30)) => t("neg", OperandText::Neg),
        14 if !out && o.ty.bits() == 64 => t(
            "varval",
            OperandText::Text(r.pick(&["gbuf", "gbuf+4", "sbuf", "kp"]).to_string()),
        ),
        _ => {
            let (kind, text) = immediate(r, o.ty);
            if out {
                return None;
            }
            t(kind, OperandText::Text(text))
        }
    }
}

/// A type of the same width as `ty` but another kind, for a typed register (`.f32` for `.s32`).
fn typed_mismatch(r: &mut Rng, ty: Type) -> Option<&'static str> {
    let opts: &[&'static str] = match (ty.bits(), ty.kind) {
        (16, Kind::Float(_)) => &["u16", "s16", "b16"],
        (16, _) => &["f16", "u16", "s16", "b16"],
        (32, Kind::Float(_)) => &["u32", "s32", "b32"],
        (32, Kind::Unsigned) => &["s32", "f32", "b32"],
        (32, Kind::Signed) => &["u32", "f32", "b32"],
        (32, _) => &["u32", "f32", "s32"],
        (64, Kind::Float(_)) => &["u64", "s64", "b64"],
        (64, Kind::Unsigned) => &["s64", "f64", "b64"],
        (64, Kind::Signed) => &["u64", "f64", "b64"],
        (64, _) => &["u64", "f64", "s64"],
        (8, _) => &["u8", "s8", "b8"],
        _ => return None,
    };
    Some(r.pick(opts))
}

/// An immediate of (or near) type `ty` in one of PTX's notations: (twist kind, text).
fn immediate(r: &mut Rng, ty: Type) -> (&'static str, String) {
    let v = r.pick(&[
        0u64,
        1,
        3,
        7,
        8,
        15,
        31,
        100,
        255,
        0x7fff,
        0xffff,
        0x7fff_ffff,
        0xffff_ffff,
    ]);
    match r.below(11) {
        0 => ("imm:dec", v.to_string()),
        1 => ("imm:neg", format!("-{}", 1 + v % 100)),
        2 => ("imm:hex", format!("0x{v:x}")),
        3 => ("imm:HEX", format!("0X{v:X}")),
        4 => ("imm:oct", format!("0{v:o}")),
        5 => ("imm:bin", format!("0b{v:b}")),
        6 => ("imm:usuffix", format!("{v}U")),
        7 => ("imm:f32bits", "0f3F800000".into()),
        8 => ("imm:f64bits", "0d3FF0000000000000".into()),
        9 => ("imm:fdec", "1.5".into()),
        _ => match ty.kind {
            Kind::Float(_) if ty.bits() == 32 => ("imm:f32bits", "0f40490FDB".into()),
            Kind::Float(_) if ty.bits() == 64 => ("imm:f64bits", "0d400921FB54442D18".into()),
            _ => ("imm:dec", (v % 64).to_string()),
        },
    }
}

/// Whether `f` is a vector memory form (`ld.v4.u32`: the data operand is `{a, b, c, d}`).
fn vec_len(f: &Form) -> Option<usize> {
    f.mods.iter().find_map(|m| match *m {
        "v2" => Some(2),
        "v4" => Some(4),
        "v8" => Some(8),
        _ => None,
    })
}

fn has_vec(f: &Form) -> bool {
    vec_len(f).is_some() && matches!(f.opcode, "ld" | "ldu" | "st" | "atom" | "red" | "multimem" | "st.async")
}

// ---- rendering ----------------------------------------------------------------------------

/// Register classes: `.pred`, `.b8`, `.b16`, `.b32`, `.b64`, `.b128`.
const CLASSES: [(&str, &str); 6] = [
    ("p", ".pred"),
    ("rc", ".b8"),
    ("rs", ".b16"),
    ("r", ".b32"),
    ("rd", ".b64"),
    ("rq", ".b128"),
];

fn class_of(ty: Type) -> usize {
    match ty.kind {
        Kind::Pred => 0,
        _ => match ty.bits() {
            0..=8 => 1,
            9..=16 => 2,
            17..=32 => 3,
            33..=64 => 4,
            _ => 5,
        },
    }
}

/// Register types a `.reg` declaration may name directly (for [`DeclStyle::Typed`]).
fn declarable(ty: Type) -> Option<String> {
    let s = ty.to_string();
    let ok = matches!(
        s.as_str(),
        "pred"
            | "b8"
            | "b16"
            | "b32"
            | "b64"
            | "b128"
            | "u8"
            | "u16"
            | "u32"
            | "u64"
            | "s8"
            | "s16"
            | "s32"
            | "s64"
            | "f16"
            | "f16x2"
            | "f32"
            | "f64"
    );
    ok.then(|| format!(".{s}"))
}

/// The registers one rendering declares.
struct Regs {
    prefix: &'static str,
    /// Per register: class, number within the class, declared type (`.f32`), or `None` for
    /// the class's bit type.
    regs: Vec<(usize, u32, Option<String>)>,
    count: [u32; 6],
    /// Extra declarations (vector registers).
    extra: Vec<String>,
    typed: bool,
    nvec: u32,
}

impl Regs {
    fn new(style: DeclStyle) -> Regs {
        Regs {
            prefix: if style == DeclStyle::NoPrefix { "" } else { "%" },
            regs: Vec::new(),
            count: [0; 6],
            extra: Vec::new(),
            typed: style == DeclStyle::Typed,
            nvec: 0,
        }
    }
    fn name(&self, class: usize, n: u32) -> String {
        format!("{}{}{n}", self.prefix, CLASSES[class].0)
    }
    /// A fresh register of `class`; `ty` is the operand type it holds (declared as such under
    /// [`DeclStyle::Typed`]).
    fn fresh(&mut self, class: usize, ty: Option<Type>) -> String {
        let n = self.count[class];
        self.count[class] += 1;
        let decl = if self.typed { ty.and_then(declarable) } else { None };
        self.regs.push((class, n, decl));
        self.name(class, n)
    }
    fn vector(&mut self, len: usize, class: usize) -> String {
        let name = format!("{}v{}", self.prefix, self.nvec);
        self.nvec += 1;
        self.extra.push(format!(".reg .v{len} {} {name};", CLASSES[class].1));
        name
    }
    fn decls(&self, style: DeclStyle) -> Vec<String> {
        let mut out = Vec::new();
        for (c, (_, bt)) in CLASSES.iter().enumerate() {
            let n = self.count[c];
            if n == 0 {
                continue;
            }
            match style {
                DeclStyle::Range | DeclStyle::NoPrefix | DeclStyle::Late => {
                    out.push(format!(".reg {bt} {}{}<{n}>;", self.prefix, CLASSES[c].0));
                }
                DeclStyle::List => {
                    let names: Vec<String> = (0..n).map(|i| self.name(c, i)).collect();
                    out.push(format!(".reg {bt} {};", names.join(", ")));
                }
                DeclStyle::Single => {
                    for i in 0..n {
                        out.push(format!(".reg {bt} {};", self.name(c, i)));
                    }
                }
                DeclStyle::Typed => {}
            }
        }
        // Under `Typed` every register is declared with its operand's type (the class's bit
        // type where that is no register type), names of one type in one declaration.
        if style == DeclStyle::Typed {
            let mut by_ty: Vec<(String, Vec<String>)> = Vec::new();
            for (c, n, ty) in &self.regs {
                let ty = ty.clone().unwrap_or_else(|| CLASSES[*c].1.to_string());
                let name = self.name(*c, *n);
                match by_ty.iter_mut().find(|(t, _)| *t == ty) {
                    Some((_, v)) => v.push(name),
                    None => by_ty.push((ty, vec![name])),
                }
            }
            for (ty, names) in by_ty {
                out.push(format!(".reg {ty} {};", names.join(", ")));
            }
        }
        out.extend(self.extra.iter().cloned());
        out
    }
}

struct Ctx {
    regs: Regs,
    addr32: bool,
    /// Module-body declarations (`.branchtargets`, `.callprototype`).
    body_decls: Vec<String>,
    typed_n: u32,
}

impl Ctx {
    fn addr_reg(&mut self) -> String {
        let c = if self.addr32 { 3 } else { 4 };
        let ty = if self.addr32 {
            Type::U32
        } else {
            Type::int(Kind::Unsigned, 64)
        };
        self.regs.fresh(c, Some(ty))
    }
    fn reg(&mut self, ty: Type) -> String {
        self.regs.fresh(class_of(ty), Some(ty))
    }
    /// A register declared with `ty` under a name of its own (`%t0`).
    fn typed(&mut self, ty: &str) -> String {
        let name = format!("{}t{}", self.regs.prefix, self.typed_n);
        self.typed_n += 1;
        self.regs.extra.push(format!(".reg .{ty} {name};"));
        name
    }
}

/// The immediate a `+imm` operand takes in the base.
fn imm_operand(f: &Form, o: &spec::catalog::Operand) -> String {
    match o.name {
        "immLut" => "0x96".into(),
        "size" => "128".into(),
        "cp_size" => "16".into(),
        "n" | "imm_trans_a" | "imm_trans_b" | "sp_sel" | "ord" | "initval" | "imm_half_splitoff" | "scale_input_d" => {
            "0".into()
        }
        "imm_reg_count" => "128".into(),
        "imm_align" => "8".into(),
        "f" => "0".into(),
        _ => match o.ty.kind {
            Kind::Float(_) => write::immediate(
                o.ty,
                if o.ty.bits() == 64 {
                    0x3ff0_0000_0000_0000
                } else {
                    0x3f80_0000
                },
            ),
            _ if f.opcode == "tensormap" => "0".into(),
            _ => "1".into(),
        },
    }
}

/// The vector length of a one-operand group: a fragment's (`mma {d}`), or from an `xN` modifier
/// (`ldmatrix ... .x4 {r}`).
fn group_len(f: &Form, o: &spec::catalog::Operand) -> usize {
    if let Some(n) = spec::catalog::fragment::length(f, o) {
        return n;
    }
    f.mods
        .iter()
        .find_map(|m| match *m {
            "x1" => Some(1),
            "x2" => Some(2),
            "x4" => Some(4),
            "x8" => Some(8),
            "x16" => Some(16),
            "x32" => Some(32),
            "x64" => Some(64),
            "x128" => Some(128),
            _ => None,
        })
        .unwrap_or(1)
}

/// One instruction's text under the twists that touch it.
fn render_inst(c: &mut Ctx, fi: FormId, twists: &[&Twist]) -> String {
    let f = &catalog().forms[fi];
    let guard = twists.iter().find_map(|t| match t {
        Twist::Guard(neg) => Some(*neg),
        _ => None,
    });
    let guard = guard.map(|neg| {
        let p = c.reg(Type::PRED);
        format!("@{}{p} ", if neg { "!" } else { "" })
    });
    // The name.
    let mut toks: Vec<String> = std::iter::once(f.opcode)
        .chain(f.mods.iter().copied())
        .map(str::to_string)
        .collect();
    let mut cache_hint = false;
    for t in twists {
        match t {
            Twist::ModOrder(p) => toks = p.clone(),
            Twist::Hint(at, h) => {
                toks.insert((*at).min(toks.len()), h.to_string());
                cache_hint |= *h == "L2::cache_hint";
            }
            Twist::BadMod(at, m) if m.is_empty() && *at < toks.len() => {
                toks.remove(*at);
            }
            Twist::BadMod(_, m) if m.is_empty() => {}
            Twist::BadMod(at, m) => toks.insert((*at).min(toks.len()), m.clone()),
            _ => {}
        }
    }
    let name = toks.join(".");
    let guard = guard.unwrap_or_default();
    match f.opcode {
        "{}" => {
            let (a, b) = (c.reg(Type::B32), c.reg(Type::B32));
            return format!("{guard}{{ mov.b32 {a}, {b}; }}");
        }
        "@" => {
            let p = c.reg(Type::PRED);
            let (a, b) = (c.reg(Type::B32), c.reg(Type::B32));
            return format!("@{p} mov.b32 {a}, {b};");
        }
        "bra" => return format!("{guard}{name} L_end;"),
        "brx" => {
            let i = c.reg(Type::U32);
            if !c.body_decls.iter().any(|d| d.starts_with("$targets")) {
                c.body_decls.push("$targets: .branchtargets L_end;".into());
            }
            return format!("{guard}{name} {i}, $targets;");
        }
        "call" => {
            if f.inputs.len() == 1 {
                return format!("{guard}{name} fvoid;");
            }
            if !c.body_decls.iter().any(|d| d.starts_with("$proto")) {
                c.body_decls.push("$proto: .callprototype _ ();".into());
            }
            let p = c.addr_reg();
            return format!("{guard}{name} {p}, $proto;");
        }
        _ => {}
    }
    // Operands, outputs then inputs; `k` counts both.
    let n_out = f.outputs.len();
    let ops: Vec<&spec::catalog::Operand> = f.outputs.iter().chain(&f.inputs).collect();
    let twist_of = |k: usize| {
        twists.iter().find_map(|t| match t {
            Twist::Operand { k: tk, text, .. } if *tk == k => Some(text.clone()),
            _ => None,
        })
    };
    let vlen = if has_vec(f) { vec_len(f) } else { None };
    let mut texts: Vec<Option<String>> = Vec::new();
    let mut group_sizes: Vec<(u32, usize)> = Vec::new();
    for (k, o) in ops.iter().enumerate() {
        let out = k < n_out;
        if o.flags.cc {
            texts.push(Some(String::new()));
            continue;
        }
        let tw = twist_of(k);
        // Optional inputs: the cache policy goes with `.L2::cache_hint`; the others are written.
        if o.optional && !out {
            let write = if o.name == "cache_policy" {
                cache_hint
            } else {
                // Operands that change the form's meaning (or a barrier's thread count) are left
                // out of the base.
                let meaningful = matches!(o.name, "src_size" | "ignore_src" | "fraction" | "suspend_time_hint");
                !(meaningful || f.opcode == "bar" || f.opcode == "barrier")
            };
            if !write && tw.is_none() {
                texts.push(None);
                continue;
            }
        }
        let text = if o.flags.sink && tw.is_none() {
            "_".to_string()
        } else if is_address(f, o) {
            let base = if space_var(f) == "kp" && f.opcode != "st" {
                "kp".to_string()
            } else if o.ty.bits() == 32 {
                // Tensor-memory addresses are 32-bit (§9.7.16.2).
                c.reg(Type::B32)
            } else {
                c.addr_reg()
            };
            match tw {
                Some(OperandText::AddrOffset(off)) => format!("[{base}{off}]"),
                Some(OperandText::AddrVar(v, off)) => format!("[{v}{off}]"),
                Some(OperandText::Text(t)) => t,
                Some(OperandText::Class(cl)) => format!("[{}]", c.regs.fresh(cl, None)),
                _ => format!("[{base}]"),
            }
        } else if o.flags.imm {
            match tw {
                Some(OperandText::Class(cl)) => c.regs.fresh(cl, None),
                _ => imm_operand(f, o),
            }
        } else if matches!(o.name, "avar" | "fname" | "kernel") {
            let n = match o.name {
                "avar" => "gbuf",
                "fname" => "fvoid",
                _ => "k",
            };
            match tw {
                Some(OperandText::Text(t)) => t,
                _ => n.to_string(),
            }
        } else if let (Some(n), None) = (vlen, o.group) {
            if o.ty.kind == Kind::Pred || o.name == "cache_policy" || o.name == "size" {
                c.reg(o.ty)
            } else if let Some(OperandText::VecWhole) = tw {
                c.regs.vector(n, class_of(o.ty))
            } else {
                let rs: Vec<String> = (0..n).map(|_| c.reg(o.ty)).collect();
                format!("{{{}}}", rs.join(", "))
            }
        } else {
            let class = class_of(o.ty);
            match tw {
                None => c.reg(o.ty),
                Some(OperandText::Text(t)) => t,
                Some(OperandText::Class(cl)) => c.regs.fresh(cl, None),
                Some(OperandText::Typed(ty)) => c.typed(ty),
                Some(OperandText::Not) => format!("!{}", c.reg(o.ty)),
                Some(OperandText::Neg) => format!("-{}", c.reg(o.ty)),
                Some(OperandText::Brace) => format!("{{ {} }}", c.reg(o.ty)),
                Some(OperandText::VecElem(e)) => {
                    let v = c.regs.vector(4, class);
                    format!("{v}.{}", ["x", "y", "z", "w"][e % 4])
                }
                Some(OperandText::Undeclared) => format!("{}r99", c.regs.prefix),
                Some(OperandText::Omit) => OMIT.to_string(),
                Some(OperandText::VecWhole) => {
                    // The group this operand belongs to becomes one vector register; the first
                    // member carries the name, the others are dropped below.
                    let g = o.group.unwrap_or(0);
                    let len = ops.iter().filter(|p| p.group == Some(g)).count();
                    let len = if len == 1 { group_len(f, o) } else { len };
                    group_sizes.push((g, len));
                    if len == 2 || len == 4 {
                        c.regs.vector(len, class)
                    } else {
                        c.reg(o.ty)
                    }
                }
                Some(_) => c.reg(o.ty),
            }
        };
        texts.push(Some(text));
    }
    // A one-operand group stands for a fragment (`mma {d}`) or `xN` registers (`ldmatrix .x4 {r}`).
    for (k, o) in ops.iter().enumerate() {
        if let (Some(g), Some(Some(t))) = (o.group, texts.get(k)) {
            let members = ops.iter().filter(|p| p.group == Some(g)).count();
            let n = group_len(f, o);
            if members == 1 && n > 1 && twist_of(k).is_none() {
                let mut rs = vec![t.clone()];
                rs.extend((1..n).map(|_| c.reg(o.ty)));
                texts[k] = Some(rs.join(", "));
            }
        }
    }
    let outs: Vec<String> = texts[..n_out].iter().map(|t| t.clone().unwrap_or_default()).collect();
    let ins: Vec<Option<String>> = texts[n_out..].to_vec();
    let mut list = write::operand_list(f, &outs, &ins).replace(&format!("|{OMIT}"), "");
    // A vector register standing for a whole `{a, b}` group: drop the braces and other members.
    if !group_sizes.is_empty() {
        list = collapse_vector_groups(&list);
    }
    let mut parts = split_top(&list);
    for t in twists {
        match t {
            Twist::DropOperand => {
                parts.pop();
            }
            Twist::ExtraOperand => {
                let x = c.reg(Type::B32);
                parts.push(x);
            }
            _ => {}
        }
    }
    let body = parts.join(", ");
    if body.is_empty() {
        format!("{guard}{name};")
    } else {
        format!("{guard}{name} {body};")
    }
}

/// Stands for an omitted optional destination until the operand list is written.
const OMIT: &str = "\u{1}";

/// `{%v0, %r3}` where `%v0` is a vector register: becomes `%v0` (the group is the vector).
fn collapse_vector_groups(list: &str) -> String {
    let parts = split_top(list);
    parts
        .into_iter()
        .map(|p| {
            let inner = p.strip_prefix('{').and_then(|s| s.strip_suffix('}'));
            match inner {
                Some(i) => {
                    let first = i.split(',').next().unwrap_or("").trim();
                    let bare = first.trim_start_matches('%');
                    if bare.starts_with('v') && bare[1..].chars().all(|c| c.is_ascii_digit()) {
                        first.to_string()
                    } else {
                        p
                    }
                }
                None => p,
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Splits an operand list at top-level commas.
pub fn split_top(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut cur = String::new();
    for ch in s.chars() {
        match ch {
            '{' | '[' | '(' => depth += 1,
            '}' | ']' | ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(cur.trim().to_string());
                cur.clear();
                continue;
            }
            _ => {}
        }
        cur.push(ch);
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

fn render(v: &Variant, keep: &Keep) -> Rendered {
    let on = |i: usize| keep.twists[i] && (keep.insts[0] || !v.twists[i].on_inst0());
    let active: Vec<&Twist> = (0..v.twists.len()).filter(|&i| on(i)).map(|i| &v.twists[i]).collect();
    let mut version = PtxVersion(8, 7);
    let mut target = v.target.clone();
    let mut addr32 = false;
    let mut style = DeclStyle::Range;
    for t in &active {
        match t {
            Twist::Target(x) => target = x.clone(),
            Twist::Addr32 => addr32 = true,
            Twist::Decl(s) => style = *s,
            _ => {}
        }
    }
    // The version: the twist's, or 8.7 raised to what the target needs.
    version = version.max(target_min_ptx(&target));
    if let Some(Twist::Version(x)) = active.iter().find(|t| matches!(t, Twist::Version(_))) {
        version = *x;
    }
    let mut c = Ctx {
        regs: Regs::new(style),
        addr32,
        body_decls: Vec::new(),
        typed_n: 0,
    };
    let mut lines_text: Vec<String> = Vec::new();
    for (i, &fi) in v.insts.iter().enumerate() {
        if !keep.insts[i] {
            continue;
        }
        let tw: Vec<&Twist> = if i == 0 {
            active.iter().copied().filter(|t| t.on_inst0()).collect()
        } else {
            Vec::new()
        };
        lines_text.push(render_inst(&mut c, fi, &tw));
    }
    // A function twist: its definition at module scope, its call after the instructions.
    let mut funcs = String::new();
    for t in &active {
        if let Twist::Func(kind) = t {
            let (a, b) = (c.reg(Type::B32), c.reg(Type::B32));
            if *kind == "regparams" {
                funcs.push_str(".func (.reg .b32 fr) freg(.reg .b32 fa)\n{\n\tmov.b32 fr, fa;\n\tret;\n}\n\n");
                lines_text.push(format!("call ({a}), freg, ({b});"));
            } else {
                funcs.push_str(
                    ".func (.param .b32 pr) fpar(.param .b32 pa)\n{\n\t.reg .b32 %x;\n\tld.param.b32 %x, [pa];\n\
                     \tst.param.b32 [pr], %x;\n\tret;\n}\n\n",
                );
                lines_text.push(format!(
                    "{{ .param .b32 a0; .param .b32 r0; st.param.b32 [a0], {b}; call (r0), fpar, (a0); \
                     ld.param.b32 {a}, [r0]; }}"
                ));
            }
        }
    }
    let decls = c.regs.decls(style);
    let mut s = String::new();
    let _ = write!(
        s,
        ".version {version}\n.target sm_{target}\n.address_size {}\n\n\
         .global .align 16 .b8 gbuf[256];\n\
         .const .align 16 .b8 cbuf[256];\n\
         .shared .align 16 .b8 sbuf[256];\n\n\
         .func fvoid()\n{{\n\tret;\n}}\n\n{funcs}\
         .visible .entry k(.param .u64 kp)\n{{\n\t.local .align 16 .b8 lbuf[64];\n",
        if addr32 { 32 } else { 64 }
    );
    let mut line = s.lines().count() as u32 + 1;
    let mut own = Vec::new();
    let mut push = |s: &mut String, l: &str, mine: bool| {
        s.push('\t');
        s.push_str(l);
        s.push('\n');
        if mine {
            own.push(line);
        }
        line += 1;
    };
    let late = style == DeclStyle::Late;
    if !late {
        for d in &decls {
            push(&mut s, d, style != DeclStyle::Range);
        }
    }
    for d in &c.body_decls {
        push(&mut s, d, true);
    }
    for l in &lines_text {
        push(&mut s, l, true);
    }
    if late {
        for d in &decls {
            push(&mut s, d, true);
        }
    }
    s.push_str("L_end:\n\tret;\n}\n");
    Rendered {
        text: s,
        arch: target,
        lines: own,
    }
}
