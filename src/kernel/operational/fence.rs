//! Scenarios of the fences (§9.7.13.4 `membar`/`fence`, L17214): programs whose result the
//! manual determines only because of the fence under test, in the place the manual puts it.
//!
//! - Thread fences (`fence.sc`, `.acq_rel`, `.acquire`, `.release` at each scope, the
//!   `.sync_restrict` forms, `membar.cta/gl/sys`, L17268: `fence.sc` at cta/gpu/sys):
//!   message passing (the "MP" litmus test, L4181-4198). A writer stores eight words, then the
//!   fence (release pattern) and a relaxed flag store; a reader spins on a relaxed flag load,
//!   then the fence (acquire pattern), then loads the words: it must see the writer's words.
//!   A `.release` form pairs with an `ld.acquire` of the flag, an `.acquire` form with an
//!   `st.release` (the other half of the pattern). At `.cta` scope writer and reader are two
//!   warps of one CTA; at wider scopes the writer is CTA 0 and the reader CTA 1 of a cluster,
//!   loading the writer's shared memory through `mapa` (L17262: the `.sync_restrict` forms
//!   apply to `.shared::cta`, respectively `.shared::cluster` objects, at `.cluster` scope).
//!   Between CTAs the message is also kept in global memory (the manual's litmus test) and
//!   pushed into the reader's shared memory (`across`).
//! - `fence.proxy.alias` (L17282): one thread stores a word through the generic address of its
//!   shared memory and loads it back through a different generic address of the same word (of
//!   its `.shared::cluster` address for its own rank, `mapa`), and the other way round.
//! - `fence.proxy.async*` and `membar.proxy.async*` (L17276-17284): generic stores to shared
//!   memory, the fence, then a bulk copy (async proxy, L14239) of that memory to `out`, which
//!   must hold the stored data. The `.global` form orders a generic store to `out` before the
//!   bulk copy's write to the same bytes (the copy's data must remain); its shared source is
//!   ordered by a `fence.proxy.async.shared::cta`.
//! - `fence.mbarrier_init.release.cluster` (L17260): a thread of CTA 0 initializes an mbarrier,
//!   the fence, a relaxed `barrier.cluster` arrive (the pattern of the manual's mbarrier
//!   example), then a thread of CTA 1 stores a word to CTA 0's shared memory and arrives on the
//!   barrier remotely; CTA 0's thread waits for the phase and loads the word.
//! - `fence.proxy.async::generic.release/.acquire` (L17239-17240): CTA 1 fills its shared
//!   memory by a bulk copy (async proxy), the release fence, the cluster barrier, and CTA 0
//!   loads it through `mapa` after the acquire fence: the copied bytes.

mod across;

use super::cluster::{Grid, SYNC};
use super::{header, instr, BuildError, Rng, Scenario, THREADS};
use spec::catalog::{Exec, Form, PtxVersion};

/// Words of a message.
const WORDS: usize = 8;

/// Whether `form` is one of this module's: a fence of §9.7.13.4 run as a no-op or a proxy fence
/// (not the tensormap fences).
pub(super) fn is_fence(form: &Form) -> bool {
    match form.exec() {
        Some(Exec::ProxyFence) => true,
        Some(Exec::Nop) => catalog_section(form) == FENCE_SECTION,
        _ => false,
    }
}

/// The section of `membar`/`fence`.
const FENCE_SECTION: &str = "9.7.13.4";

fn catalog_section(form: &Form) -> &'static str {
    form.section
}

/// What kind of fence a form is.
enum Kind {
    /// A thread fence at a scope, with its semantics (`sc`, `acq_rel`, `acquire`, `release`).
    Thread {
        sem: &'static str,
        scope: &'static str,
    },
    Alias,
    Async {
        global: bool,
    },
    MbarrierInit,
    AsyncGeneric {
        release: bool,
    },
}

