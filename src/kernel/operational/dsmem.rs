//! Scenarios of the distributed-shared-memory forms: `ld`, `st`, `atom` and `red` on
//! `.shared::cluster` (§9.7.9.8 L12436, §9.7.9.11 L12778, §9.7.13.5 L17371, §9.7.13.6 L17617),
//! `cvta` to and from `.shared::cluster` (§9.7.9.20, L13534) and `isspacep.shared::cluster`
//! (§9.7.9.19, L13476).
//!
//! A cluster of two CTAs: each fills a 16-byte slot per thread of its shared memory from `in`;
//! after a `barrier.cluster` phase, each thread of CTA 0 accesses its slot *in CTA 1* through
//! the address `mapa` gives (L14114-14116) with the form under test — a load stores what it
//! read to `out`, a store writes operands from `in`, an atomic combines an operand with the
//! slot and stores the old value it returns; after another phase both CTAs store their slots
//! to `out`. The 128-bit atomics `atom.exch.b128`/`atom.cas.b128` (L17386-17387), which no
//! golden vectors judge, are also taken in their other spaces: through the generic address of
//! the slot in CTA 1, on the thread's own slot (`.shared`, `.shared::cta`), or on its own
//! record of `in` (`.global`, then copied to its own slot). The expected bytes are this module's: loads and stores by byte copying, the
//! atomic operations by its own arithmetic (integers in 128-bit arithmetic; `f32`/`f64` `.add`
//! by Rust's `+`, which is the round-to-nearest-even the manual gives, L17488, on operands
//! and sums kept away from subnormals and NaN; `f16`/`bf16` `.add.noftz` by the exact sum in
//! `f64` rounded to 11 or 8 significant bits, nearest even, by [`round_to`], on operands whose
//! sums are exact in `f64` and normal in the format). CTA 0's own slots must be untouched.

use super::cluster::Grid;
use super::{header, instr, BuildError, Rng, Scenario, THREADS};
use spec::catalog::{Exec, Form, PtxVersion};

/// Bytes of a thread's slot.
const SLOT: usize = 16;

/// Shared memory of a CTA: one slot per thread.
const DECLS: &str = ".shared .align 16 .b8 buf[512];";

/// Whether `form` is one of this module's: a `.shared::cluster` access of `ld`, `st`, `atom`,
/// `red`, `cvta` (the `.u32` ones in a 32-bit module), `isspacep`, or a 128-bit `atom` on
/// `.shared`, `.shared::cta`, `.global` or a generic address (no golden vectors judge those;
/// see [`Target`]).
pub(super) fn is_dsmem(form: &Form) -> bool {
    let cluster = matches!(
        form.exec(),
        Some(Exec::Ld | Exec::St | Exec::Atom | Exec::Cvta | Exec::Isspacep)
    ) && form.var("ss") == Some("shared::cluster");
    cluster || (is_b128_atom(form) && Target::of(form).is_some())
}

/// `atom.exch.b128` and `atom.cas.b128` (L17386-17387).
fn is_b128_atom(form: &Form) -> bool {
    form.exec() == Some(Exec::Atom) && form.var("t") == Some("b128")
}

/// The slot CTA 0's thread accesses, by the form's state space.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Target {
    /// Its slot in CTA 1, at the `.shared::cluster` address `mapa` gives (L14114-14116).
    Peer,
    /// Its slot in CTA 1, at the generic address of that `.shared::cluster` address (`cvta`,
    /// L13534): a generic address in the shared window is a `.shared::cluster` one.
    PeerGeneric,
    /// Its own slot, at the `.shared` (`.shared::cta`) address (128-bit `atom` only).
    Own,
    /// Its own record of `in`, in global memory (128-bit `atom` only); the thread then copies
    /// the record into its own slot, so the dump shows it as for [`Target::Own`].
    Global,
}

impl Target {
    /// `None` for the spaces an atomic does not access (`.local`, ...).
    fn of(form: &Form) -> Option<Target> {
        match form.var("ss") {
            Some("global") => Some(Target::Global),
            Some("shared::cluster") => Some(Target::Peer),
            Some("shared" | "shared::cta") => Some(Target::Own),
            Some("") | None => Some(Target::PeerGeneric),
            _ => None,
        }
    }

