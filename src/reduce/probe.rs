//! The instrumentation that reads operand values back from the oracle: the candidate with a
//! store of each register source before its instruction, per site and thread, into an extra
//! buffer ([`probe`]); the values it saw ([`Probed`]) are the first constants the operand passes
//! try.

use super::sites::{sites, Site};
use super::syntax::{list_mut, ListPath};
use oracle::ast::{Expr, Instr, Item, Loc, Module, Operand, Stmt, VarDecl};
use oracle::launch::{BufferSpec, LaunchFile, ParamSpec};
use spec::types::Kind;
use std::collections::{BTreeMap, HashMap};

const PROBE_BUF: &str = "__ptxconf_probe";
const PROBE_PTR: &str = "__ptxconf_probe_ptr";
const PROBE_REG: &str = "%__ptxconf_probe";
const PROBE_OFF: &str = "%__ptxconf_probe_off";
const PROBE_T: &str = "%__ptxconf_probe_t";

fn loc() -> Loc {
    Loc::default()
}

fn mk_instr(opcode: &str, mods: &[&str], operands: Vec<Operand>) -> Stmt {
    Stmt::Instr(Instr {
        guard: None,
        opcode: opcode.into(),
        mods: mods.iter().map(|s| s.to_string()).collect(),
        operands,
        loc: loc(),
    })
}

fn name(n: &str) -> Expr {
    Expr::Name(n.into())
}

fn reg_decl(space: &str, ty: &str, n: &str) -> VarDecl {
    VarDecl {
        linkage: Vec::new(),
        space: space.into(),
        attrs: vec![(ty.into(), None)],
        ty: ty.into(),
        name: n.into(),
        range: None,
        dims: Vec::new(),
        init: None,
        loc: loc(),
    }
}

/// What a probe saw at one site: the value in the first and the last thread (by linear index)
/// that ran the instruction, the last time each ran it, and whether every thread that ran it saw
/// the same value.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Probed {
    pub(super) first: u64,
    pub(super) last: u64,
    pub(super) uniform: bool,
    /// Each thread's value (`None`: it did not run the instruction).
    pub(super) all: Vec<Option<u64>>,
}

/// Probe buffers above this many bytes are not worth it (a huge launch not yet shrunk).
const PROBE_MAX_BYTES: u64 = 16 << 20;

