//! The facts the checker still reads from tables and rules keyed by name strings (opcodes,
//! modifiers, special-register names, ptxas's message text) rather than from the catalog. The
//! catalog accessor replaces them next; until then their logic stays as it is. They are:
//!
//! - special registers (their table is `spec::sreg`): [`reads_sregs`] (read by `mov` and `cvt`
//!   only), [`predefined`] (`WARP_SZ`);
//! - [`warp_kind`]: which warp collective a form of `@exec warp` is (`shfl`, `vote`, `match`,
//!   `redux`, `elect`, `activemask`; that it is one is the catalog's `spec::catalog::Exec::Warp`);
//! - opcode rules: [`prefetchu_generic`] (`prefetchu` takes a generic address; the removal
//!   notes, `mad.f32` without rounding and `shfl`/`vote` without `.sync`, are the catalog's
//!   `@retired`);
//! - type agreement: [`wider_registers`] (Tables 24/25: `cvt`, `ld`, `ldu`, `st` in the shape
//!   check) and [`bound_wider_registers`] (`cvt` among the bound value forms);
//! - one-element vectors and vector registers: [`bits_mov`], [`mov_whole_vectors`],
//!   [`mov_vector_pairing`], [`bf16_one_element_sources`], [`store_data_one_element`];
//! - addresses and hints: [`immediate_address_ok`] (`[imm]` for `.local` only, ptxas 12.9),
//!   [`cache_hint`] and [`cache_policy_hinted`] (a cache policy needs `.L2::cache_hint`);

use super::errors::{terr, Result};
use crate::ast::{Instr, Loc};
use crate::program::{Addr, Space, WarpKind};
use spec::catalog::Form;
use spec::types::Type;

pub use spec::sreg::Unmodeled;

/// Special registers are read by `mov` and `cvt` only (§10).
pub(super) fn reads_sregs(opcode: &str) -> bool {
    matches!(opcode, "mov" | "cvt")
}

/// The value of a predefined constant where no declaration shadows it: `WARP_SZ`, 32 (§4.5.1, L641).
pub(super) fn predefined(n: &str) -> Option<u64> {
    (n == "WARP_SZ").then_some(32)
}

/// prefetchu takes a generic address only (ptxas 12.9: "Non-generic address is not supported as
/// operand for prefetchu", for `[lbuf]`).
pub(super) fn prefetchu_generic(opcode: &str, space: Space, loc: Loc) -> Result<()> {
    if opcode == "prefetchu" && space != Space::Generic {
        return terr(loc, "`prefetchu` takes a generic address, not a `.local` variable's");
    }
    Ok(())
}

/// Tables 24/25 (§9.4.1): the registers of these instructions may be wider than their types (the
/// rule the shape check of forms the oracle does not execute applies).
pub(super) fn wider_registers(opcode: &str) -> bool {
    matches!(opcode, "cvt" | "ld" | "ldu" | "st")
}

/// §9.4.1 among the bound value forms: `cvt` takes registers wider than its types (the plain
/// `ld`, `ldu` and `st` have decoders of their own that apply it; the forms that share their
/// opcode, `st.async`, `st.bulk`, ..., bind without it).
pub(super) fn bound_wider_registers(opcode: &str) -> bool {
    opcode == "cvt"
}

/// A `mov` of a bit-size type (`mov.b32`): ptxas reads a one-element vector `{x}` in it as `x`
/// (`mov.f32 %f1, {%f2}` is "Argument vector size mismatch": bit types only).
pub(super) fn bits_mov(i: &Instr) -> bool {
    i.opcode == "mov" && i.mods.iter().any(|m| m.starts_with('b') && Type::parse(m).is_some())
}

/// A whole vector register in a `mov` is its elements (`mov.b32 %v, %r` with `.v4 .b8 %v`).
pub(super) fn mov_whole_vectors(opcode: &str) -> bool {
    opcode == "mov"
}

