//! Scenarios of `cp.async` (§9.7.9.25.3.1, L14246), its groups (`commit_group`, `wait_group`,
//! `wait_all`: §9.7.9.25.3.2-3, L14330-14430) and `cp.async.mbarrier.arrive` (§9.7.13.15.15,
//! L18934): every thread copies known bytes from `in` into its own slice of shared memory, which
//! it first fills with a sentinel so that zero fill is seen, waits by the mechanism under test,
//! and stores the slice to `out`. The expected slice is computed here by copying bytes: the
//! first `src-size` bytes (all `cp-size` without it, none when `ignore-src` is True) from the
//! source, zeros for the rest of `cp-size` (L14273).

use super::{
    header, instr, instr_with, trailing_hints, BuildError, Check, Kernel, Rng, Rule, Scenario, POLLS, THREADS,
};
use spec::catalog::{Exec, Form, PtxVersion};

/// Bytes of each thread's slice of shared memory and of `in`.
const SLICE: u32 = 64;

/// The sentinel every slice holds before the copies.
const SENTINEL: u8 = 0xa5;

/// Whether `form` is `cp.async.mbarrier.arrive` (an mbarrier executor's form with the `async`
/// modifier of `cp.async`).
pub(super) fn is_arrive(form: &Form) -> bool {
    form.exec() == Some(Exec::Mbarrier) && form.has("async")
}

/// One thread's view: its slice of shared memory as the copies leave it.
struct Slices {
    /// `in`: the source bytes, [`SLICE`] per thread.
    input: Vec<u8>,
    /// Each thread's slice.
    shared: Vec<Vec<u8>>,
}

impl Slices {
    fn new(input: &[u8]) -> Slices {
        Slices {
            input: input.to_vec(),
            shared: vec![vec![SENTINEL; SLICE as usize]; THREADS as usize],
        }
    }

    /// Thread `t`'s copy of `cp_size` bytes at `off` (destination and source), `n` of them from
    /// the source and the rest zero (L14273).
    fn copy(&mut self, t: u32, off: u32, cp_size: u32, n: u32) {
        let (t, off) = (t as usize, off as usize);
        for b in 0..cp_size as usize {
            self.shared[t][off + b] = if b < n as usize {
                self.input[t * SLICE as usize + off + b]
            } else {
                0
            };
        }
    }
}

/// The kernel's prologue: `%rd5` the thread's shared slice, `%rd7` its source in `in`, the
/// slice filled with the sentinel.
fn prologue(k: &mut Kernel) {
    k.line(format!("mul.wide.u32 %rd6, %r0, {SLICE};"));
    k.line("mov.u64 %rd5, sm;");
    k.line("add.s64 %rd5, %rd5, %rd6;");
    k.line("add.s64 %rd7, %rd1, %rd6;");
    let word = u32::from_le_bytes([SENTINEL; 4]);
    k.line(format!("mov.b32 %r14, {word:#x};"));
    for w in 0..SLICE / 4 {
        k.line(format!("st.shared.b32 [%rd5+{}], %r14;", 4 * w));
    }
}

/// Every thread stores its slice to a fresh region of `out`, each thread's record
/// [`SLICE`] bytes; the slices must be `expected`.
fn store_slices(k: &mut Kernel, expected: &Slices, what: &str) {
    let base = k.out;
    k.out += (SLICE * THREADS) as usize;
    let mut lines = vec![
        "mul.wide.u32 %rd6, %r0, 64;".to_string(),
        "add.s64 %rd8, %rd0, %rd6;".into(),
    ];
    for w in 0..SLICE / 4 {
        lines.push(format!("ld.shared.b32 %r15, [%rd5+{}];", 4 * w));
        lines.push(format!("st.global.b32 [%rd8+{}], %r15;", base as u32 + 4 * w));
    }
    k.by(0, THREADS, &lines);
    for t in 0..THREADS as usize {
        k.checks.push(Check {
            offset: base + t * SLICE as usize,
            rule: Rule::Bytes(expected.shared[t].clone()),
            what: format!("{what} (thread {t})"),
        });
    }
}

const DECLS: &str = ".shared .align 16 .b8 sm[2048];\n.shared .align 8 .b64 mbar;";

