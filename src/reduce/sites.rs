//! Registers, replaceable operands and what addresses depend on: a function's `.reg`
//! declarations ([`Regs`]), every register source that may become a constant ([`Site`],
//! [`sites`]) with its type and candidate constants ([`OpTy`]), the registers addresses are
//! computed from or that hold a variable's address ([`address_sets`]), and the count of memory
//! accesses anchored to neither a variable nor a parameter ([`raw_addresses`]).

use super::facts::{
    accesses_param, dest_and_sources, first_is_source, is_builtin_constant, is_call_or_branch, is_param_load, is_sreg,
    sreg_type,
};
use super::syntax::{all_instrs, list_paths, list_ref, ListPath};
use oracle::ast::{Expr, Item, Module, Operand, Stmt};
use spec::types::{FloatFormat, Kind, Type};
use std::collections::{HashMap, HashSet};

/// The `.reg` declarations of a function: single names and parameterized ranges.
#[derive(Default)]
pub(super) struct Regs {
    single: HashMap<String, String>,
    ranges: HashMap<String, (u64, String)>,
}

impl Regs {
    pub(super) fn of(body: &[Stmt]) -> Regs {
        fn walk(body: &[Stmt], r: &mut Regs) {
            for s in body {
                match s {
                    Stmt::Decl(d) if d.space == "reg" => match d.range {
                        Some(n) => {
                            r.ranges.insert(d.name.clone(), (n, d.ty.clone()));
                        }
                        None => {
                            r.single.insert(d.name.clone(), d.ty.clone());
                        }
                    },
                    Stmt::Block { body, .. } => walk(body, r),
                    _ => {}
                }
            }
        }
        let mut r = Regs::default();
        walk(body, &mut r);
        r
    }

    pub(super) fn ty(&self, name: &str) -> Option<&str> {
        if let Some(t) = self.single.get(name) {
            return Some(t);
        }
        let stem = name.trim_end_matches(|c: char| c.is_ascii_digit());
        let idx: u64 = name.get(stem.len()..)?.parse().ok()?;
        match self.ranges.get(stem) {
            Some((n, t)) if idx < *n => Some(t),
            _ => None,
        }
    }
}

/// The type of a replaceable operand and the constants it can take.
#[derive(Clone, Copy, Debug)]
pub(super) struct OpTy {
    pub(super) ty: Type,
}

impl OpTy {
    /// 0, 1 and -1 (all ones) of the type: 0 and ±1.0 for floats, 0 and 1 for predicates.
    pub(super) fn small_values(&self) -> Vec<u64> {
        let bits = self.ty.bits();
        let mask = if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 };
        match self.ty.kind {
            Kind::Pred => vec![0, 1],
            Kind::Float(FloatFormat::F32) => vec![0, 0x3F80_0000, 0xBF80_0000],
            Kind::Float(FloatFormat::F64) => vec![0, 0x3FF0_0000_0000_0000, 0xBFF0_0000_0000_0000],
            _ => vec![0, 1, mask],
        }
    }
}

/// A source operand that may become a constant.
#[derive(Clone, Debug)]
pub(super) struct Site {
    pub(super) list: ListPath,
    pub(super) stmt: usize,
    pub(super) operand: usize,
    pub(super) ty: OpTy,
    /// The register (`None`: a special register or `!p`).
    pub(super) reg: Option<String>,
    /// The instruction computes a value an address depends on.
    pub(super) feeds_address: bool,
    /// The register holds (or derives from) a variable's address.
    pub(super) address: bool,
}

impl Site {
    /// Whether 0, 1 and -1 may replace it (its value is no address, nor feeds one where threads
    /// could meet).
    pub(super) fn replaceable(&self, multi_thread: bool) -> bool {
        !(self.address || multi_thread && self.feeds_address)
    }
}

