//! The passes on operands: register sources replaced by constants (probed values first, then 0,
//! 1 and -1) and by the registers their only definition reads (with `[%a+K]` after
//! `add %a, %b, C` folded into `[%b+C+K]`).

use super::facts::{dest_and_sources, first_is_source, is_add64, is_call_or_branch, sreg_value};
use super::passes::Reducer;
use super::probe::probe;
use super::sites::{address_sets, sites, Regs};
use super::syntax::{list_paths, list_ref, ListPath};
use oracle::ast::{Expr, Instr, Item, Operand, Stmt};
use std::collections::HashMap;

impl Reducer<'_> {
    /// Replaces register sources with constants, last instruction first, each candidate with the
    /// code it leaves dead removed.
    pub(super) fn constants(&mut self) -> bool {
        let gather = |r: &Self| {
            // Positions move when code is deleted: probe the current case.
            let probes = if r.opts.probe {
                probe(&r.module, &r.launch).unwrap_or_default()
            } else {
                HashMap::new()
            };
            let multi = r.threads() > 1;
            let mut cands = Vec::new();
            for s in sites(&r.module).into_iter().rev() {
                let Some(Stmt::Instr(ins)) = list_ref(&r.module, &s.list).and_then(|l| l.get(s.stmt)) else {
                    continue;
                };
                let key = (s.list.item, oracle::print::instr(ins), s.operand);
                let mut values: Vec<u64> = Vec::new();
                if let Some(Operand::Expr(Expr::Name(n))) = ins.operands.get(s.operand) {
                    values.extend(sreg_value(n, &r.launch));
                }
                let probed = probes.get(&(s.list.clone(), s.stmt, s.operand));
                // An address-like value is the oracle's memory layout, not the program's.
                let usable = |v: u64| v < 1 << 44 && !s.address;
                if let Some(p) = probed {
                    if p.uniform && usable(p.last) {
                        // The same in every thread: no thread's value changes.
                        values.push(p.last);
                    } else if !(multi && s.feeds_address) {
                        // The thread that matters is often the last one (the launch was
                        // shrunk to the smallest that still shows the difference).
                        values.extend([p.last, p.first].into_iter().filter(|&v| usable(v)));
                    }
                }
                if s.replaceable(multi) {
                    values.extend(s.ty.small_values());
                }
                let mut uniq = Vec::new();
                for v in values {
                    if !uniq.contains(&v) {
                        uniq.push(v);
                    }
                }
                cands.push((key, (s, uniq)));
            }
            cands
        };
        self.run_to_fixed_point(gather, |r, (s, values)| {
            for v in values {
                for lit in oracle::check::literals(s.ty.ty, v) {
                    if r.try_edit(&s.list, s.stmt, |i| set_operand(i, s.operand, Operand::Expr(lit))) {
                        return true;
                    }
                    if r.exhausted {
                        return false;
                    }
                }
            }
            false
        })
    }

    /// Replaces a register source by a register its only definition reads (`add %a, %b, 0`
    /// then `[%a+4]` becomes `[%b+4]`), so that the definition dies.
    pub(super) fn bypass(&mut self) -> bool {
        let gather = |red: &Self| {
            let multi = red.threads() > 1;
            // With several threads, a value an address depends on may only be replaced by one
            // equal to it in every thread (else two threads could meet at one address).
            let probes = if multi && red.opts.probe {
                probe(&red.module, &red.launch).unwrap_or_default()
            } else {
                HashMap::new()
            };
            let mut cands: Vec<(ListPath, usize, usize, Operand)> = Vec::new();
            let paths = list_paths(&red.module);
            for p in &paths {
                let Some(Item::Function(f)) = red.module.items.get(p.item) else {
                    continue;
                };
                let Some(body) = f.body.as_deref() else { continue };
                let regs = Regs::of(body);
                let (slice, _) = address_sets(body, &regs);
                // Each register's definitions, by position.
                let mut defs: HashMap<&str, Vec<(&ListPath, usize, &Instr)>> = HashMap::new();
                for q in paths.iter().filter(|q| q.item == p.item) {
                    let Some(l) = list_ref(&red.module, q) else { continue };
                    for (k, st) in l.iter().enumerate() {
                        if let Stmt::Instr(i) = st {
                            for d in dest_and_sources(i).0 {
                                defs.entry(d).or_default().push((q, k, i));
                            }
                        }
                    }
                }
                let Some(list) = list_ref(&red.module, p) else {
                    continue;
                };
                for (k, st) in list.iter().enumerate().rev() {
                    let Stmt::Instr(i) = st else { continue };
                    if is_call_or_branch(&i.opcode) {
                        continue;
                    }
                    let (dst, _) = dest_and_sources(i);
                    let feeds_address = dst.iter().any(|d| slice.contains(*d));
                    let first = usize::from(!first_is_source(&i.opcode));
                    for (j, o) in i.operands.iter().enumerate().skip(first) {
                        let is_addr = matches!(o, Operand::Address(_));
                        let mut names = Vec::new();
                        match o {
                            Operand::Expr(e) | Operand::Address(e) => e.names(&mut names),
                            _ => continue,
                        }
                        for r in names {
                            let Some(rty) = regs.ty(r) else { continue };
                            let Some([(dp, dk, d)]) = defs.get(r).map(Vec::as_slice) else {
                                continue;
                            };
                            if std::ptr::eq(*d, i) {
                                continue;
                            }
                            // `add %a, %b, C` then `[%a+K]`: `[%b+C+K]`, the same address.
                            if let Some(folded) = fold_address(o, r, d) {
                                cands.push((p.clone(), k, j, folded));
                            }
                            if multi && is_addr {
                                continue;
                            }
                            for (jj, o2) in d.operands.iter().enumerate().skip(1) {
                                let Operand::Expr(Expr::Name(s)) = o2 else { continue };
                                if s == r || regs.ty(s) != Some(rty) {
                                    continue;
                                }
                                if multi && feeds_address {
                                    let here = probes.get(&((*p).clone(), k, j));
                                    let there = probes.get(&((*dp).clone(), *dk, jj));
                                    if !matches!((here, there), (Some(a), Some(b)) if a.all == b.all) {
                                        continue;
                                    }
                                }
                                let mut o = o.clone();
                                if let Operand::Expr(e) | Operand::Address(e) = &mut o {
                                    rename(e, r, s);
                                }
                                cands.push((p.clone(), k, j, o));
                            }
                        }
                    }
                }
            }
            // Keyed by content: the instruction's text, the operand and its replacement.
            cands
                .into_iter()
                .filter_map(|(p, k, j, new)| {
                    let Some(Stmt::Instr(i)) = list_ref(&red.module, &p).and_then(|l| l.get(k)) else {
                        return None;
                    };
                    let key = (p.item, oracle::print::instr(i), j, format!("{new:?}"));
                    Some((key, (p, k, j, new)))
                })
                .collect::<Vec<_>>()
        };
        self.run_to_fixed_point(gather, |r, (p, k, j, new)| {
            r.try_edit(&p, k, |i| set_operand(i, j, new))
        })
    }
}

