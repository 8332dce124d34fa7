//! The `ptxconf eval` text form of a matrix multiply-accumulate: whole matrices in, D out with
//! each element's acceptance tag.
//!
//! ```text
//! ptxconf eval mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 target=sm_80 A=0x3c00*256 B=0x3c00*128 C=0*128
//! ```
//!
//! - `A=`, `B=`, `C=`: the matrices row-major (A is M×K, B K×N, C M×N), elements as bit
//!   patterns (`0x3c00` is f16 1.0; decimal for integers, negative as two's complement of the
//!   element width), comma-separated; `V*N` stands for N copies of V. Layouts (`.row`/`.col`)
//!   and fragments do not enter: these are the matrices themselves.
//! - `target=sm_XX`: the GPU generation whose tensor-core model gives the model values
//!   ([`Arch::from_target`]); default the form's least target.
//! - Output: M lines, one per row of D, N elements each (`0x...`, then its tag where the
//!   acceptance set is more than the model value, as in golden-vector files), separated by ` | `.

use super::{mma, Arch, MmaOp};
use crate::catalog::Form;
use crate::types::Type;
use crate::value::EvalError;
use std::fmt::Write as _;

/// Evaluates the `mma`/`wmma.mma` form `form` on the words after its name (see the module
/// documentation); `Ok(None)` when `form` is not a matrix multiply-accumulate.
pub fn eval_words(form: &Form, words: &[&str]) -> Result<Option<String>, EvalError> {
    // A sparse A is more than its matrix: the compressed fragment, the metadata and the
    // selector (§9.7.14.6); the oracle runs those, this line format has no place for them.
    if form.var("sp").is_some() {
        return Err(EvalError::unhandled(format!(
            "`{}`: a sparse A is given by its compressed fragment, metadata and selector; run it in a kernel through the oracle",
            form.name
        )));
    }
    let mut target = form.target.to_string();
    let (mut a, mut b, mut c) = (None, None, None);
    for w in words {
        let (key, value) = w
            .split_once('=')
            .ok_or_else(|| EvalError::input(format!("`{w}`: expected `A=...`, `B=...`, `C=...` or `target=sm_XX`")))?;
        match key {
            "target" => target = value.to_string(),
            "A" => a = Some(elements(value)?),
            "B" => b = Some(elements(value)?),
            "C" => c = Some(elements(value)?),
            _ => return Err(EvalError::input(format!("`{key}=`: expected A, B, C or target"))),
        }
    }
    let arch = Arch::from_target(&target)
        .ok_or_else(|| EvalError::input(format!("`{target}` is not a target with tensor cores (sm_70 or later)")))?;
    let Some(op) = MmaOp::of_form(form, arch) else {
        return Ok(None);
    };
    let (m, n, k) = op.shape;
    let take = |v: Option<Vec<u128>>, name: &str, len: usize| -> Result<Vec<u128>, EvalError> {
        let v = v.ok_or_else(|| EvalError::input(format!("`{}` needs {name}= ({len} elements)", form.name)))?;
        if v.len() != len {
            return Err(EvalError::input(format!(
                "{name} of `{}` has {len} elements ({m}x{n}x{k}), not {}",
                form.name,
                v.len()
            )));
        }
        Ok(v)
    };
    let (a, b, c) = (take(a, "A", m * k)?, take(b, "B", k * n)?, take(c, "C", m * n)?);
    let d = mma(&op, &a, &b, &c);
    let dty = form
        .var("dt")
        .and_then(Type::parse)
        .ok_or_else(|| EvalError::unhandled(format!("`{}` has no D type", form.name)))?;
    let digits = dty.bits().div_ceil(4) as usize;
    let mut s = String::new();
    for row in d.chunks(n) {
        if !s.is_empty() {
            s.push('\n');
        }
        for (j, o) in row.iter().enumerate() {
            if j > 0 {
                s.push_str(" | ");
            }
            let _ = write!(s, "0x{:0digits$x}", o.model);
            if let Some(t) = crate::vector::tag_of(&o.accept, o.model, dty) {
                let _ = write!(s, " {t}");
            }
        }
    }
    Ok(Some(s))
}

/// `v,v,v*N,...` as bit patterns (`0x` hex or decimal; a leading `-` for two's complement,
/// taken modulo 2^128 and cut to the element width by the numerics).
fn elements(list: &str) -> Result<Vec<u128>, EvalError> {
    let mut v = Vec::new();
    for item in list.split(',').filter(|s| !s.is_empty()) {
        let (val, count) = match item.split_once('*') {
            Some((val, n)) => (
                val,
                n.parse::<usize>()
                    .ok()
                    .filter(|&n| n <= 1 << 20)
                    .ok_or_else(|| EvalError::input(format!("`{item}`: bad repeat count")))?,
            ),
            None => (item, 1),
        };
        let bits =
            parse_bits(val).ok_or_else(|| EvalError::input(format!("`{val}` is not a hex or decimal bit pattern")))?;
        v.extend(std::iter::repeat_n(bits, count));
    }
    Ok(v)
}

fn parse_bits(s: &str) -> Option<u128> {
    if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        return u128::from_str_radix(h, 16).ok();
    }
    if let Some(d) = s.strip_prefix('-') {
        return d.parse::<u128>().ok().map(|x| x.wrapping_neg());
    }
    s.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::catalog::test_form as form;

    /// All-ones f16 matrices: every element of D is K = 16 (f32 0x41800000), exactly.
    #[test]
    fn ones_times_ones_is_k() {
        let f = form("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32");
        let out = eval_words(f, &["target=sm_80", "A=0x3c00*256", "B=0x3c00*128", "C=0*128"])
            .unwrap()
            .unwrap();
        let rows: Vec<&str> = out.lines().collect();
        assert_eq!(rows.len(), 16);
        assert!(rows[0].starts_with("0x41800000"), "{out}");
        assert_eq!(rows[0].matches("0x41800000").count(), 8, "{out}");
    }

    /// Integer: 2·3 summed over K = 32 plus C = -1: 191, exact (no tag).
    #[test]
    fn integer_products_are_exact() {
        let f = form("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32");
        let out = eval_words(f, &["A=2*512", "B=3*256", "C=-1*128"]).unwrap().unwrap();
        assert_eq!(out.lines().next().unwrap(), ["0x000000bf"; 8].join(" | "));
    }

    /// Through `ptxconf eval`'s line front end, `wmma.mma` too.
    #[test]
    fn eval_line_takes_matrices() {
        let out =
            crate::eval::eval_line("wmma.mma.sync.aligned.row.col.m16n16k16.s32.s8.s8.s32 A=1*256 B=-2*256 C=5*256")
                .unwrap();
        // 16 · (1 · -2) + 5 = -27.
        assert_eq!(out.lines().count(), 16);
        assert!(out.starts_with("0xffffffe5 | 0xffffffe5"), "{out}");
    }

    #[test]
    fn bad_words_are_input_errors() {
        let f = form("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32");
        for words in [
            &["A=1*3", "B=1*256", "C=0*128"][..],
            &["A=zz"],
            &["D=1"],
            &["target=sm_50"],
            &["A"],
        ] {
            let e = eval_words(f, words).unwrap_err();
            assert_eq!(e.kind, crate::value::EvalErrorKind::Input, "{words:?}: {e}");
        }
    }
}
