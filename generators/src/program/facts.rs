//! What the generator must know about a value-level form before it may emit it, found by asking
//! the spec rather than by a second table: which operand shape the spec accepts, whether each
//! destination's value is fully determined by the manual, determined up to a NaN's payload, or
//! only judgeable by an acceptance set; and which float sources may hold a NaN of unknown payload
//! without that payload showing in the result.
//!
//! The answers come from evaluating the form on its hard operands (the golden-vector generator's
//! [`crate::vectors::hard_operands`]) and, for the payload question, on the same points with each
//! float lane replaced by NaNs of different payloads and signs. A probe can only show that a
//! payload matters, never prove that it does not; the hard operands put NaN, infinities, zeros
//! and subnormals beside each other, which is where payload propagation lives (`cvt.f64.f32`,
//! `copysign`, `mov`), and the differential runs themselves would expose a miss.

use spec::catalog::{catalog, Form, FormId};
use spec::float::format::Special;
use spec::float::Fmt;
use spec::types::{FloatFormat, Kind};
use spec::value::{Accept, Args, Input, Outcome};
use std::sync::OnceLock;

/// How well the manual determines a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Det {
    /// Every bit.
    Exact,
    /// Every bit, except that a NaN (in any lane of `lane_bits`) may have any payload and sign:
    /// "an unspecified NaN" (L7141, L9307).
    Loose {
        /// The float format of the lanes.
        format: FloatFormat,
        /// Bits per lane.
        lane_bits: u32,
    },
    /// Only an acceptance set (an approximate instruction, an unspecified or one-of result): such
    /// a value is written to the signature with its inputs and judged there, never used again.
    Judged,
}

impl Det {
    /// The least determinacy covering both, if there is one (two different NaN formats have
    /// none: their payload bits overlap other lanes' value bits).
    pub fn join(self, other: Det) -> Option<Det> {
        match (self, other) {
            (Det::Exact, d) | (d, Det::Exact) => Some(d),
            (a, b) if a == b => Some(a),
            _ => None,
        }
    }

    /// Whether a value of this determinacy may stand where `other` is assumed.
    pub fn within(self, other: Det) -> bool {
        self.join(other) == Some(other)
    }
}

/// The generator's facts about one form.
#[derive(Clone, Debug)]
pub struct Facts {
    /// The catalog form.
    pub form: FormId,
    /// How many source operands are written (trailing optional ones the spec rejects with plain
    /// operands are left out, as in the golden vectors).
    pub written: usize,
    /// Each source operand's hard values (immediates are drawn from these).
    pub pools: Vec<Vec<u128>>,
    /// Each destination's determinacy when every source is exact.
    pub outs: Vec<Det>,
    /// Each source: the NaN-loose determinacy it tolerates (`None`: exact sources only).
    pub loose_in: Vec<Option<Det>>,
    /// The integer divisor operand, which the generator makes odd (`or.bN b, b, 1`) so that no
    /// division by zero leaves the result unspecified.
    pub divisor: Option<usize>,
}

impl Facts {
    /// The catalog form.
    pub fn form(&self) -> &'static Form {
        &catalog().forms[self.form]
    }
}

/// The facts of catalog form `i`, computed once per process; `None` when the generator cannot
/// use the form (no semantics, no operand shape the spec accepts).
pub fn facts(i: FormId) -> Option<&'static Facts> {
    static ALL: OnceLock<Vec<OnceLock<Option<Facts>>>> = OnceLock::new();
    let all = ALL.get_or_init(|| (0..catalog().forms.len()).map(|_| OnceLock::new()).collect());
    all.get(i.index())?.get_or_init(|| probe(i)).as_ref()
}

/// How many scattered base points a form is probed on, and about how many points the cross
/// product of the operands' first hard values has.
const PROBES: usize = 40;
const CROSS: usize = 512;

