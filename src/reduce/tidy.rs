//! The cosmetic clean-up after the passes: functions and module variables nobody names, unused
//! labels and declarations, empty blocks.

use super::syntax::{init_names, names_in_body};
use oracle::ast::{Item, Module, Stmt};
use std::collections::HashSet;

/// One step of clean-up: functions and module variables nobody names, then per function unused
/// labels, declarations (ranges shrunk to the highest index used) and empty blocks.
pub(super) fn tidy(m: &mut Module, entry: &str) {
    let mut used: HashSet<String> = HashSet::new();
    for item in &m.items {
        match item {
            Item::Function(f) => {
                if let Some(b) = &f.body {
                    names_in_body(b, &mut used);
                }
            }
            Item::Var(v) => {
                if let Some(i) = &v.init {
                    init_names(i, &mut used);
                }
            }
            _ => {}
        }
    }
    m.items.retain(|item| match item {
        Item::Function(f) => f.entry && f.name == entry || used.contains(&f.name),
        Item::Var(v) => used.contains(&v.name),
        _ => true,
    });
    for item in m.items.iter_mut() {
        let Item::Function(f) = item else { continue };
        let Some(body) = f.body.as_mut() else { continue };
        let mut used = HashSet::new();
        names_in_body(body, &mut used);
        tidy_list(body, &used);
    }
}

fn tidy_list(list: &mut Vec<Stmt>, used: &HashSet<String>) {
    let next_is_list: Vec<bool> = (0..list.len())
        .map(|k| matches!(list.get(k + 1), Some(Stmt::Directive(_))))
        .collect();
    let mut k = 0;
    list.retain_mut(|s| {
        k += 1;
        match s {
            Stmt::Label { name, .. } => used.contains(name) || next_is_list[k - 1],
            Stmt::Decl(d) if matches!(d.space.as_str(), "reg" | "local" | "shared") && d.init.is_none() => {
                match d.range {
                    None => used.contains(&d.name),
                    Some(n) => {
                        let top = (0..n).rev().find(|i| used.contains(&format!("{}{i}", d.name)));
                        match top {
                            Some(t) => {
                                d.range = Some(t + 1);
                                true
                            }
                            None => false,
                        }
                    }
                }
            }
            Stmt::Block { body, .. } => {
                tidy_list(body, used);
                !body.is_empty()
            }
            _ => true,
        }
    });
}
