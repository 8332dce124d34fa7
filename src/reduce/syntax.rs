//! The reducer's view of the AST as editable statement lists: where the lists are
//! ([`ListPath`], [`list_paths`]), which statements are units that can go ([`units`],
//! [`deletable`]), structured regions to delete together ([`regions`]), and the module without
//! some statements ([`without`]). Also the walks other steps share: every instruction of a body
//! ([`all_instrs`]), instruction positions in the checker's order ([`instr_positions`]) and the
//! names a body uses ([`names_in_body`]).

use super::facts::{branch_target, contains_barrier, ends_flow, ends_thread, is_barrier, quiet};
use oracle::ast::{Instr, Item, Module, Stmt};
use std::collections::{BTreeSet, HashMap, HashSet};

/// A statement list: a function's body (`item`) or a `{ }` block inside it (the path of block
/// indices).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(super) struct ListPath {
    pub(super) item: usize,
    pub(super) blocks: Vec<usize>,
}

pub(super) fn list_paths(m: &Module) -> Vec<ListPath> {
    fn walk(item: usize, prefix: &[usize], body: &[Stmt], out: &mut Vec<ListPath>) {
        out.push(ListPath {
            item,
            blocks: prefix.to_vec(),
        });
        for (k, s) in body.iter().enumerate() {
            if let Stmt::Block { body, .. } = s {
                let mut p = prefix.to_vec();
                p.push(k);
                walk(item, &p, body, out);
            }
        }
    }
    let mut out = Vec::new();
    for (i, item) in m.items.iter().enumerate() {
        if let Item::Function(f) = item {
            if let Some(body) = &f.body {
                walk(i, &[], body, &mut out);
            }
        }
    }
    out
}

pub(super) fn list_ref<'m>(m: &'m Module, p: &ListPath) -> Option<&'m Vec<Stmt>> {
    let Item::Function(f) = m.items.get(p.item)? else {
        return None;
    };
    let mut list = f.body.as_ref()?;
    for &k in &p.blocks {
        list = match list.get(k)? {
            Stmt::Block { body, .. } => body,
            _ => return None,
        };
    }
    Some(list)
}

pub(super) fn list_mut<'m>(m: &'m mut Module, p: &ListPath) -> Option<&'m mut Vec<Stmt>> {
    let Item::Function(f) = m.items.get_mut(p.item)? else {
        return None;
    };
    let mut list = f.body.as_mut()?;
    for &k in &p.blocks {
        list = match list.get_mut(k)? {
            Stmt::Block { body, .. } => body,
            _ => return None,
        };
    }
    Some(list)
}

/// Statements that can be deleted as units: instructions and `{ }` blocks.
pub(super) fn units(list: &[Stmt]) -> Vec<usize> {
    (0..list.len())
        .filter(|&k| matches!(list[k], Stmt::Instr(_) | Stmt::Block { .. }))
        .collect()
}

/// The statements of `del` (sorted) that may go: in a launch of several threads, barriers stay,
/// except one that orders nothing: between it and the same barrier before or after it (or the
/// end of the kernel, when `kernel_body`), the code that stays touches no shared or global
/// memory and does not branch or call.
pub(super) fn deletable(list: &[Stmt], del: Vec<usize>, keep_bars: bool, kernel_body: bool) -> Vec<usize> {
    if !keep_bars {
        return del;
    }
    let set: HashSet<usize> = del.iter().copied().collect();
    // Labels no branch names join no other path.
    let mut named = HashSet::new();
    names_in_body(list, &mut named);
    // Some(true): the same barrier; Some(false): something that needs the barrier; None: on.
    let step = |j: usize, k: usize| -> Option<bool> {
        match (&list[j], &list[k]) {
            (Stmt::Decl(_), _) => None,
            (Stmt::Label { name, .. }, _) if !named.contains(name) => None,
            (Stmt::Instr(a), Stmt::Instr(b)) if is_barrier(&list[j]) => Some(a.guard.is_none() && a == b),
            (Stmt::Instr(a), _) if quiet(a) => None,
            _ => Some(false),
        }
    };
    let redundant = |k: usize| {
        let Stmt::Instr(b) = &list[k] else { return false };
        if b.guard.is_some() {
            return false;
        }
        let before = (0..k).rev().filter(|j| !set.contains(j)).find_map(|j| step(j, k));
        let after = (k + 1..list.len())
            .filter(|j| !set.contains(j))
            .find_map(|j| match &list[j] {
                Stmt::Instr(i) if kernel_body && i.guard.is_none() && ends_thread(i) => Some(true),
                _ => step(j, k),
            });
        // The start and the end of the kernel order nothing either.
        before == Some(true) || after == Some(true) || kernel_body && (before.is_none() || after.is_none())
    };
    del.iter()
        .copied()
        .filter(|&k| !contains_barrier(&list[k]) || is_barrier(&list[k]) && redundant(k))
        .collect()
}

