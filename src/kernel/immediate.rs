//! Immediate-operand runs: a sample of a form's vectors runs a second time with sources written
//! into the instruction text — constants in varied spellings (`0x8000000000000001`,
//! `-9223372036854775807`, `0f3FC00000`, `1.5e0`, octal, binary, `U`) and the `!p` ptxas takes on
//! predicates whose syntax line writes them plain (`selp.b32 d, a, b, !p`) — judged against the
//! same acceptance sets. Operands loaded from memory cannot show an implementation that
//! truncates a 64-bit immediate or ignores a `!`.
//!
//! Which sources may be written so, and how a constant is spelled, is the catalog's
//! ([`spec::catalog::literal`]). The sample and each sampled vector's variant are functions of
//! the vectors' contents, not of their positions: a repro built from the failing vectors alone
//! (`conform --repro`, at most [`SAMPLE`] of them) writes each of them the same way again.

use super::Variant;
use spec::catalog::literal::{
    f64_constants, fits, negatable_beyond_grammar, spell, takes_literal, Spelling, SPELLINGS,
};
use spec::catalog::Form;
use spec::types::Kind;
use spec::vector::Vector;

/// Vectors per form that also run with immediate operands: half the hardest (64-bit values
/// with high bits set, sign bits, extremes), half spread over the rest.
pub const SAMPLE: usize = 24;

/// One extra thread: vector `index` of the form's vectors, run as `variant`.
pub(super) struct Extra {
    /// Index into the vectors given to [`super::build`].
    pub index: usize,
    /// The vector as the thread's record holds it: a predicate written `!p` stored complemented,
    /// so that the instruction sees the vector's value.
    pub written: Vector,
    /// The instruction text.
    pub variant: Variant,
    /// What is written differently from the register run (`b = 0x8000000000000001`).
    pub note: String,
    /// Whether a constant is spelled in one of the rarer ways ([`rare`]): such runs are
    /// launched apart from the others, so that an implementation refusing one spelling (GPGPU-Sim
    /// aborts on octal) still has the values of the common ones judged.
    pub rare: bool,
}

/// The spellings compilers seldom write (upper-case prefixes, octal, `U`, binary, decimal floats,
/// negated `0d`); LLVM and NVRTC write hexadecimal, decimal, `-n`, `0f` and `0d`.
fn rare(how: Spelling) -> bool {
    !matches!(
        how,
        Spelling::Hex | Spelling::Decimal | Spelling::Negative | Spelling::FloatBits | Spelling::DoubleBits
    )
}

/// How source `k` of a sampled vector is written.
enum Writing {
    /// A constant, spelled so.
    Literal(String),
    /// `!p`, the record holding the complement.
    Negated,
}

/// The sources of `v` that may be written into the text: constants where the catalog allows
/// one (not where the vector already writes a selector or a negation), and predicates ptxas
/// takes as `!p` beyond the grammar.
fn candidates(form: &Form, v: &Vector) -> Vec<usize> {
    (0..v.ins.len())
        .filter(|&k| {
            let i = &v.ins[k];
            (takes_literal(form, k) && fits(&form.inputs[k], i.bits) && !i.negated && i.sel.is_none())
                || (negatable_beyond_grammar(form, k) && !i.negated)
        })
        .collect()
}

/// FNV-1a over the form's name and the vector's source bits, avalanched: the sampled vector's
/// choices.
fn digest(form: &Form, v: &Vector) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |b: u8| {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x100_0000_01b3);
    };
    form.name.bytes().for_each(&mut eat);
    for i in &v.ins {
        i.bits.to_le_bytes().into_iter().for_each(&mut eat);
    }
    // FNV's low bits are weak (its odd multiplier keeps them in a short cycle over the zero
    // high bytes of a value): a final avalanche (MurmurHash3's fmix64) spreads every input bit.
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

