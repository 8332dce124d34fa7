//! §9.7.18 video instructions, checked against formulations written here independently of
//! `spec::video`: scalar ops in i64/i128 (34-bit intermediates), SIMD ops lane by lane in i32,
//! vmad in i128; the manual's examples; the `ptxconf eval` text front end; and error cases.
//!
//! Every check goes through the catalog form and `spec::eval::eval`, so the catalog rows, the
//! adapters and the pure functions are tested together.

// The checkers take one argument per modifier and operand, as the instruction is written.
#![allow(clippy::too_many_arguments)]

mod common;

use proptest::prelude::*;
use spec::catalog::{catalog, Form};
use spec::eval::{eval, eval_line};
use spec::value::{Accept, Args, Input, Outcome, Sel};
use std::collections::BTreeSet;

// ---------------------------------------------------------------------------------------------
// Helpers

fn form(name: &str) -> &'static Form {
    let cat = catalog();
    let ids = cat.by_name(name);
    assert_eq!(ids.len(), 1, "`{name}` should name exactly one form");
    &cat.forms[ids[0]]
}

fn input(bits: u32, sel: &str) -> Input {
    Input {
        bits: u128::from(bits),
        negated: false,
        sel: if sel.is_empty() {
            None
        } else {
            Some(Sel::parse(sel).unwrap())
        },
    }
}

fn dsel(sel: &str) -> Option<Sel> {
    if sel.is_empty() {
        None
    } else {
        Some(Sel::parse(sel).unwrap())
    }
}

/// Evaluates `name` on `ins` with destination selector `d`, expecting success.
fn run(name: &str, ins: &[Input], d: &str) -> Outcome {
    let out = eval(form(name), &Args { ins, dsel: dsel(d) }).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(out.len(), 1);
    out.into_iter().next().unwrap()
}

/// Every bit pattern an outcome accepts.
fn accepted(o: &Outcome) -> BTreeSet<u32> {
    let mut s = BTreeSet::from([o.model as u32]);
    match &o.accept {
        Accept::Exact => {}
        Accept::OneOf(v) => s.extend(v.iter().map(|&x| x as u32)),
        other => panic!("video results are exact or one-of, got {other:?}"),
    }
    s
}