    /// The register holding the slot's address (see [`slot_addresses`]).
    fn reg(self) -> &'static str {
        match self {
            Target::Peer => "%rd11",
            Target::PeerGeneric => "%rd13",
            Target::Own => "%rd10",
            Target::Global => "%rd14",
        }
    }

    /// Where the slot lies: "in CTA 1" or "of its own".
    fn place(self) -> &'static str {
        match self {
            Target::Own => "of its own",
            Target::Global => "of its own in `in` (global memory)",
            _ => "in CTA 1",
        }
    }
}

/// The form's element type: its width in bits and name.
struct Elem {
    bits: u32,
    name: &'static str,
}

fn elem(form: &Form) -> Result<Elem, BuildError> {
    let name = form
        .var("t")
        .ok_or_else(|| BuildError(format!("`{}` has no type", form.name)))?;
    let bits = match name {
        "b8" | "u8" | "s8" => 8,
        "b16" | "u16" | "s16" | "f16" | "bf16" => 16,
        "b32" | "u32" | "s32" | "f32" | "f16x2" | "bf16x2" => 32,
        "b64" | "u64" | "s64" | "f64" => 64,
        "b128" => 128,
        _ => return Err(BuildError(format!("`{}`: no element model for .{name}", form.name))),
    };
    Ok(Elem { bits, name })
}

/// Elements of the form's vector (`.v2`, `.v4`, none).
fn lanes(form: &Form) -> usize {
    match form.var("vec") {
        Some("v2") => 2,
        Some("v4") => 4,
        Some("v8") => 8,
        _ => 1,
    }
}

/// `n` registers of `bits` from number 20 on, and the operand text (`{..}` for a vector).
fn regs(bits: u32, n: usize, first: usize) -> (Vec<String>, String) {
    let class = match bits {
        8 | 16 => "%h",
        32 => "%r",
        64 => "%rd",
        _ => "%q",
    };
    let first = if bits == 128 { first / 10 } else { first };
    let v: Vec<String> = (0..n).map(|k| format!("{class}{}", first + k)).collect();
    let text = if n == 1 {
        v[0].clone()
    } else {
        format!("{{{}}}", v.join(", "))
    };
    (v, text)
}

/// The vector prefix of a helper `ld`/`st` of `n` elements.
fn vec_mod(n: usize) -> String {
    if n == 1 {
        String::new()
    } else {
        format!(".v{n}")
    }
}

pub(super) fn scenarios(form: &Form, rng: &mut Rng) -> Result<Vec<Scenario>, BuildError> {
    match form.exec() {
        Some(Exec::Cvta) => cvta(form, rng),
        Some(Exec::Isspacep) => isspacep(form, rng),
        _ => access(form, rng),
    }
}

/// Lines: the thread's slot address in its own CTA (`%rd10`, `.shared`) and in CTA 1 (`%rd11`;
/// generic, `%rd13`); its record of `in` in CTA 0 (`%rd14`, `.global`).
fn slot_addresses() -> Vec<String> {
    vec![
        "mov.u64 %rd10, buf;".into(),
        format!("mul.wide.u32 %rd9, %r0, {SLOT};"),
        "add.s64 %rd10, %rd10, %rd9;".into(),
        "mov.u32 %r11, 1;".into(),
        "mapa.shared::cluster.u64 %rd11, %rd10, %r11;".into(),
        "cvta.shared::cluster.u64 %rd13, %rd11;".into(),
        "add.s64 %rd14, %rd1, %rd9;".into(),
    ]
}

/// Every thread copies its CTA's slot from `in` (at `rank·512 + 16·tid`) to its shared slot.
fn fill(g: &mut Grid) {
    let mut l = vec![
        format!("mul.wide.u32 %rd7, %r2, {SLOT};"),
        "add.s64 %rd7, %rd1, %rd7;".into(),
        "mov.u64 %rd8, buf;".into(),
        format!("mul.wide.u32 %rd9, %r0, {SLOT};"),
        "add.s64 %rd8, %rd8, %rd9;".into(),
    ];
    for w in 0..SLOT / 4 {
        l.push(format!("ld.global.u32 %r10, [%rd7+{}];", 4 * w));
        l.push(format!("st.shared.u32 [%rd8+{}], %r10;", 4 * w));
    }
    g.by(None, &l);
}

/// Every thread stores its shared slot to its record at `base`.
fn dump(g: &mut Grid, base: usize) {
    let mut l = vec![
        "mov.u64 %rd8, buf;".into(),
        format!("mul.wide.u32 %rd9, %r0, {SLOT};"),
        "add.s64 %rd8, %rd8, %rd9;".into(),
        Grid::at(SLOT),
    ];
    for w in 0..SLOT / 4 {
        l.push(format!("ld.shared.u32 %r10, [%rd8+{}];", 4 * w));
        l.push(format!("st.global.u32 [%rd6+{}], %r10;", base + 4 * w));
    }
    g.by(None, &l);
}