/// How hard a vector's candidate sources are for an immediate path: a 64-bit value with bits
/// above 32 set (a truncated immediate loses them), a sign bit (a negative spelling), an
/// extreme (0, all ones, the signed minimum and maximum).
fn hardness(form: &Form, v: &Vector, cands: &[usize]) -> u32 {
    cands
        .iter()
        .map(|&k| {
            let ty = form.inputs[k].ty;
            let w = ty.bits();
            let bits = v.ins[k].bits & ty.mask();
            if ty.kind == Kind::Pred || w == 0 {
                return 0;
            }
            let top = bits >> (w - 1) & 1;
            let extreme = bits == 0 || bits == ty.mask() || bits == 1 << (w - 1) || bits == ty.mask() >> 1;
            let mut s = 0;
            if w == 64 && bits >> 32 != 0 && bits & 0xffff_ffff != 0 {
                s += 4;
            }
            if top == 1 {
                s += 2;
            }
            if extreme {
                s += 1;
            }
            s
        })
        .sum()
}

/// The extra threads of `vectors[pick]`: at most [`SAMPLE`] of them, each once more with one
/// candidate source (or all of them) written into the text.
pub(super) fn extras(form: &Form, vectors: &[Vector], pick: &[usize]) -> Vec<Extra> {
    let mut scored: Vec<(u32, u64, usize, Vec<usize>)> = Vec::new();
    for &i in pick {
        let Some(v) = vectors.get(i) else { continue };
        let cands = candidates(form, v);
        if !cands.is_empty() {
            scored.push((hardness(form, v, &cands), digest(form, v), i, cands));
        }
    }
    if scored.is_empty() {
        return Vec::new();
    }
    // The hardest half by score (ties: by digest, a function of the contents), then the rest
    // spread by digest order.
    let mut order: Vec<usize> = (0..scored.len()).collect();
    order.sort_by_key(|&j| (std::cmp::Reverse(scored[j].0), scored[j].1, scored[j].2));
    let hard = (SAMPLE / 2).min(order.len());
    let mut chosen: Vec<usize> = order[..hard].to_vec();
    let mut rest: Vec<usize> = order[hard..].to_vec();
    rest.sort_by_key(|&j| (scored[j].1, scored[j].2));
    let want = SAMPLE - hard;
    if rest.len() <= want {
        chosen.extend(rest);
    } else {
        chosen.extend((0..want).map(|n| rest[n * rest.len() / want]));
    }
    // Threads in the order of the picks.
    chosen.sort_by_key(|&j| scored[j].2);
    chosen.dedup_by_key(|j| scored[*j].2);
    chosen
        .into_iter()
        .map(|j| {
            let (_, h, index, ref cands) = scored[j];
            extra(form, &vectors[index], index, h, cands)
        })
        .collect()
}