/// Sets operand `j` of `i` to `new`; false when `i` has no operand `j`.
fn set_operand(i: &mut Instr, j: usize, new: Operand) -> bool {
    match i.operands.get_mut(j) {
        Some(o) => {
            *o = new;
            true
        }
        None => false,
    }
}

/// `[r]` or `[r±K]` where `r` is defined by `add %r, %s, C` (or `add %r, C, %s`): `[%s+C±K]`.
fn fold_address(o: &Operand, r: &str, def: &Instr) -> Option<Operand> {
    let Operand::Address(e) = o else { return None };
    let k = match e {
        Expr::Name(n) if n == r => 0,
        Expr::Binary(op, a, b) if matches!(&**a, Expr::Name(n) if n == r) => {
            let c = oracle::check::const_int(b)?;
            match op.as_str() {
                "+" => c,
                "-" => c.checked_neg()?,
                _ => return None,
            }
        }
        _ => return None,
    };
    if !is_add64(def) || def.guard.is_some() {
        return None;
    }
    let (s, c) = match def.operands.as_slice() {
        [_, Operand::Expr(Expr::Name(s)), Operand::Expr(c)] | [_, Operand::Expr(c), Operand::Expr(Expr::Name(s))] => {
            (s, oracle::check::const_int(c)?)
        }
        _ => return None,
    };
    let total = c.checked_add(k)?;
    let base = Box::new(Expr::Name(s.clone()));
    let off = |v: i64| {
        Box::new(Expr::Int {
            value: v.unsigned_abs(),
            unsigned: false,
        })
    };
    Some(Operand::Address(match total {
        0 => Expr::Name(s.clone()),
        t if t > 0 => Expr::Binary("+".into(), base, off(t)),
        t => Expr::Binary("-".into(), base, off(t)),
    }))
}

/// Renames `from` to `to` throughout `e`.
fn rename(e: &mut Expr, from: &str, to: &str) {
    match e {
        Expr::Name(n) if n == from => *n = to.to_string(),
        Expr::Unary(_, a) => rename(a, from, to),
        Expr::Binary(_, a, b) => {
            rename(a, from, to);
            rename(b, from, to);
        }
        Expr::Cond(c, a, b) => {
            rename(c, from, to);
            rename(a, from, to);
            rename(b, from, to);
        }
        _ => {}
    }
}