/// `ld`/`st`/`atom`/`red` on `.shared::cluster`: CTA 0's threads on their slots in CTA 1 (a
/// 128-bit `atom` also through a generic address, or on their own slots through `.shared`).
fn access(form: &Form, rng: &mut Rng) -> Result<Vec<Scenario>, BuildError> {
    let target = Target::of(form).ok_or_else(|| BuildError(format!("`{}`: no slot in its state space", form.name)))?;
    let place = target.place();
    let head = header(form, 90, PtxVersion(7, 8));
    let e = elem(form)?;
    let n = lanes(form);
    let bytes = e.bits as usize / 8 * n;
    let t_count = THREADS as usize;
    // `in`: the two CTAs' slots, then per thread of CTA 0 an operand slot `b` and a slot `c`.
    let ops_at = 2 * t_count * SLOT;
    let mut input = rng.bytes(ops_at + 2 * t_count * SLOT);
    let op = form.var("op");
    let model = match form.exec() {
        Some(Exec::Atom) => Some(Atomic::new(form, &e, op)?),
        _ => None,
    };
    if let Some(m) = &model {
        for t in 0..t_count {
            let slot = if matches!(target, Target::Own | Target::Global) {
                t
            } else {
                t_count + t
            } * SLOT;
            let (b, c) = (ops_at + t * SLOT, ops_at + (t_count + t) * SLOT);
            m.operands(rng, t, &mut input, slot, b, c, bytes);
        }
    }
    let mut g = Grid::new(2);
    let wide = e.bits == 128;
    fill(&mut g);
    g.sync();
    let rec = g.records(SLOT);
    let helper = |op: &str, n: usize| format!("{op}.global{}.b{}", vec_mod(n), e.bits.max(8));
    let mut l = slot_addresses();
    l.push(format!("mul.wide.u32 %rd12, %r0, {SLOT};"));
    l.push(format!("add.s64 %rd12, %rd12, {};", ops_at));
    l.push("add.s64 %rd12, %rd1, %rd12;".into());
    let (_, d) = regs(e.bits, n, 20);
    let (_, b) = regs(e.bits, n, 30);
    let (_, c) = regs(e.bits, n, 40);
    let addr = format!("[{}]", target.reg());
    let store_d = format!("{} [%rd6+{rec}], {d};", helper("st", n));
    let what: String = match (form.exec(), &model) {
        (Some(Exec::Ld), _) => {
            l.push(instr(form, &[("d", d.clone()), ("addr", addr)])?);
            l.push(Grid::at(SLOT));
            l.push(store_d);
            format!("loaded from the slot {place}")
        }
        (Some(Exec::St), _) => {
            l.push(format!("{} {b}, [%rd12];", helper("ld", n)));
            l.push(instr(form, &[("addr", addr), ("b", b.clone())])?);
            format!("stored to the slot {place}")
        }
        (_, Some(m)) => {
            l.push(format!("{} {b}, [%rd12];", helper("ld", n)));
            l.push(format!("{} {c}, [%rd12+{}];", helper("ld", n), t_count * SLOT));
            let mut given = vec![("addr", addr), ("b", b.clone())];
            if m.kind == Op::Cas {
                given.push(("c", c.clone()));
            }
            if !form.outputs.is_empty() {
                given.push(("d", d.clone()));
            }
            l.push(instr(form, &given)?);
            if target == Target::Global {
                // The record's new bytes into the thread's own slot (dumped below).
                l.push(format!("ld.global.b{0} %q5, [%rd14];", e.bits));
                l.push(format!("st.shared.b{0} [%rd10], %q5;", e.bits));
            }
            if !form.outputs.is_empty() {
                l.push(Grid::at(SLOT));
                l.push(store_d);
            }
            format!("{} on the slot {place}", m.op)
        }
        _ => return Err(BuildError(format!("`{}` has no access model", form.name))),
    };
    g.by(Some(0), &l);
    g.sync();
    let after = g.records(SLOT);
    dump(&mut g, after);
    g.sync();
    // Expectations: the accessed slot (CTA 1's, or CTA 0's own) changes as the form says, the
    // other one not at all.
    for t in 0..THREADS {
        let tu = t as usize;
        let own_at = tu * SLOT;
        let peer_at = t_count * SLOT + tu * SLOT;
        let own_target = matches!(target, Target::Own | Target::Global);
        let (slot_at, other_at) = if own_target {
            (own_at, peer_at)
        } else {
            (peer_at, own_at)
        };
        let mut slot = input[slot_at..slot_at + SLOT].to_vec();
        let other = input[other_at..other_at + SLOT].to_vec();
        let b_in = &input[ops_at + tu * SLOT..ops_at + tu * SLOT + bytes];
        let c_in = &input[ops_at + (t_count + tu) * SLOT..ops_at + (t_count + tu) * SLOT + bytes];
        match (form.exec(), &model) {
            (Some(Exec::Ld), _) => g.check(
                rec,
                SLOT,
                t,
                slot[..bytes].to_vec(),
                format!(
                    "`{}`: the {bytes} bytes of the thread's slot {place} (L12436, L14114)",
                    form.name
                ),
            ),
            (Some(Exec::St), _) => slot[..bytes].copy_from_slice(b_in),
            (_, Some(m)) => {
                let old = slot[..bytes].to_vec();
                let new = m.apply(&old, b_in, c_in);
                slot[..bytes].copy_from_slice(&new);
                if !form.outputs.is_empty() {
                    g.check(
                        rec,
                        SLOT,
                        t,
                        old,
                        format!(
                            "`{}` returns the old value of the slot {place} (L17488-17500)",
                            form.name
                        ),
                    );
                }
            }
            _ => {}
        }
        let (own, peer) = if own_target { (slot, other) } else { (other, slot) };
        let (own_what, peer_what) = if own_target {
            (what.clone(), "untouched".to_string())
        } else {
            ("untouched".to_string(), what.clone())
        };
        g.check(
            after,
            SLOT,
            t,
            own,
            format!("CTA 0's own slot after its `{}`: {own_what}", form.name),
        );
        g.check(
            after,
            SLOT,
            THREADS + t,
            peer,
            format!("CTA 1's slot after CTA 0's `{}`: {peer_what} (L14114-14116)", form.name),
        );
    }
    Ok(vec![g.finish(
        form,
        &format!(
            "CTA 0 of a 2-CTA cluster: {what} ({} address); both CTAs' slots stored",
            match target {
                Target::Peer => "`.shared::cluster`, through mapa",
                Target::PeerGeneric => "generic, through mapa and cvta",
                Target::Own => "`.shared`",
                Target::Global => "`.global`, copied to the own slot",
            }
        ),
        head,
        DECLS,
        &input,
        wide,
    )])
}

