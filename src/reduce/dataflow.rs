//! Dataflow on the decoded program (the checker's output, per register slot): functions' code
//! ranges ([`func_ranges`]), reads of registers some path leaves unwritten ([`uninit_reads`]),
//! and dead-code elimination mapped back onto the AST ([`dce`]).

use super::syntax::{instr_positions, list_ref, without, ListPath};
use oracle::ast::{Loc, Module, Stmt};
use oracle::program::Program;
use std::collections::{BTreeMap, HashSet};

/// Each defined function's code range.
fn func_ranges(prog: &Program) -> Vec<(usize, std::ops::Range<usize>)> {
    let mut starts: Vec<(usize, usize)> = prog
        .funcs
        .iter()
        .enumerate()
        .filter(|(_, f)| f.defined)
        .map(|(k, f)| (f.start as usize, k))
        .collect();
    starts.sort_unstable();
    let mut out = Vec::new();
    for (n, &(s, k)) in starts.iter().enumerate() {
        let e = starts.get(n + 1).map_or(prog.code.len(), |x| x.0);
        if s <= e && e <= prog.code.len() {
            out.push((k, s..e));
        }
    }
    out
}

/// Reads of a register that some path from the function's entry reaches without writing it
/// (a must-analysis: a guarded write may not happen).
pub(super) fn uninit_reads(prog: &Program) -> usize {
    let mut count = 0;
    for (k, range) in func_ranges(prog) {
        let n = prog.funcs[k].nregs as usize;
        let words = n.div_ceil(64).max(1);
        let len = range.len();
        let mut state: Vec<Option<Vec<u64>>> = vec![None; len];
        if len == 0 {
            continue;
        }
        state[0] = Some(vec![0; words]);
        let mut work: Vec<usize> = vec![0];
        let mut queued = vec![false; len];
        queued[0] = true;
        while let Some(i) = work.pop() {
            queued[i] = false;
            let Some(mut out) = state[i].clone() else { continue };
            let inst = &prog.code[range.start + i];
            let (_, w) = inst.slots();
            if inst.guard.is_none() {
                for s in w {
                    if let Some(word) = out.get_mut(s as usize / 64) {
                        *word |= 1 << (s % 64);
                    }
                }
            }
            for succ in inst.successors(range.start + i, &range) {
                let j = succ - range.start;
                let changed = match &mut state[j] {
                    None => {
                        state[j] = Some(out.clone());
                        true
                    }
                    Some(cur) => {
                        let mut ch = false;
                        for (c, o) in cur.iter_mut().zip(&out) {
                            let v = *c & *o;
                            ch |= v != *c;
                            *c = v;
                        }
                        ch
                    }
                };
                if changed && !queued[j] {
                    queued[j] = true;
                    work.push(j);
                }
            }
        }
        for (i, st) in state.iter().enumerate() {
            let Some(st) = st else { continue };
            let (r, _) = prog.code[range.start + i].slots();
            count += r
                .iter()
                .filter(|&&s| st.get(s as usize / 64).is_none_or(|w| w >> (s % 64) & 1 == 0))
                .count();
        }
    }
    count
}

/// The module without instructions that have no effect but their results, which nobody reads,
/// repeated until none is left; `None` when there is nothing to remove (or the module does not
/// check).
pub(super) fn dce(m: &Module) -> Option<Module> {
    dce_keeping(m, None)
}

