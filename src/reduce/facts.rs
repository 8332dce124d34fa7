//! What the reducer asks about the instructions of a syntax tree, answered by the instruction
//! catalog ([`Catalog::effects`], [`Catalog::rules`], [`Catalog::writes_first`]) and the spec's
//! special-register table (`spec::sreg`): no opcode's spelling is written here, and nothing else
//! in the reducer reads one (`probe` only writes instructions of its own).
//!
//! On the AST:
//! - [`first_is_source`] — opcodes whose operand 0 is read, not written;
//! - [`dest_and_sources`] — the names an instruction writes and reads;
//! - [`quiet`] — neither touches shared/global memory nor changes control flow;
//! - [`is_barrier`], [`contains_barrier`] — `bar`/`barrier` statements;
//! - [`branch_target`], [`ends_flow`] — `bra` targets; what ends a basic block;
//! - [`ends_thread`] — `ret`/`exit` (the end of a kernel orders nothing);
//! - [`is_call_or_branch`] — `call`/`bra`/`brx`, whose operands are not values;
//! - [`is_param_load`], [`accesses_param`] — `ld.param` and `.param` accesses;
//! - [`is_add64`] — a 64-bit integer sum (`add`) whose constant term folds into an address;
//! - [`is_sreg`], [`sreg_type`], [`sreg_value`], [`last_thread_sreg`] — special registers (the
//!   spec's table, `spec::sreg`), their type and their values under a launch geometry;
//! - [`is_builtin_constant`] — `WARP_SZ`;
//!
//! [`Catalog::effects`]: spec::catalog::Catalog::effects
//! [`Catalog::rules`]: spec::catalog::Catalog::rules
//! [`Catalog::writes_first`]: spec::catalog::Catalog::writes_first
//!
//! The decoded program's facts (the register slots an instruction reads and writes, where control
//! goes next, which operations are pure) are methods of `oracle::program::Inst` and `Op`.

use oracle::ast::{Expr, Instr, Operand, Stmt};
use oracle::launch::LaunchFile;
use spec::catalog::catalog;
use spec::sreg::{Place, Sreg};
use spec::types::{Kind, Type};

// ---- on the AST ----

/// Opcodes whose first operand is not a destination (the catalog's [`Catalog::writes_first`]).
///
/// [`Catalog::writes_first`]: spec::catalog::Catalog::writes_first
pub(super) fn first_is_source(opcode: &str) -> bool {
    !catalog().writes_first(opcode)
}

/// Registers an instruction writes (by name) and the names it reads.
pub(super) fn dest_and_sources(i: &Instr) -> (Vec<&str>, Vec<&str>) {
    let mut dst = Vec::new();
    let mut src = Vec::new();
    for (k, o) in i.operands.iter().enumerate() {
        if k == 0 && !first_is_source(&i.opcode) {
            o.names(&mut dst);
        } else {
            o.names(&mut src);
        }
    }
    if let Some((_, p)) = &i.guard {
        src.push(p);
    }
    (dst, src)
}

/// An instruction that neither touches shared or global memory nor changes control flow.
pub(super) fn quiet(i: &Instr) -> bool {
    let memory = i.operands.iter().any(|o| matches!(o, Operand::Address(_)))
        && !i.mods.iter().any(|m| matches!(m.as_str(), "param" | "local"));
    !memory && !catalog().effects(&i.opcode).any()
}

/// A `bar`/`barrier` instruction.
pub(super) fn is_barrier(s: &Stmt) -> bool {
    matches!(s, Stmt::Instr(i) if catalog().effects(&i.opcode).barrier)
}

/// A barrier, or a block containing one.
pub(super) fn contains_barrier(s: &Stmt) -> bool {
    match s {
        Stmt::Block { body, .. } => body.iter().any(contains_barrier),
        s => is_barrier(s),
    }
}

/// The label an unconditional or guarded branch names (its operand `tgt`, L16702: `bra`), and
/// whether it is unguarded.
pub(super) fn branch_target(s: &Stmt) -> Option<(&str, bool)> {
    match s {
        Stmt::Instr(i) if catalog().effects(&i.opcode).branch && catalog().operand0_named(&i.opcode, "tgt") => {
            match i.operands.first() {
                Some(Operand::Expr(Expr::Name(l))) => Some((l.as_str(), i.guard.is_none())),
                _ => None,
            }
        }
        _ => None,
    }
}