/// The operations of `atom`/`red` (L17486-17500).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    And,
    Or,
    Xor,
    Exch,
    Cas,
    Add,
    Inc,
    Dec,
    Min,
    Max,
}

/// The form's `op` modifier names (the catalog's `op` variable) and their operations.
const OPS: [(&str, Op); 10] = [
    ("and", Op::And),
    ("or", Op::Or),
    ("xor", Op::Xor),
    ("exch", Op::Exch),
    ("cas", Op::Cas),
    ("add", Op::Add),
    ("inc", Op::Inc),
    ("dec", Op::Dec),
    ("min", Op::Min),
    ("max", Op::Max),
];

/// An atomic operation as the manual defines it (L17486-17500), on the bytes of one access.
struct Atomic {
    op: &'static str,
    kind: Op,
    /// The element type's name (`u32`, `f16x2`).
    ty: &'static str,
    bits: u32,
}

/// Floating-point formats: significand bits (with the hidden one) and exponent bits.
fn float_format(ty: &str) -> Option<(u32, u32)> {
    match ty {
        "f16" | "f16x2" => Some((11, 5)),
        "bf16" | "bf16x2" => Some((8, 8)),
        "f32" => Some((24, 8)),
        "f64" => Some((53, 11)),
        _ => None,
    }
}

/// The scalar width of a (possibly packed) type.
fn scalar_bits(ty: &str, bits: u32) -> u32 {
    if ty.ends_with("x2") {
        bits / 2
    } else {
        bits
    }
}

impl Atomic {
    fn new(form: &Form, e: &Elem, op: Option<&'static str>) -> Result<Atomic, BuildError> {
        let op = op.ok_or_else(|| BuildError(format!("`{}` has no operation", form.name)))?;
        let kind = OPS
            .iter()
            .find(|(n, _)| *n == op)
            .map(|(_, k)| *k)
            .ok_or_else(|| BuildError(format!("`{}`: no model of .{op}", form.name)))?;
        Ok(Atomic {
            op,
            kind,
            ty: e.name,
            bits: e.bits,
        })
    }