/// Vector `v` with the sources its digest `h` picks written into the text.
fn extra(form: &Form, v: &Vector, index: usize, h: u64, cands: &[usize]) -> Extra {
    let which = (h % (cands.len() as u64 + 1)) as usize;
    let ks: Vec<usize> = match cands.get(which) {
        Some(&k) => vec![k],
        None => cands.to_vec(),
    };
    let mut written = v.clone();
    let mut writes: Vec<(usize, Writing)> = Vec::new();
    let mut rare_spelling = false;
    for (n, &k) in ks.iter().enumerate() {
        let o = &form.inputs[k];
        let salt = (h >> 20).wrapping_add(k as u64 * 7 + n as u64);
        // A plain predicate: `!p` two times in three (the extra the grammar lines do not show),
        // else a constant 0 or 1.
        let negate = negatable_beyond_grammar(form, k) && (salt % 3 != 2 || !takes_literal(form, k));
        if negate {
            written.ins[k].negated = true;
            written.ins[k].bits ^= 1;
            writes.push((k, Writing::Negated));
            continue;
        }
        let start = (salt % SPELLINGS.len() as u64) as usize;
        let f64_ok = f64_constants(o);
        let (how, text) = (0..SPELLINGS.len())
            .map(|d| SPELLINGS[(start + d) % SPELLINGS.len()])
            .filter(|&how| f64_ok || how == Spelling::FloatBits)
            .find_map(|how| spell(o.ty, v.ins[k].bits, how).map(|t| (how, t)))
            .expect("every literal type has a spelling");
        rare_spelling |= rare(how);
        writes.push((k, Writing::Literal(text)));
    }
    let mut variant = Variant::of(form, &written);
    let mut note = Vec::new();
    for (k, w) in writes {
        let name = form.inputs[k].name;
        match w {
            Writing::Literal(text) => {
                note.push(format!("{name} = {text}"));
                variant.text[k] = Some(text);
            }
            Writing::Negated => note.push(format!("{name} = !p (p holding the complement)")),
        }
    }
    Extra {
        index,
        written,
        variant,
        note: format!("written into the instruction: {}", note.join(", ")),
        rare: rare_spelling,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spec::catalog::catalog;
    use spec::value::{Input, Outcome};

    fn form(name: &str) -> &'static Form {
        &catalog().forms[catalog().lookup(name).expect(name).forms[0]]
    }

    fn vector(ins: &[u128]) -> Vector {
        Vector {
            dsel: None,
            ins: ins.iter().map(|&b| Input::bits(b)).collect(),
            outs: vec![Outcome::exact(0)],
        }
    }

    #[test]
    fn the_sample_is_bounded_and_takes_the_hard_values_first() {
        let f = form("add.u64");
        let mut vs: Vec<Vector> = (0..200u128).map(|n| vector(&[n, n + 1])).collect();
        vs.push(vector(&[0x8000_0000_0000_0001, 5]));
        let pick: Vec<usize> = (0..vs.len()).collect();
        let ex = extras(f, &vs, &pick);
        assert_eq!(ex.len(), SAMPLE);
        assert!(
            ex.iter().any(|e| e.index == 200),
            "the 64-bit value with its high bit set"
        );
        // In pick order, each vector once.
        assert!(ex.windows(2).all(|w| w[0].index < w[1].index));
        // A function of the contents: the same vectors give the same threads in any company.
        let alone = extras(f, &vs[200..], &[0]);
        let e200 = ex.iter().find(|e| e.index == 200).unwrap();
        assert_eq!(alone[0].variant, e200.variant);
        assert_eq!(alone[0].note, e200.note);
    }

    #[test]
    fn selp_selectors_are_negated_with_the_complement_stored() {
        let f = form("selp.b32");
        let vs: Vec<Vector> = (0..64u128).map(|n| vector(&[n, 100 + n, n & 1])).collect();
        let pick: Vec<usize> = (0..vs.len()).collect();
        let ex = extras(f, &vs, &pick);
        let negated: Vec<&Extra> = ex.iter().filter(|e| e.variant.ins[2].1).collect();
        assert!(
            negated.len() >= 3,
            "{} of {} threads write `!p`: {:?}",
            negated.len(),
            ex.len(),
            ex.iter().map(|e| &e.note).collect::<Vec<_>>()
        );
        for e in negated {
            assert_eq!(e.written.ins[2].bits, vs[e.index].ins[2].bits ^ 1);
        }
        assert!(ex.iter().any(|e| e.variant.text[0].is_some()), "a constant `a`");
    }

    /// The deprecated sm_1x forms keep their target (`header_for`), which has no `brx.idx`
    /// (sm_30, L16769): their immediate-operand runs are reached by the branch search, in every
    /// launch, whatever dispatch the backend asked for.
    #[test]
    fn sm_1x_forms_get_immediate_runs_through_branches() {
        let f = form("mad.f32");
        assert!(super::super::header_for(f).1.sm < 30, "mad.f32 keeps its sm_1x target");
        let vs = generators::vectors::generate(f, 1, generators::vectors::Level::Golden)
            .unwrap()
            .vectors;
        let pick: Vec<usize> = (0..vs.len()).collect();
        let ex = extras(f, &vs, &pick);
        assert_eq!(ex.len(), SAMPLE);
        let batches = super::super::build(f, &vs, &pick, vs.len()).unwrap();
        let runs: usize = batches.iter().map(|b| b.vectors.len()).sum();
        assert_eq!(runs, vs.len() + SAMPLE);
        assert!(batches.iter().all(|b| !b.job.ptx.contains("brx.idx")));
        assert!(batches[1..].iter().any(|b| b.job.ptx.contains("@%upper bra")));
    }

    #[test]
    fn forms_without_literal_sources_get_no_extras() {
        let f = form("add.f16");
        let vs = vec![vector(&[0x3c00, 0x3c00])];
        assert!(extras(f, &vs, &[0]).is_empty());
    }
}