/// [`dce`], never removing the instruction parsed at `keep` (an operand just replaced in it: the
/// edit is about its operand, not about deleting it — a crash may need an instruction whose
/// result nobody reads, and deleting it is the deletion passes' business).
pub(super) fn dce_keeping(m: &Module, keep: Option<Loc>) -> Option<Module> {
    // Instructions made by the reducer have no position: nothing to tell them apart by.
    let keep = keep.filter(|l| l.line != 0);
    let kept = |cur: &Module, p: &ListPath, k: usize| {
        keep.is_some_and(|l| {
            matches!(list_ref(cur, p).and_then(|b| b.get(k)),
                Some(Stmt::Instr(i)) if i.loc.line == l.line && i.loc.col == l.col)
        })
    };
    let mut cur = m.clone();
    let mut changed = false;
    for _ in 0..32 {
        // Dead code is the same under either grammar; the manual's accepts more.
        let prog = oracle::check::check_with(
            &cur,
            oracle::check::Options {
                grammar: oracle::check::Grammar::Manual,
                ..Default::default()
            },
        )
        .ok()?;
        let mut dead: BTreeMap<ListPath, Vec<usize>> = BTreeMap::new();
        for (name, positions) in instr_positions(&cur) {
            let f = prog.funcs.iter().find(|f| f.name == name && f.defined)?;
            let start = f.start as usize;
            let code = prog.code.get(start..start + positions.len())?;
            let read: HashSet<u32> = code.iter().flat_map(|i| i.slots().0).collect();
            for (inst, (p, k)) in code.iter().zip(&positions) {
                let pure = inst.op.is_pure();
                if pure && inst.slots().1.iter().all(|s| !read.contains(s)) && !kept(&cur, p, *k) {
                    dead.entry(p.clone()).or_default().push(*k);
                }
            }
        }
        if dead.is_empty() {
            break;
        }
        changed = true;
        // Deeper lists first: removing from a block does not move its parent's indices.
        for (p, idx) in dead.iter().rev() {
            cur = without(&cur, p, idx)?;
        }
    }
    changed.then_some(cur)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reduce::count_module;

    const HEAD: &str = ".version 8.0\n.target sm_80\n.address_size 64\n";

    fn prog(body: &str) -> Program {
        let m = oracle::parse::parse(&format!("{HEAD}.entry e(.param .u64 o)\n{{\n{body}\n}}")).unwrap();
        oracle::check::check(&m).unwrap()
    }

    #[test]
    fn reads_of_registers_unwritten_on_some_path_are_counted() {
        let decl = ".reg .b32 %r<4>; .reg .pred %p;";
        assert_eq!(
            uninit_reads(&prog(&format!("{decl} mov.u32 %r1, 1; add.u32 %r2, %r1, 1;"))),
            0
        );
        assert_eq!(uninit_reads(&prog(&format!("{decl} add.u32 %r2, %r1, 1;"))), 1);
        // Written on one arm only: the join does not have it.
        let arms = format!(
            "{decl} mov.u32 %r3, %tid.x; setp.eq.u32 %p, %r3, 0; @%p bra A; mov.u32 %r1, 1; A: add.u32 %r2, %r1, 1;"
        );
        assert_eq!(uninit_reads(&prog(&arms)), 1);
        // Written on both arms.
        let both = format!(
            "{decl} mov.u32 %r3, %tid.x; setp.eq.u32 %p, %r3, 0; @%p bra A; mov.u32 %r1, 1; bra B; A: mov.u32 %r1, 2; B: add.u32 %r2, %r1, 1;"
        );
        assert_eq!(uninit_reads(&prog(&both)), 0);
        // A guarded write may not happen; the guard itself is read.
        assert_eq!(uninit_reads(&prog(&format!("{decl} @%p mov.u32 %r1, 1;"))), 1);
        let guarded = format!("{decl} setp.eq.u32 %p, 1, 1; @%p mov.u32 %r1, 1; add.u32 %r2, %r1, 1;");
        assert_eq!(uninit_reads(&prog(&guarded)), 1);
        // A loop: the counter is written before the loop and in it.
        let looped = format!("{decl} mov.u32 %r1, 0; L: add.u32 %r1, %r1, 1; setp.lt.u32 %p, %r1, 4; @%p bra L;");
        assert_eq!(uninit_reads(&prog(&looped)), 0);
        // Unreachable code is not judged.
        assert_eq!(uninit_reads(&prog(&format!("{decl} ret; add.u32 %r2, %r1, 1;"))), 0);
    }

    #[test]
    fn dead_code_goes_and_effects_stay() {
        let src = format!(
            "{HEAD}.entry e(.param .u64 o)\n{{\n.reg .b32 %r<5>; .reg .b64 %rd<2>;\n\
             ld.param.u64 %rd1, [o]; mov.u32 %r1, 7; add.u32 %r2, %r1, 1; mul.lo.u32 %r3, %r2, 3;\n\
             mov.u32 %r4, 9; st.global.u32 [%rd1], %r4;\n}}"
        );
        let m = oracle::parse::parse(&src).unwrap();
        let d = dce(&m).unwrap();
        let text = oracle::print::print(&d);
        assert_eq!(count_module(&d), 3, "{text}");
        assert!(
            text.contains("mov.u32 %r4, 9;") && text.contains("st.global.u32"),
            "{text}"
        );
        assert!(!text.contains("%r1") && !text.contains("%r3,"), "{text}");
        assert!(dce(&d).is_none());
    }
}