    /// Draws the operands of thread `t` where the operation needs them in a range: the slot's
    /// old value (at `slot`), `b` and `c` (`bytes` each).
    #[allow(clippy::too_many_arguments)]
    fn operands(&self, rng: &mut Rng, t: usize, input: &mut [u8], slot: usize, b: usize, c: usize, bytes: usize) {
        let sb = scalar_bits(self.ty, self.bits) as usize / 8;
        if let Some((p, _)) = float_format(self.ty) {
            for k in 0..bytes / sb {
                let x = random_float(rng, p);
                let y = random_float(rng, p);
                input[slot + k * sb..slot + (k + 1) * sb].copy_from_slice(&encode(x, self.ty)[..sb]);
                input[b + k * sb..b + (k + 1) * sb].copy_from_slice(&encode(y, self.ty)[..sb]);
            }
            return;
        }
        match self.kind {
            Op::Inc | Op::Dec => {
                // Both branches of inc/dec (L17497-17500): old around b, zero among them.
                let old = if t.is_multiple_of(8) { 0 } else { rng.range(0, 40) };
                let lim = rng.range(0, 32);
                input[slot..slot + 4].copy_from_slice(&old.to_le_bytes());
                input[b..b + 4].copy_from_slice(&lim.to_le_bytes());
            }
            Op::Cas if t.is_multiple_of(2) => {
                // Half the threads compare equal: the swap happens.
                let old = input[slot..slot + bytes].to_vec();
                input[b..b + bytes].copy_from_slice(&old);
            }
            _ => {}
        }
        let _ = c;
    }

    /// `operation(*a, b[, c])` (L17493-17500) on the access's bytes.
    fn apply(&self, old: &[u8], b: &[u8], c: &[u8]) -> Vec<u8> {
        let sb = scalar_bits(self.ty, self.bits) as usize / 8;
        let mut out = Vec::with_capacity(old.len());
        for k in 0..old.len() / sb {
            let (o, x, y) = (
                &old[k * sb..(k + 1) * sb],
                &b[k * sb..(k + 1) * sb],
                &c[k * sb..(k + 1) * sb],
            );
            if float_format(self.ty).is_some() {
                let s = add_float(self.ty, o, x);
                out.extend_from_slice(&s[..sb]);
                continue;
            }
            let bits = 8 * sb as u32;
            let mask = if bits == 128 { u128::MAX } else { (1u128 << bits) - 1 };
            let (r, s, u) = (le(o), le(x), le(y));
            let signed = |v: u128| -> i128 {
                let sh = 128 - bits;
                ((v << sh) as i128) >> sh
            };
            let v = match self.kind {
                Op::And => r & s,
                Op::Or => r | s,
                Op::Xor => r ^ s,
                Op::Exch => s,
                Op::Cas => {
                    if r == s {
                        u
                    } else {
                        r
                    }
                }
                Op::Add => r.wrapping_add(s),
                Op::Inc => {
                    if r >= s {
                        0
                    } else {
                        r + 1
                    }
                }
                Op::Dec => {
                    if r == 0 || r > s {
                        s
                    } else {
                        r - 1
                    }
                }
                Op::Min | Op::Max => {
                    let less = if self.ty.starts_with('s') {
                        signed(r) < signed(s)
                    } else {
                        r < s
                    };
                    if less == (self.kind == Op::Min) {
                        r
                    } else {
                        s
                    }
                }
            } & mask;
            out.extend_from_slice(&v.to_le_bytes()[..sb]);
        }
        out
    }
}

/// Little-endian bytes as an integer.
fn le(b: &[u8]) -> u128 {
    let mut a = [0u8; 16];
    a[..b.len()].copy_from_slice(b);
    u128::from_le_bytes(a)
}

/// A random float with `p` significand bits and exponent in `-4..=4`: normal in every format,
/// and the sum of two is exact in `f64` and either zero or normal.
fn random_float(rng: &mut Rng, p: u32) -> f64 {
    let frac = (rng.next() >> (64 - (p - 1))) as f64 / f64::from(2u32).powi(p as i32 - 1);
    let e = rng.range(0, 8) as i32 - 4;
    let s = if rng.next() & 1 == 1 { -1.0 } else { 1.0 };
    s * (1.0 + frac) * f64::from(2u32).powi(e)
}