fn kind(form: &Form) -> Result<Kind, BuildError> {
    if form.exec() == Some(Exec::ProxyFence) {
        return Ok(Kind::Async {
            global: form.var("proxy") == Some("async.global"),
        });
    }
    if form.has("mbarrier_init") {
        return Ok(Kind::MbarrierInit);
    }
    if form.has("async::generic") {
        return Ok(Kind::AsyncGeneric {
            release: form.var("sem") == Some("release"),
        });
    }
    if form.var("proxy") == Some("alias") {
        return Ok(Kind::Alias);
    }
    // `membar.level` is `fence.sc` at the matching scope (L17268).
    if let Some(level) = form.var("level") {
        let scope = match level {
            "cta" => "cta",
            "gl" => "gpu",
            _ => "sys",
        };
        return Ok(Kind::Thread { sem: "sc", scope });
    }
    let scope = form
        .var("scope")
        .ok_or_else(|| BuildError(format!("`{}`: no scope", form.name)))?;
    // No `.sem`: `.acq_rel` (L17256).
    let sem = form.var("sem").filter(|s| !s.is_empty()).unwrap_or("acq_rel");
    Ok(Kind::Thread { sem, scope })
}

pub(super) fn scenarios(form: &Form, rng: &mut Rng) -> Result<Vec<Scenario>, BuildError> {
    match kind(form)? {
        Kind::Thread { sem, scope } => {
            let mut v = message(form, rng, sem, scope)?;
            if scope != "cta" && across::applies(form) {
                for place in [across::Place::Global, across::Place::Pushed] {
                    v.push(across::message(form, rng, sem, scope, place)?);
                }
            }
            Ok(v)
        }
        Kind::Alias => alias(form, rng),
        Kind::Async { global } => proxy_async(form, rng, global),
        Kind::MbarrierInit => mbarrier_init(form, rng),
        Kind::AsyncGeneric { release } => async_generic(form, rng, release),
    }
}

/// Lines: `%rd10` the `.shared` address of `buf`, `%rd11` its address in CTA 0 (`mapa`).
fn buf_lines() -> Vec<String> {
    vec![
        "mov.u64 %rd10, buf;".into(),
        "mov.u32 %r11, 0;".into(),
        "mapa.shared::cluster.u64 %rd11, %rd10, %r11;".into(),
    ]
}

/// Message passing through the fence (module doc).
fn message(form: &Form, rng: &mut Rng, sem: &str, scope: &str) -> Result<Vec<Scenario>, BuildError> {
    let head = header(form, 90, PtxVersion(7, 8));
    let input = rng.bytes(4 * WORDS);
    let it = instr(form, &[])?;
    let cta = scope == "cta";
    let (mut g, writer, reader) = if cta {
        // Two warps of one CTA: thread 0 writes, thread 32 reads.
        (Grid::with(1, 2 * THREADS), (0, 0), (0, THREADS))
    } else {
        (Grid::new(2), (0, 0), (1, 0))
    };
    let release_side = matches!(sem, "sc" | "acq_rel" | "release");
    let acquire_side = matches!(sem, "sc" | "acq_rel" | "acquire");
    let flag_st = if release_side { "relaxed" } else { "release" };
    let flag_ld = if acquire_side { "relaxed" } else { "acquire" };
    // Where the reader finds the writer's shared memory: the same `.shared` addresses in one
    // CTA, the writer's through `mapa` from another.
    let (rspace, rbase) = if cta {
        ("shared", "%rd10")
    } else {
        ("shared::cluster", "%rd11")
    };
    let rec = g.records(4 * WORDS);
    let guard = |g: &mut Grid, (rank, tid): (u32, u32), lines: Vec<String>| {
        let mut l = vec![
            format!("setp.ne.u32 %p2, %r0, {tid};"),
            format!("@%p2 bra SKIP{rank}_{tid};"),
        ];
        l.extend(lines);
        l.push(format!("SKIP{rank}_{tid}:"));
        g.by(Some(rank), &l);
    };
    // The flag starts at 0 (shared memory starts undefined), before either side runs.
    g.by(
        Some(writer.0),
        &[
            "setp.ne.u32 %p2, %r0, 0;".into(),
            "@%p2 bra ZERO;".into(),
            "st.shared.u32 [buf], 0;".into(),
            "ZERO:".into(),
        ],
    );
    if cta {
        g.line("bar.sync 0;");
    } else {
        g.sync();
    }
    let mut w = buf_lines();
    for k in 0..WORDS {
        w.push(format!("ld.global.u32 %r10, [%rd1+{}];", 4 * k));
        w.push(format!("st.shared.u32 [%rd10+{}], %r10;", 4 * (k + 1)));
    }
    if release_side {
        w.push(it.clone());
    }
    w.push("mov.u32 %r10, 1;".into());
    w.push(format!("st.{flag_st}.{scope}.shared.u32 [%rd10], %r10;"));
    guard(&mut g, writer, w);
    let mut r = buf_lines();
    r.push("SPIN:".into());
    r.push(format!("ld.{flag_ld}.{scope}.{rspace}.u32 %r10, [{rbase}];"));
    r.push("setp.eq.u32 %p3, %r10, 0;".into());
    r.push("@%p3 bra SPIN;".into());
    if acquire_side {
        r.push(it.clone());
    }
    r.push(Grid::at(4 * WORDS));
    for k in 0..WORDS {
        r.push(format!("ld.{rspace}.u32 %r10, [{rbase}+{}];", 4 * (k + 1)));
        r.push(format!("st.global.u32 [%rd6+{}], %r10;", rec + 4 * k));
    }
    guard(&mut g, reader, r);
    if cta {
        g.line("bar.sync 0;");
    } else {
        g.sync();
    }
    g.check(
        rec,
        4 * WORDS,
        reader.0 * g.threads + reader.1,
        input.clone(),
        format!(
            "message passing at .{scope} scope through `{}` ({}): the reader that saw the flag sees the eight words written before it (L4181-4198, L17256-17262)",
            form.name,
            match (release_side, acquire_side) {
                (true, true) => "on both sides",
                (true, false) => "release side; the reader's flag load is ld.acquire",
                _ => "acquire side; the writer's flag store is st.release",
            }
        ),
    );
    Ok(vec![g.finish(
        form,
        &format!("message passing through {} at .{scope} scope", form.name),
        head,
        ".shared .align 16 .b8 buf[64];",
        &input,
        false,
    )])
}

