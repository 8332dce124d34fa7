//! Message passing between two CTAs of a cluster through the thread fences at `.cluster`,
//! `.gpu` and `.sys` scope, in the places real programs keep a message besides the writer's own
//! shared memory (`super::message`'s scenario):
//!
//! - **global memory**: the manual's own "MP" litmus test (L4181-4198): CTA 0's thread writes
//!   eight words and a flag to global memory, CTA 1's thread spins on the flag and reads the
//!   words;
//! - **pushed into the reader's shared memory**: CTA 0's thread stores the words and the flag
//!   into CTA 1's shared memory through `mapa` (`st.shared::cluster`), CTA 1's thread spins on
//!   its own shared flag (`.shared::cta`) and reads its own shared words, as a producer feeding
//!   a consumer CTA's buffer does.
//!
//! Why the outcome is determined (§8 of the manual; research notes
//! `tensor-cores-and-memory-model.md`, rows 8.8-8.10.6): the fence under test and the flag's
//! strong write form a release pattern (a fence then a strong write, L3919-3953), the flag's
//! strong read and the fence (or an `ld.acquire`) an acquire pattern; both flag operations are
//! strong at the form's scope, which includes both threads, and overlap completely, so they are
//! morally strong (L3891-3899); the reader's flag read observes the writer's flag write, so the
//! release pattern synchronizes with the acquire pattern (L3985-4013, case 4), each data write is
//! causality-before the data read of the same bytes (L4017-4057: same address, generic proxy),
//! and the read cannot return an older value (L4175-4179, "Causality" 2). A `.release` form
//! pairs with an `ld.acquire` of the flag, an `.acquire` form with an `st.release` of it, as in
//! `super::message`. The `.sync_restrict` forms restrict the fence to shared-memory objects of
//! one kind (L17262) and keep only `super::message`'s scenario.

use super::super::cluster::Grid;
use super::WORDS;
use crate::kernel::operational::{header, instr, BuildError, Rng, Scenario, POLLS};
use spec::catalog::{Form, PtxVersion};

/// Where the message is kept.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Place {
    /// A region of `out` (global memory).
    Global,
    /// The reader CTA's shared memory, written remotely.
    Pushed,
}

/// Whether `form`'s fence orders the accesses of these scenarios (not a `.sync_restrict` form).
pub(super) fn applies(form: &Form) -> bool {
    !form.has("sync_restrict::shared::cta") && !form.has("sync_restrict::shared::cluster")
}

