//! Tensor-core constructs inside programs (§9.7.14): `ldmatrix`/`stmatrix` through shared memory
//! and `mma.sync` of every element type the target has, emitted where a whole warp runs the same
//! instruction (the entry's top level, every warp full, see [`super::Builder::collective`]).
//!
//! # Why the results are the same on every implementation
//! - `ldmatrix`/`stmatrix` move 16-bit elements: exact. Each construct stages a fresh shared
//!   region (so no earlier reader of the region can race with its stores), every thread writes
//!   its own 16-byte row, `bar.sync 0` orders the stores before the warp-wide access, and the
//!   row addresses the lanes supply (L23437-23468: lanes 0-7 the first matrix's rows, 8-15 the
//!   second's, ...) are a permutation of the warp's 32 rows — distinct rows, so `stmatrix`'s
//!   stores never overlap.
//! - integer `mma` is exact (s32 accumulation wraps, `.satfinite` clamps, L22949-22953): any
//!   exact registers are its fragments.
//! - floating-point `mma` is exact only on operands that make every order of summation and
//!   every block-FMA alignment exact (L22918-22935 leave both open). The operands are small
//!   integers ([`Ranges`]): A even, B any, C odd, so the sum is odd (never zero: a zero sum
//!   may be −0 under a downward rounding) and T = |c| + Σ|a_k b_k| < 2^(p−1) for the
//!   accumulator's precision p — `spec::tensor::accept`'s condition for an exact set (its
//!   "exact sums"), which the tests check on the extreme operands.

use super::{aim, Builder, Det, Policy};
use arbitrary::Result;
use spec::catalog::{catalog, Exec, FormId};
use spec::matrix::{layout, Which};
use spec::tensor::{Arch, Elem, MmaOp};
use spec::types::FloatFormat;
use std::cell::RefCell;
use std::rc::Rc;

/// Shared regions for matrix staging per program, at most (each 16 bytes per thread).
pub(super) const TILES: u32 = 4;

/// The shared array the tiles live in.
pub(super) const TILE_ARRAY: &str = "smx";

/// The bit widths of the `bfe.s32` fields a float `mma`'s elements are drawn from: A's element
/// is twice a signed `a`-bit field (even, |A| ≤ 2^a), B's a signed `b`-bit field
/// (|B| ≤ 2^(b−1)), C's a signed `c`-bit field with its lowest bit set (odd, |C| < 2^(c−1)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Ranges {
    pub a: u32,
    pub b: u32,
    pub c: u32,
}

/// The largest power of two up to which every integer is exact in `f` (its significand bits).
fn exact_ints(f: FloatFormat) -> Option<u32> {
    Some(match f {
        FloatFormat::F16 | FloatFormat::Tf32 => 11,
        FloatFormat::Bf16 => 8,
        FloatFormat::E4m3 => 4,
        FloatFormat::E5m2 => 3,
        FloatFormat::F32 => 24,
        FloatFormat::F64 => 53,
        _ => return None,
    })
}

/// The accumulator precision p of `spec::tensor::accept` (11 for an f16 D, 14 for fp8 inputs
/// with an f32 D, 24 otherwise; 53 for f64, whose chain rounds each step to f64).
fn precision(op: &MmaOp) -> Option<u32> {
    let narrow = |e: Elem| matches!(e, Elem::Float(FloatFormat::E4m3 | FloatFormat::E5m2));
    Some(match op.d {
        Elem::Float(FloatFormat::F64) => 53,
        Elem::Float(FloatFormat::F16) => 11,
        Elem::Float(FloatFormat::F32) if narrow(op.a) || narrow(op.b) => 14,
        Elem::Float(FloatFormat::F32) => 24,
        _ => return None,
    })
}

