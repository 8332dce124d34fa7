//! Programs aimed at a partial implementation (issue 17): generated for a PTX version and target,
//! they contain no form or construct beyond them (the oracle's checker at the declared version
//! and ptxas for the declared target accept them); restricted to an allowed set of forms, they
//! contain only those and the skeleton; and a seed still gives the same program, byte for byte.

use generators::program::aim::{audit, Allowed, SKELETON, STRUCTURE};
use generators::program::{from_seed, program_seed, Config};
use spec::catalog::{catalog, PtxVersion, Target};
use std::collections::BTreeSet;
use std::sync::Arc;

/// The (PTX, target) pairs of the property test where the target exists at that version
/// (§11.1.2: sm_86 needs 7.1, sm_90 7.8, ...).
fn combos() -> Vec<(PtxVersion, Target)> {
    let mut v = Vec::new();
    for ptx in ["6.0", "6.4", "7.0", "7.1", "7.8", "8.0"] {
        for sm in ["sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"] {
            let (ptx, t) = (PtxVersion::parse(ptx).unwrap(), Target::parse(sm).unwrap());
            if catalog().target_version(t).is_some_and(|v| v <= ptx) {
                v.push((ptx, t));
            }
        }
    }
    v
}

/// Program `k`'s configuration for a pair: the geometry varies so that warpgroup-sized CTAs and
/// clusters (bulk copies, `mapa`) come up too.
fn config(ptx: PtxVersion, target: Target, k: u64) -> Config {
    Config {
        ptx,
        target,
        warps: 1 + (k % 4) as u32,
        ctas: 1 + (k % 2) as u32,
        ..Config::default()
    }
}

/// Every instruction of a program as written (opcode and modifiers), in order.
fn instructions(ptx: &str) -> Vec<String> {
    let m = oracle::parse::parse(ptx).expect("generated programs parse");
    let mut out = Vec::new();
    for item in &m.items {
        let oracle::ast::Item::Function(f) = item else { continue };
        let mut stack: Vec<&oracle::ast::Stmt> = f.body.iter().flatten().rev().collect();
        while let Some(s) = stack.pop() {
            match s {
                oracle::ast::Stmt::Instr(i) => {
                    out.push(
                        std::iter::once(i.opcode.as_str())
                            .chain(i.mods.iter().map(String::as_str))
                            .collect::<Vec<_>>()
                            .join("."),
                    );
                }
                oracle::ast::Stmt::Block { body, .. } => stack.extend(body.iter().rev()),
                _ => {}
            }
        }
    }
    out
}