/// Every register (or special register, or `!p`) source operand of the module, in program
/// order.
pub(super) fn sites(m: &Module) -> Vec<Site> {
    let mut out = Vec::new();
    for p in list_paths(m) {
        let Some(Item::Function(f)) = m.items.get(p.item) else {
            continue;
        };
        let Some(body) = f.body.as_deref() else { continue };
        let regs = Regs::of(body);
        let (addr_slice, addr_taint) = address_sets(body, &regs);
        let Some(list) = list_ref(m, &p) else { continue };
        for (k, s) in list.iter().enumerate() {
            let Stmt::Instr(i) = s else { continue };
            if is_call_or_branch(&i.opcode) {
                continue;
            }
            let (dst, _) = dest_and_sources(i);
            let feeds_address = dst.iter().any(|d| addr_slice.contains(*d));
            let first = usize::from(!first_is_source(&i.opcode));
            for (j, o) in i.operands.iter().enumerate().skip(first) {
                let (reg, ty) = match o {
                    Operand::Expr(Expr::Name(n)) => match regs.ty(n) {
                        Some(t) => (Some(n.clone()), Type::parse(t)),
                        None if is_sreg(n) => (None, sreg_type(n)),
                        None => continue,
                    },
                    Operand::Not(p) if regs.ty(p).is_some() => (None, Type::parse("pred")),
                    _ => continue,
                };
                let Some(ty) = ty else { continue };
                let address = reg.as_deref().is_some_and(|r| addr_taint.contains(r));
                out.push(Site {
                    list: p.clone(),
                    stmt: k,
                    operand: j,
                    ty: OpTy { ty },
                    reg,
                    feeds_address,
                    address,
                });
            }
        }
    }
    out
}

/// Per function, by register name: the registers addresses are computed from (the backward slice
/// of every `[...]` operand), and those holding a value derived from a variable's address (`mov
/// %r, var`, and what is computed from it).
pub(super) fn address_sets(body: &[Stmt], regs: &Regs) -> (HashSet<String>, HashSet<String>) {
    let instrs = all_instrs(body);
    let mut slice: HashSet<String> = HashSet::new();
    for i in &instrs {
        for o in &i.operands {
            if let Operand::Address(e) = o {
                let mut v = Vec::new();
                e.names(&mut v);
                slice.extend(v.into_iter().filter(|n| regs.ty(n).is_some()).map(str::to_string));
            }
        }
    }
    let mut taint: HashSet<String> = HashSet::new();
    loop {
        let n = (slice.len(), taint.len());
        for i in &instrs {
            let (dst, src) = dest_and_sources(i);
            if dst.iter().any(|d| slice.contains(*d)) {
                slice.extend(src.iter().filter(|n| regs.ty(n).is_some()).map(|s| s.to_string()));
            }
            let from_var = i.operands.iter().enumerate().any(|(k, o)| {
                (k > 0 || first_is_source(&i.opcode))
                    && matches!(o, Operand::Expr(e) if {
                        let mut v = Vec::new();
                        e.names(&mut v);
                        v.iter().any(|n| (regs.ty(n).is_none() && !is_sreg(n) && !is_builtin_constant(n)) || taint.contains(*n))
                    })
            });
            if from_var && !is_call_or_branch(&i.opcode) {
                taint.extend(dst.iter().map(|d| d.to_string()));
            }
        }
        if (slice.len(), taint.len()) == n {
            break;
        }
    }
    (slice, taint)
}

/// Memory accesses whose address derives from no variable and no register loaded from a
/// parameter: a constant address, or one computed from data. A reduction that turns
/// `[sh + 4·i]` into `[4·i]` (the oracle places `sh` at 0) would depend on the oracle's memory
/// layout, which hardware does not share.
pub(super) fn raw_addresses(m: &Module) -> usize {
    let mut n = 0;
    for item in &m.items {
        let Item::Function(f) = item else { continue };
        let Some(body) = f.body.as_deref() else { continue };
        let regs = Regs::of(body);
        let (_, taint) = address_sets(body, &regs);
        let instrs = all_instrs(body);
        // Registers loaded from parameters (pointers to buffers, `.param` results).
        let mut based: HashSet<&str> = HashSet::new();
        for i in &instrs {
            if is_param_load(i) {
                based.extend(dest_and_sources(i).0);
            }
        }
        loop {
            let before = based.len();
            for i in &instrs {
                let (dst, src) = dest_and_sources(i);
                if src.iter().any(|s| based.contains(s)) {
                    based.extend(dst);
                }
            }
            if based.len() == before {
                break;
            }
        }
        for i in &instrs {
            if accesses_param(i) {
                continue;
            }
            for o in &i.operands {
                let Operand::Address(e) = o else { continue };
                let mut names = Vec::new();
                e.names(&mut names);
                let anchored = names
                    .iter()
                    .any(|n| regs.ty(n).is_none() || taint.contains(*n) || based.contains(n));
                if !anchored {
                    n += 1;
                }
            }
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_values_of_each_kind() {
        let t = |s: &str| OpTy {
            ty: Type::parse(s).unwrap(),
        };
        assert_eq!(t("pred").small_values(), [0, 1]);
        assert_eq!(t("s16").small_values(), [0, 1, 0xFFFF]);
        assert_eq!(t("f32").small_values(), [0, 0x3F80_0000, 0xBF80_0000]);
    }
}