/// The module with statements `idx` (sorted, distinct) of list `p` removed.
pub(super) fn without(m: &Module, p: &ListPath, idx: &[usize]) -> Option<Module> {
    let mut m = m.clone();
    let list = list_mut(&mut m, p)?;
    let drop: HashSet<usize> = idx.iter().copied().collect();
    let mut k = 0;
    list.retain(|_| {
        k += 1;
        !drop.contains(&(k - 1))
    });
    Some(m)
}

/// Structured regions of a list, largest first: basic blocks between labels, the span of a
/// forward branch (with and without its label), a loop (a label to the branch back to it), and
/// the two ways to keep one arm of an if/else.
pub(super) fn regions(list: &[Stmt]) -> Vec<Vec<usize>> {
    let labels: HashMap<&str, usize> = list
        .iter()
        .enumerate()
        .filter_map(|(k, s)| match s {
            Stmt::Label { name, .. } => Some((name.as_str(), k)),
            _ => None,
        })
        .collect();
    let mut bounds: BTreeSet<usize> = [0, list.len()].into();
    for (k, s) in list.iter().enumerate() {
        if matches!(s, Stmt::Label { .. }) {
            bounds.insert(k);
        }
        if ends_flow(s) {
            bounds.insert(k + 1);
        }
    }
    let mut out: BTreeSet<Vec<usize>> = BTreeSet::new();
    let b: Vec<usize> = bounds.into_iter().collect();
    for w in b.windows(2) {
        out.insert((w[0]..w[1]).collect());
    }
    for (i, s) in list.iter().enumerate() {
        let Some((target, _)) = branch_target(s) else { continue };
        let Some(&j) = labels.get(target) else { continue };
        if j > i {
            out.insert((i..j).collect());
            out.insert((i..=j).collect());
            // `@p bra ELSE; A; bra END; ELSE: B; END:`
            if let Some((end, true)) = list.get(j.wrapping_sub(1)).and_then(branch_target) {
                if let Some(&m) = labels.get(end) {
                    if m > j {
                        out.insert((i..m).collect());
                        let mut then_only: Vec<usize> = vec![i];
                        then_only.extend(j - 1..m);
                        out.insert(then_only);
                    }
                }
            }
        } else {
            out.insert((j..=i).collect());
        }
    }
    let mut v: Vec<Vec<usize>> = out
        .into_iter()
        .filter(|r| {
            r.iter()
                .any(|&k| matches!(list[k], Stmt::Instr(_) | Stmt::Block { .. }))
        })
        .collect();
    v.sort_by(|a, b| b.len().cmp(&a.len()).then(a.cmp(b)));
    v
}

