//! Scenarios of the control and cache-hint forms: `griddepcontrol` (§9.7.13.13, L18271),
//! `nanosleep` (§9.7.19.2, L31620), `setmaxnreg` (§9.7.19.5, L31723), `prefetch`/`prefetchu`
//! (§9.7.9.15, L13263), `applypriority` (§9.7.9.16, L13324), `discard` (§9.7.9.17, L13360)
//! and `createpolicy` (§9.7.9.18, L13394).
//!
//! None of them has a value a program can observe (a hint, a sleep of unspecified length, an
//! opaque policy, a register budget): each scenario is a program that uses the form the way the
//! manual describes and computes data — every thread loads words of `in`, combines them with
//! its index and stores them to `out` — and the check is that the data is right, which is
//! what the manual determines (its `what` says so). The policy `createpolicy` returns is
//! implementation-defined (L13419-13423): it is only handed to loads and stores with
//! `.L2::cache_hint`, never compared. After `discard.L2` the line's bytes are undefined until
//! written (L13374): only bytes written after it are checked.

use super::cluster::Grid;
use super::{header, instr, BuildError, Rng, Scenario, THREADS};
use spec::catalog::{Exec, Form, PtxVersion};

/// Sections of the no-op forms this module has scenarios for.
const SECTIONS: [&str; 2] = ["9.7.13.13", "9.7.19.2"];

/// Whether `form` is one of this module's. The `.param` tensor-map prefetch is not: it needs a
/// 128-byte kernel parameter the scenarios' launch does not have.
pub(super) fn is_control(form: &Form) -> bool {
    match form.exec() {
        Some(Exec::Nop) => SECTIONS.contains(&form.section),
        Some(Exec::Prefetch) => !(form.has("tensormap") && form.var("ss") == Some("param")),
        Some(Exec::Setmaxnreg | Exec::Applypriority | Exec::Discard | Exec::Createpolicy) => true,
        _ => false,
    }
}

/// Words each thread computes.
const WORDS: usize = 4;

/// Lines: `%rd12` the thread's words of `in`, `%rd13` its record in `out` at `rec`.
fn places(rec: usize) -> Vec<String> {
    vec![
        format!("mul.wide.u32 %rd9, %r2, {};", 4 * WORDS),
        "add.s64 %rd12, %rd1, %rd9;".into(),
        "add.s64 %rd13, %rd0, %rd9;".into(),
        format!("add.s64 %rd13, %rd13, {rec};"),
    ]
}

/// Lines: each word of `in` at `[src]` (the load written by `load(k)`), xor the thread's index,
/// stored with `store(k)`.
fn compute(load: impl Fn(usize) -> String, store: impl Fn(usize) -> String) -> Vec<String> {
    let mut l = Vec::new();
    for k in 0..WORDS {
        l.push(load(k));
        l.push("xor.b32 %r10, %r10, %r2;".into());
        l.push(store(k));
    }
    l
}

/// The expected record of thread `g`: its words of `in` xor `g`.
fn expected(input: &[u8], g: u32) -> Vec<u8> {
    let mut e = Vec::new();
    for k in 0..WORDS {
        let at = (g as usize * WORDS + k) * 4;
        let w = u32::from_le_bytes(input[at..at + 4].try_into().expect("4 bytes")) ^ g;
        e.extend_from_slice(&w.to_le_bytes());
    }
    e
}

fn plain_load(k: usize) -> String {
    format!("ld.global.u32 %r10, [%rd12+{}];", 4 * k)
}

fn plain_store(k: usize) -> String {
    format!("st.global.u32 [%rd13+{}], %r10;", 4 * k)
}