/// The operand ranges of a float `mma` that keep its result exact: with K = 2^κ products,
/// K·2^a·2^(b−1) ≤ 2^(p−2) and |c| < 2^(c−1) ≤ 2^(p−3), so T < 2^(p−1); each element is an
/// integer its format holds exactly, and each field fits `cvt.rn.f32.s32` exactly (≤ 2^24).
/// `None` for a form that is not a float `mma` of these formats.
pub(crate) fn ranges(op: &MmaOp) -> Option<Ranges> {
    let (Elem::Float(fa), Elem::Float(fb), Elem::Float(fc)) = (op.a, op.b, op.c) else {
        return None;
    };
    let p = precision(op)?;
    let (la, lb, lc) = (exact_ints(fa)?, exact_ints(fb)?, exact_ints(fc)?);
    let k = op.shape.2 as u32;
    if !k.is_power_of_two() {
        return None;
    }
    let log_k = k.trailing_zeros();
    // Products: a + (b − 1) + log K ≤ p − 2, grown alternately from 1-bit fields.
    let (mut a, mut b) = (1u32, 1u32);
    loop {
        let fits = |a: u32, b: u32| a + b - 1 + log_k <= p - 2 && a <= la.min(16) && b - 1 <= lb.min(16);
        if a <= b && fits(a + 1, b) {
            a += 1;
        } else if fits(a, b + 1) {
            b += 1;
        } else if fits(a + 1, b) {
            a += 1;
        } else {
            break;
        }
    }
    if a + b - 1 + log_k > p - 2 {
        return None;
    }
    // C: |c| < 2^(c−1) ≤ 2^(p−3), exact in C's format and in cvt.rn.f32.s32.
    let c = (p - 2).min(lc + 1).min(25);
    Some(Ranges { a, b, c })
}

/// How an element's integer field is adjusted (see [`Ranges`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Parity {
    Even,
    Any,
    Odd,
}

/// The `mma.sync` forms programs of this target may contain: dense, not block-scaled, with a
/// layout for every fragment, permitted ([`aim::permits_form`]: the version, target,
/// exclusions such as ptxas's refusals, and the allowed set). Computed once per thread for the
/// configuration last asked for (a campaign asks for one).
fn mma_forms(b: &Builder) -> Rc<Vec<FormId>> {
    thread_local! {
        static CACHE: RefCell<Option<(Policy, Rc<Vec<FormId>>)>> = const { RefCell::new(None) };
    }
    let cfg = b.cfg;
    CACHE.with(|c| {
        if let Some((k, v)) = &*c.borrow() {
            if k.is(cfg) {
                return v.clone();
            }
        }
        let cat = catalog();
        let arch = Arch::from_target(&cfg.target.to_string());
        let v: Rc<Vec<FormId>> = Rc::new(
            cat.enumerate()
                .filter(|(_, f)| {
                    f.exec() == Some(Exec::Mma)
                        && f.name.starts_with("mma.sync.aligned.")
                        && aim::permits_form(cfg, f)
                        && arch.and_then(|a| MmaOp::of_form(f, a)).is_some()
                        && Which::ALL.iter().all(|&w| layout(f, w).is_ok())
                })
                .map(|(i, _)| i)
                .collect(),
        );
        *c.borrow_mut() = Some((Policy::of(cfg), v.clone()));
        v
    })
}

impl Builder<'_, '_> {
    /// Whether `name` is a form of this target that the exclusion list keeps and the allowed
    /// set has ([`aim::permits`]).
    pub(super) fn usable(&self, name: &str) -> bool {
        self.available(name)
    }

    /// A fresh shared tile: the thread's own 16-byte row and the row address this lane
    /// supplies, `16·((tid & ~31) | ((tid·s + o) mod 32))` past the tile — an odd `s` makes the
    /// lanes' rows a permutation of their warp's 32 rows.
    fn tile(&mut self) -> Result<Option<(String, String)>> {
        if self.tiles >= TILES {
            return Ok(None);
        }
        let threads = self.cfg.warps.clamp(1, 32) * 32;
        let at = self.tiles * threads * 16;
        self.tiles += 1;
        let s = 2 * self.u.int_in_range(0..=15u32)? + 1;
        let o = self.u.int_in_range(0..=31u32)?;
        let tid = self.tid.clone();
        let (base, own, row, off) = (self.temp(64), self.temp(64), self.temp(64), self.temp(64));
        let (t, w) = (self.temp(32), self.temp(32));
        self.line(&format!("mov.u64 {base}, {TILE_ARRAY}"));
        self.line(&format!("add.u64 {base}, {base}, {at}"));
        self.line(&format!("mul.wide.u32 {off}, {tid}, 16"));
        self.line(&format!("add.u64 {own}, {base}, {off}"));
        self.line(&format!("mad.lo.u32 {t}, {tid}, {s}, {o}"));
        self.line(&format!("and.b32 {t}, {t}, 31"));
        self.line(&format!("and.b32 {w}, {tid}, 0xffffffe0"));
        self.line(&format!("or.b32 {t}, {t}, {w}"));
        self.line(&format!("mul.wide.u32 {off}, {t}, 16"));
        self.line(&format!("add.u64 {row}, {base}, {off}"));
        Ok(Some((own, row)))
    }