/// Every instruction of a body, blocks included, in order.
pub(crate) fn all_instrs(body: &[Stmt]) -> Vec<&Instr> {
    fn walk<'b>(body: &'b [Stmt], out: &mut Vec<&'b Instr>) {
        for s in body {
            match s {
                Stmt::Instr(i) => out.push(i),
                Stmt::Block { body, .. } => walk(body, out),
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    walk(body, &mut out);
    out
}

/// The instructions of a module in the checker's order, by function: each one's list and index.
pub(super) fn instr_positions(m: &Module) -> Vec<(String, Vec<(ListPath, usize)>)> {
    fn walk(item: usize, prefix: &[usize], body: &[Stmt], out: &mut Vec<(ListPath, usize)>) {
        for (k, s) in body.iter().enumerate() {
            match s {
                Stmt::Instr(_) => out.push((
                    ListPath {
                        item,
                        blocks: prefix.to_vec(),
                    },
                    k,
                )),
                Stmt::Block { body, .. } => {
                    let mut p = prefix.to_vec();
                    p.push(k);
                    walk(item, &p, body, out);
                }
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    for (i, item) in m.items.iter().enumerate() {
        if let Item::Function(f) = item {
            if let Some(body) = &f.body {
                let mut v = Vec::new();
                walk(i, &[], body, &mut v);
                out.push((f.name.clone(), v));
            }
        }
    }
    out
}

/// Every name a body uses: operands, guards, directives and initializers.
pub(super) fn names_in_body(body: &[Stmt], out: &mut HashSet<String>) {
    for s in body {
        match s {
            Stmt::Instr(i) => {
                let mut v = Vec::new();
                i.operands.iter().for_each(|o| o.names(&mut v));
                if let Some((_, p)) = &i.guard {
                    v.push(p);
                }
                out.extend(v.into_iter().map(str::to_string));
            }
            Stmt::Block { body, .. } => names_in_body(body, out),
            Stmt::Directive(d) => out.extend(
                d.text
                    .split(|c: char| c == ',' || c.is_whitespace())
                    .map(str::to_string),
            ),
            Stmt::Decl(d) => {
                if let Some(i) = &d.init {
                    init_names(i, out);
                }
            }
            Stmt::Label { .. } => {}
        }
    }
}

pub(super) fn init_names(i: &oracle::ast::Init, out: &mut HashSet<String>) {
    match i {
        oracle::ast::Init::Expr(e) => {
            let mut v = Vec::new();
            e.names(&mut v);
            out.extend(v.into_iter().map(str::to_string));
        }
        oracle::ast::Init::List(l) => l.iter().for_each(|i| init_names(i, out)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEAD: &str = ".version 8.0\n.target sm_80\n.address_size 64\n";

    #[test]
    fn if_else_regions_offer_each_arm() {
        let src = format!(
            "{HEAD}.entry e()\n{{\n.reg .pred %p;\n.reg .b32 %r;\n\
             setp.eq.u32 %p, 1, 1;\n@%p bra ELSE;\nmov.u32 %r, 1;\nbra END;\nELSE:\nmov.u32 %r, 2;\nEND:\nret;\n}}"
        );
        let m = oracle::parse::parse(&src).unwrap();
        let Some(Item::Function(f)) = m.items.last() else {
            panic!()
        };
        let body = f.body.as_ref().unwrap();
        // Statements: 0 .pred, 1 .reg, 2 setp, 3 @p bra, 4 mov 1, 5 bra END, 6 ELSE:, 7 mov 2,
        // 8 END:, 9 ret.
        let r = regions(body);
        assert!(r.contains(&vec![3, 4, 5, 6, 7]), "the whole if/else: {r:?}");
        assert!(r.contains(&vec![3, 5, 6, 7]), "the then arm only: {r:?}");
        assert!(r.contains(&vec![3, 4, 5, 6]), "the else arm only: {r:?}");
        assert!(r.windows(2).all(|w| w[0].len() >= w[1].len()), "largest first: {r:?}");
    }

    #[test]
    fn barriers_stay_in_launches_of_several_threads_unless_repeated() {
        let src = format!(
            "{HEAD}.entry e()\n{{\n.reg .b32 %r;\n\
             bar.sync 0;\nbar.sync 0;\nmov.u32 %r, 1;\nbar.sync 0;\nL:\nbar.sync 0;\nbar.sync 1;\nbra L;\n}}"
        );
        let m = oracle::parse::parse(&src).unwrap();
        let Some(Item::Function(f)) = m.items.last() else {
            panic!()
        };
        let body = f.body.as_ref().unwrap();
        // 0 .reg, 1 bar 0, 2 bar 0, 3 mov, 4 bar 0, 5 L:, 6 bar 0, 7 bar 1, 8 bra L.
        let all = vec![1, 2, 3, 4, 6, 7, 8];
        assert_eq!(deletable(body, all.clone(), false, false), all);
        // With only a register `mov` between them, each `bar.sync 0` repeats its neighbour; a
        // label a branch names (another way in), a branch, or a different barrier separates
        // them.
        assert_eq!(deletable(body, vec![2, 3, 4, 6, 7], true, false), vec![2, 3, 4]);
        assert_eq!(deletable(body, vec![4], true, false), vec![4]);
        assert_eq!(deletable(body, vec![6], true, false), Vec::<usize>::new());
        assert_eq!(deletable(body, vec![7], true, true), Vec::<usize>::new());
        // The first two repeat the one that stays after the `mov`; with that one deleted too,
        // none repeats a barrier that stays.
        assert_eq!(deletable(body, vec![1, 2], true, false), vec![1, 2]);
        assert_eq!(deletable(body, vec![1, 2, 4], true, false), Vec::<usize>::new());
        // Without the branch, the label joins nothing.
        let mut body1 = body.clone();
        body1.pop();
        assert_eq!(deletable(&body1, vec![6], true, false), vec![6]);
        // Stores between barriers need them; the start and the end of a kernel do not.
        let src2 = format!(
            "{HEAD}.entry e(.param .u64 o)\n{{\n.reg .b64 %rd;\nbar.sync 0;\nld.param.u64 %rd, [o];\n\
             st.global.u32 [%rd], 1;\nbar.sync 0;\nst.global.u32 [%rd], 2;\nbar.sync 0;\n}}"
        );
        let m2 = oracle::parse::parse(&src2).unwrap();
        let Some(Item::Function(f2)) = m2.items.last() else {
            panic!()
        };
        let body2 = f2.body.as_ref().unwrap();
        // 0 .reg, 1 bar, 2 ld.param, 3 st, 4 bar, 5 st, 6 bar.
        assert_eq!(deletable(body2, vec![4], true, true), Vec::<usize>::new());
        assert_eq!(deletable(body2, vec![1, 4], true, true), vec![1]);
        assert_eq!(deletable(body2, vec![6], true, true), vec![6]);
        // The end of a function's body returns to code that may need it.
        assert_eq!(deletable(body2, vec![6], true, false), Vec::<usize>::new());
        assert_eq!(deletable(body2, vec![1, 3, 4], true, true), vec![1, 3, 4]);
    }
}