/// `fence.proxy.alias`: a store and a load of one word through two generic addresses.
fn alias(form: &Form, rng: &mut Rng) -> Result<Vec<Scenario>, BuildError> {
    let head = header(form, 90, PtxVersion(7, 8));
    let input = rng.bytes(8);
    let it = instr(form, &[])?;
    let mut g = Grid::new(1);
    let rec = g.records(8);
    let l = vec![
        "mov.u64 %rd10, buf;".into(),
        "mapa.shared::cluster.u64 %rd11, %rd10, %r1;".into(),
        "cvta.shared.u64 %rd12, %rd10;".into(),
        "cvta.shared::cluster.u64 %rd13, %rd11;".into(),
        "mul.wide.u32 %rd9, %r0, 4;".into(),
        "add.s64 %rd12, %rd12, %rd9;".into(),
        "add.s64 %rd13, %rd13, %rd9;".into(),
        "ld.global.u32 %r10, [%rd1];".into(),
        "xor.b32 %r10, %r10, %r0;".into(),
        "st.u32 [%rd12], %r10;".into(),
        it.clone(),
        "ld.u32 %r9, [%rd13];".into(),
        Grid::at(8),
        format!("st.global.u32 [%rd6+{rec}], %r9;"),
        "ld.global.u32 %r10, [%rd1+4];".into(),
        "xor.b32 %r10, %r10, %r0;".into(),
        "st.u32 [%rd13], %r10;".into(),
        it,
        "ld.u32 %r9, [%rd12];".into(),
        format!("st.global.u32 [%rd6+{}], %r9;", rec + 4),
    ];
    g.by(None, &l);
    for t in 0..THREADS {
        let mut e = Vec::new();
        for k in 0..2 {
            let w = u32::from_le_bytes(input[4 * k..4 * k + 4].try_into().expect("4 bytes")) ^ t;
            e.extend_from_slice(&w.to_le_bytes());
        }
        g.check(
            rec,
            8,
            t,
            e,
            format!(
                "a word stored through one generic address of the thread's shared word and loaded through another (the .shared::cluster one), `{}` between: the stored word (L17282-17284)",
                form.name
            ),
        );
    }
    Ok(vec![g.finish(
        form,
        "a store and a load through two generic addresses of one shared word",
        head,
        ".shared .align 16 .b8 buf[128];",
        &input,
        false,
    )])
}