/// Programs per pair (`PTXCONF_AIM_PROGRAMS`, default 30).
fn per_pair() -> u64 {
    std::env::var("PTXCONF_AIM_PROGRAMS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(30)
}

/// Programs generated for PTX 6.0-8.0 and sm_60-sm_90 contain no form beyond their version
/// and target (each instruction's catalog forms checked here, directly), no scaffolding beyond
/// them ([`audit`]: `.b128` registers, special registers, directives), and the oracle's checker
/// accepts them at the version they declare. Newer pairs do get what older ones may not.
#[test]
fn programs_stay_within_their_version_and_target() {
    let cat = catalog();
    let mut failures = Vec::new();
    let mut seen: Vec<((PtxVersion, Target), BTreeSet<String>)> = Vec::new();
    for (ptx, target) in combos() {
        let mut names = BTreeSet::new();
        for k in 0..per_pair() {
            let cfg = config(ptx, target, k);
            let p = from_seed(program_seed(7, k), &cfg);
            let what = format!("PTX {ptx} {target} program {k}");
            for name in instructions(&p.ptx) {
                let ok = cat
                    .lookup(&name)
                    .is_ok_and(|f| f.forms.iter().any(|&i| cat.forms[i].available(ptx, target)));
                if !ok {
                    failures.push(format!("{what}: `{name}` is not available"));
                }
                names.insert(name);
            }
            if let Err(b) = audit(&cfg, &p.ptx) {
                failures.push(format!("{what}: {}", b.join("; ")));
            }
            if !p.ptx.contains(&format!(".version {ptx}\n.target {target}\n")) {
                failures.push(format!("{what}: not declared as {ptx} {target}"));
            }
            let module = oracle::parse::parse(&p.ptx).expect("parses");
            if let Err(e) = oracle::check::check(&module) {
                failures.push(format!("{what}: the oracle's checker: {e}"));
            }
        }
        seen.push(((ptx, target), names));
    }
    assert!(
        failures.is_empty(),
        "{} failures; first: {}",
        failures.len(),
        failures[0]
    );
    let has = |ptx: &str, sm: &str, prefix: &str| {
        let key = (PtxVersion::parse(ptx).unwrap(), Target::parse(sm).unwrap());
        seen.iter()
            .find(|(k, _)| *k == key)
            .is_some_and(|(_, n)| n.iter().any(|x| x.starts_with(prefix)))
    };
    // The restriction is not vacuous: what PTX 6.0 or sm_60 lacks shows up where it exists.
    for (ptx, sm, prefix) in [
        ("6.0", "sm_70", "redux.sync"),
        ("6.0", "sm_60", "match.any.sync"),
        ("6.4", "sm_75", "ldmatrix"),
        ("7.8", "sm_75", "cp.async.wait"),
        ("6.4", "sm_75", "cvt.rn.f16x2.f32"),
    ] {
        assert!(!has(ptx, sm, prefix), "PTX {ptx} {sm} programs contain {prefix}");
    }
    for (ptx, sm, prefix) in [
        ("7.1", "sm_86", "redux.sync"),
        ("6.0", "sm_70", "match.any.sync"),
        ("7.1", "sm_86", "ldmatrix"),
        ("7.1", "sm_86", "cp.async.wait"),
        ("6.4", "sm_70", "mma.sync.aligned.m8n8k4"),
        ("8.0", "sm_90", "mapa"),
    ] {
        assert!(has(ptx, sm, prefix), "no PTX {ptx} {sm} program contains {prefix}");
    }
    // No program branches through a table (issue 17: GPGPU-Sim and gpuocelot lack `brx.idx`).
    assert!(seen.iter().all(|(_, n)| !n.iter().any(|x| x.starts_with("brx"))));
}

/// The audit is not a formality: a program of PTX 8.7 for sm_90 is beyond PTX 7.1 and sm_86
/// (its `.version` and `.target` at least), and one with a `.b128` register beyond PTX 8.2.
#[test]
fn the_audit_finds_what_is_beyond() {
    let p = from_seed(1, &Config::default());
    let old = Config {
        ptx: PtxVersion(7, 1),
        target: Target::parse("sm_86").unwrap(),
        ..Config::default()
    };
    let beyond = audit(&old, &p.ptx).unwrap_err();
    assert!(beyond.iter().any(|b| b.contains(".version 8.7")), "{beyond:?}");
    assert!(p.ptx.contains(".reg .b128"));
    let text = p.ptx.replace(".version 8.7", ".version 8.2");
    let v82 = Config {
        ptx: PtxVersion(8, 2),
        ..Config::default()
    };
    let beyond = audit(&v82, &text).unwrap_err();
    assert!(
        beyond.iter().any(|b| b.contains("`.b128` needs PTX ISA 8.3")),
        "{beyond:?}"
    );
}

/// ptxas accepts a sample of each pair's programs for the declared target (the first
/// `PTXCONF_PTXAS_PROGRAMS`, default 6, of each pair).
#[test]
fn ptxas_accepts_programs_of_each_version_and_target() {
    let Some(ptxas) = oracle::ptxas::required("ptxas_accepts_programs_of_each_version_and_target") else {
        return;
    };
    let n: u64 = std::env::var("PTXCONF_PTXAS_PROGRAMS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(6);
    let dir = std::env::temp_dir().join(format!("ptxconf-aim-ptxas-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let jobs: Vec<(PtxVersion, Target, u64)> = combos()
        .into_iter()
        .flat_map(|(p, t)| (0..n).map(move |k| (p, t, k)))
        .collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let rejected = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let j = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(&(ptx, target, k)) = jobs.get(j) else { break };
                let p = from_seed(program_seed(7, k), &config(ptx, target, k));
                let f = dir.join(format!("{ptx}-{target}-{k}.ptx"));
                std::fs::write(&f, &p.ptx).unwrap();
                let arch = target.to_string().trim_start_matches("sm_").to_string();
                let (ok, msg) = oracle::ptxas::accepts(&ptxas, &f, &arch);
                if ok {
                    let _ = std::fs::remove_file(&f);
                } else {
                    rejected
                        .lock()
                        .unwrap()
                        .push(format!("PTX {ptx} {target} program {k}: {msg}"));
                }
            });
        }
    });
    let rejected = rejected.into_inner().unwrap();
    if rejected.is_empty() {
        let _ = std::fs::remove_dir_all(&dir);
    }
    assert!(
        rejected.is_empty(),
        "ptxas rejected {} of {} (kept in {}); first: {}",
        rejected.len(),
        jobs.len(),
        dir.display(),
        rejected[0]
    );
}