/// `{x}` beside a real vector in a `mov` is not a register (`paired`: the instruction has both):
/// "Illegal vector-vector operands for vector-scalar or scalar-vector mov".
pub(super) fn mov_vector_pairing(i: &Instr, paired: bool) -> Result<()> {
    if i.opcode == "mov" && paired {
        return terr(i.loc, "`mov` cannot pair a one-element vector `{x}` with a vector");
    }
    Ok(())
}

/// ptxas reads `{x}` as `x` for the sources of the `.bf16`/`.bf16x2` instructions (`neg.bf16 d,
/// {a}`, `ex2.approx.ftz.bf16`, `setp.gtu.and.bf16x2`), not of `.f16` ones, nor of `mov`.
pub(super) fn bf16_one_element_sources(i: &Instr) -> bool {
    i.opcode != "mov" && i.mods.iter().any(|m| m == "bf16" || m == "bf16x2")
}

/// The data a store writes may be `{x}` (ptxas 12.9: `st.async [a], {b}, [m]`,
/// `multimem.st.f64 [a], {b}`, `st.bulk [a], n, {0}`); not the st.async forms without an
/// mbarrier ("Vector operand is not allowed"). `slot` is the catalog operand written there.
pub(super) fn store_data_one_element(form: &Form, slot: &spec::catalog::Operand) -> bool {
    matches!(slot.name, "b" | "initval")
        && (form.opcode == "st" || form.mods.first() == Some(&"st"))
        && (form.mods.first() != Some(&"async") || form.inputs.iter().any(|o| o.name == "mbar"))
}

/// Whether the instruction has `.L2::cache_hint`.
pub(super) fn cache_hint(i: &Instr) -> bool {
    i.mods.iter().any(|m| m == "L2::cache_hint")
}

/// Which warp collective a form of the catalog's warp collectives (`@exec warp`) is.
pub(super) fn warp_kind(form: &Form) -> Option<WarpKind> {
    use spec::warp::{ShflMode, VoteMode};
    let sync = form.has("sync");
    Some(match form.opcode {
        "shfl" => WarpKind::Shfl(ShflMode::parse(form.var("mode")?)?, sync),
        "vote" => WarpKind::Vote(
            match form.var("mode") {
                Some(m) => VoteMode::parse(m)?,
                None => VoteMode::Ballot,
            },
            sync,
        ),
        "match" if form.has("any") => WarpKind::MatchAny,
        "match" => WarpKind::MatchAll,
        "redux" => WarpKind::Redux,
        "elect" => WarpKind::Elect,
        "activemask" => WarpKind::Activemask,
        _ => return None,
    })
}

/// ptxas 12.9: "Immediate addresses allowed only for .local state space" (the manual lists
/// `[immAddr]` for every space, L3100); a variable's address is no immediate.
pub(super) fn immediate_address_ok(addr: Addr, sym: Option<Space>, space: Space, loc: Loc) -> Result<()> {
    if matches!(addr, Addr::Abs(_)) && sym.is_none() && space != Space::Local {
        return terr(
            loc,
            format!(
                "an immediate address `[imm]` is allowed only for `.local`, not `.{}` (ptxas 12.9)",
                space.name()
            ),
        );
    }
    Ok(())
}

/// A cache-policy operand comes with `.L2::cache_hint` (ptxas 12.9; L12507).
pub(super) fn cache_policy_hinted(i: &Instr) -> Result<()> {
    if cache_hint(i) {
        Ok(())
    } else {
        terr(
            i.loc,
            "a cache policy operand needs `.L2::cache_hint` (ptxas 12.9; L12507)",
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spec::catalog::{catalog, Exec};

    /// The checker binds a form as a warp collective when its row says so (`@exec warp`);
    /// `warp_kind` knows which collective every such form is, and no other form.
    #[test]
    fn warp_kind_covers_the_warp_collectives_of_the_catalog() {
        for f in &catalog().forms {
            assert_eq!(warp_kind(f).is_some(), f.exec() == Some(Exec::Warp), "{}", f.name);
        }
    }
}
