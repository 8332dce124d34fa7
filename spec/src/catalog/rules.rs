//! Operand rules of an instruction that hold for every form of its opcode (`@opcode` lines of the
//! table), and the few operand-syntax rules ptxas applies by type or modifier rather than by
//! opcode (one-element vectors, cache hints). The type checker, the reducer and the parser ask here instead of matching opcode
//! names; together with [`super::Effects`] this is the catalog's one accessor for instruction
//! facts that are not a form's operands and types.
//!
//! An `@opcode OPCODE FACT...` line gives an opcode its facts ([`OPCODE_FACTS`]); an opcode may
//! have several such lines (their facts add up), and one that names an opcode without rows, or an
//! unknown fact, is an error when the catalog is built.

use super::{Form, Operand};
use crate::types::{FloatFormat, Kind, Type};

/// The facts an `@opcode` line may give (see the fields of [`OpcodeRules`]).
pub const OPCODE_FACTS: &[&str] = &[
    "sreg-sources",
    "wider-registers",
    "vector-elements",
    "generic-address",
    "address-sum",
];

/// What holds for every form of an opcode (`@opcode` lines). All false for an opcode without
/// such a line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct OpcodeRules {
    /// `sreg-sources`: its sources may be special registers. §10: they are read with `mov` and
    /// `cvt` only (a 16-bit read of a 32-bit one taking the low half, L31875).
    pub sreg_sources: bool,
    /// `wider-registers`: its data registers may be wider than its type (§9.4.1, Tables 24 and
    /// 25, L4545: `ld`, `st`, `cvt`; ptxas 12.9 takes `ldu` alike).
    pub wider_registers: bool,
    /// `vector-elements`: a vector operand is its elements. A whole vector register stands for
    /// its elements (`mov.b32 %v, %r` with `.v4 .b8 %v`), a one-element vector `{x}` of a
    /// bit-size type for `x` (`mov.b32 {%r1}, %r2`; `mov.f32 %f1, {%f2}` is ptxas 12.9's
    /// "Argument vector size mismatch"), and `{x}` beside a real vector is refused ("Illegal
    /// vector-vector operands for vector-scalar or scalar-vector mov"). `mov` (§9.7.9.3-4).
    pub vector_elements: bool,
    /// `generic-address`: its address is generic, never a state space variable's (ptxas 12.9:
    /// "Non-generic address is not supported as operand for prefetchu"). `prefetchu`
    /// (§9.7.9.15).
    pub generic_address: bool,
    /// `address-sum`: its integer forms compute `d = a + b` modulo 2^n, so an address `[d+K]`
    /// after it is `[a+b+K]` (the reducer folds a constant term into the address). `add`
    /// (§9.7.1.1).
    pub address_sum: bool,
}

impl OpcodeRules {
    /// Adds the fact named `fact`; `false` for a name not in [`OPCODE_FACTS`].
    pub(super) fn set(&mut self, fact: &str) -> bool {
        let flag = match fact {
            "sreg-sources" => &mut self.sreg_sources,
            "wider-registers" => &mut self.wider_registers,
            "vector-elements" => &mut self.vector_elements,
            "generic-address" => &mut self.generic_address,
            "address-sum" => &mut self.address_sum,
            _ => return false,
        };
        *flag = true;
        true
    }
}

/// Whether ptxas 12.9 reads a one-element vector `{x}` among the sources of an instruction as
/// `x`: it does for the `.bf16`/`.bf16x2` instructions (`neg.bf16 d, {a}`,
/// `ex2.approx.ftz.bf16`, `setp.gtu.and.bf16x2`), not for the `.f16` ones, nor (by this rule)
/// for an opcode whose vectors are its elements (`mov`, [`OpcodeRules::vector_elements`]).
pub fn one_element_sources(rules: OpcodeRules, mods: &[impl AsRef<str>]) -> bool {
    !rules.vector_elements
        && mods
            .iter()
            .any(|m| Type::parse(m.as_ref()).is_some_and(|t| t.kind == Kind::Float(FloatFormat::Bf16) && t.lanes <= 2))
}

/// Whether the modifiers carry `.L2::cache_hint`: a cache-policy operand comes with it (ptxas
/// 12.9; L12507), and the hint needs a cache policy.
pub fn cache_hint(mods: &[impl AsRef<str>]) -> bool {
    mods.iter().any(|m| m.as_ref() == "L2::cache_hint")
}

/// Whether the data a store writes may be a one-element vector `{x}` at catalog operand `slot`
/// of `form` (ptxas 12.9: `st.async [a], {b}, [m]`, `multimem.st.f64 [a], {b}`, `st.bulk [a],
/// n, {0}`), not in the `st.async` forms without an mbarrier ("Vector operand is not allowed").
pub fn one_element_data(form: &Form, slot: &Operand) -> bool {
    matches!(slot.name, "b" | "initval")
        && (form.opcode == "st" || form.mods.first() == Some(&"st"))
        && (form.mods.first() != Some(&"async") || form.inputs.iter().any(|o| o.name == "mbar"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bf16_sources_take_one_element_vectors_and_mov_does_not() {
        let plain = OpcodeRules::default();
        assert!(one_element_sources(plain, &["neg", "bf16"]));
        assert!(one_element_sources(plain, &["gtu", "and", "bf16x2"]));
        assert!(!one_element_sources(plain, &["neg", "f16"]));
        let mov = OpcodeRules {
            vector_elements: true,
            ..OpcodeRules::default()
        };
        assert!(!one_element_sources(mov, &["bf16"]));
    }

    #[test]
    fn every_fact_name_sets_one_field() {
        for f in OPCODE_FACTS {
            let mut r = OpcodeRules::default();
            assert!(r.set(f), "{f}");
            assert_ne!(r, OpcodeRules::default(), "{f}");
        }
        assert!(!OpcodeRules::default().set("sreg"));
    }
}