/// The keys of a handful of forms a backend "passed".
fn handful() -> BTreeSet<String> {
    let keys: BTreeSet<String> = ["add.s32", "xor.b32", "min.u32", "shl.b64", "mul.lo.s64", "setp.lt.u32"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let all: BTreeSet<String> = catalog().forms.iter().map(spec::vector::form_key).collect();
    for k in &keys {
        assert!(all.contains(k), "{k} is not a form key");
    }
    keys
}

/// The keys of every form an instruction written `name` may be (at sm_90, PTX 8.7).
fn keys_of(name: &str) -> Vec<String> {
    let cat = catalog();
    let cfg = Config::default();
    cat.lookup(name)
        .map(|f| f.forms)
        .unwrap_or_default()
        .into_iter()
        .map(|i| &cat.forms[i])
        .filter(|f| f.available(cfg.ptx, cfg.target))
        .map(spec::vector::form_key)
        .collect()
}

/// The instructions of the first `n` programs of `cfg` (seed 3), each program also run on the
/// oracle with its assumptions confirmed when `run` says so.
fn used(cfg: &Config, n: u64, run: u64) -> BTreeSet<String> {
    let mut used = BTreeSet::new();
    for k in 0..n {
        let seed = program_seed(3, k);
        used.extend(instructions(&from_seed(seed, cfg).ptx));
        if k < run {
            generators::program::checked(seed, cfg).unwrap_or_else(|e| panic!("program {k}: {e}"));
        }
    }
    used
}

/// Restricted to a handful of passed forms by a report that judged nothing else, programs
/// contain those forms, the skeleton and the structure only (checked here on each instruction's
/// catalog forms): the handful does appear, and so do loops and branches (the structure the
/// report did not judge), but no subject of a construct (no `shfl`, `atom`, `mma`,
/// `cp.async`, ...) and no other value form; the programs run on the oracle with their
/// assumptions confirmed.
#[test]
fn allowed_forms_skeleton_and_structure_only() {
    let passed = handful();
    let cfg = Config {
        allowed: Some(Arc::new(Allowed::passed(passed.iter().cloned()))),
        ..Config::default()
    };
    let used = used(&cfg, 150, 20);
    for name in &used {
        let ok = SKELETON.contains(&name.as_str())
            || STRUCTURE.contains(&name.as_str())
            || keys_of(name).iter().any(|k| passed.contains(k));
        assert!(ok, "`{name}` is neither passed, skeleton nor structure: {used:?}");
    }
    for k in &passed {
        assert!(used.contains(k), "no program uses {k}: {used:?}");
    }
    assert!(used.contains("bra") && used.contains("rem.u32"), "{used:?}");
    assert!(!used.contains("ld.global.b128"), "{used:?}");
}

/// When the report judged the structure too and it failed, programs contain the passed forms
/// and the skeleton only: no branch, no loop, no call, no shared memory.
#[test]
fn failed_structure_is_left_out() {
    let passed = handful();
    let judged: BTreeSet<String> = passed
        .iter()
        .cloned()
        .chain(STRUCTURE.iter().flat_map(|n| keys_of(n)))
        .collect();
    let cfg = Config {
        allowed: Some(Arc::new(Allowed {
            passed: passed.clone(),
            judged,
        })),
        ..Config::default()
    };
    let used = used(&cfg, 150, 20);
    for name in &used {
        let ok = SKELETON.contains(&name.as_str()) || keys_of(name).iter().any(|k| passed.contains(k));
        assert!(ok, "`{name}` is neither passed nor skeleton: {used:?}");
    }
    for k in &passed {
        assert!(used.contains(k), "no program uses {k}: {used:?}");
    }
}

/// A seed gives the same program byte for byte, whatever was generated before on the thread
/// (the menus and the permission cache are per-thread caches of the last configuration).
#[test]
fn same_seed_same_program() {
    let aimed = Config {
        allowed: Some(Arc::new(Allowed::passed(handful()))),
        ..Config::default()
    };
    let old = Config {
        ptx: PtxVersion(7, 1),
        target: Target::parse("sm_86").unwrap(),
        ..Config::default()
    };
    let first: Vec<(String, String)> = (0..10)
        .flat_map(|k| [from_seed(k, &aimed), from_seed(k, &old)])
        .map(|p| (p.ptx, p.launch.to_json()))
        .collect();
    let again: Vec<(String, String)> = (0..10)
        .rev()
        .flat_map(|k| [from_seed(k, &old), from_seed(k, &aimed)])
        .map(|p| (p.ptx, p.launch.to_json()))
        .collect();
    for (k, pair) in first.chunks(2).enumerate() {
        let other = &again[2 * (9 - k)..2 * (9 - k) + 2];
        assert_eq!(pair[0], other[1], "seed {k}, aimed");
        assert_eq!(pair[1], other[0], "seed {k}, PTX 7.1");
    }
    let other = std::thread::spawn(move || from_seed(4, &aimed).ptx).join().unwrap();
    assert_eq!(other, first[8].0);
}