/// A small deterministic generator for the exhaustive sweeps.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        common::splitmix64(&mut self.0)
    }
    /// A word biased towards edge values.
    fn word(&mut self) -> u32 {
        const EDGES: [u32; 10] = [
            0,
            1,
            0x7f,
            0x80,
            0xff,
            0x7fff,
            0x8000,
            0x7fff_ffff,
            0x8000_0000,
            0xffff_ffff,
        ];
        let r = self.next();
        match r % 4 {
            0 => EDGES[(r >> 8) as usize % EDGES.len()],
            1 => (r >> 32) as u32 & 0x8080_8080 | 0x7f7f_7f7f & (r >> 7) as u32,
            _ => (r >> 16) as u32,
        }
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn word() -> impl Strategy<Value = u32> {
    prop_oneof![
        any::<u32>(),
        prop::sample::select(vec![
            0u32,
            1,
            0x7f,
            0x80,
            0xff,
            0x100,
            0x7fff,
            0x8000,
            0xffff,
            0x7fff_ffff,
            0x8000_0000,
            0xffff_ffff
        ]),
        0u32..64,
    ]
}

const TYPES: [&str; 2] = ["u32", "s32"];
const SCALAR_SELS: [&str; 7] = ["", "b0", "b1", "b2", "b3", "h0", "h1"];

// ---------------------------------------------------------------------------------------------
// Scalar reference (i64 extraction, i128 intermediate)

/// partSelectSignExtend by arithmetic on the selected field: subtract 2^w when signed and the
/// top bit is set.
fn ext(x: u32, signed: bool, sel: &str) -> i64 {
    let (v, w): (u64, u32) = match sel.as_bytes().first() {
        None => (u64::from(x), 32),
        Some(&k) => {
            let i: u32 = sel[1..].parse().unwrap();
            let w = if k == b'b' { 8 } else { 16 };
            ((u64::from(x) >> (w * i)) % (1u64 << w), w)
        }
    };
    if signed && v >= 1u64 << (w - 1) {
        v as i64 - (1i64 << w)
    } else {
        v as i64
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Tl {
    None,
    Add,
    Min,
    Max,
    Merge(&'static str),
}

impl Tl {
    fn suffix(self) -> &'static str {
        match self {
            Tl::Add => ".add",
            Tl::Min => ".min",
            Tl::Max => ".max",
            Tl::None | Tl::Merge(_) => "",
        }
    }
    fn dsel(self) -> &'static str {
        if let Tl::Merge(s) = self {
            s
        } else {
            ""
        }
    }
}

const TAILS: [Tl; 10] = [
    Tl::None,
    Tl::Add,
    Tl::Min,
    Tl::Max,
    Tl::Merge("b0"),
    Tl::Merge("b1"),
    Tl::Merge("b2"),
    Tl::Merge("b3"),
    Tl::Merge("h0"),
    Tl::Merge("h1"),
];

fn sat_range(signed: bool, w: u32) -> (i128, i128) {
    if signed {
        (-(1i128 << (w - 1)), (1i128 << (w - 1)) - 1)
    } else {
        (0, (1i128 << w) - 1)
    }
}

/// optSaturate, optSecOp / optMerge and the low 32 bits.
fn ref_finish(tmp: i128, dsigned: bool, sat: bool, tail: Tl, c: u32) -> u32 {
    let dw = match tail.dsel().as_bytes().first() {
        Some(b'b') => 8,
        Some(b'h') => 16,
        _ => 32,
    };
    let t = if sat {
        let (lo, hi) = sat_range(dsigned, dw);
        tmp.max(lo).min(hi)
    } else {
        tmp
    };
    let cc = if dsigned { i128::from(c as i32) } else { i128::from(c) };
    let r = match tail {
        Tl::None => t,
        Tl::Add => t + cc,
        Tl::Min => t.min(cc),
        Tl::Max => t.max(cc),
        Tl::Merge(s) => {
            let i: u32 = s[1..].parse().unwrap();
            let shift = dw * i;
            let lane = (1u64 << dw) - 1;
            let field = (t.rem_euclid(1 << dw) as u64) << shift;
            i128::from(field | (u64::from(c) & !(lane << shift) & 0xffff_ffff))
        }
    };
    r.rem_euclid(1 << 32) as u32
}

/// The acceptance set the spec documents: the exact intermediate, the intermediate wrapped to
/// 34 bits, and for unsaturated .min/.max the intermediate reduced to dtype.
fn ref_scalar_set(tmp: i128, dsigned: bool, sat: bool, tail: Tl, c: u32) -> (u32, BTreeSet<u32>) {
    let model = ref_finish(tmp, dsigned, sat, tail, c);
    let mut set = BTreeSet::from([model]);
    let w34 = tmp.rem_euclid(1 << 34);
    let w34 = if w34 >= 1 << 33 { w34 - (1 << 34) } else { w34 };
    set.insert(ref_finish(w34, dsigned, sat, tail, c));
    if !sat && matches!(tail, Tl::Min | Tl::Max) {
        let low = tmp.rem_euclid(1 << 32);
        let red = if dsigned && low >= 1 << 31 {
            low - (1 << 32)
        } else {
            low
        };
        set.insert(ref_finish(red, dsigned, sat, tail, c));
    }
    (model, set)
}

#[derive(Clone, Copy, Debug)]
struct ScalarCase {
    op: usize,
    dt: usize,
    at: usize,
    bt: usize,
    sat: bool,
    asel: usize,
    bsel: usize,
    tail: Tl,
    a: u32,
    b: u32,
    c: u32,
}

const SCALAR_OPS: [&str; 5] = ["vadd", "vsub", "vabsdiff", "vmin", "vmax"];

fn check_scalar(k: ScalarCase) {
    let (asel, bsel) = (SCALAR_SELS[k.asel], SCALAR_SELS[k.bsel]);
    let name = format!(
        "{}.{}.{}.{}{}{}",
        SCALAR_OPS[k.op],
        TYPES[k.dt],
        TYPES[k.at],
        TYPES[k.bt],
        if k.sat { ".sat" } else { "" },
        k.tail.suffix()
    );
    let ta = i128::from(ext(k.a, k.at == 1, asel));
    let tb = i128::from(ext(k.b, k.bt == 1, bsel));
    let tmp = match k.op {
        0 => ta + tb,
        1 => ta - tb,
        2 => (ta - tb).abs(),
        3 => ta.min(tb),
        _ => ta.max(tb),
    };
    let (model, set) = ref_scalar_set(tmp, k.dt == 1, k.sat, k.tail, k.c);
    let mut ins = vec![input(k.a, asel), input(k.b, bsel)];
    if k.tail != Tl::None {
        ins.push(input(k.c, ""));
    }
    let out = run(&name, &ins, k.tail.dsel());
    assert_eq!(
        out.model as u32, model,
        "{name} a={:#x}.{asel} b={:#x}.{bsel} c={:#x} {:?}",
        k.a, k.b, k.c, k.tail
    );
    assert_eq!(
        accepted(&out),
        set,
        "{name} a={:#x}.{asel} b={:#x}.{bsel} c={:#x} {:?}",
        k.a,
        k.b,
        k.c,
        k.tail
    );
}

/// vshl/vshr: the shift amount from b as .u32, clamp or wrap, and the exact shifted value.
fn check_shift(
    shl: bool,
    clamp: bool,
    dt: usize,
    at: usize,
    sat: bool,
    asel: &str,
    bsel: &str,
    tail: Tl,
    a: u32,
    b: u32,
    c: u32,
) {
    let name = format!(
        "{}.{}.{}.u32{}.{}{}",
        if shl { "vshl" } else { "vshr" },
        TYPES[dt],
        TYPES[at],
        if sat { ".sat" } else { "" },
        if clamp { "clamp" } else { "wrap" },
        tail.suffix()
    );
    let ta = i128::from(ext(a, at == 1, asel));
    let n = ext(b, false, bsel);
    let n = if clamp { n.min(32) } else { n % 32 } as u32;
    let tmp = if shl {
        ta * (1i128 << n)
    } else {
        ta.div_euclid(1i128 << n)
    };
    let (model, set) = ref_scalar_set(tmp, dt == 1, sat, tail, c);
    let mut ins = vec![input(a, asel), input(b, bsel)];
    if tail != Tl::None {
        ins.push(input(c, ""));
    }
    let out = run(&name, &ins, tail.dsel());
    assert_eq!(
        out.model as u32, model,
        "{name} a={a:#x}.{asel} b={b:#x}.{bsel} c={c:#x} {tail:?}"
    );
    assert_eq!(
        accepted(&out),
        set,
        "{name} a={a:#x}.{asel} b={b:#x}.{bsel} c={c:#x} {tail:?}"
    );
}

/// vmad in i128 by the prose: the product negated when exactly one of a, b is, c negated or
/// not, plus one in .po mode, the scale as a floor division, the clamp by the final signedness.
fn check_vmad(
    dt: usize,
    at: usize,
    bt: usize,
    po: bool,
    sat: bool,
    scale: u32,
    asel: &str,
    bsel: &str,
    neg: [bool; 3],
    a: u32,
    b: u32,
    c: u32,
) {
    let name = format!(
        "vmad.{}.{}.{}{}{}{}",
        TYPES[dt],
        TYPES[at],
        TYPES[bt],
        if po { ".po" } else { "" },
        if sat { ".sat" } else { "" },
        match scale {
            7 => ".shr7",
            15 => ".shr15",
            _ => "",
        }
    );
    let neg_p = neg[0] != neg[1];
    let signed_final = at == 1 || bt == 1 || neg_p || neg[2];
    let p = i128::from(ext(a, at == 1, asel)) * i128::from(ext(b, bt == 1, bsel));
    let p = if neg_p { -p } else { p };
    let cv = if signed_final {
        i128::from(c as i32)
    } else {
        i128::from(c)
    };
    let cv = if neg[2] { -cv } else { cv };
    let fin = |tmp: i128| -> u32 {
        let r = tmp.div_euclid(1i128 << scale);
        let r = if sat {
            let (lo, hi) = sat_range(signed_final, 32);
            r.max(lo).min(hi)
        } else {
            r
        };
        r.rem_euclid(1 << 32) as u32
    };
    let model = fin(p + cv + i128::from(po));
    let mut set = BTreeSet::from([model]);
    if neg[2] && at == 0 && bt == 0 {
        set.insert(fin(p - i128::from(c)));
    }
    let mut ins = vec![input(a, asel), input(b, bsel), input(c, "")];
    for (i, n) in neg.iter().enumerate() {
        ins[i].negated = *n;
    }
    let out = run(&name, &ins, "");
    let what = format!(
        "{name} {}{a:#x}.{asel} {}{b:#x}.{bsel} {}{c:#x}",
        ["", "-"][neg[0] as usize],
        ["", "-"][neg[1] as usize],
        ["", "-"][neg[2] as usize]
    );
    assert_eq!(out.model as u32, model, "{what}");
    assert_eq!(accepted(&out), set, "{what}");
}

/// vset: 0/1 by comparing the extended values, then the tail with c unsigned.
fn check_vset(at: usize, bt: usize, cmp: usize, asel: &str, bsel: &str, tail: Tl, a: u32, b: u32, c: u32) {
    const CMPS: [&str; 6] = ["eq", "ne", "lt", "le", "gt", "ge"];
    let name = format!("vset.{}.{}.{}{}", TYPES[at], TYPES[bt], CMPS[cmp], tail.suffix());
    let (ta, tb) = (ext(a, at == 1, asel), ext(b, bt == 1, bsel));
    let r = [ta == tb, ta != tb, ta < tb, ta <= tb, ta > tb, ta >= tb][cmp];
    let model = ref_finish(i128::from(r), false, false, tail, c);
    let mut ins = vec![input(a, asel), input(b, bsel)];
    if tail != Tl::None {
        ins.push(input(c, ""));
    }
    let out = run(&name, &ins, tail.dsel());
    assert_eq!(
        out,
        Outcome::exact(u128::from(model)),
        "{name} a={a:#x}.{asel} b={b:#x}.{bsel} c={c:#x} {tail:?}"
    );
}

// ---------------------------------------------------------------------------------------------
// SIMD reference (per lane, i32)

/// The 4 half-words or 8 bytes of {b, a}, a first.
fn elems(a: u32, b: u32, w: u32) -> Vec<u32> {
    let per = 32 / w;
    (0..2 * per)
        .map(|k| {
            let word = if k < per { a } else { b };
            ((u64::from(word) >> ((k % per) * w)) & ((1u64 << w) - 1)) as u32
        })
        .collect()
}

fn ext_w(v: u32, w: u32, signed: bool) -> i32 {
    if signed && v >= 1 << (w - 1) {
        v as i32 - (1 << w)
    } else {
        v as i32
    }
}

/// Lane i of a selector string like `h21` / `b7654` (written most significant lane first).
fn sel_lane(sel: &str, i: usize) -> usize {
    let d = &sel.as_bytes()[1..];
    (d[d.len() - 1 - i] - b'0') as usize
}

fn mask_has(mask: &str, i: usize) -> bool {
    mask[1..].bytes().any(|d| (d - b'0') as usize == i)
}

/// Merge or accumulate, lane by lane.
fn simd_combine(t: &[i32], w: u32, mask: &str, add: bool, c: u32) -> u32 {
    let n = t.len();
    let cl = elems(c, 0, w);
    if add {
        let s: i64 = (0..n).filter(|&i| mask_has(mask, i)).map(|i| i64::from(t[i])).sum();
        return (i64::from(c) + s).rem_euclid(1 << 32) as u32;
    }
    let mut d = 0u32;
    for i in 0..n {
        let v = if mask_has(mask, i) {
            t[i].rem_euclid(1 << w) as u32
        } else {
            cl[i]
        };
        d |= v << (w as usize * i);
    }
    d
}

const SIMD_OPS: [&str; 6] = ["vadd", "vsub", "vavrg", "vabsdiff", "vmin", "vmax"];

/// post: 0 merge, 1 merge + .sat, 2 .add.
fn check_simd(
    four: bool,
    op: usize,
    dt: usize,
    at: usize,
    bt: usize,
    post: usize,
    asel: &str,
    bsel: &str,
    mask: &str,
    a: u32,
    b: u32,
    c: u32,
) {
    let (n, w) = if four { (4, 8) } else { (2, 16) };
    let name = format!(
        "{}{}.{}.{}.{}{}",
        SIMD_OPS[op],
        n,
        TYPES[dt],
        TYPES[at],
        TYPES[bt],
        ["", ".sat", ".add"][post]
    );
    let (da, db, dm) = if four {
        ("b3210", "b7654", "b3210")
    } else {
        ("h10", "h32", "h10")
    };
    let e = elems(a, b, w);
    let mut t = Vec::new();
    for i in 0..n {
        let va = ext_w(e[sel_lane(if asel.is_empty() { da } else { asel }, i)], w, at == 1);
        let vb = ext_w(e[sel_lane(if bsel.is_empty() { db } else { bsel }, i)], w, bt == 1);
        let r = match op {
            0 => va + vb,
            1 => va - vb,
            2 => (f64::from(va + vb) / 2.0).round() as i32,
            3 => (va - vb).abs(),
            4 => va.min(vb),
            _ => va.max(vb),
        };
        let r = if post == 1 {
            let (lo, hi) = sat_range(dt == 1, w);
            r.clamp(lo as i32, hi as i32)
        } else {
            r
        };
        t.push(r);
    }
    let m = if mask.is_empty() { dm } else { mask };
    let model = simd_combine(&t, w, m, post == 2, c);
    let mut set = BTreeSet::from([model]);
    if post == 2 {
        let narrowed: Vec<i32> = t
            .iter()
            .map(|&x| ext_w(x.rem_euclid(1 << w) as u32, w, dt == 1))
            .collect();
        set.insert(simd_combine(&narrowed, w, m, true, c));
    }
    let out = run(&name, &[input(a, asel), input(b, bsel), input(c, "")], mask);
    let what = format!("{name} d.{mask} a={a:#x}.{asel} b={b:#x}.{bsel} c={c:#x}");
    assert_eq!(out.model as u32, model, "{what}");
    assert_eq!(accepted(&out), set, "{what}");
}

fn check_vset_simd(
    four: bool,
    at: usize,
    bt: usize,
    cmp: usize,
    add: bool,
    asel: &str,
    bsel: &str,
    mask: &str,
    a: u32,
    b: u32,
    c: u32,
) {
    const CMPS: [&str; 6] = ["eq", "ne", "lt", "le", "gt", "ge"];
    let (n, w) = if four { (4, 8) } else { (2, 16) };
    let name = format!(
        "vset{n}.{}.{}.{}{}",
        TYPES[at],
        TYPES[bt],
        CMPS[cmp],
        if add { ".add" } else { "" }
    );
    let (da, db, dm) = if four {
        ("b3210", "b7654", "b3210")
    } else {
        ("h10", "h32", "h10")
    };
    let e = elems(a, b, w);
    let t: Vec<i32> = (0..n)
        .map(|i| {
            let va = ext_w(e[sel_lane(if asel.is_empty() { da } else { asel }, i)], w, at == 1);
            let vb = ext_w(e[sel_lane(if bsel.is_empty() { db } else { bsel }, i)], w, bt == 1);
            i32::from([va == vb, va != vb, va < vb, va <= vb, va > vb, va >= vb][cmp])
        })
        .collect();
    let model = simd_combine(&t, w, if mask.is_empty() { dm } else { mask }, add, c);
    let out = run(&name, &[input(a, asel), input(b, bsel), input(c, "")], mask);
    assert_eq!(
        out,
        Outcome::exact(u128::from(model)),
        "{name} d.{mask} a={a:#x}.{asel} b={b:#x}.{bsel} c={c:#x}"
    );
}

/// Masks the syntax lists (L31257, L31428-31431), plus "" (default).
fn masks(four: bool) -> Vec<String> {
    let n = if four { 4 } else { 2 };
    let mut v = vec![String::new()];
    for m in 1u32..(1 << n) {
        let digits: String = (0..n)
            .rev()
            .filter(|i| m >> i & 1 != 0)
            .map(|i| char::from(b'0' + i as u8))
            .collect();
        v.push(format!("{}{digits}", if four { 'b' } else { 'h' }));
    }
    v
}

fn rand_simd_sel(r: &mut Rng, four: bool) -> String {
    if r.below(4) == 0 {
        return String::new();
    }
    let (n, e, k) = if four { (4, 8, 'b') } else { (2, 4, 'h') };
    let digits: String = (0..n).map(|_| char::from(b'0' + r.below(e) as u8)).collect();
    format!("{k}{digits}")
}

// ---------------------------------------------------------------------------------------------
// Exhaustive sweeps: every form, selector and tail, on a few operand triples each

#[test]
fn scalar_ops_every_form_selector_and_tail() {
    let mut r = Rng(1);
    for op in 0..5 {
        for (dt, at, bt) in (0..8).map(|m| (m & 1, m >> 1 & 1, m >> 2)) {
            for sat in [false, true] {
                for asel in 0..7 {
                    for bsel in 0..7 {
                        for tail in TAILS {
                            for _ in 0..3 {
                                let (a, b, c) = (r.word(), r.word(), r.word());
                                check_scalar(ScalarCase {
                                    op,
                                    dt,
                                    at,
                                    bt,
                                    sat,
                                    asel,
                                    bsel,
                                    tail,
                                    a,
                                    b,
                                    c,
                                });
                            }
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn shifts_every_form_selector_and_tail() {
    let mut r = Rng(2);
    for shl in [true, false] {
        for clamp in [true, false] {
            for (dt, at) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
                for sat in [false, true] {
                    for asel in SCALAR_SELS {
                        for bsel in SCALAR_SELS {
                            for tail in TAILS {
                                for _ in 0..3 {
                                    // Shift amounts around 0-40 are where clamp/wrap matter.
                                    let b = if r.below(2) == 0 {
                                        r.word()
                                    } else {
                                        (r.below(41) as u32) * 0x0101_0101
                                    };
                                    check_shift(shl, clamp, dt, at, sat, asel, bsel, tail, r.word(), b, r.word());
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn vmad_every_form_selector_and_negation() {
    let mut r = Rng(3);
    let negs = [
        [false; 3],
        [true, false, false],
        [false, true, false],
        [true, true, false],
        [false, false, true],
        [true, true, true],
    ];
    for (dt, at, bt) in (0..8).map(|m| (m & 1, m >> 1 & 1, m >> 2)) {
        for po in [false, true] {
            for sat in [false, true] {
                for scale in [0, 7, 15] {
                    for asel in SCALAR_SELS {
                        for bsel in SCALAR_SELS {
                            for neg in negs {
                                if po && neg.contains(&true) {
                                    continue;
                                }
                                for _ in 0..2 {
                                    check_vmad(
                                        dt,
                                        at,
                                        bt,
                                        po,
                                        sat,
                                        scale,
                                        asel,
                                        bsel,
                                        neg,
                                        r.word(),
                                        r.word(),
                                        r.word(),
                                    );
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn vset_every_form_selector_and_tail() {
    let mut r = Rng(4);
    for (at, bt) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
        for cmp in 0..6 {
            for asel in SCALAR_SELS {
                for bsel in SCALAR_SELS {
                    for tail in TAILS {
                        for _ in 0..3 {
                            check_vset(at, bt, cmp, asel, bsel, tail, r.word(), r.word(), r.word());
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn simd_every_form_and_mask() {
    let mut r = Rng(5);
    for four in [false, true] {
        for op in 0..6 {
            for (dt, at, bt) in (0..8).map(|m| (m & 1, m >> 1 & 1, m >> 2)) {
                for post in 0..3 {
                    for mask in masks(four) {
                        for _ in 0..12 {
                            let (asel, bsel) = (rand_simd_sel(&mut r, four), rand_simd_sel(&mut r, four));
                            check_simd(
                                four,
                                op,
                                dt,
                                at,
                                bt,
                                post,
                                &asel,
                                &bsel,
                                &mask,
                                r.word(),
                                r.word(),
                                r.word(),
                            );
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn vset_simd_every_form_and_mask() {
    let mut r = Rng(6);
    for four in [false, true] {
        for (at, bt) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
            for cmp in 0..6 {
                for add in [false, true] {
                    for mask in masks(four) {
                        for _ in 0..12 {
                            let (asel, bsel) = (rand_simd_sel(&mut r, four), rand_simd_sel(&mut r, four));
                            check_vset_simd(
                                four,
                                at,
                                bt,
                                cmp,
                                add,
                                &asel,
                                &bsel,
                                &mask,
                                r.word(),
                                r.word(),
                                r.word(),
                            );
                        }
                    }
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Property tests on random operands

fn tail() -> impl Strategy<Value = Tl> {
    prop::sample::select(TAILS.to_vec())
}

fn simd_sel(four: bool) -> BoxedStrategy<String> {
    let (n, e, k) = if four { (4, 8u8, "b") } else { (2, 4u8, "h") };
    prop_oneof![
        Just(String::new()),
        prop::collection::vec(0..e, n)
            .prop_map(move |d| format!("{k}{}", d.iter().map(|x| char::from(b'0' + x)).collect::<String>())),
    ]
    .boxed()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    #[test]
    fn scalar_ops_match_i64_model(op in 0..5usize, dt in 0..2usize, at in 0..2usize, bt in 0..2usize, sat: bool,
                                  asel in 0..7usize, bsel in 0..7usize, tail in tail(), a in word(), b in word(), c in word()) {
        check_scalar(ScalarCase { op, dt, at, bt, sat, asel, bsel, tail, a, b, c });
    }

    #[test]
    fn shifts_match_i128_model(shl: bool, clamp: bool, dt in 0..2usize, at in 0..2usize, sat: bool, asel in 0..7usize,
                               bsel in 0..7usize, tail in tail(), a in word(), b in word(), c in word()) {
        check_shift(shl, clamp, dt, at, sat, SCALAR_SELS[asel], SCALAR_SELS[bsel], tail, a, b, c);
    }

    #[test]
    fn vmad_matches_i128_model(dt in 0..2usize, at in 0..2usize, bt in 0..2usize, po: bool, sat: bool,
                               scale in prop::sample::select(vec![0u32, 7, 15]), asel in 0..7usize, bsel in 0..7usize,
                               neg in any::<[bool; 3]>(), a in word(), b in word(), c in word()) {
        let neg = if po { [false; 3] } else if neg[0] != neg[1] { [neg[0], neg[1], false] } else { neg };
        check_vmad(dt, at, bt, po, sat, scale, SCALAR_SELS[asel], SCALAR_SELS[bsel], neg, a, b, c);
    }

    #[test]
    fn vset_matches_model(at in 0..2usize, bt in 0..2usize, cmp in 0..6usize, asel in 0..7usize, bsel in 0..7usize,
                          tail in tail(), a in word(), b in word(), c in word()) {
        check_vset(at, bt, cmp, SCALAR_SELS[asel], SCALAR_SELS[bsel], tail, a, b, c);
    }

    #[test]
    fn simd2_matches_per_lane_model(op in 0..6usize, dt in 0..2usize, at in 0..2usize, bt in 0..2usize, post in 0..3usize,
                                    asel in simd_sel(false), bsel in simd_sel(false),
                                    mask in prop::sample::select(masks(false)), a in word(), b in word(), c in word()) {
        check_simd(false, op, dt, at, bt, post, &asel, &bsel, &mask, a, b, c);
    }

    #[test]
    fn simd4_matches_per_lane_model(op in 0..6usize, dt in 0..2usize, at in 0..2usize, bt in 0..2usize, post in 0..3usize,
                                    asel in simd_sel(true), bsel in simd_sel(true),
                                    mask in prop::sample::select(masks(true)), a in word(), b in word(), c in word()) {
        check_simd(true, op, dt, at, bt, post, &asel, &bsel, &mask, a, b, c);
    }

    #[test]
    fn vset_simd_matches_per_lane_model(four: bool, at in 0..2usize, bt in 0..2usize, cmp in 0..6usize, add: bool,
                                        sel in (simd_sel(false), simd_sel(false), simd_sel(true), simd_sel(true)),
                                        m2 in prop::sample::select(masks(false)), m4 in prop::sample::select(masks(true)),
                                        a in word(), b in word(), c in word()) {
        let (asel, bsel, mask) = if four { (&sel.2, &sel.3, &m4) } else { (&sel.0, &sel.1, &m2) };
        check_vset_simd(four, at, bt, cmp, add, asel, bsel, mask, a, b, c);
    }
}

// ---------------------------------------------------------------------------------------------
// Hand-computed cases: the manual's examples (none states a result) and edge cases

fn line(s: &str) -> String {
    eval_line(s).unwrap_or_else(|e| panic!("`{s}`: {e}"))
}

#[test]
fn manual_examples_9_7_18_1_1() {
    // L30971 vadd.s32.u32.s32.sat r1, r2.b0, r3.h0: 255 + -32768.
    assert_eq!(line("vadd.s32.u32.s32.sat 0x000000ff.b0 0x00008000.h0"), "0xffff80ff");
    // L30972 vsub.s32.s32.u32.sat r1, r2.h1, r3.h1: -32768 - 65535.
    assert_eq!(line("vsub.s32.s32.u32.sat 0x80000000.h1 0xffff0000.h1"), "0xfffe8001");
    // L30973 vabsdiff.s32.s32.s32.sat r1.h0, r2.b0, r3.b2, c: |-128 - 127| = 255 into half 0 of c.
    assert_eq!(
        line("vabsdiff.s32.s32.s32.sat d.h0 0x80.b0 0x7f0000.b2 0x12345678"),
        "0x123400ff"
    );
    // L30974 vmin.s32.s32.s32.sat.add r1, r2, r3, c: saturation comes before the add, which wraps.
    assert_eq!(line("vmin.s32.s32.s32.sat.add 5 0xfffffff9 10"), "0x00000003");
    assert_eq!(line("vmin.s32.s32.s32.sat.add 0x7fffffff 0x7fffffff 1"), "0x80000000");
}

#[test]
fn manual_examples_9_7_18_1_2() {
    // L31033 vshl.s32.u32.u32.clamp r1, r2, r3: 40 clamps to 32, 1 << 32 keeps no low bits;
    // with .sat the s32 clamp shows the exact 2^32.
    assert_eq!(line("vshl.s32.u32.u32.clamp 1 40"), "0x00000000");
    assert_eq!(line("vshl.s32.u32.u32.sat.clamp 1 40"), "0x7fffffff");
    assert_eq!(line("vshl.u32.u32.u32.wrap 1 33"), "0x00000002");
    // L31034 vshr.u32.u32.u32.wrap r1, r2, r3.h1: 33 wraps to 1.
    assert_eq!(line("vshr.u32.u32.u32.wrap 0x80000000 0x00210000.h1"), "0x40000000");
    // Signed right shift by 32 (clamped) leaves the sign.
    assert_eq!(line("vshr.s32.s32.u32.clamp 0x80000000 100"), "0xffffffff");
    assert_eq!(line("vshr.u32.s32.u32.clamp 0x7fffffff 32"), "0x00000000");
    // 0x80000000 << 3 as u32 is 2^34: beyond 34 bits, the wrapped reading is accepted under .sat.
    assert_eq!(
        line("vshl.u32.u32.u32.sat.wrap 0x80000000 3"),
        "0xffffffff oneof:0xffffffff,0x00000000"
    );
}

#[test]
fn manual_examples_9_7_18_1_3() {
    // L31119 vmad.s32.s32.u32.sat r0, r1, r2, -r3: -2 * 3 - 5.
    assert_eq!(line("vmad.s32.s32.u32.sat 0xfffffffe 3 -5"), "0xfffffff5");
    // -2^31 * (2^32 - 1) - 1 saturates to S32_MIN.
    assert_eq!(line("vmad.s32.s32.u32.sat 0x80000000 0xffffffff -1"), "0x80000000");
    // L31120 vmad.u32.u32.u32.shr15 r0, r1.h0, r2.h0, r3: (65535 * 32768 + 16384) >> 15.
    assert_eq!(
        line("vmad.u32.u32.u32.shr15 0x0000ffff.h0 0x00008000.h0 0x4000"),
        "0x0000ffff"
    );
    // .po adds one: 3 * 5 + 1 + 1. The u32 product of two maxima saturates, or wraps to 1.
    assert_eq!(line("vmad.u32.u32.u32.po 3 5 1"), "0x00000011");
    assert_eq!(line("vmad.u32.u32.u32.sat 0xffffffff 0xffffffff 0"), "0xffffffff");
    assert_eq!(line("vmad.u32.u32.u32 0xffffffff 0xffffffff 0"), "0x00000001");
    // Negated product: -(2 * 3) + 1; both a and b negated: the product is positive.
    assert_eq!(line("vmad.s32.s32.s32 -2 3 1"), "0xfffffffb");
    assert_eq!(line("vmad.s32.s32.s32 -2 -3 1"), "0x00000007");
    // (u32 * u32) - u32 (L31068): pseudocode sign-extends the negated c; the prose's
    // zero-extension is accepted too.
    assert_eq!(line("vmad.u32.u32.u32 0 0 -0x80000000"), "0x80000000");
    assert_eq!(
        line("vmad.u32.u32.u32.sat 0 0 -0x80000000"),
        "0x7fffffff oneof:0x7fffffff,0x80000000"
    );
    // Arithmetic scale of a negative result: floor(-1 / 128) = -1.
    assert_eq!(line("vmad.s32.s32.s32.shr7 -1 1 0"), "0xffffffff");
}

#[test]
fn manual_examples_9_7_18_1_4() {
    // L31167 vset.s32.u32.lt r1, r2, r3: -1 < 0 signed.
    assert_eq!(line("vset.s32.u32.lt 0xffffffff 0"), "0x00000001");
    assert_eq!(line("vset.u32.u32.lt 0xffffffff 0"), "0x00000000");
    // L31168 vset.u32.u32.ne r1, r2, r3.h1.
    assert_eq!(line("vset.u32.u32.ne 5 0x00050000.h1"), "0x00000000");
    // Secondary ops and merge: c is unsigned.
    assert_eq!(line("vset.u32.u32.eq.add 1 1 0xffffffff"), "0x00000000");
    assert_eq!(line("vset.u32.u32.eq.max 1 1 0x80000000"), "0x80000000");
    assert_eq!(line("vset.u32.u32.eq d.b3 1 1 0xffffffff"), "0x01ffffff");
}

#[test]
fn manual_examples_9_7_18_2() {
    // L31326 vadd2.s32.s32.u32.sat r1, r2, r3, r1: lanes 1 + 65535 and 32767 + 1, both clamp.
    assert_eq!(line("vadd2.s32.s32.u32.sat 0x7fff0001 0x0001ffff 0"), "0x7fff7fff");
    // L31327 vsub2.s32.s32.s32.sat r1.h0, r2.h10, r3.h32, r1: lane 0 only, -32768 - 1 clamps.
    assert_eq!(
        line("vsub2.s32.s32.s32.sat d.h0 0x00058000.h10 0x00000001.h32 0xabcd1234"),
        "0xabcd8000"
    );
    // L31328 vmin2.s32.u32.u32.add r1.h10, r2.h00, r3.h22, r1: .h22 is b's half 0.
    assert_eq!(
        line("vmin2.s32.u32.u32.add d.h10 0x00000003.h00 0x00000005.h22 100"),
        "0x0000006a"
    );
    // L31398 vset2.s32.u32.lt r1, r2, r3, r0; L31399 vset2.u32.u32.ne.add r1, r2, r3, r0.
    assert_eq!(line("vset2.s32.u32.lt 0xffff0001 0x00010000 0"), "0x00010000");
    assert_eq!(line("vset2.u32.u32.ne.add 0x00010002 0x00010003 7"), "0x00000008");
    // L31500 vadd4.s32.s32.u32.sat r1, r2, r3, r1.
    assert_eq!(line("vadd4.s32.s32.u32.sat 0x7f800102 0x01ffff01 0"), "0x7f7f7f03");
    // L31501 vsub4.s32.s32.s32.sat r1.b0, r2.b3210, r3.b7654, r1.
    assert_eq!(
        line("vsub4.s32.s32.s32.sat d.b0 0x00000080.b3210 0x00000001.b7654 0x11223344"),
        "0x11223380"
    );
    // L31502 vmin4.s32.u32.u32.add r1.b00, r2.b0000, r3.b2222, r1: the mask .b00 is not in the
    // list (L31428-31431); with .b0, lane 0 adds MIN(a.b0, a.b2) (.b2222 picks a's byte 2).
    assert!(eval_line("vmin4.s32.u32.u32.add d.b00 0x00050009.b0000 0.b2222 100").is_err());
    assert_eq!(
        line("vmin4.s32.u32.u32.add d.b0 0x00050009.b0000 0.b2222 100"),
        "0x00000069"
    );
    // L31576 vset4.s32.u32.lt r1, r2, r3, r0.
    assert_eq!(line("vset4.s32.u32.lt 0x80ff0100 0x01010101 0"), "0x01010001");
    // L31577 vset4.u32.u32.ne.max: no .max in the vset4 syntax (L31512-31515).
    assert!(eval_line("vset4.u32.u32.ne.max 1 2 3").is_err());
    assert_eq!(line("vset4.u32.u32.ne.add 0x01020304 0x01000300 3"), "0x00000005");
}

#[test]
fn simd_defaults_and_edges() {
    // Default selectors and mask equal the explicit ones (L31257-31260, L31432-31435).
    for (x, y) in [(0x1234_8765u32, 0xfedc_0123u32), (0x7fff_8000, 0x8000_7fff)] {
        let c = 0x5555_aaaa;
        for op in ["vadd", "vsub", "vavrg", "vabsdiff", "vmin", "vmax"] {
            let d2 = line(&format!("{op}2.s32.u32.s32 {x:#x} {y:#x} {c:#x}"));
            assert_eq!(
                d2,
                line(&format!("{op}2.s32.u32.s32 d.h10 {x:#x}.h10 {y:#x}.h32 {c:#x}"))
            );
            let d4 = line(&format!("{op}4.u32.s32.u32.sat {x:#x} {y:#x} {c:#x}"));
            assert_eq!(
                d4,
                line(&format!(
                    "{op}4.u32.s32.u32.sat d.b3210 {x:#x}.b3210 {y:#x}.b7654 {c:#x}"
                ))
            );
        }
    }
    // vavrg rounds half away from zero: (-3 + 0) -> -2, (3 + 0) -> 2, (-1 + 0) -> -1.
    assert_eq!(line("vavrg2.s32.s32.s32 0x0003fffd 0 0"), "0x0002fffe");
    assert_eq!(line("vavrg4.s32.s32.s32 0x0003fdff 0 0"), "0x0002feff");
    // Accumulate adds exact lane values (255 + 255 = 510 per lane); the narrowed reading
    // (254 per lane) is accepted too.
    assert_eq!(
        line("vadd4.u32.u32.u32.add 0x000000ff 0x000000ff 0"),
        "0x000001fe oneof:0x000001fe,0x000000fe"
    );
    // SAD: vabsdiff4.add.
    assert_eq!(line("vabsdiff4.u32.u32.u32.add 0x10203040 0x40302010 1"), "0x00000081");
}

#[test]
fn eval_line_selectors_merge_and_negation() {
    // The examples in eval.rs's doc.
    assert_eq!(line("vadd.u32.u32.u32.sat.add 0x10.b1 0x20.h0 0x5"), "0x00000025");
    assert_eq!(line("vadd.u32.u32.u32 d.b2 0x10 0x20 0x33"), "0x00300033");
    // Merge into each byte / half-word, saturated to the sub-word range.
    assert_eq!(line("vadd.u32.u32.u32.sat d.b1 0xff 0xff 0xaabbccdd"), "0xaabbffdd");
    assert_eq!(line("vadd.s32.u32.u32.sat d.h1 0xffff 0xffff 0xaabbccdd"), "0x7fffccdd");
    assert_eq!(line("vsub.s32.u32.u32.sat d.b0 0 0xffff 0xaabbccdd"), "0xaabbcc80");
    // Without a merge the plain form takes two operands.
    assert_eq!(line("vadd.u32.s32.s32 0xffffffff 0xffffffff"), "0xfffffffe");
    assert_eq!(line("vadd.u32.s32.s32.sat 0xffffffff 0xffffffff"), "0x00000000");
    // SIMD mask on d.
    assert_eq!(
        line("vadd2.u32.u32.u32 d.h1 0x00010002 0x00030004 0xaaaabbbb"),
        "0x0004bbbb"
    );
    assert_eq!(
        line("vadd4.u32.u32.u32 d.b31 0x01010101 0x01010101 0xaabbccdd"),
        "0x02bb02dd"
    );
    // An unsaturated .min on an unsigned underflow: exact -1, or 5 with the dtype reading.
    assert_eq!(
        line("vsub.u32.u32.u32.min 0 1 5"),
        "0xffffffff oneof:0xffffffff,0x00000005"
    );
    // vmad negation of c.
    assert_eq!(line("vmad.s32.s32.s32 2 3 -0x1"), "0x00000005");
}

fn eval_err(name: &str, ins: &[Input], d: &str) -> String {
    match eval(form(name), &Args { ins, dsel: dsel(d) }) {
        Ok(o) => panic!("{name}: expected an error, got {o:?}"),
        Err(e) => e.message,
    }
}

#[test]
fn errors_are_reported_not_panics() {
    let bad_lines = [
        // Selectors the scalar syntax does not list (L30863).
        "vadd.u32.u32.u32 0x1.b3210 0x2",
        "vadd.u32.u32.u32 0x1.b4 0x2",
        "vadd.u32.u32.u32 0x1 0x2.h2",
        "vadd.u32.u32.u32 0x1.x1 0x2",
        "vmad.u32.u32.u32 0x1.h10 0x2 0x3",
        // Destination selectors: wrong kind, on a secondary-op form, without c, c without dsel.
        "vadd.u32.u32.u32 d.h10 1 2 3",
        "vadd.u32.u32.u32 d.b4 1 2 3",
        "vadd.u32.u32.u32.add d.b0 1 2 3",
        "vadd.u32.u32.u32 d.b0 1 2",
        "vadd.u32.u32.u32 1 2 3",
        "vmad.u32.u32.u32 d.b0 1 2 3",
        "vset.u32.u32.eq.min d.h0 1 2 3",
        // SIMD selectors and masks (L31257-31258, L31428-31433).
        "vadd2.u32.u32.u32 d.b10 1 2 3",
        "vadd2.u32.u32.u32 d.h01 1 2 3",
        "vadd2.u32.u32.u32 d.h2 1 2 3",
        "vadd4.u32.u32.u32 d.b00 1 2 3",
        "vadd4.u32.u32.u32 d.b4 1 2 3",
        "vadd4.u32.u32.u32 d.h10 1 2 3",
        "vadd2.u32.u32.u32 1.h4 2 3",
        "vadd2.u32.u32.u32 1.h012 2 3",
        "vadd2.u32.u32.u32 1.b10 2 3",
        "vadd4.u32.u32.u32 1 2.b8765 3",
        "vadd4.u32.u32.u32 1 2.b765 3",
        "vset2.u32.u32.eq 1.h0 2 3",
        // Forms the syntax does not have.
        "vadd2.u32.u32.u32.sat.add 1 2 3",
        "vadd4.s32.s32.s32.add.sat 1 2 3",
        "vshl.u32.u32.u32 1 2",
        "vshl.u32.u32.s32.wrap 1 2",
        "vset.u32.u32.lt.sat 1 2",
        "vset4.u32.u32.ne.max 1 2 3",
        // Operand counts.
        "vadd2.u32.u32.u32 1 2",
        "vmad.u32.u32.u32 1 2",
        // vmad: negating both the product and c (L31056).
        "vmad.s32.s32.s32 -1 2 -3",
        "vmad.s32.s32.s32 1 -2 -3",
    ];
    // Modifiers out of the syntax's order are read as ptxas 12.9 reads them (catalog
    // order.forms): `.sat.po` is `.po.sat`, the same form and the same result.
    assert_eq!(
        eval_line("vmad.u32.u32.u32.sat.po 1 2 3"),
        eval_line("vmad.u32.u32.u32.po.sat 1 2 3")
    );
    assert!(eval_line("vmad.u32.u32.u32.po.sat 1 2 3").is_ok());
    assert_eq!(
        eval_line("vadd.u32.u32.u32.min.sat 1 2 3"),
        eval_line("vadd.u32.u32.u32.sat.min 1 2 3")
    );
    for l in bad_lines {
        assert!(
            eval_line(l).is_err(),
            "`{l}` should be rejected, got {:?}",
            eval_line(l)
        );
    }
    // Through eval directly: negation where the form allows none (.po, L31058; non-vmad).
    let mut neg = input(1, "");
    neg.negated = true;
    let e = eval_err("vmad.u32.u32.u32.po", &[neg, input(2, ""), input(3, "")], "");
    assert!(e.contains(".po"), "{e}");
    eval_err("vadd.u32.u32.u32", &[neg, input(2, "")], "");
    // A selector on c, and wrong operand counts.
    eval_err("vadd.u32.u32.u32", &[input(1, ""), input(2, ""), input(3, "b0")], "b0");
    eval_err("vadd2.u32.u32.u32", &[input(1, ""), input(2, "")], "");
    eval_err("vadd.u32.u32.u32", &[input(1, "")], "");
    eval_err(
        "vset.u32.u32.eq",
        &[input(1, ""), input(2, ""), input(3, ""), input(4, "")],
        "",
    );
    // A dsel on a form whose d takes none.
    eval_err(
        "vmin.u32.u32.u32.max",
        &[input(1, ""), input(2, ""), input(3, "")],
        "b0",
    );
    eval_err("vmad.s32.s32.s32", &[input(1, ""), input(2, ""), input(3, "")], "h0");
    // Messages name the rule.
    let e = eval_line("vadd.u32.u32.u32 d.b0 1 2").unwrap_err().message;
    assert!(e.contains("merges into c"), "{e}");
    let e = eval_line("vadd4.u32.u32.u32 d.b00 1 2 3").unwrap_err().message;
    assert!(e.contains("mask"), "{e}");
    let e = eval_line("vmad.s32.s32.s32 -1 2 -3").unwrap_err().message;
    assert!(e.contains("either the product"), "{e}");
}

// ---------------------------------------------------------------------------------------------
// Catalog coverage

#[test]
fn catalog_counts_per_section() {
    let cat = catalog();
    let count = |s: &str| cat.forms.iter().filter(|f| f.section == s).count();
    assert_eq!(count("9.7.18.1.1"), 320);
    assert_eq!(count("9.7.18.1.2"), 128);
    assert_eq!(count("9.7.18.1.3"), 96);
    assert_eq!(count("9.7.18.1.4"), 96);
    assert_eq!(count("9.7.18.2.1"), 144);
    assert_eq!(count("9.7.18.2.2"), 48);
    assert_eq!(count("9.7.18.2.3"), 144);
    assert_eq!(count("9.7.18.2.4"), 48);
    for f in cat.forms.iter().filter(|f| f.section.starts_with("9.7.18")) {
        let simd = f.opcode.ends_with(['2', '4']);
        assert_eq!(f.ptx.to_string(), if simd { "3.0" } else { "2.0" }, "{}", f.name);
        assert_eq!(f.target.to_string(), if simd { "sm_30" } else { "sm_20" }, "{}", f.name);
        assert!(
            f.inputs.iter().chain(&f.outputs).all(|o| o.ty.bits() == 32),
            "{}",
            f.name
        );
    }
}

#[test]
fn every_video_form_evaluates_on_random_operands() {
    let mut r = Rng(7);
    let cat = catalog();
    let forms: Vec<&Form> = cat.forms.iter().filter(|f| f.section.starts_with("9.7.18")).collect();
    assert_eq!(forms.len(), 1024);
    for f in forms {
        let simd = f.opcode.ends_with(['2', '4']);
        let four = f.opcode.ends_with('4');
        let d_sel = f.outputs[0].flags.sel;
        for _ in 0..16 {
            let mut ins: Vec<Input> = f
                .inputs
                .iter()
                .map(|o| {
                    let sel = if !o.flags.sel {
                        String::new()
                    } else if simd {
                        rand_simd_sel(&mut r, four)
                    } else {
                        SCALAR_SELS[r.below(7)].to_string()
                    };
                    input(r.word(), &sel)
                })
                .collect();
            let mut d = String::new();
            if simd {
                let m = masks(four);
                d = m[r.below(m.len())].clone();
            } else if d_sel {
                // The plain/merge row: either no c, or c with a destination selector.
                if r.below(2) == 0 {
                    ins.pop();
                } else {
                    d = SCALAR_SELS[1 + r.below(6)].to_string();
                }
            }
            if f.opcode == "vmad" && !f.has("po") {
                let n = r.below(6);
                let neg = [
                    [false; 3],
                    [true, false, false],
                    [false, true, false],
                    [true, true, false],
                    [false, false, true],
                    [true, true, true],
                ][n];
                for (i, x) in neg.iter().enumerate() {
                    ins[i].negated = *x;
                }
            }
            let out = eval(
                f,
                &Args {
                    ins: &ins,
                    dsel: dsel(&d),
                },
            )
            .unwrap_or_else(|e| panic!("{}: {e}", f.name));
            assert_eq!(out.len(), 1, "{}", f.name);
            assert!(out[0].model >> 32 == 0 && !accepted(&out[0]).is_empty(), "{}", f.name);
        }
    }
}