/// The scenarios of a `cp.async`-family form.
pub(super) fn scenarios(form: &Form, rng: &mut Rng) -> Result<Vec<Scenario>, BuildError> {
    let head = header(form, 80, PtxVersion(7, 0));
    let input = rng.bytes((SLICE * THREADS) as usize);
    if form.exec() == Some(Exec::CpAsync) {
        // The copies without hints, with each hint alone, and with the first alternative of
        // every group together (`.L2::cache_hint.L2::64B`): hints never change the bytes
        // copied (L14291, L14297).
        let groups = trailing_hints(form);
        let mut sets: Vec<Vec<&str>> = vec![Vec::new()];
        sets.extend(groups.iter().flatten().map(|h| vec![*h]));
        if groups.len() > 1 {
            sets.push(groups.iter().filter_map(|g| g.first().copied()).collect());
        }
        return sets
            .iter()
            .map(|hints| {
                let (how, k) = copy(form, hints, &input)?;
                // cp.async's hints came with PTX 7.4 (L14303); the catalog's `@hint` lines say
                // what a hint needs where they list it.
                let mut h = head;
                if !hints.is_empty() {
                    h.0 = h.0.max(PtxVersion(7, 4));
                }
                for (v, t) in hints.iter().filter_map(|x| spec::catalog::catalog().hint_needs(x)) {
                    h.0 = h.0.max(v);
                    h.1 = if t.sm > h.1.sm { t } else { h.1 };
                }
                Ok(k.finish(form, &how, h, DECLS, &input))
            })
            .collect();
    }
    let (how, k) = match form.exec() {
        Some(Exec::CpAsyncCommit | Exec::CpAsyncWait) => groups(form, &input)?,
        _ => mbarrier_arrive(form, &input)?,
    };
    Ok(vec![k.finish(form, &how, head, DECLS, &input)])
}

/// The form's copies, every cp-size it takes, with and without its src-size or ignore-src
/// operand (each thread a different value), then `cp.async.wait_all`.
fn copy(form: &Form, hints: &[&str], input: &[u8]) -> Result<(String, Kernel), BuildError> {
    let mut expected = Slices::new(input);
    let mut k = Kernel::new();
    prologue(&mut k);
    let has = |n: &str| form.inputs.iter().any(|o| o.name == n);
    // `.cg` copies 16 bytes only (L14256-14262); `.ca` 4, 8 or 16 (L14265).
    let sizes: &[u32] = if form.var("cop") == Some("cg") {
        &[16]
    } else {
        &[16, 8, 4]
    };
    // The cache-policy operand goes with `.L2::cache_hint` (L14295).
    let hint = hints.contains(&"L2::cache_hint") && has("cache_policy");
    if hint {
        // A cache policy is only a hint (L14297); this is the "evict normal" policy
        // CUTLASS passes to its copies (`CacheHintSm90::EVICT_NORMAL`).
        k.line("mov.b64 %rd9, 0x1000000000000000;");
    }
    let mut off = 0;
    let mut case = 0u32;
    let mut lines = Vec::new();
    let mut seen = Vec::new();
    for &size in sizes {
        for with in [false, true] {
            let mut ops = vec![
                ("dst", format!("[%rd5+{off}]")),
                ("src", format!("[%rd7+{off}]")),
                ("cp_size", size.to_string()),
            ];
            if hint {
                ops.push(("cache_policy", "%rd9".into()));
            }
            let mut n_of: Box<dyn Fn(u32) -> u32> = Box::new(move |_| size);
            if with && has("src_size") {
                // Thread t copies (t + case) mod (cp-size + 1) bytes: every src-size from 0 to
                // cp-size among the threads.
                lines.push(format!("add.u32 %r13, %r0, {case};"));
                lines.push(format!("rem.u32 %r13, %r13, {};", size + 1));
                ops.push(("src_size", "%r13".into()));
                n_of = Box::new(move |t| (t + case) % (size + 1));
            } else if with && has("ignore_src") {
                // Thread t ignores its source when t + case is odd.
                lines.push(format!("add.u32 %r13, %r0, {case};"));
                lines.push("and.b32 %r13, %r13, 1;".into());
                lines.push("setp.eq.u32 %p4, %r13, 1;".into());
                ops.push(("ignore_src", "%p4".into()));
                n_of = Box::new(move |t| if (t + case) % 2 == 1 { 0 } else { size });
            } else if with {
                continue;
            } else if hint {
                // ⚠ `cp-size, cache-policy` without the src-size (the manual's own example,
                // L14326) is refused by the oracle's type checker, which reads the policy as the
                // src-size: not written until it takes it.
                continue;
            }
            lines.push(instr_with(form, hints, &ops)?);
            for t in 0..THREADS {
                expected.copy(t, off, size, n_of(t));
            }
            seen.push(format!("{size}{}", if with { "+operand" } else { "" }));
            off += size;
            case += 1;
        }
    }
    // wait_all: commit and wait for every group (L14385).
    lines.push("cp.async.wait_all;".into());
    k.by(0, THREADS, &lines);
    store_slices(
        &mut k,
        &expected,
        "the slice after cp.async.wait_all: the copied bytes, zero filled past src-size (L14273, L14392)",
    );
    let written = hints.iter().map(|h| format!(".{h}")).collect::<String>();
    Ok((
        format!("copies{written} of cp-size {} then wait_all", seen.join(", ")),
        k,
    ))
}