/// `x` (representable in the format of `ty`) as its bits, little-endian (16 bytes, the
/// format's width first).
fn encode(x: f64, ty: &str) -> [u8; 16] {
    let mut out = [0u8; 16];
    match ty {
        "f64" => out[..8].copy_from_slice(&x.to_bits().to_le_bytes()),
        "f32" => out[..4].copy_from_slice(&(x as f32).to_bits().to_le_bytes()),
        "bf16" | "bf16x2" => out[..2].copy_from_slice(&(((x as f32).to_bits() >> 16) as u16).to_le_bytes()),
        _ => {
            // binary16, normal or zero: sign, exponent + 15, the 10 fraction bits.
            let bits = if x == 0.0 {
                u16::from(x.is_sign_negative()) << 15
            } else {
                let e = exponent(x);
                let frac = ((x.abs() / f64::from(2u32).powi(e) - 1.0) * 1024.0) as u16;
                (u16::from(x < 0.0) << 15) | (((e + 15) as u16) << 10) | frac
            };
            out[..2].copy_from_slice(&bits.to_le_bytes());
        }
    }
    out
}

/// The value of bits `b` (little-endian) in the format of `ty` (normal or zero).
fn decode(b: &[u8], ty: &str) -> f64 {
    match ty {
        "f64" => f64::from_bits(le(b) as u64),
        "f32" => f64::from(f32::from_bits(le(b) as u32)),
        "bf16" | "bf16x2" => f64::from(f32::from_bits((le(&b[..2]) as u32) << 16)),
        _ => {
            let h = le(&b[..2]) as u32;
            let s = if h >> 15 == 1 { -1.0 } else { 1.0 };
            let e = ((h >> 10) & 31) as i32;
            let f = f64::from(h & 1023);
            if e == 0 {
                s * f * f64::from(2u32).powi(-24)
            } else {
                s * (1.0 + f / 1024.0) * f64::from(2u32).powi(e - 15)
            }
        }
    }
}

/// `floor(log2 |x|)` of a normal `f64`.
fn exponent(x: f64) -> i32 {
    ((x.to_bits() >> 52) & 0x7ff) as i32 - 1023
}

/// `x` rounded to `p` significant bits, to nearest, ties to even (the result normal in the
/// target format; `x` exact).
fn round_to(x: f64, p: u32) -> f64 {
    if x == 0.0 {
        return 0.0;
    }
    let scale = f64::from(2u32).powi(exponent(x) - (p as i32 - 1));
    (x / scale).round_ties_even() * scale
}

/// `.add` of two elements of a float type (L17488-17492): `f32`/`f64` by Rust's `+`, the
/// 16-bit formats by the exact `f64` sum rounded once.
fn add_float(ty: &str, a: &[u8], b: &[u8]) -> [u8; 16] {
    let mut out = [0u8; 16];
    match ty {
        "f32" => {
            let s = f32::from_bits(le(a) as u32) + f32::from_bits(le(b) as u32);
            out[..4].copy_from_slice(&s.to_bits().to_le_bytes());
        }
        "f64" => {
            let s = f64::from_bits(le(a) as u64) + f64::from_bits(le(b) as u64);
            out[..8].copy_from_slice(&s.to_bits().to_le_bytes());
        }
        _ => {
            let (p, _) = float_format(ty).expect("a float type");
            let s = round_to(decode(a, ty) + decode(b, ty), p);
            // x + (-x) is +0 in round-to-nearest.
            out = encode(if s == 0.0 { 0.0 } else { s }, ty);
        }
    }
    out
}