    /// Four exact 32-bit registers.
    fn four_exact(&mut self) -> Result<Option<Vec<String>>> {
        let mut v = Vec::new();
        for _ in 0..4 {
            match self.pick_src(32, Det::Exact)? {
                Some(r) => v.push(r),
                None => return Ok(None),
            }
        }
        Ok(Some(v))
    }

    /// `ldmatrix` (§9.7.14.5.15) or, where the target has it, `stmatrix` (§9.7.14.5.16) of
    /// 8×8 16-bit matrices through a fresh shared tile.
    pub(super) fn matrix_move(&mut self) -> Result<bool> {
        let n = [1u32, 2, 4][self.u.choose_index(3)?];
        let trans = if self.u.arbitrary()? { ".trans" } else { "" };
        let spaces = [".shared", ".shared::cta", ""];
        let space = spaces[self.u.choose_index(spaces.len())?];
        let store = self.u.arbitrary()?;
        let op = if store { "stmatrix" } else { "ldmatrix" };
        let name = format!("{op}.sync.aligned.m8n8.x{n}{trans}{space}.b16");
        if !self.usable(&name) || !self.usable("st.shared.v4.b32") {
            return Ok(false);
        }
        let Some(stage) = self.four_exact()? else {
            return Ok(false);
        };
        let frags: Vec<String> = if store {
            match self.four_exact()? {
                Some(v) => v[..n as usize].to_vec(),
                None => return Ok(false),
            }
        } else {
            Vec::new()
        };
        let Some((own, row)) = self.tile()? else {
            return Ok(false);
        };
        // Every row of the tile holds known values before the warp reads (or partly
        // overwrites) it, and the barrier orders those stores before the matrix access.
        self.line(&format!("st.shared.v4.b32 [{own}], {{{}}}", stage.join(", ")));
        self.line("bar.sync 0");
        // Without a state space the address is generic (L23359), inside the shared window.
        let addr = if space.is_empty() {
            let g = self.temp(64);
            self.line(&format!("cvta.shared.u64 {g}, {row}"));
            g
        } else {
            row
        };
        if store {
            self.line(&format!("{name} [{addr}], {{{}}}", frags.join(", ")));
            self.line("bar.sync 0");
            let mut d: Vec<String> = Vec::new();
            for _ in 0..4 {
                let r = self.pick_dst(32, Det::Exact, false, &d)?;
                d.push(r);
            }
            self.line(&format!("ld.shared.v4.b32 {{{}}}, [{own}]", d.join(", ")));
        } else {
            let mut d: Vec<String> = Vec::new();
            for _ in 0..n {
                let r = self.pick_dst(32, Det::Exact, false, &d)?;
                d.push(r);
            }
            self.line(&format!("{name} {{{}}}, [{addr}]", d.join(", ")));
        }
        Ok(true)
    }