/// The group forms: three groups of 16-byte copies (`.cg`) into slots 0, 1, 2, waited for one
/// at a time with `wait_group 2, 1, 0`, an empty group, and a copy into slot 0 again in a later
/// group; or, for `wait_all`, uncommitted copies after committed ones.
fn groups(form: &Form, input: &[u8]) -> Result<(String, Kernel), BuildError> {
    let mut expected = Slices::new(input);
    let mut k = Kernel::new();
    prologue(&mut k);
    let commit = || -> Result<String, BuildError> {
        Ok(if form.exec() == Some(Exec::CpAsyncCommit) {
            instr(form, &[])?
        } else {
            "cp.async.commit_group;".into()
        })
    };
    let wait = |n: u32| -> Result<String, BuildError> {
        Ok(match form.exec() {
            Some(Exec::CpAsyncWait) if form.inputs.iter().any(|o| o.name == "n") => {
                instr(form, &[("n", n.to_string())])?
            }
            _ => format!("cp.async.wait_group {n};"),
        })
    };
    let copy = |slot: u32, src: u32| {
        format!(
            "cp.async.cg.shared.global [%rd5+{}], [%rd7+{}], 16;",
            16 * slot,
            16 * src
        )
    };
    let wait_all = form.exec() == Some(Exec::CpAsyncWait) && !form.inputs.iter().any(|o| o.name == "n");
    if wait_all {
        // Two committed groups and one uncommitted copy: wait_all is commit_group then
        // wait_group 0 (L14385), so all three complete.
        let c = commit()?;
        let lines = vec![copy(0, 0), c.clone(), copy(1, 1), c, copy(2, 2), instr(form, &[])?];
        k.by(0, THREADS, &lines);
        for t in 0..THREADS {
            for s in 0..3 {
                expected.copy(t, 16 * s, 16, 16);
            }
        }
        store_slices(
            &mut k,
            &expected,
            "after wait_all: two committed groups and an uncommitted copy complete (L14392-14402)",
        );
        return Ok(("two groups and an uncommitted copy, then wait_all".into(), k));
    }
    let c = commit()?;
    // Slot s of the slice from source s; slot 3 stays the sentinel until a later group.
    k.by(
        0,
        THREADS,
        &[
            copy(0, 0),
            c.clone(),
            copy(1, 1),
            c.clone(),
            copy(2, 2),
            c.clone(),
            wait(2)?,
        ],
    );
    // wait_group 2: all but the newest two groups complete (L14383): the first.
    let mut seen = Slices::new(input);
    for t in 0..THREADS {
        seen.copy(t, 0, 16, 16);
    }
    store_first(
        &mut k,
        &seen,
        0,
        "slot 0 after wait_group 2: the oldest of three groups complete (L14383)",
    );
    k.by(0, THREADS, &[wait(1)?]);
    for t in 0..THREADS {
        seen.copy(t, 16, 16, 16);
    }
    store_first(
        &mut k,
        &seen,
        1,
        "slot 1 after wait_group 1: the two oldest groups complete (L14383)",
    );
    // An empty group is complete at once (L14390); then slot 0 again, from source 3.
    k.by(0, THREADS, &[c.clone(), wait(0)?, copy(0, 3), c, wait(0)?]);
    for t in 0..THREADS {
        expected.copy(t, 16, 16, 16);
        expected.copy(t, 32, 16, 16);
        // Slot 0 last holds the later group's copy of source bytes 48..64.
        for b in 0..16 {
            expected.shared[t as usize][b] = expected.input[(t * SLICE) as usize + 48 + b];
        }
    }
    store_slices(
        &mut k,
        &expected,
        "the slice after wait_group 0, an empty group and a later group's copy into slot 0 (L14383-14392)",
    );
    Ok((
        "three groups waited for by wait_group 2, 1, 0; an empty group; slot 0 copied again".into(),
        k,
    ))
}