/// `cvta.shared::cluster` (generic from a `.shared::cluster` address) and
/// `cvta.to.shared::cluster` (the reverse): CTA 0's threads reach their slots in CTA 1 through
/// the converted address, loading the first word.
fn cvta(form: &Form, rng: &mut Rng) -> Result<Vec<Scenario>, BuildError> {
    let head = header(form, 90, PtxVersion(7, 8));
    let input = rng.bytes(2 * THREADS as usize * SLOT);
    let to = form.has("to");
    let mut g = Grid::new(2);
    // A `.u32` `cvta` converts 32-bit addresses: a 32-bit module's (§11.1.3, L33312-33347;
    // the slot addresses' 64-bit registers hold them zero-extended, L3114).
    let narrow = form.var("t") == Some("u32");
    if narrow {
        g.k.address_size = 32;
    }
    fill(&mut g);
    g.sync();
    let rec = g.records(4);
    let mut l = slot_addresses();
    if narrow && to {
        l.push("cvt.u32.u64 %r20, %rd10;".into());
        l.push("cvta.shared.u32 %r20, %r20;".into());
        l.push("mapa.u32 %r20, %r20, %r11;".into());
        l.push(instr(form, &[("p", "%r21".into()), ("a", "%r20".into())])?);
        l.push("ld.shared::cluster.u32 %r9, [%r21];".into());
    } else if narrow {
        l.push("cvt.u32.u64 %r20, %rd11;".into());
        l.push(instr(form, &[("p", "%r21".into()), ("a", "%r20".into())])?);
        l.push("ld.u32 %r9, [%r21];".into());
    } else if to {
        l.push("cvta.shared.u64 %rd13, %rd10;".into());
        l.push("mapa.u64 %rd13, %rd13, %r11;".into());
        l.push(instr(form, &[("p", "%rd14".into()), ("a", "%rd13".into())])?);
        l.push("ld.shared::cluster.u32 %r9, [%rd14];".into());
    } else {
        l.push(instr(form, &[("p", "%rd14".into()), ("a", "%rd11".into())])?);
        l.push("ld.u32 %r9, [%rd14];".into());
    }
    l.push(Grid::at(4));
    l.push(format!("st.global.u32 [%rd6+{rec}], %r9;"));
    g.by(Some(0), &l);
    g.sync();
    for t in 0..THREADS as usize {
        let at = THREADS as usize * SLOT + t * SLOT;
        g.check(
            rec,
            4,
            t as u32,
            input[at..at + 4].to_vec(),
            format!(
                "the first word of the thread's slot in CTA 1, through the address `{}` converts (L13551-13561)",
                form.name
            ),
        );
    }
    Ok(vec![g.finish(
        form,
        &format!(
            "{} of CTA 1's slot addresses in a 2-CTA cluster, loaded through",
            form.name
        ),
        head,
        DECLS,
        &input,
        false,
    )])
}

/// `isspacep.shared::cluster` of the generic addresses of the thread's slot in CTA 1 and in its
/// own CTA (True, L13498) and of `out` (False).
fn isspacep(form: &Form, rng: &mut Rng) -> Result<Vec<Scenario>, BuildError> {
    let head = header(form, 90, PtxVersion(7, 8));
    let input = rng.bytes(4);
    let mut g = Grid::new(2);
    let rec = g.records(12);
    let mut l = slot_addresses();
    l.push("cvta.shared::cluster.u64 %rd13, %rd11;".into());
    l.push("cvta.shared.u64 %rd14, %rd10;".into());
    l.push(Grid::at(12));
    for (k, a) in ["%rd13", "%rd14", "%rd0"].iter().enumerate() {
        l.push(instr(form, &[("p", "%p3".into()), ("a", a.to_string())])?);
        l.push("selp.u32 %r9, 1, 0, %p3;".into());
        l.push(format!("st.global.u32 [%rd6+{}], %r9;", rec + 4 * k));
    }
    g.by(None, &l);
    for t in 0..2 * THREADS {
        let mut e = Vec::new();
        for v in [1u32, 1, 0] {
            e.extend_from_slice(&v.to_le_bytes());
        }
        g.check(
            rec,
            12,
            t,
            e,
            "isspacep.shared::cluster of the generic addresses of the thread's slot in CTA 1, in its own CTA (1: every shared address the cluster's threads can reach, L13498) and of `out` (0)".into(),
        );
    }
    Ok(vec![g.finish(
        form,
        "isspacep.shared::cluster of shared and global generic addresses in a 2-CTA cluster",
        head,
        DECLS,
        &input,
        false,
    )])
}

#[cfg(test)]
mod tests {
    use super::*;
    use spec::catalog::catalog;

