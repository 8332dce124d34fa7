//! The SIMD byte selector `.b1024` written another way, for backends whose PTX reader refuses it.
//!
//! `.asel = .bsel = .bxyzw` with x-w in 0-7 (§9.7.18.2.3, L31433; §9.7.18.2.4 likewise), so
//! `a.b1024` is in the grammar. NVIDIA's assembler lexes `.b1024` as the bit-size type of
//! `tensormap.replace` (§9.7.9.26) and stops: "Parsing error near '.b1024': syntax error" (ptxas
//! 12.9 and the CUDA 13.0 JIT, `corpus/findings/ptxas-12.9-rejects.txt`; it takes `.b1023`,
//! `.b1025` and the mask `.b32`). For such a backend ([`Feature::SelB1024`](crate::backend::Feature))
//! the kernel permutes two bytes of one source register with `prmt` before the instruction and
//! renames the selected elements to match, which selects the same bytes: the vector, its record
//! and the instruction's value are unchanged.
//!
//! The elements of a 4-way selector are the bytes of `{b, a}` (L31192-31202): 0-3 are `a`'s
//! register (source 0), 4-7 are `b`'s (source 1).

use super::Variant;
use spec::value::Sel;

/// The selector the backend refuses: `b1024`.
fn refused(s: &Sel) -> bool {
    s.kind == b'b' && s.lanes() == [1, 0, 2, 4]
}

/// A byte swap in one source register: the source index, the two elements of `{b, a}` whose
/// bytes trade places, and the `prmt` selector that does it (result byte i = source byte
/// nibble i).
struct Swap {
    source: usize,
    elems: (u8, u8),
    prmt: u16,
}

/// The swaps tried in order. Swapping `a`'s bytes 0 and 3 turns `b1024` into `b1324`, `b`'s
/// bytes 0 and 1 (elements 4, 5) into `b1025`; the second pair of each register covers a
/// selector that the first swap would turn into `b1024` (`b1324`, `b1025` on the other source).
const SWAPS: [Swap; 4] = [
    Swap {
        source: 0,
        elems: (0, 3),
        prmt: 0x0213,
    },
    Swap {
        source: 1,
        elems: (4, 5),
        prmt: 0x3201,
    },
    Swap {
        source: 0,
        elems: (1, 2),
        prmt: 0x3120,
    },
    Swap {
        source: 1,
        elems: (6, 7),
        prmt: 0x2310,
    },
];

fn renamed(s: Sel, (x, y): (u8, u8)) -> Sel {
    let mut r = s;
    for e in r.idx[..usize::from(r.n)].iter_mut() {
        if *e == x {
            *e = y;
        } else if *e == y {
            *e = x;
        }
    }
    r
}

/// `var` with no source selector spelled `.b1024`: the first swap whose register is written
/// with an explicit selector (a source without one selects only its own register's bytes by
/// default, which the swap must not disturb; a constant has no register to permute) and after
/// which no selector is `.b1024`. `var` itself when it has no such selector (or, never for the
/// grammar's operands, when no swap fits).
pub(super) fn respell(var: &Variant) -> Variant {
    let sels: Vec<Option<Sel>> = var.ins.iter().map(|i| i.2).collect();
    if !sels.iter().flatten().any(refused) {
        return var.clone();
    }
    for sw in &SWAPS {
        let register = var
            .ins
            .get(sw.source)
            .is_some_and(|i| i.0 && i.2.is_some() && i.3.is_none())
            && var.text.get(sw.source).is_some_and(Option::is_none);
        if !register {
            continue;
        }
        let after: Vec<Option<Sel>> = sels.iter().map(|s| s.map(|s| renamed(s, sw.elems))).collect();
        if after.iter().flatten().any(refused) {
            continue;
        }
        let mut out = var.clone();
        for (i, s) in out.ins.iter_mut().zip(after) {
            i.2 = s;
        }
        out.prmt.push((sw.source, sw.prmt));
        return out;
    }
    var.clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn var(a: &str, b: &str) -> Variant {
        let sel = |s: &str| (!s.is_empty()).then(|| Sel::parse(s).unwrap());
        Variant {
            dsel: None,
            ins: vec![
                (true, false, sel(a), None),
                (true, false, sel(b), None),
                (true, false, None, None),
            ],
            text: vec![None; 3],
            prmt: Vec::new(),
        }
    }

    fn sels(v: &Variant) -> Vec<String> {
        v.ins
            .iter()
            .map(|i| i.2.map(|s| s.to_string()).unwrap_or_default())
            .collect()
    }

    /// The bytes `sel` picks out of `{b, a}`, lane 3 first.
    fn picked(sel: Sel, a: u32, b: u32) -> Vec<u8> {
        let pair = (u64::from(b) << 32) | u64::from(a);
        sel.lanes().iter().map(|&e| (pair >> (8 * e)) as u8).collect()
    }

    /// What `prmt.b32 d, x, 0, sel` (default mode) leaves in d: result byte i = byte nibble i of
    /// {0, x}.
    fn prmt(x: u32, sel: u16) -> u32 {
        (0..4).fold(0, |d, i| {
            let n = (sel >> (4 * i)) & 0xf;
            let byte = if n < 4 { (x >> (8 * n)) & 0xff } else { 0 };
            d | (byte << (8 * i))
        })
    }

    #[test]
    fn b1024_on_a_swaps_a_bytes_0_and_3() {
        let r = respell(&var("b1024", "b1253"));
        // b names a's byte 3 too, which is now byte 0.
        assert_eq!(sels(&r), ["b1324", "b1250", ""]);
        assert_eq!(r.prmt, [(0, 0x0213)]);
    }

    #[test]
    fn b1024_on_b_with_a_default_swaps_b() {
        let r = respell(&var("", "b1024"));
        assert_eq!(sels(&r), ["", "b1025", ""]);
        assert_eq!(r.prmt, [(1, 0x3201)]);
    }

    #[test]
    fn a_swap_that_would_make_b1024_is_passed_over() {
        // Swapping a's bytes 0 and 3 would turn b's b1324 into b1024.
        let r = respell(&var("b1024", "b1324"));
        assert_eq!(sels(&r), ["b1025", "b1325", ""]);
        assert_eq!(r.prmt, [(1, 0x3201)]);
    }

    #[test]
    fn other_selectors_are_left_alone() {
        let v = var("b1023", "b7654");
        assert_eq!(respell(&v), v);
    }

    /// The respelled selectors pick the same bytes from the permuted registers as `.b1024` from
    /// the original ones, for every selector of the other source that holds a swapped element.
    #[test]
    fn respelled_selectors_pick_the_same_bytes() {
        let (a, b) = (0x8302_8100u32, 0x8706_8504u32);
        for other in ["b1324", "b1253", "b0000", "b7777", "b5410", "b1025"] {
            for (x, y) in [("b1024", other), (other, "b1024")] {
                let v = var(x, y);
                let r = respell(&v);
                let (mut a2, mut b2) = (a, b);
                for &(k, sel) in &r.prmt {
                    let reg = if k == 0 { &mut a2 } else { &mut b2 };
                    *reg = prmt(*reg, sel);
                }
                for (old, new) in v.ins.iter().zip(&r.ins) {
                    let (Some(o), Some(n)) = (old.2, new.2) else { continue };
                    assert_ne!(n.to_string(), "b1024");
                    assert_eq!(picked(o, a, b), picked(n, a2, b2), "{x} {y} -> {:?}", sels(&r));
                }
            }
        }
    }
}