fn probe(i: FormId) -> Option<Facts> {
    let form = &catalog().forms[i];
    spec::eval::semantics(form)?;
    let pools = crate::vectors::hard_operands(form);
    if pools.iter().any(Vec::is_empty) {
        return None;
    }
    let divisor = form.inputs.iter().position(|o| o.flags.divisor);
    // Base points: the k-th point takes hard value (k·(j+1) + j) of operand j, so early points
    // pair the most important values and later ones mix them.
    let point = |k: usize| -> Vec<Input> {
        pools
            .iter()
            .enumerate()
            .map(|(j, p)| {
                let mut bits = p[(k * (j + 1) + j) % p.len()];
                if divisor == Some(j) {
                    bits |= 1;
                }
                Input::bits(bits)
            })
            .collect()
    };
    let written = (0..=form.inputs.len())
        .rev()
        .take_while(|&n| n == form.inputs.len() || form.inputs[n].optional)
        .find(|&n| (0..PROBES).any(|k| eval(form, &point(k)[..n]).is_some()))?;
    let mut outs = vec![Det::Exact; form.outputs.len()];
    let mut bases = Vec::new();
    // The scattered points, then the cross product of every operand's first hard values (about
    // CROSS points): sets other than a single value hide in corners such as a tiny product
    // that rounds to a zero whose sign `.relu` leaves open.
    let k = (1..=CROSS).rev().find(|k| k.pow(written as u32) <= CROSS).unwrap_or(1);
    let cross = (0..k.pow(written as u32)).map(|mut c| {
        let mut ins = point(0);
        for (j, p) in pools.iter().enumerate().take(written) {
            ins[j].bits = p[(c % k) % p.len()];
            if divisor == Some(j) {
                ins[j].bits |= 1;
            }
            c /= k;
        }
        ins
    });
    // The signed corners of every float operand crossed: products and sums of the tiniest
    // numbers of either sign are where `.sat` and `.relu` meet a zero of unspecified sign.
    let corner_lists: Vec<Vec<u128>> = (0..written)
        .map(|j| corners(form.inputs[j].ty).unwrap_or_else(|| pools[j].iter().take(2).copied().collect()))
        .collect();
    let ncorner: usize = corner_lists.iter().map(Vec::len).product();
    let corner_points = (0..ncorner.min(4096)).map(|mut c| {
        let mut ins = point(0);
        for (j, l) in corner_lists.iter().enumerate() {
            ins[j].bits = l[c % l.len()];
            if divisor == Some(j) {
                ins[j].bits |= 1;
            }
            c /= l.len();
        }
        ins
    });
    for ins in (0..PROBES).map(point).chain(cross).chain(corner_points) {
        let Some(res) = eval(form, &ins[..written]) else {
            continue;
        };
        for (d, o) in outs.iter_mut().zip(&res) {
            *d = widen(*d, det_of(o));
        }
        bases.push(ins);
    }
    if bases.is_empty() {
        return None;
    }
    let loose_in = (0..written)
        .map(|j| {
            let ty = form.inputs[j].ty;
            let Kind::Float(f) = ty.kind else { return None };
            if form.inputs[j].flags.imm || Fmt::of(f).special == Special::None {
                return None;
            }
            let blind = bases
                .iter()
                .take(12)
                .all(|b| payload_blind(form, &b[..written], j, f, ty.lane_bits));
            blind.then_some(Det::Loose {
                format: f,
                lane_bits: ty.lane_bits,
            })
        })
        .collect();
    Some(Facts {
        form: i,
        written,
        pools,
        outs,
        loose_in,
        divisor,
    })
}

/// ±0, ± the smallest subnormal, ± the smallest normal and ±1 of a float operand's format, in
/// every lane; `None` for other types.
fn corners(ty: spec::types::Type) -> Option<Vec<u128>> {
    let Kind::Float(f) = ty.kind else { return None };
    let fmt = Fmt::of(f);
    if !fmt.signed || fmt.man_bits == 0 {
        return None;
    }
    let sign = 1u128 << (fmt.bits - 1);
    let bias = (1u128 << (fmt.exp_bits - 1)) - 1;
    let mags = [
        0u128,
        1 << fmt.pad,
        1 << (fmt.man_bits + fmt.pad),
        bias << (fmt.man_bits + fmt.pad),
    ];
    let lanes = (ty.bits() / ty.lane_bits).max(1);
    Some(
        mags.iter()
            .flat_map(|&m| [m, m | sign])
            .map(|v| (0..lanes).fold(0u128, |r, l| r | v << (l * ty.lane_bits)))
            .collect(),
    )
}

fn eval(form: &Form, ins: &[Input]) -> Option<Vec<Outcome>> {
    spec::eval::eval(form, &Args { ins, dsel: None }).ok()
}

/// The determinacy an outcome shows.
fn det_of(o: &Outcome) -> Det {
    match &o.accept {
        Accept::Exact => Det::Exact,
        Accept::Nan(f) => Det::Loose {
            format: *f,
            lane_bits: Fmt::of(*f).bits,
        },
        Accept::Any | Accept::OneOf(_) | Accept::Bound(_) => Det::Judged,
        Accept::Lanes { lane_bits, lanes } => lanes.iter().fold(Det::Exact, |d, l| {
            let ld = match det_of(l) {
                Det::Loose { format, .. } => Det::Loose {
                    format,
                    lane_bits: *lane_bits,
                },
                x => x,
            };
            widen(d, ld)
        }),
    }
}