    /// Rounding to 11 and 8 significant bits, pinned by hand: ties go to the even neighbour.
    #[test]
    fn sums_round_to_nearest_even() {
        let ulp = |p: i32| f64::from(2u32).powi(-p);
        // f16 near 1: ulp 2^-10. 1 + 2^-11 is a tie between 1 and 1 + 2^-10: 1 (even).
        assert_eq!(round_to(1.0 + ulp(11), 11), 1.0);
        // (1 + 2^-10) + 2^-11: between 1 + 2^-10 (odd) and 1 + 2^-9 (even): up.
        assert_eq!(round_to(1.0 + ulp(10) + ulp(11), 11), 1.0 + ulp(9));
        // Not a tie: 1 + 2^-11 + 2^-20 rounds up.
        assert_eq!(round_to(1.0 + ulp(11) + ulp(20), 11), 1.0 + ulp(10));
        // bf16: 8 bits; 3 + 2^-6 = 0b11.000001: ulp at 2 is 2^-6, exact.
        assert_eq!(round_to(3.0 + ulp(6), 8), 3.0 + ulp(6));
        // f16 bits: 1.5 is 0x3e00, -2.0 is 0xc000; bf16 1.5 is 0x3fc0.
        assert_eq!(&encode(1.5, "f16")[..2], &[0x00, 0x3e]);
        assert_eq!(&encode(-2.0, "f16")[..2], &[0x00, 0xc0]);
        assert_eq!(&encode(1.5, "bf16")[..2], &[0xc0, 0x3f]);
        assert_eq!(decode(&[0x00, 0x3e], "f16"), 1.5);
        // f16 0x3c01 (1 + 2^-10) + 0x1000 (2^-11): 0x3c02.
        let s = add_float("f16", &[0x01, 0x3c], &[0x00, 0x10]);
        assert_eq!(&s[..2], &[0x02, 0x3c]);
    }

    fn atomic(op: &'static str, ty: &'static str, bits: u32) -> Atomic {
        Atomic {
            op,
            kind: OPS.iter().find(|(n, _)| *n == op).unwrap().1,
            ty,
            bits,
        }
    }

    /// inc, dec, min on signed values and cas, by the manual's formulas (L17493-17500).
    #[test]
    fn integer_operations_follow_the_manual() {
        let w = |v: u32| v.to_le_bytes().to_vec();
        let inc = atomic("inc", "u32", 32);
        assert_eq!(inc.apply(&w(5), &w(5), &w(0)), w(0), "r >= s: 0");
        assert_eq!(inc.apply(&w(4), &w(5), &w(0)), w(5));
        let dec = atomic("dec", "u32", 32);
        assert_eq!(dec.apply(&w(0), &w(7), &w(0)), w(7), "r == 0: s");
        assert_eq!(dec.apply(&w(9), &w(7), &w(0)), w(7), "r > s: s");
        assert_eq!(dec.apply(&w(3), &w(7), &w(0)), w(2));
        let min = atomic("min", "s32", 32);
        assert_eq!(min.apply(&w(1), &w(-1i32 as u32), &w(0)), w(-1i32 as u32));
        let umin = atomic("min", "u32", 32);
        assert_eq!(umin.apply(&w(1), &w(-1i32 as u32), &w(0)), w(1));
        let cas = atomic("cas", "b16", 16);
        assert_eq!(cas.apply(&[1, 2], &[1, 2], &[9, 9]), [9, 9]);
        assert_eq!(cas.apply(&[1, 2], &[1, 3], &[9, 9]), [1, 2]);
        let add = atomic("add", "u64", 64);
        assert_eq!(add.apply(&[0xff; 8], &[1, 0, 0, 0, 0, 0, 0, 0], &[0; 8]), [0; 8]);
    }

    /// The forms are exactly the executed `.shared::cluster` accesses: `ld.shared::cluster.u32`
    /// yes, `ld.global.u32` and `st.async` no, and no form with golden vectors.
    #[test]
    fn only_cluster_accesses_are_taken() {
        let cat = catalog();
        let by = |n: &str| &cat.forms[cat.lookup(n).unwrap().forms[0]];
        assert!(is_dsmem(by("ld.shared::cluster.u32")));
        assert!(is_dsmem(by("red.shared::cluster.add.f32")));
        assert!(!is_dsmem(by("ld.global.u32")));
        assert!(!is_dsmem(by("ld.shared::cta.u32")));
        assert!(is_dsmem(by("atom.shared::cluster.exch.b128")));
        assert!(is_dsmem(by("atom.shared::cta.cas.b128")));
        assert!(is_dsmem(by("atom.cas.b128")));
        assert!(is_dsmem(by("atom.global.exch.b128")));
        assert!(!is_dsmem(by("atom.global.exch.b64")));
        assert!(!is_dsmem(by(
            "st.async.shared::cluster.mbarrier::complete_tx::bytes.u32"
        )));
        let n = cat.forms.iter().filter(|f| is_dsmem(f)).count();
        // ld 429, st 429, atom 800 (50 of them b128), red 375, cvta 4, isspacep 1; and the
        // b128 atoms on .global, .shared, .shared::cta and generic addresses (50 each).
        assert_eq!(n, 2238);
        assert!(!cat.forms.iter().any(|f| is_dsmem(f) && spec::eval::has_semantics(f)));
    }
}
