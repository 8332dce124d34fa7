//! Golden vectors of the `wgmma` control forms ([`spec::vector::wgctl`]): A and B small integers
//! in f16 (-2..2), C integers in f32 (80..112), so that every product and sum is exact and D depends only
//! on the control form doing its job. Golden makes one patterned vector (every element a
//! different small value, so a misplaced element shows) and two random ones; `one` eight each.

use crate::vectors::{form_seed, GenerateError, Generated, Level, Whole};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use spec::catalog::Form;
use spec::vector::form_key;
use spec::vector::wgctl::columns;

/// The f16 bits of a small integer (|v| ≤ 2048: exact).
fn f16_of(v: i64) -> u128 {
    if v == 0 {
        return 0;
    }
    let sign = u128::from(v < 0) << 15;
    let m = v.unsigned_abs();
    let e = 63 - m.leading_zeros() as u64;
    let frac = ((m << (10 - e)) & 0x3ff) as u128;
    sign | ((e + 15) as u128) << 10 | frac
}

/// The vectors of a `wgmma` control form.
pub fn generate(form: &Form, seed: u64, level: Level) -> Result<Generated, GenerateError> {
    let cols = columns(form).ok_or_else(|| GenerateError::NoSemantics {
        form: form.name.clone(),
    })?;
    let fseed = form_seed(seed, &form_key(form));
    let mut rng = ChaCha8Rng::seed_from_u64(fseed);
    let (patterned, random) = match level {
        Level::Golden => (1, 2),
        _ => (8, 8),
    };
    let [a, b, c] = cols.mma.ins.map(|m| m.len());
    let mut out = Whole::default();
    for i in 0..patterned + random {
        let mut small = |k: usize, span: i64| -> i64 {
            if i < patterned {
                (k as i64 * (2 * i as i64 + 3) + i as i64) % (2 * span + 1) - span
            } else {
                (rng.next_u64() % (2 * span as u64 + 1)) as i64 - span
            }
        };
        let mut ins: Vec<u128> = (0..a + b).map(|k| f16_of(small(k, 2))).collect();
        // C away from zero: D then never cancels to 0, where the spec's tensor-core bounds are
        // wider than the value (`commit_group` feeds D back as C and needs it exact).
        ins.extend((0..c).map(|k| ((96 + small(k, 16)) as f32).to_bits() as u128));
        let outs = cols.eval(&ins).ok_or_else(|| GenerateError::NoSemantics {
            form: form.name.clone(),
        })?;
        out.push(ins, outs, i < patterned);
    }
    Ok(out.done(fseed))
}

#[cfg(test)]
mod tests {
    #[test]
    fn f16_of_small_integers() {
        assert_eq!(super::f16_of(1), 0x3c00);
        assert_eq!(super::f16_of(-2), 0xc000);
        assert_eq!(super::f16_of(3), 0x4200);
        assert_eq!(super::f16_of(0), 0);
    }
}