/// The scenario of `form` (a thread fence of semantics `sem` at `scope`, wider than `.cta`)
/// with the message kept at `place` (module doc).
pub(super) fn message(
    form: &Form,
    rng: &mut Rng,
    sem: &str,
    scope: &str,
    place: Place,
) -> Result<Scenario, BuildError> {
    let head = header(form, 90, PtxVersion(7, 8));
    let input = rng.bytes(4 * WORDS);
    let it = instr(form, &[])?;
    let mut g = Grid::new(2);
    let release_side = matches!(sem, "sc" | "acq_rel" | "release");
    let acquire_side = matches!(sem, "sc" | "acq_rel" | "acquire");
    let flag_st = if release_side { "relaxed" } else { "release" };
    let flag_ld = if acquire_side { "relaxed" } else { "acquire" };
    let rec = g.records(4 * WORDS);
    let seen = g.records(4);
    // The message area of a global message: the flag, then the words.
    let area = g.k.out;
    if place == Place::Global {
        g.k.out += 4 * (WORDS + 1);
    }
    // `%rd10`: the message as the writer addresses it, `%rd11` as the reader does.
    let (wspace, rspace, addr) = match place {
        Place::Global => (
            "global",
            "global",
            vec![
                format!("add.s64 %rd10, %rd0, {area};"),
                format!("add.s64 %rd11, %rd0, {area};"),
            ],
        ),
        Place::Pushed => (
            "shared::cluster",
            "shared::cta",
            vec![
                "mov.u64 %rd11, buf;".to_string(),
                "mov.u32 %r11, 1;".into(),
                "mapa.shared::cluster.u64 %rd10, %rd11, %r11;".into(),
            ],
        ),
    };
    // The flag starts at 0, set by the CTA that holds it before the cluster barrier orders it
    // before both sides (L17177).
    let mut zero = vec!["setp.ne.u32 %p2, %r0, 0;".to_string(), "@%p2 bra ZERO;".into()];
    zero.extend(addr.clone());
    zero.push(format!("st.{rspace}.u32 [%rd11], 0;"));
    zero.push("ZERO:".into());
    g.by(Some(if place == Place::Global { 0 } else { 1 }), &zero);
    g.sync();
    let mut w = vec!["setp.ne.u32 %p2, %r0, 0;".to_string(), "@%p2 bra WRITE;".into()];
    w.extend(addr.clone());
    for k in 0..WORDS {
        w.push(format!("ld.global.u32 %r10, [%rd1+{}];", 4 * k));
        w.push(format!("st.{wspace}.u32 [%rd10+{}], %r10;", 4 * (k + 1)));
    }
    if release_side {
        w.push(it.clone());
    }
    w.push("mov.u32 %r10, 1;".into());
    w.push(format!("st.{flag_st}.{scope}.{wspace}.u32 [%rd10], %r10;"));
    w.push("WRITE:".into());
    g.by(Some(0), &w);
    let mut r = vec!["setp.ne.u32 %p2, %r0, 0;".to_string(), "@%p2 bra READ;".into()];
    r.extend(addr);
    // A bounded spin (a wrong implementation whose flag never arrives fails a check instead
    // of hanging): whether the flag was seen is itself checked.
    r.push("mov.u32 %r16, 0;".into());
    r.push("SPIN:".into());
    r.push(format!("ld.{flag_ld}.{scope}.{rspace}.u32 %r10, [%rd11];"));
    r.push("setp.ne.u32 %p3, %r10, 0;".into());
    r.push("@%p3 bra SEEN;".into());
    r.push("nanosleep.u32 1000;".into());
    r.push("add.u32 %r16, %r16, 1;".into());
    r.push(format!("setp.lt.u32 %p5, %r16, {POLLS};"));
    r.push("@%p5 bra SPIN;".into());
    r.push("SEEN:".into());
    if acquire_side {
        r.push(it);
    }
    r.push(Grid::at(4));
    r.push("selp.u32 %r9, 1, 0, %p3;".into());
    r.push(format!("st.global.u32 [%rd6+{seen}], %r9;"));
    r.push(Grid::at(4 * WORDS));
    for k in 0..WORDS {
        r.push(format!("ld.{rspace}.u32 %r10, [%rd11+{}];", 4 * (k + 1)));
        r.push(format!("st.global.u32 [%rd6+{}], %r10;", rec + 4 * k));
    }
    r.push("READ:".into());
    g.by(Some(1), &r);
    // CTA 1's shared memory outlives CTA 0's stores into it (L89).
    g.sync();
    let (kept, lines) = match place {
        Place::Global => ("in global memory", "L4181-4198"),
        Place::Pushed => (
            "stored by CTA 0 into CTA 1's shared memory through mapa",
            "L14114-14116",
        ),
    };
    let side = match (release_side, acquire_side) {
        (true, true) => "on both sides",
        (true, false) => "release side; the reader's flag load is ld.acquire",
        _ => "acquire side; the writer's flag store is st.release",
    };
    g.check(
        rec,
        4 * WORDS,
        g.threads,
        input.clone(),
        format!(
            "message passing at .{scope} scope between CTAs 0 and 1 of a cluster through `{}` ({side}), the message {kept}: the reader that saw the flag sees the eight words written before it (L3919-3953, L3985-4013, L4175-4179, {lines})",
            form.name
        ),
    );
    g.check(
        seen,
        4,
        g.threads,
        1u32.to_le_bytes().to_vec(),
        format!("the reader's spin sees the flag within {POLLS} polls"),
    );
    if place == Place::Global {
        // At the end of the launch the area holds the flag and the words (the kernel's end
        // synchronizes with its threads, L3995-4013).
        let mut done = 1u32.to_le_bytes().to_vec();
        done.extend_from_slice(&input);
        g.k.checks.push(crate::kernel::operational::Check {
            offset: area,
            rule: crate::kernel::operational::Rule::Bytes(done),
            what: "the message area after the launch: flag 1, the eight words".into(),
        });
    }
    let how = format!(
        "message passing through {} at .{scope} scope between two CTAs of a cluster, the message {kept}",
        form.name
    );
    Ok(g.finish(form, &how, head, ".shared .align 16 .b8 buf[64];", &input, false))
}
