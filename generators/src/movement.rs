//! Golden vectors of the warp-level data-movement forms (`ldmatrix`, `stmatrix`, `movmatrix`;
//! [`spec::vector::movement`]). What these forms can get wrong is *where* each bit goes, so the
//! styles are:
//!
//! 1. **index**: every element of the input names its own position (row-major index in the low
//!    bits, a marker above), so any misplaced, duplicated or dropped element shows which one;
//! 2. **random**: uniformly random bits, which for the unpacking `ldmatrix` forms also fills the
//!    padding bits the unpacking must drop, and sets bits an index pattern leaves clear.
//!
//! Levels scale the count: golden makes one index and two random vectors, `one` eight of each.

use crate::vectors::{form_seed, GenerateError, Generated, Level, Whole};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use spec::catalog::Form;
use spec::vector::form_key;
use spec::vector::movement::columns;

/// The vectors of a data-movement form ([`spec::vector::movement::columns`]).
pub fn generate(form: &Form, seed: u64, level: Level) -> Result<Generated, GenerateError> {
    let cols = columns(form).ok_or_else(|| GenerateError::NoSemantics {
        form: form.name.clone(),
    })?;
    let fseed = form_seed(seed, &form_key(form));
    let mut rng = ChaCha8Rng::seed_from_u64(fseed);
    let (index, random) = match level {
        Level::Golden => (1, 2),
        _ => (8, 8),
    };
    let width = cols.input.ty.bits();
    let mask = (1u128 << width) - 1;
    let n = cols.input.len();
    let mut out = Whole::default();
    for i in 0..index + random {
        let ins: Vec<u128> = if i < index {
            // Index i of the element in the low bits; a per-vector marker in the high byte (for
            // 32-bit elements, where the index leaves the upper half clear) tells the vectors
            // apart. 8-bit elements hold 0..=255 and the sm_100a matrices have at most 512
            // bytes: the byte's position is its value or value + 256, told apart by the lanes
            // holding it (a misplacement by exactly 256 bytes is the random style's to catch).
            (0..n as u128)
                .map(|k| match width {
                    32 => (k | k << 16 | (i as u128 + 1) << 24) & mask,
                    _ => k & mask,
                })
                .collect()
        } else {
            (0..n).map(|_| u128::from(rng.next_u64()) & mask).collect()
        };
        let outs = cols.eval(form, &ins).expect("the input has the form's size");
        out.push(ins, outs, i < index);
    }
    Ok(out.done(fseed))
}

#[cfg(test)]
mod tests {
    use super::*;
    use spec::catalog::catalog;

    #[test]
    fn every_movement_form_round_trips() {
        let cat = catalog();
        let mut n = 0;
        for f in cat.forms.iter().filter(|f| columns(f).is_some()) {
            let a = generate(f, 1, Level::Golden).unwrap();
            assert_eq!(a.vectors, generate(f, 1, Level::Golden).unwrap().vectors);
            assert_eq!(a.vectors.len(), 3);
            for v in &a.vectors {
                let line = spec::vector::format_line(f, v);
                assert_eq!(&spec::vector::parse_line(f, &line).unwrap(), v, "{}", f.name);
            }
            n += 1;
        }
        // 18 + 36 (sm_100a, less the forbidden) ldmatrix, 18 + 9 stmatrix, 1 movmatrix.
        assert!(n >= 70, "{n}");
    }
}