    /// A warp-wide `mma.sync` (§9.7.14.5.14) of a random form of the target: an integer one on
    /// any exact fragments, a float one on small-integer operands that keep it exact
    /// ([`ranges`]); its D registers join the environment as exact values.
    pub(super) fn matrix_mma(&mut self) -> Result<bool> {
        let forms = mma_forms(self);
        if forms.is_empty() {
            return Ok(false);
        }
        let form = &catalog().forms[forms[self.u.choose_index(forms.len())?]];
        let Some(op) = Arch::from_target(&self.cfg.target.to_string()).and_then(|a| MmaOp::of_form(form, a)) else {
            return Ok(false);
        };
        let float = matches!(op.a, Elem::Float(_));
        let r = if float {
            match ranges(&op) {
                Some(r) => Some(r),
                None => return Ok(false),
            }
        } else {
            None
        };
        let mut lists = Vec::new();
        for (which, elem) in [(Which::A, op.a), (Which::B, op.b), (Which::C, op.c)] {
            let l = match layout(form, which) {
                Ok(l) => l,
                Err(_) => return Ok(false),
            };
            let regs = match (r, elem) {
                (Some(r), Elem::Float(f)) => {
                    let (bits, parity) = match which {
                        Which::A => (r.a, Parity::Even),
                        Which::B => (r.b, Parity::Any),
                        _ => (r.c, Parity::Odd),
                    };
                    match self.float_fragment(f, l.regs, l.per_reg, bits, parity)? {
                        Some(v) => v,
                        None => return Ok(false),
                    }
                }
                _ => {
                    let mut v = Vec::new();
                    for _ in 0..l.regs {
                        match self.pick_src(l.reg_bits as u32, Det::Exact)? {
                            Some(x) => v.push(x),
                            None => return Ok(false),
                        }
                    }
                    v
                }
            };
            lists.push(regs);
        }
        let ld = match layout(form, Which::D) {
            Ok(l) => l,
            Err(_) => return Ok(false),
        };
        let mut d: Vec<String> = Vec::new();
        for _ in 0..ld.regs {
            let x = self.pick_dst(ld.reg_bits as u32, Det::Exact, false, &d)?;
            d.push(x);
        }
        let text = format!(
            "{} {{{}}}, {{{}}}, {{{}}}, {{{}}}",
            form.name,
            d.join(", "),
            lists[0].join(", "),
            lists[1].join(", "),
            lists[2].join(", ")
        );
        self.line(&text);
        Ok(true)
    }

    /// `regs` fragment registers of `per` elements of `f` each, every element an integer from a
    /// `bits`-bit field of an exact register (adjusted to `parity`), converted exactly. At most
    /// two distinct registers are built (each of a thread's registers is one of them), which
    /// keeps the construct short; `None` when no exact 32-bit register is live.
    fn float_fragment(
        &mut self,
        f: FloatFormat,
        regs: usize,
        per: usize,
        bits: u32,
        parity: Parity,
    ) -> Result<Option<Vec<String>>> {
        let mut built = Vec::new();
        for _ in 0..regs.min(2) {
            let mut elems = Vec::new();
            for _ in 0..per {
                let Some(src) = self.pick_src(32, Det::Exact)? else {
                    return Ok(None);
                };
                let pos = self.u.int_in_range(0..=32 - bits)?;
                let t = self.temp(32);
                self.line(&format!("bfe.s32 {t}, {src}, {pos}, {bits}"));
                match parity {
                    Parity::Even => self.line(&format!("shl.b32 {t}, {t}, 1")),
                    Parity::Odd => self.line(&format!("or.b32 {t}, {t}, 1")),
                    Parity::Any => {}
                }
                elems.push(t);
            }
            let reg = match f {
                FloatFormat::F64 => {
                    let d = self.temp(64);
                    self.line(&format!("cvt.rn.f64.s32 {d}, {}", elems[0]));
                    d
                }
                _ => {
                    let fl: Vec<String> = elems
                        .iter()
                        .map(|e| {
                            let x = self.temp(32);
                            self.line(&format!("cvt.rn.f32.s32 {x}, {e}"));
                            x
                        })
                        .collect();
                    self.pack(f, &fl)
                }
            };
            built.push(reg);
        }
        let mut v = Vec::new();
        for _ in 0..regs {
            v.push(built[self.u.choose_index(built.len())?].clone());
        }
        Ok(Some(v))
    }