/// Every thread stores slot `slot` (16 bytes) of its slice to a fresh region of `out`; it must
/// be that of `expected`. Only completed copies are read (reading a pending one is a race).
fn store_first(k: &mut Kernel, expected: &Slices, slot: u32, what: &str) {
    let base = k.out;
    k.out += 16 * THREADS as usize;
    let mut lines = vec![
        "mul.wide.u32 %rd6, %r0, 16;".to_string(),
        "add.s64 %rd8, %rd0, %rd6;".into(),
    ];
    for w in 0..4 {
        lines.push(format!("ld.shared.b32 %r15, [%rd5+{}];", 16 * slot + 4 * w));
        lines.push(format!("st.global.b32 [%rd8+{}], %r15;", base as u32 + 4 * w));
    }
    k.by(0, THREADS, &lines);
    for t in 0..THREADS as usize {
        let s = 16 * slot as usize;
        k.checks.push(Check {
            offset: base + 16 * t,
            rule: Rule::Bytes(expected.shared[t][s..s + 16].to_vec()),
            what: format!("{what} (thread {t})"),
        });
    }
}

/// `cp.async.mbarrier.arrive{.noinc}`: copies, the form, an arrive, a wait loop; the phase
/// completes (with `.noinc` the init count covers the asynchronous arrive-ons, L18950;
/// without it the form adds its own, L18948) and the copies are visible (L19077).
fn mbarrier_arrive(form: &Form, input: &[u8]) -> Result<(String, Kernel), BuildError> {
    let mut expected = Slices::new(input);
    let mut k = Kernel::new();
    prologue(&mut k);
    let noinc = form.has("noinc");
    let n = if noinc { 2 * THREADS } else { THREADS };
    let addr = match form.var("ss") {
        Some(s) if !s.is_empty() => "[mbar]".to_string(),
        _ => {
            k.line("mov.u64 %rd2, mbar;");
            k.line("cvta.shared.u64 %rd2, %rd2;");
            "[%rd2]".to_string()
        }
    };
    k.by(0, 1, &[format!("mbarrier.init.shared.b64 [mbar], {n};")]);
    let (poll, done) = (k.label(), k.label());
    let off = k.slots();
    k.by(
        0,
        THREADS,
        &[
            vec![
                // The second copy's src-size: thread t copies t mod 9 of its 8 bytes.
                "rem.u32 %r13, %r0, 9;".into(),
                "cp.async.ca.shared.global [%rd5], [%rd7], 16;".into(),
                "cp.async.ca.shared.global [%rd5+16], [%rd7+16], 8, %r13;".into(),
                instr(form, &[("addr", addr)])?,
                "mbarrier.arrive.shared.b64 %rd10, [mbar];".into(),
            ],
            super::bounded_wait(
                "mbarrier.test_wait.shared.b64 %p3, [mbar], %rd10;",
                &poll,
                &done,
                off,
                true,
            ),
        ]
        .concat(),
    );
    for t in 0..THREADS {
        expected.copy(t, 0, 16, 16);
        expected.copy(t, 16, 8, t % 9);
        k.checks.push(Check {
            offset: off + 4 * t as usize,
            rule: Rule::Bytes(1u32.to_le_bytes().to_vec()),
            what: format!(
                "test_wait on the phase of {n} arrivals{}: complete within {POLLS} polls (L18946, L18948-18950) (thread {t})",
                if noinc { " counting the copies' arrive-ons (.noinc)" } else { "" }
            ),
        });
    }
    store_slices(
        &mut k,
        &expected,
        "the slice after test_wait returned True: the copies the arrive tracked are visible (L19077)",
    );
    let how = format!("init {n}; copies, the form, arrive, a test_wait loop; the slice");
    Ok((how, k))
}
