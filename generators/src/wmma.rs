//! Golden vectors of `wmma.load.{a,b,c}` and `wmma.store.d` ([`spec::vector::wmma`]): a
//! multiply-accumulate by the form's companion `wmma.mma`, the form under test moving one of
//! its matrices at the line's stride. What these forms can get wrong is where each element
//! lies in memory, so every element is a small integer — D is then exact on every tensor core
//! and a wrong value can only come from a misplaced, dropped or duplicated element:
//!
//! 1. **index**: the tested matrix's element `i` is `i mod span` (span 64, or what the type
//!    holds: 8 for `.s4/.u4`, 2 for `.b1`), the other matrices random; at the default stride;
//! 2. **random**: every matrix random small integers (−2..=2, 0..=3 unsigned, 0/1 `.b1`), at a
//!    stride above the default: twice, then three times the default.
//!
//! Sums stay below 2¹¹ (f16's exact integers: K·63·2 + 63 for K ≤ 16) and 2⁸ for bf16 inputs.
//! Levels scale the count: golden makes one index and two random vectors, others eight each.

use crate::vectors::{form_seed, GenerateError, Generated, Level, Whole};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use spec::catalog::Form;
use spec::types::{Kind, Type};
use spec::vector::form_key;
use spec::vector::matrix::Mat;
use spec::vector::wmma::{columns, Columns};

/// The bit pattern of the small integer `v` (|v| ≤ 2048) as an element of `ty`; `None` for a
/// type the lines never hold.
fn encode(ty: Type, v: i64) -> Option<u128> {
    let f32_bits = (v as f32).to_bits();
    Some(match (ty.kind, ty.bits()) {
        (Kind::Float(_), _) => match ty.to_string().as_str() {
            "f64" => u128::from((v as f64).to_bits()),
            "f32" | "tf32" => u128::from(f32_bits),
            "bf16" => u128::from(f32_bits >> 16),
            "f16" if v == 0 => 0,
            "f16" => {
                // Exact for these integers: the f32 significand's top 10 bits, exponent rebased.
                let sign = f32_bits >> 31;
                let exp = (f32_bits >> 23 & 0xff) - 127 + 15;
                u128::from(sign << 15 | exp << 10 | (f32_bits >> 13 & 0x3ff))
            }
            _ => return None,
        },
        (_, n) => (v as u128) & ((1u128 << n) - 1),
    })
}

/// The (least, greatest) random element of a matrix.
fn range(m: &Mat) -> (i64, i64) {
    match (m.ty.kind, m.ty.bits()) {
        (_, 1) => (0, 1),
        (Kind::Unsigned, _) => (0, 3),
        _ => (-2, 2),
    }
}

/// The index style's modulus.
fn span(m: &Mat) -> i64 {
    match m.ty.bits() {
        1 => 2,
        4 => 8,
        _ => 64,
    }
}

/// The strides of the vectors: the default, twice and three times the default. Multiples of
/// the default keep every row (column) aligned to its own size, which the oracle's memory
/// demands of each row's access; the spec allows rows aligned only to the smaller of the
/// fragment and the default stride's bytes ([`spec::matrix::WmmaAccess::instance_addrs`]), a
/// difference these vectors stay out of (corpus/vectors/README.md).
fn strides(cols: &Columns) -> Vec<u32> {
    let def = cols.access.default_stride();
    let mut out = vec![def as u32];
    for s in [2 * def, 3 * def] {
        if cols.stride_ok(u128::from(s)) {
            out.push(s as u32);
        }
    }
    out
}

/// The vectors of a `wmma.load`/`wmma.store` form ([`spec::vector::wmma::columns`]).
pub fn generate(form: &Form, seed: u64, level: Level) -> Result<Generated, GenerateError> {
    let no = || GenerateError::NoSemantics {
        form: form.name.clone(),
    };
    let cols = columns(form).ok_or_else(no)?;
    let fseed = form_seed(seed, &form_key(form));
    let mut rng = ChaCha8Rng::seed_from_u64(fseed);
    let (index, random) = match level {
        Level::Golden => (1, 2),
        _ => (8, 8),
    };
    let strides = strides(&cols);
    let tested = cols.slot.min(2);
    let mut out = Whole::default();
    for i in 0..index + random {
        let is_index = i < index;
        let stride = if is_index {
            strides[0]
        } else {
            strides[1 + (i - index) % (strides.len() - 1).max(1)].min(strides[strides.len() - 1])
        };
        let mut ins = vec![u128::from(stride)];
        for (k, m) in cols.lines.ins.iter().enumerate() {
            // store.d: D is what the tested form moves; its values follow from A, B, C, so the
            // index style numbers C instead (D = A·B + C shows where each C element went).
            let numbered = is_index && k == tested;
            for e in 0..m.len() {
                let v = if numbered {
                    e as i64 % span(m)
                } else {
                    let (lo, hi) = range(m);
                    lo + (rng.next_u64() % (hi - lo + 1) as u64) as i64
                };
                ins.push(encode(m.ty, v).ok_or_else(no)?);
            }
        }
        let outs = cols.eval(&ins).ok_or_else(no)?;
        out.push(ins, outs, is_index);
    }
    Ok(out.done(fseed))
}

#[cfg(test)]
mod tests {
    use super::*;
    use spec::catalog::catalog;

    #[test]
    fn encodes_small_integers() {
        let t = |s: &str| Type::parse(s).expect(s);
        assert_eq!(encode(t("f16"), 3), Some(0x4200));
        assert_eq!(encode(t("f16"), -2), Some(0xc000));
        assert_eq!(encode(t("f16"), 0), Some(0));
        assert_eq!(encode(t("bf16"), 1), Some(0x3f80));
        assert_eq!(encode(Type::int(Kind::Signed, 4), -1), Some(0xf));
        assert_eq!(encode(t("f64"), 1), Some(0x3ff0_0000_0000_0000));
    }

    /// Every form's vectors are exact, deterministic and round trip through their lines.
    #[test]
    fn every_wmma_form_round_trips() {
        let cat = catalog();
        let mut n = 0;
        for f in cat.forms.iter().filter(|f| columns(f).is_some()) {
            let a = generate(f, 1, Level::Golden).unwrap();
            assert_eq!(a.vectors, generate(f, 1, Level::Golden).unwrap().vectors);
            assert_eq!(a.vectors.len(), 3, "{}", f.name);
            for v in &a.vectors {
                assert!(
                    v.outs.iter().all(|o| o.accept == spec::value::Accept::Exact),
                    "{} {:?}",
                    f.name,
                    v.outs.iter().find(|o| o.accept != spec::value::Accept::Exact)
                );
                let line = spec::vector::format_line(f, v);
                assert_eq!(&spec::vector::parse_line(f, &line).unwrap(), v, "{}", f.name);
            }
            n += 1;
        }
        assert!(n >= 400, "{n}");
    }
}