/// Bytes each thread copies with the bulk copy.
const CHUNK: usize = 16;

/// `fence.proxy.async*`: generic stores, the fence, a bulk copy of them (module doc).
fn proxy_async(form: &Form, rng: &mut Rng, global: bool) -> Result<Vec<Scenario>, BuildError> {
    let head = header(form, 90, PtxVersion(8, 0));
    let input = rng.bytes(THREADS as usize * CHUNK);
    let it = instr(form, &[])?;
    let mut g = Grid::new(1);
    let rec = g.records(CHUNK);
    let mut l = vec![
        "mov.u64 %rd10, buf;".into(),
        format!("mul.wide.u32 %rd9, %r0, {CHUNK};"),
        "add.s64 %rd10, %rd10, %rd9;".into(),
        "add.s64 %rd12, %rd1, %rd9;".into(),
        Grid::at(CHUNK),
        format!("add.s64 %rd6, %rd6, {rec};"),
    ];
    for k in 0..CHUNK / 4 {
        l.push(format!("ld.global.u32 %r10, [%rd12+{}];", 4 * k));
        l.push(format!("st.shared.u32 [%rd10+{}], %r10;", 4 * k));
        if global {
            // A generic store to the bytes the copy then writes.
            l.push("not.b32 %r10, %r10;".into());
            l.push(format!("st.global.u32 [%rd6+{}], %r10;", 4 * k));
        }
    }
    if global {
        l.push("fence.proxy.async.shared::cta;".into());
    }
    l.push(it);
    l.push(format!(
        "cp.async.bulk.global.shared::cta.bulk_group [%rd6], [%rd10], {CHUNK};"
    ));
    l.push("cp.async.bulk.commit_group;".into());
    l.push("cp.async.bulk.wait_group 0;".into());
    g.by(None, &l);
    for t in 0..THREADS {
        let at = t as usize * CHUNK;
        g.check(
            rec,
            CHUNK,
            t,
            input[at..at + CHUNK].to_vec(),
            if global {
                format!(
                    "a generic store to `out`, `{}`, then a bulk copy to the same bytes: the copy's data (L17276-17284)",
                    form.name
                )
            } else {
                format!(
                    "generic stores to shared memory, `{}`, then a bulk copy of it to `out`: the stored data (L14239, L17276-17284)",
                    form.name
                )
            },
        );
    }
    Ok(vec![g.finish(
        form,
        &format!("generic stores, {}, a bulk copy through the async proxy", form.name),
        head,
        ".shared .align 16 .b8 buf[512];",
        &input,
        false,
    )])
}

/// `fence.mbarrier_init.release.cluster`: an mbarrier of CTA 0 initialized, the fence, a
/// relaxed cluster arrive; CTA 1's thread stores a word remotely and arrives remotely; CTA 0
/// waits and loads.
fn mbarrier_init(form: &Form, rng: &mut Rng) -> Result<Vec<Scenario>, BuildError> {
    let head = header(form, 90, PtxVersion(8, 0));
    let input = rng.bytes(4);
    let it = instr(form, &[])?;
    let mut g = Grid::new(2);
    let rec = g.records(4);
    g.by(
        Some(0),
        &[
            "setp.ne.u32 %p2, %r0, 0;".into(),
            "@%p2 bra INIT;".into(),
            "mov.u64 %rd10, mbar;".into(),
            "mov.u32 %r10, 1;".into(),
            "mbarrier.init.shared::cta.b64 [%rd10], %r10;".into(),
            it,
            "INIT:".into(),
        ],
    );
    g.line("barrier.cluster.arrive.relaxed.aligned;");
    g.line(SYNC[1]);
    g.by(
        Some(1),
        &[
            "setp.ne.u32 %p2, %r0, 0;".into(),
            "@%p2 bra SEND;".into(),
            "mov.u64 %rd10, buf;".into(),
            "mov.u64 %rd12, mbar;".into(),
            "mov.u32 %r11, 0;".into(),
            "mapa.shared::cluster.u64 %rd11, %rd10, %r11;".into(),
            "mapa.shared::cluster.u64 %rd13, %rd12, %r11;".into(),
            "ld.global.u32 %r10, [%rd1];".into(),
            "st.shared::cluster.u32 [%rd11], %r10;".into(),
            "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%rd13];".into(),
            "SEND:".into(),
        ],
    );
    g.by(
        Some(0),
        &[
            "setp.ne.u32 %p2, %r0, 0;".into(),
            "@%p2 bra RECV;".into(),
            "mov.u64 %rd10, mbar;".into(),
            "WAIT:".into(),
            "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 %p3, [%rd10], 0;".into(),
            "@!%p3 bra WAIT;".into(),
            "ld.shared.u32 %r9, [buf];".into(),
            Grid::at(4),
            format!("st.global.u32 [%rd6+{rec}], %r9;"),
            "RECV:".into(),
        ],
    );
    g.sync();
    g.check(
        rec,
        4,
        0,
        input.clone(),
        format!(
            "an mbarrier initialized before `{}` and a relaxed barrier.cluster arrive, then arrived on from CTA 1 after its remote store: the wait completes and the store is visible (L17260, L18740)",
            form.name
        ),
    );
    Ok(vec![g.finish(
        form,
        "mbarrier init, fence.mbarrier_init, remote store and arrive from CTA 1 of a 2-CTA cluster",
        head,
        ".shared .align 8 .b64 mbar;\n.shared .align 16 .b8 buf[16];",
        &input,
        false,
    )])
}