pub(super) fn scenarios(form: &Form, rng: &mut Rng) -> Result<Vec<Scenario>, BuildError> {
    let mut threads = THREADS;
    let mut directives = String::new();
    let mut decls = String::new();
    let mut ptx = PtxVersion(7, 8);
    let mut pre: Vec<String> = Vec::new();
    let mut post: Vec<String> = Vec::new();
    let mut load: Box<dyn Fn(usize) -> String> = Box::new(plain_load);
    let mut store: Box<dyn Fn(usize) -> String> = Box::new(plain_store);
    let what: String;
    match form.exec() {
        Some(Exec::Nop) if form.section == SECTIONS[1] => {
            // nanosleep: t from a register; the sleep's length is open (L31634).
            pre.push("and.b32 %r15, %r2, 7;".into());
            pre.push(instr(form, &[("t", "%r15".into())])?);
            post.push(instr(form, &[("t", "100".into())])?);
            what = "sleeps of unspecified length (L31634) around the computation change nothing".into();
        }
        Some(Exec::Nop) => {
            // griddepcontrol: one grid, no prerequisite or dependent grids (spec/INTERPRETATIONS.md).
            pre.push(instr(form, &[])?);
            what =
                "a grid with no prerequisite or dependent grid: griddepcontrol changes nothing (L18285-18289)".into();
        }
        Some(Exec::Setmaxnreg) => {
            // Two warpgroups: the first gives registers back, the second takes them (the
            // producer/consumer split of L31737-31743); `.maxnreg 128` is the count at entry
            // (L31751). The pool: 8 warps × 128; after: 4 × 40 + 4 × 232 = 1088 would exceed it,
            // 4 × 40 + 4 × 224 = 1056 too, 4 × 56 + 4 × 192 = 992 fits.
            threads = 256;
            directives = ".maxnreg 128\n".into();
            // The `.dec` form's scenario gives registers back in both warpgroups (56 and 96), so
            // that it holds no `.inc`; the `.inc` form's needs a `.dec` first.
            let count = |n: u32| instr(form, &[("imm_reg_count", n.to_string())]);
            let (d, i) = if form.has("inc") {
                ("setmaxnreg.dec.sync.aligned.u32 56;".to_string(), count(192)?)
            } else {
                (count(56)?, count(96)?)
            };
            pre.extend([
                "setp.ge.u32 %p2, %r0, 128;".into(),
                "@%p2 bra CONSUMER;".into(),
                d,
                "bra.uni JOINED;".into(),
                "CONSUMER:".into(),
                i,
                "JOINED:".into(),
            ]);
            what = format!(
                "two warpgroups after `{}` ({}) under .maxnreg 128 compute their data (L31737-31759)",
                form.name,
                if form.has("inc") {
                    "dec 56, inc 192"
                } else {
                    "dec 56, dec 96"
                }
            );
        }
        Some(Exec::Prefetch) => {
            let ss = form.var("ss").unwrap_or("");
            if form.has("tensormap") {
                // 128 bytes of `.const` memory, 64-byte aligned, as a tensor map is (L13275);
                // never used as one.
                decls = ".const .align 64 .b8 tmap[128];".into();
                ptx = PtxVersion(8, 0);
                pre.push("mov.u64 %rd14, tmap;".into());
                if ss.is_empty() {
                    pre.push("cvta.const.u64 %rd14, %rd14;".into());
                }
                pre.push(instr(form, &[("addr", "[%rd14]".into())])?);
            } else if ss == "local" {
                // The words go through local memory, prefetched before they are loaded back.
                pre.push(".local .align 16 .b8 loc[16];".into());
                pre.push("mov.u64 %rd14, loc;".into());
                for k in 0..WORDS {
                    pre.push(plain_load(k));
                    pre.push(format!("st.local.u32 [%rd14+{}], %r10;", 4 * k));
                }
                pre.push(instr(form, &[("addr", "[%rd14]".into())])?);
                load = Box::new(|k| format!("ld.local.u32 %r10, [%rd14+{}];", 4 * k));
            } else {
                // The thread's words of `in`, globally or generically addressed.
                let a = if ss.is_empty() {
                    pre.push("cvta.global.u64 %rd14, %rd12;".into());
                    "[%rd14]"
                } else {
                    "[%rd12]"
                };
                pre.push(instr(form, &[("addr", a.into())])?);
            }
            what = format!(
                "a program that prefetches (`{}`, a hint, L13286) computes its data",
                form.name
            );
        }
        Some(Exec::Applypriority) => {
            // The 128-byte line of `in` holding the thread's words (16 bytes each: 8 threads a line).
            pre.push("and.b64 %rd14, %rd12, -128;".into());
            if form.var("ss").unwrap_or("").is_empty() {
                pre.push("cvta.global.u64 %rd14, %rd14;".into());
            }
            pre.push(instr(form, &[("addr", "[%rd14]".into()), ("size", "128".into())])?);
            what = format!(
                "a program that applies a priority (`{}`, a hint, L13338) computes its data",
                form.name
            );
        }
        Some(Exec::Discard) => {
            // Thread t discards its own 128-byte line of `out` and then writes its first 16
            // bytes: those are checked, the rest is undefined (L13374).
            pre.push("mul.wide.u32 %rd9, %r2, 128;".into());
            pre.push("add.s64 %rd13, %rd0, %rd9;".into());
            pre.push("add.s64 %rd14, %rd13, 0;".into());
            if form.var("ss").unwrap_or("").is_empty() {
                pre.push("cvta.global.u64 %rd14, %rd14;".into());
            }
            pre.push(instr(form, &[("addr", "[%rd14]".into()), ("size", "128".into())])?);
            what = format!(
                "the bytes written after `{}` of their line: those written (the rest is undefined, L13374)",
                form.name
            );
        }
        Some(Exec::Createpolicy) => {
            let mut given = vec![("cache_policy", "%rd15".into())];
            if form.has("range") {
                let a = if form.var("ss").unwrap_or("").is_empty() {
                    pre.push("cvta.global.u64 %rd14, %rd1;".into());
                    "[%rd14]"
                } else {
                    "[%rd1]"
                };
                given.push(("addr", a.to_string()));
                given.push(("primary_size", "1024".into()));
                given.push(("total_size", "4096".into()));
            } else if form.has("fractional") {
                given.push(("fraction", "0f3F000000".into()));
            } else {
                // `.cvt` converts an access property (L13435-13437): the one a fractional
                // policy is, as the manual's CUDA-side property is opaque here too.
                pre.push("createpolicy.fractional.L2::evict_last.b64 %rd16, 0f3F800000;".into());
                given.push(("access_property", "%rd16".into()));
            }
            pre.push(instr(form, &given)?);
            load = Box::new(|k| format!("ld.global.L2::cache_hint.u32 %r10, [%rd12+{}], %rd15;", 4 * k));
            store = Box::new(|k| format!("st.global.L2::cache_hint.u32 [%rd13+{}], %r10, %rd15;", 4 * k));
            what = format!(
                "loads and stores with .L2::cache_hint and the policy of `{}` (a hint, its bits implementation-defined, L13419-13423, L12511) move the data",
                form.name
            );
        }
        _ => return Err(BuildError(format!("`{}` has no control scenario", form.name))),
    }
    let head = header(form, 90, ptx);
    let input = rng.bytes(threads as usize * WORDS * 4);
    let mut g = Grid::with(1, threads);
    g.directives = directives;
    let stride = if form.exec() == Some(Exec::Discard) {
        128
    } else {
        4 * WORDS
    };
    let rec = g.records(stride);
    let mut l = places(rec);
    l.extend(pre);
    l.extend(compute(load, store));
    l.extend(post);
    g.by(None, &l);
    for t in 0..threads {
        // After `discard`, the record's bytes past those the thread wrote stay unchecked.
        g.check(rec, stride, t, expected(&input, t), what.clone());
    }
    Ok(vec![g.finish(
        form,
        &format!("a program using {} computes its data", form.name),
        head,
        &decls,
        &input,
        false,
    )])
}