/// An instruction after which control does not fall through (unless guarded).
pub(super) fn ends_flow(s: &Stmt) -> bool {
    matches!(s, Stmt::Instr(i) if catalog().effects(&i.opcode).ends_flow())
}

/// `ret` or `exit` (in a kernel's body, the end of the thread).
pub(super) fn ends_thread(i: &Instr) -> bool {
    catalog().effects(&i.opcode).returns
}

/// `call`, `bra` and `brx`: their operands are labels, functions and arguments, not values to
/// replace.
pub(super) fn is_call_or_branch(opcode: &str) -> bool {
    let e = catalog().effects(opcode);
    e.call || e.branch
}

/// `ld.param`, a `.param` access with a destination: its destinations are parameters (pointers
/// to buffers, `.param` results).
pub(super) fn is_param_load(i: &Instr) -> bool {
    accesses_param(i)
        && catalog().writes_first(&i.opcode)
        && i.operands.iter().any(|o| matches!(o, Operand::Address(_)))
}

/// An access to the `.param` space (its address is not a memory address the reducer judges).
pub(super) fn accesses_param(i: &Instr) -> bool {
    i.mods.iter().any(|m| m == "param")
}

/// `add.s64`/`add.u64` (unguarded or not; `OpcodeRules::address_sum`): `[%a+K]` after
/// `add %a, %b, C` is `[%b+C+K]`.
pub(super) fn is_add64(def: &Instr) -> bool {
    catalog().rules(&def.opcode).address_sum
        && def
            .mods
            .iter()
            .any(|m| Type::parse(m).is_some_and(|t| matches!(t.kind, Kind::Signed | Kind::Unsigned) && t.bits() == 64))
}

/// Whether `n` names a special register (§10: the spec's table).
pub(super) fn is_sreg(n: &str) -> bool {
    spec::sreg::is_special(n)
}

/// The type a special register source is taken for (`None`: one the oracle does not execute).
pub(super) fn sreg_type(n: &str) -> Option<Type> {
    Sreg::parse(n).map(Sreg::ty)
}

/// The place of the thread at `tid` in CTA `ctaid` of the launch.
fn place(l: &LaunchFile, tid: [u32; 3], ctaid: [u32; 3]) -> Place {
    Place {
        tid,
        ntid: l.block,
        ctaid,
        nctaid: l.grid,
    }
}

/// The value of a special register that is the same in every thread of the launch: the
/// geometry, and an index along a dimension of size 1 (`.x` `.y` `.z`; not `.w`).
pub(super) fn sreg_value(n: &str, l: &LaunchFile) -> Option<u64> {
    let s = Sreg::parse(n)?;
    let uniform = match s {
        Sreg::Ntid(c) | Sreg::Nctaid(c) => c < 3,
        Sreg::Tid(c) => c < 3 && l.block[c as usize] == 1,
        Sreg::Ctaid(c) => c < 3 && l.grid[c as usize] == 1,
        _ => false,
    };
    if !uniform {
        return None;
    }
    s.at(&place(l, [0; 3], [0; 3]))
}

/// The value of `%tid`, `%ctaid`, `%ntid`, `%nctaid` (`.x`/`.y`/`.z`) and `%laneid` in the
/// last thread of the launch.
pub(super) fn last_thread_sreg(n: &str, l: &LaunchFile) -> Option<u64> {
    let s = Sreg::parse(n)?;
    let taken = match s {
        Sreg::Tid(c) | Sreg::Ctaid(c) | Sreg::Ntid(c) | Sreg::Nctaid(c) => c < 3,
        Sreg::Laneid => true,
        _ => false,
    };
    let last =
        |d: [u32; 3]| -> Option<[u32; 3]> { Some([d[0].checked_sub(1)?, d[1].checked_sub(1)?, d[2].checked_sub(1)?]) };
    if !taken {
        return None;
    }
    s.at(&place(l, last(l.block)?, last(l.grid)?))
}

/// A name that is a built-in constant, not a variable (`WARP_SZ`).
pub(super) fn is_builtin_constant(n: &str) -> bool {
    spec::sreg::predefined_constant(n).is_some()
}