    /// One 32-bit register of `f` elements from exact f32 values (element 0 lowest): an f32 or
    /// tf32 (a small integer is its own tf32) as is, f16/bf16 pairs by `cvt.rn.f16x2.f32`
    /// (before PTX 7.0 and sm_80, which that form needs, two `cvt.rn.f16.f32` and a `mov.b32`
    /// of the halves: the f16 `mma` of sm_70 and sm_75), fp8 quadruples by two
    /// `cvt.rn.satfinite.e4m3x2.f32` and a `mov.b32` of the halves.
    fn pack(&mut self, f: FloatFormat, fl: &[String]) -> String {
        if f == FloatFormat::F16 && !self.available("cvt.rn.f16x2.f32") {
            let (lo, hi) = (self.temp(16), self.temp(16));
            self.line(&format!("cvt.rn.f16.f32 {lo}, {}", fl[0]));
            self.line(&format!("cvt.rn.f16.f32 {hi}, {}", fl[1]));
            let d = self.temp(32);
            self.line(&format!("mov.b32 {d}, {{{lo}, {hi}}}"));
            return d;
        }
        let pair = |b: &mut Self, ty: &str, lo: &str, hi: &str, w: u32| {
            let d = b.temp(w);
            // `cvt.rn.f16x2.f32 d, a, b` puts a in the upper half (L13657).
            b.line(&format!("cvt.rn{} {d}, {hi}, {lo}", ty));
            d
        };
        match f {
            FloatFormat::F16 => pair(self, ".f16x2.f32", &fl[0], &fl[1], 32),
            FloatFormat::Bf16 => pair(self, ".bf16x2.f32", &fl[0], &fl[1], 32),
            FloatFormat::E4m3 | FloatFormat::E5m2 => {
                let ty = if f == FloatFormat::E4m3 {
                    ".satfinite.e4m3x2.f32"
                } else {
                    ".satfinite.e5m2x2.f32"
                };
                let lo = pair(self, ty, &fl[0], &fl[1], 16);
                let hi = pair(self, ty, &fl[2], &fl[3], 16);
                let d = self.temp(32);
                self.line(&format!("mov.b32 {d}, {{{lo}, {hi}}}"));
                d
            }
            _ => fl[0].clone(),
        }
    }
}

/// The `wgmma.mma_async` shapes and input types the generator emits (A and B from shared
/// memory, f32 accumulator): a 64×16 A and a 16×N B of 16-bit elements fit the 16 bytes per
/// thread of one tile each for a warpgroup (128 threads: 2,048 bytes).
const WGMMA: [(&str, usize); 4] = [("f16", 8), ("f16", 16), ("bf16", 8), ("bf16", 16)];

impl Builder<'_, '_> {
    /// A `wgmma.mma_async` (§9.7.15.5.2, sm_90a) of every warpgroup of the CTA (the CTA is
    /// whole warpgroups): A and B staged in two fresh shared tiles, every element a small
    /// integer ([`ranges`], as for `mma`: exact), made visible to the async proxy
    /// (`fence.proxy.async`, L24880-24884) and to every thread (`bar.sync`), described by
    /// no-swizzle descriptors ([`spec::matrix::wgmma::canonical`]: K- and MN-major share
    /// LBO 128 and SBO 256 for 16-bit elements, so either `imm-trans` reads the same 2,048
    /// bytes); the accumulator starts at odd integers (scale-d 1) so the sum is never zero;
    /// `wgmma.fence` after the accumulator's writes (L26388-26396; the shared stores are
    /// ordered for the async proxy by the fence above, L26398), then the commit and a wait for
    /// every group before D is read.
    pub(super) fn warpgroup_mma(&mut self) -> Result<bool> {
        let threads = self.cfg.warps.clamp(1, 32) * 32;
        if !threads.is_multiple_of(128) || self.tiles + 2 > TILES {
            return Ok(false);
        }
        let (ty, n) = WGMMA[self.u.choose_index(WGMMA.len())?];
        let name = format!("wgmma.mma_async.sync.aligned.m64n{n}k16.f32.{ty}.{ty}");
        if !self.usable(&name)
            || !self.usable("fence.proxy.async.shared::cta")
            || !self.usable("wgmma.fence.sync.aligned")
        {
            return Ok(false);
        }
        let cat = catalog();
        let Some(op) = cat
            .lookup(&name)
            .ok()
            .and_then(|f| f.forms.first().copied())
            .and_then(|i| MmaOp::of_form(&cat.forms[i], Arch::from_target(&self.cfg.target.to_string())?))
        else {
            return Ok(false);
        };
        let Some(r) = ranges(&op) else {
            return Ok(false);
        };
        let f = if ty == "f16" {
            FloatFormat::F16
        } else {
            FloatFormat::Bf16
        };
        let Some(a) = self.float_fragment(f, 4, 2, r.a, Parity::Even)? else {
            return Ok(false);
        };
        let Some(b) = self.float_fragment(f, 4, 2, r.b, Parity::Any)? else {
            return Ok(false);
        };
        let Some(c) = self.float_fragment(FloatFormat::F32, n / 2, 1, r.c, Parity::Odd)? else {
            return Ok(false);
        };
        let (Some((own_a, _)), Some((own_b, _))) = (self.tile()?, self.tile()?) else {
            return Ok(false);
        };
        self.line(&format!("st.shared.v4.b32 [{own_a}], {{{}}}", a.join(", ")));
        self.line(&format!("st.shared.v4.b32 [{own_b}], {{{}}}", b.join(", ")));
        self.line("fence.proxy.async.shared::cta");
        self.line("bar.sync 0");
        // The descriptors: the tiles' starts (own row minus 16·tid) in bits 13-0, >> 4.
        let tid = self.tid.clone();
        let (off, desc_a, desc_b) = (self.temp(64), self.temp(64), self.temp(64));
        self.line(&format!("mul.wide.u32 {off}, {tid}, 16"));
        for (d, own) in [(&desc_a, &own_a), (&desc_b, &own_b)] {
            let (layout, _) = spec::matrix::wgmma::canonical(
                spec::matrix::wgmma::Major::K,
                spec::matrix::wgmma::Swizzle::None,
                64,
                16,
                16,
                0,
            );
            self.line(&format!("sub.u64 {d}, {own}, {off}"));
            self.line(&format!("shr.u64 {d}, {d}, 4"));
            self.line(&format!("and.b64 {d}, {d}, 0x3fff"));
            self.line(&format!("or.b64 {d}, {d}, 0x{:x}", layout.encode()));
        }
        // The accumulator: fresh registers, written before the fence.
        let mut dregs = Vec::new();
        for x in &c {
            let d = self.fresh(32, Det::Exact);
            self.line(&format!("mov.b32 {d}, {x}"));
            dregs.push(d);
        }
        let sa = if self.u.arbitrary()? { "-1" } else { "1" };
        let sb = if self.u.arbitrary()? { "-1" } else { "1" };
        let ta = self.u.int_in_range(0..=1u8)?;
        let tb = self.u.int_in_range(0..=1u8)?;
        // scale-d is a predicate (L25771): true, so D = A·B + D.
        let scale = self.temp(1);
        self.line(&format!("setp.lt.u32 {scale}, {tid}, {threads}"));
        self.line("wgmma.fence.sync.aligned");
        self.line(&format!(
            "{name} {{{}}}, {desc_a}, {desc_b}, {scale}, {sa}, {sb}, {ta}, {tb}",
            dregs.join(", ")
        ));
        self.line("wgmma.commit_group.sync.aligned");
        self.line("wgmma.wait_group.sync.aligned 0");
        Ok(true)
    }
}