/// The join, or `Judged` when two NaN formats meet.
fn widen(a: Det, b: Det) -> Det {
    a.join(b).unwrap_or(Det::Judged)
}

/// NaN encodings of a format that differ in payload and sign (quiet and, for IEEE formats,
/// signaling).
fn nan_variants(f: FloatFormat) -> Vec<u128> {
    let fmt = Fmt::of(f);
    let sign = 1u128 << (fmt.bits - 1);
    let pad = fmt.pad;
    let exp = ((1u128 << fmt.exp_bits) - 1) << (fmt.man_bits + pad);
    match fmt.special {
        Special::Ieee => {
            let quiet = 1u128 << (fmt.man_bits - 1 + pad);
            let low = 1u128 << pad;
            vec![
                fmt.canonical_nan,
                exp | quiet,
                exp | quiet | low,
                sign | exp | quiet | low,
                exp | low,
                sign | exp | (quiet - low),
            ]
        }
        Special::NanAllOnes => {
            let all = (1u128 << fmt.bits) - 1;
            if fmt.signed {
                vec![all >> 1, all]
            } else {
                vec![all]
            }
        }
        Special::None => vec![],
    }
}

/// Whether the outcomes of `form` stay the same whatever NaN operand `j` holds in any one lane.
fn payload_blind(form: &Form, base: &[Input], j: usize, f: FloatFormat, lane_bits: u32) -> bool {
    let lanes = (form.inputs[j].ty.bits() / lane_bits).max(1);
    let nans = nan_variants(f);
    for lane in 0..lanes.min(2) {
        let shift = lane * lane_bits;
        let mask = ((1u128 << lane_bits) - 1) << shift;
        let mut first: Option<Option<Vec<Outcome>>> = None;
        for &n in &nans {
            let mut ins = base.to_vec();
            ins[j].bits = (ins[j].bits & !mask) | (n << shift);
            let r = eval(form, &ins);
            match &first {
                None => first = Some(r),
                Some(f0) if *f0 != r => return false,
                _ => {}
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts_of(name: &str) -> &'static Facts {
        let i = catalog().lookup(name).expect(name).forms[0];
        facts(i).expect(name)
    }

    #[test]
    fn determinacy_follows_the_spec() {
        let f32 = Det::Loose {
            format: FloatFormat::F32,
            lane_bits: 32,
        };
        assert_eq!(facts_of("add.rn.f32").outs, [f32]);
        assert_eq!(facts_of("add.rn.f32").loose_in, [Some(f32), Some(f32)]);
        assert_eq!(facts_of("add.s32").outs, [Det::Exact]);
        assert_eq!(facts_of("sqrt.approx.f32").outs, [Det::Judged]);
        // rem of negative operands truncates or floors (one of two values).
        assert_eq!(facts_of("rem.s32").outs, [Det::Judged]);
        // The divisor is made odd, so unsigned division is exact.
        assert_eq!(facts_of("div.u32").outs, [Det::Exact]);
        assert_eq!(facts_of("div.u32").divisor, Some(1));
        // cvt.f64.f32 widens a NaN with its payload: its source must be exact.
        assert_eq!(facts_of("cvt.f64.f32").loose_in, [None]);
        // A comparison does not see the payload.
        let setp = facts_of("setp.lt.f32");
        assert_eq!(setp.outs[0], Det::Exact);
        assert_eq!(setp.loose_in[..2], [Some(f32), Some(f32)]);
        // copysign takes a's sign bit — a NaN's sign is unspecified too — while a NaN magnitude
        // gives "a NaN" (spec/src/fp.rs).
        assert_eq!(facts_of("copysign.f32").loose_in, [None, Some(f32)]);
        let h2 = Det::Loose {
            format: FloatFormat::F16,
            lane_bits: 16,
        };
        assert_eq!(facts_of("add.rn.f16x2").outs, [h2]);
    }

    #[test]
    fn join() {
        let a = Det::Loose {
            format: FloatFormat::F32,
            lane_bits: 32,
        };
        let b = Det::Loose {
            format: FloatFormat::F16,
            lane_bits: 16,
        };
        assert_eq!(Det::Exact.join(a), Some(a));
        assert_eq!(a.join(b), None);
        assert!(Det::Exact.within(a));
        assert!(!a.within(Det::Exact));
    }
}