/// The values register sources had in the oracle's run of the case, by site: the case with a
/// store of every such register before its instruction, into a slot per site and thread of an
/// extra buffer. Sites that never ran are absent.
pub(super) fn probe(m: &Module, l: &LaunchFile) -> Option<HashMap<(ListPath, usize, usize), Probed>> {
    let sites: Vec<Site> = sites(m)
        .into_iter()
        .filter(|s| s.reg.is_some() && s.ty.ty.kind != Kind::Pred && matches!(s.ty.ty.bits(), 16 | 32 | 64))
        .collect();
    let threads: u64 = l.grid.iter().chain(&l.block).map(|&d| d as u64).product();
    let size = 8u64.checked_mul(threads)?.checked_mul(sites.len() as u64)?;
    if sites.is_empty() || size > PROBE_MAX_BYTES {
        return None;
    }
    let mut pm = m.clone();
    // Stores before each site's instruction, deeper lists and later statements first so that
    // earlier insertions do not move later ones.
    let mut by_list: BTreeMap<ListPath, Vec<(usize, usize)>> = BTreeMap::new();
    for (n, s) in sites.iter().enumerate() {
        by_list.entry(s.list.clone()).or_default().push((s.stmt, n));
    }
    for (p, mut v) in by_list.into_iter().rev() {
        v.sort_by(|a, b| b.cmp(a));
        let list = list_mut(&mut pm, &p)?;
        for (stmt, n) in v {
            let s = &sites[n];
            let bits = s.ty.ty.bits().to_string();
            let st = mk_instr(
                "st",
                &["global", &format!("b{bits}")],
                vec![
                    Operand::Address(Expr::Binary(
                        "+".into(),
                        Box::new(name(PROBE_REG)),
                        Box::new(Expr::Int {
                            value: 8 * threads * n as u64,
                            unsigned: false,
                        }),
                    )),
                    Operand::Expr(name(s.reg.as_deref()?)),
                ],
            );
            list.insert(stmt, st);
        }
    }
    // Every function finds the probe buffer through a module variable the kernel sets first,
    // and its thread's slot by the linear thread index.
    let t = |k: usize| format!("{PROBE_T}{k}");
    let op = |n: &str| Operand::Expr(name(n));
    let mut entry_found = false;
    for item in pm.items.iter_mut() {
        let Item::Function(f) = item else { continue };
        let is_entry = f.entry && f.name == l.entry;
        let Some(body) = f.body.as_mut() else { continue };
        let mut pro = vec![
            Stmt::Decl(reg_decl("reg", "b64", PROBE_REG)),
            Stmt::Decl(reg_decl("reg", "b64", PROBE_OFF)),
            Stmt::Decl(VarDecl {
                range: Some(3),
                ..reg_decl("reg", "b32", PROBE_T)
            }),
        ];
        // ((ctaid.z·nctaid.y + ctaid.y)·nctaid.x + ctaid.x)·ntid… + tid…, z to x.
        pro.push(mk_instr("mov", &["u32"], vec![op(&t(0)), op("%ctaid.z")]));
        for (scale, add) in [
            ("%nctaid.y", "%ctaid.y"),
            ("%nctaid.x", "%ctaid.x"),
            ("%ntid.z", "%tid.z"),
            ("%ntid.y", "%tid.y"),
            ("%ntid.x", "%tid.x"),
        ] {
            pro.push(mk_instr("mov", &["u32"], vec![op(&t(1)), op(scale)]));
            pro.push(mk_instr("mov", &["u32"], vec![op(&t(2)), op(add)]));
            pro.push(mk_instr(
                "mad",
                &["lo", "u32"],
                vec![op(&t(0)), op(&t(0)), op(&t(1)), op(&t(2))],
            ));
        }
        pro.push(mk_instr(
            "mul",
            &["wide", "u32"],
            vec![
                op(PROBE_OFF),
                op(&t(0)),
                Operand::Expr(Expr::Int {
                    value: 8,
                    unsigned: false,
                }),
            ],
        ));
        if is_entry {
            entry_found = true;
            f.params.push(reg_decl("param", "u64", PROBE_BUF));
            pro.push(mk_instr(
                "ld",
                &["param", "u64"],
                vec![op(PROBE_REG), Operand::Address(name(PROBE_BUF))],
            ));
            pro.push(mk_instr(
                "st",
                &["global", "u64"],
                vec![Operand::Address(name(PROBE_PTR)), op(PROBE_REG)],
            ));
        } else {
            pro.push(mk_instr(
                "ld",
                &["global", "u64"],
                vec![op(PROBE_REG), Operand::Address(name(PROBE_PTR))],
            ));
        }
        pro.push(mk_instr(
            "add",
            &["s64"],
            vec![op(PROBE_REG), op(PROBE_REG), op(PROBE_OFF)],
        ));
        body.splice(0..0, pro);
    }
    if !entry_found {
        return None;
    }
    let first = pm
        .items
        .iter()
        .position(|i| matches!(i, Item::Var(_) | Item::Function(_)))
        .unwrap_or(pm.items.len());
    pm.items.insert(first, Item::Var(reg_decl("global", "u64", PROBE_PTR)));
    let mut pl = l.clone();
    pl.buffers.push(BufferSpec {
        name: PROBE_BUF.into(),
        hex: Some("aa".repeat(size as usize)),
        size: None,
    });
    pl.params.push(ParamSpec::Buffer {
        buffer: PROBE_BUF.into(),
    });
    let (bufs, _) = oracle::launch::run(&pl, &oracle::print::print(&pm)).ok()?;
    let data = &bufs.iter().find(|(n, _)| n == PROBE_BUF)?.1;
    let mut out = HashMap::new();
    for (n, s) in sites.iter().enumerate() {
        let bits = s.ty.ty.bits();
        let mut seen: Option<Probed> = None;
        let mut all = vec![None; threads as usize];
        for (th, slot) in all.iter_mut().enumerate() {
            let at = 8 * (n * threads as usize + th);
            let b: [u8; 8] = data.get(at..at + 8)?.try_into().ok()?;
            let v = u64::from_le_bytes(b);
            // Never written (or the value written is the fill pattern; then 0, 1, -1 remain).
            if v == 0xaaaa_aaaa_aaaa_aaaa {
                continue;
            }
            let v = if bits >= 64 { v } else { v & ((1u64 << bits) - 1) };
            *slot = Some(v);
            seen = Some(match seen {
                None => Probed {
                    first: v,
                    last: v,
                    uniform: true,
                    all: Vec::new(),
                },
                Some(p) => Probed {
                    first: p.first,
                    last: v,
                    uniform: p.uniform && p.first == v,
                    all: Vec::new(),
                },
            });
        }
        let seen = seen.map(|p| Probed { all, ..p });
        if let Some(p) = seen {
            out.insert((s.list.clone(), s.stmt, s.operand), p);
        }
    }
    Some(out)
}