/// The float `mma` forms of `target` (for the tests).
#[cfg(test)]
fn float_forms(target: &str) -> Vec<&'static spec::catalog::Form> {
    let arch = Arch::from_target(target).unwrap();
    let t = spec::catalog::Target::parse(target).unwrap();
    catalog()
        .forms
        .iter()
        .filter(|f| {
            f.exec() == Some(Exec::Mma)
                && f.name.starts_with("mma.sync.aligned.")
                && f.available(spec::catalog::PtxVersion(8, 7), t)
                && MmaOp::of_form(f, arch).is_some_and(|op| matches!(op.a, Elem::Float(_)))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use spec::value::Accept;

    /// `x` in format `f` (exact for the integers [`ranges`] allows).
    fn enc(f: FloatFormat, x: i64) -> u128 {
        spec::tensor::convert(FloatFormat::F64, f, (x as f64).to_bits() as u128)
    }

    /// On the extreme operands [`ranges`] allows — every product at its largest magnitude, all
    /// of one sign, C at its largest odd value of the same sign, and alternating signs — the
    /// spec's acceptance set of `op` is the exact sum alone.
    fn assert_exact(op: &MmaOp, name: &str) {
        let r = ranges(op).unwrap_or_else(|| panic!("{name}: no ranges"));
        let (Elem::Float(fa), Elem::Float(fb), Elem::Float(fc)) = (op.a, op.b, op.c) else {
            unreachable!()
        };
        let (m, n, k) = op.shape;
        let amax = 1i64 << r.a;
        let bmax = 1i64 << (r.b - 1);
        let cmax = (1i64 << (r.c - 1)) - 1;
        // (sign of every a, of every b, of every c, alternate): products and c all of one
        // sign (the largest T and sum), and alternating signs.
        let cases: [(i64, i64, i64, bool); 4] = [
            (1, 1, 1, false),
            (-1, 1, -1, false),
            (1, -1, 1, false),
            (1, 1, -1, true),
        ];
        for (sa, sb, sc, alternate) in cases {
            let s = |i: usize, x: i64| if alternate && i % 3 == 1 { -x } else { x };
            let a: Vec<u128> = (0..m * k).map(|i| enc(fa, s(i, sa * amax))).collect();
            let b: Vec<u128> = (0..k * n).map(|i| enc(fb, s(i + 1, sb * bmax))).collect();
            let c: Vec<u128> = (0..m * n).map(|i| enc(fc, s(i + 2, sc * cmax))).collect();
            for (i, o) in spec::tensor::mma(op, &a, &b, &c).iter().enumerate() {
                let what = format!("{name} {r:?} case {sa} {sb} {sc} {alternate} element {i}");
                if fa == FloatFormat::F64 && k > 4 {
                    // The spec bounds f64 chains of more than 4 FMAs without asking whether
                    // they round at all; these do not: every partial sum is an integer below
                    // T < 2^53, so the model is the exact sum.
                    let (row, col) = (i / n, i % n);
                    let exact: i64 = s(i + 2, sc * cmax)
                        + (0..k)
                            .map(|kk| s(row * k + kk, sa * amax) * s(kk * n + col + 1, sb * bmax))
                            .sum::<i64>();
                    let t = cmax + k as i64 * amax * bmax;
                    assert!(t < 1 << 52, "{what}");
                    assert_eq!(f64::from_bits(o.model as u64), exact as f64, "{what}");
                } else {
                    assert_eq!(o.accept, Accept::Exact, "{what}");
                }
            }
        }
    }

    /// Every float `mma` of sm_90 (and sm_89's fp8, sm_80's) has ranges that keep it exact.
    #[test]
    fn float_mma_operands_give_exact_sums() {
        for target in ["sm_90", "sm_89", "sm_80"] {
            let forms = float_forms(target);
            assert!(forms.len() > 10, "{target}");
            for form in forms {
                let op = MmaOp::of_form(form, Arch::from_target(target).unwrap()).unwrap();
                assert_exact(&op, &form.name);
            }
        }
    }

    /// So does every `wgmma` the generator emits (sm_90a), and each is a catalog form there.
    #[test]
    fn wgmma_operands_give_exact_sums() {
        let cat = catalog();
        let t = spec::catalog::Target::parse("sm_90a").unwrap();
        for (ty, n) in WGMMA {
            let name = format!("wgmma.mma_async.sync.aligned.m64n{n}k16.f32.{ty}.{ty}");
            let found = cat.lookup(&name).unwrap_or_else(|e| panic!("{name}: {}", e.0));
            let form = &cat.forms[found.forms[0]];
            assert!(form.available(spec::catalog::PtxVersion(8, 7), t), "{name}");
            let op = MmaOp::of_form(form, Arch::from_target("sm_90a").unwrap()).unwrap();
            assert_exact(&op, &name);
        }
    }

    /// The bound is as wide as it may be for the common forms (the operands exercise more than
    /// a few bits) and no wider than the spec's exactness condition.
    #[test]
    fn ranges_of_common_forms() {
        let arch = Arch::from_target("sm_90").unwrap();
        let op = |name: &str| {
            let cat = catalog();
            MmaOp::of_form(&cat.forms[cat.lookup(name).unwrap().forms[0]], arch).unwrap()
        };
        // f16 → f32, K = 16: 16·2^a·2^(b−1) ≤ 2^22.
        let r = ranges(&op("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32")).unwrap();
        assert_eq!(r.a + r.b - 1 + 4, 22, "{r:?}");
        // f16 → f16, K = 16: p = 11, T < 2^10.
        let r = ranges(&op("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16")).unwrap();
        assert!(r.a + r.b - 1 + 4 <= 9 && r.c <= 9, "{r:?}");
        // fp8 → f32 accumulates in 14 bits (spec::tensor::accept).
        let r = ranges(&op("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32")).unwrap();
        assert!(r.a + r.b - 1 + 5 <= 12 && r.a <= 4 && r.b <= 5, "{r:?}");
        // Integer forms have none: any operands are exact.
        assert_eq!(ranges(&op("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32")), None);
    }
}