/// `fence.proxy.async::generic.release/.acquire`: CTA 1's shared memory filled by a bulk copy,
/// read by CTA 0 through `mapa` after the cluster barrier.
fn async_generic(form: &Form, rng: &mut Rng, release: bool) -> Result<Vec<Scenario>, BuildError> {
    let head = header(form, 90, PtxVersion(8, 6));
    let bytes = 4 * THREADS as usize;
    let input = rng.bytes(bytes);
    let it = instr(form, &[])?;
    let mut g = Grid::new(2);
    let rec = g.records(4);
    let mut fill = vec![
        "setp.ne.u32 %p2, %r0, 0;".into(),
        "@%p2 bra FILL;".into(),
        "mov.u64 %rd10, mbar;".into(),
        "mov.u64 %rd11, buf;".into(),
        "mbarrier.init.shared::cta.b64 [%rd10], 1;".into(),
        format!("mbarrier.arrive.expect_tx.shared::cta.b64 %rd14, [%rd10], {bytes};"),
        format!("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%rd11], [%rd1], {bytes}, [%rd10];"),
        "WAIT:".into(),
        "mbarrier.try_wait.parity.shared::cta.b64 %p3, [%rd10], 0;".into(),
        "@!%p3 bra WAIT;".into(),
    ];
    if release {
        fill.push(it.clone());
    }
    fill.push("FILL:".into());
    g.by(Some(1), &fill);
    g.sync();
    let mut read = vec![
        "mov.u64 %rd10, buf;".into(),
        "mov.u32 %r11, 1;".into(),
        "mapa.shared::cluster.u64 %rd11, %rd10, %r11;".into(),
        "add.s64 %rd11, %rd11, %rd3;".into(),
    ];
    if !release {
        read.push(it);
    }
    read.extend([
        "ld.shared::cluster.u32 %r9, [%rd11];".into(),
        Grid::at(4),
        format!("st.global.u32 [%rd6+{rec}], %r9;"),
    ]);
    g.by(Some(0), &read);
    g.sync();
    for t in 0..THREADS {
        let at = 4 * t as usize;
        g.check(
            rec,
            4,
            t,
            input[at..at + 4].to_vec(),
            format!(
                "CTA 1's shared memory written by a bulk copy (async proxy), `{}` on the {} side of a barrier.cluster, loaded by CTA 0 through mapa: the copied word (L17239-17240, L17286-17288)",
                form.name,
                if release { "writing" } else { "reading" }
            ),
        );
    }
    Ok(vec![g.finish(
        form,
        "a bulk copy into CTA 1's shared memory, read by CTA 0 after the cluster barrier",
        head,
        ".shared .align 8 .b64 mbar;\n.shared .align 128 .b8 buf[128];",
        &input,
        false,
    )])
}
