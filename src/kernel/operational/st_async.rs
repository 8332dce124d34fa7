//! Scenarios of `st.async` (§9.7.9.12, L12931) and `red.async` (§9.7.13.7, L17836).
//!
//! - The `.shared::cluster` forms (an mbarrier's complete-tx signals completion) run in a
//!   cluster of two CTAs, as `st.async.weak` requires (`%cluster_nctarank > 1`, L13008): in
//!   each CTA thread 0 initializes `mbar` and sets its tx-count with `arrive.expect_tx` to the
//!   bytes the CTA receives, every thread stores (or reduces) its value into the destination
//!   CTA's `sm` at a `.shared::cluster` address made by `mapa` (a generic one, `cvta` then
//!   `mapa`, for the forms without a state space), every thread of the destination CTA waits
//!   for the phase, and `sm` is stored to the CTA's half of `out`. The destination is the other
//!   CTA, as real programs use these forms (and `red.async` must reduce into another CTA's
//!   memory, L17936-17938).
//! - The `.release` `.global` forms complete at the end of the CTA (L12990, L17918): every
//!   thread stores (or adds, twice per element from two threads) into a region of `out`
//!   filled before with a sentinel (or old values), which the launch returns.

use super::bulk::{
    dump_shared, init_mbar, prologue, push_checks, reduce, wait_phase, words, Elem, Region, REGION, SENTINEL,
};
use super::{header, instr, BuildError, Kernel, Rng, Scenario, THREADS};
use spec::catalog::{Exec, Form, PtxVersion};

/// Whether `form`'s manual requires its destination in another CTA of the cluster.
pub(super) fn needs_remote(form: &Form) -> bool {
    match form.exec() {
        Some(Exec::RedAsync) => form.var("sem") != Some("release"),
        Some(Exec::BulkCopy) => {
            !form.has("reduce") && form.var("dst") == Some("shared::cluster") && form.var("src") == Some("shared::cta")
        }
        _ => false,
    }
}

/// Bytes of each thread's slot.
const SLOT: u32 = 16;

/// The module's shared memory.
const DECLS: &str =
    ".shared .align 128 .b8 sm[1024];\n.shared .align 128 .b8 smsrc[1024];\n.shared .align 8 .b64 mbar;\n";

/// The scenarios of an `st.async`/`red.async` form.
pub(super) fn scenarios(form: &Form, rng: &mut Rng) -> Result<Vec<Scenario>, BuildError> {
    if form.var("sem") == Some("release") {
        Ok(vec![global(form, rng)?])
    } else {
        Ok(vec![cluster(form, rng)?])
    }
}

/// The value operand of thread registers: `%r20..` or `%rd20..`, a vector `{..}` with `.v2`/`.v4`.
fn value(form: &Form, wide: bool) -> (String, u32) {
    let n = match form.var("vec") {
        Some("v2") => 2,
        Some("v4") => 4,
        _ => 1,
    };
    let reg = |j: u32| {
        if wide {
            format!("%rd{}", 20 + j)
        } else {
            format!("%r{}", 20 + j)
        }
    };
    let regs: Vec<String> = (0..n).map(reg).collect();
    if n == 1 {
        (regs[0].clone(), n)
    } else {
        (format!("{{{}}}", regs.join(", ")), n)
    }
}

/// The `.shared::cluster` forms: a cluster of two CTAs (see the module doc).
fn cluster(form: &Form, rng: &mut Rng) -> Result<Scenario, BuildError> {
    let reduce_op = (form.exec() == Some(Exec::RedAsync)).then(|| form.var("op").unwrap_or("add"));
    let t = form.var("t").unwrap_or("b32");
    let elem = Elem::of(t).ok_or_else(|| BuildError(format!("`{}`: no element type", form.name)))?;
    let wide = elem.bytes() == 8;
    let (val, n) = value(form, wide);
    let bytes = elem.bytes() as u32 * n;
    // in: per rank, [rank·REGION, +REGION): each thread's values at SLOT·tid; for a reduction
    // the old values of sm at [2·REGION + rank·REGION, ...).
    let mut input = rng.bytes(4 * REGION as usize);
    if let Some(op) = reduce_op {
        for e in 0..4 * REGION as usize / elem.bytes() {
            let v = elem.random(op, rng);
            input[e * elem.bytes()..(e + 1) * elem.bytes()].copy_from_slice(&v);
        }
    }
    let mut k = Kernel::new();
    pair_prologue(&mut k);
    let generic = form.var("ss").is_none_or(str::is_empty);
    k.line(format!("mul.wide.u32 %rd17, %r0, {SLOT};"));
    k.line("add.s64 %rd18, %rd5, %rd17;");
    if generic {
        k.line("cvta.shared.u64 %rd18, %rd18;");
        k.line("cvta.shared.u64 %rd19, %rd7;");
        k.line("mapa.u64 %rd12, %rd18, %r10;");
        k.line("mapa.u64 %rd13, %rd19, %r10;");
    } else {
        k.line("mapa.shared::cluster.u64 %rd12, %rd18, %r10;");
        k.line("mapa.shared::cluster.u64 %rd13, %rd7, %r10;");
    }
    // The thread's values: in + rank·REGION + SLOT·tid.
    k.line(format!("mul.wide.u32 %rd11, %r1, {REGION};"));
    k.line("add.s64 %rd11, %rd11, %rd17;");
    k.line("add.s64 %rd11, %rd11, %rd1;");
    // sm: the sentinel, or the old values in[2·REGION + rank·REGION ..].
    let mut lines = if reduce_op.is_some() {
        vec![
            format!("mul.wide.u32 %rd21, %r1, {REGION};"),
            "add.s64 %rd21, %rd21, %rd16;".to_string(),
        ]
    } else {
        Vec::new()
    };
    if reduce_op.is_some() {
        lines.extend(words(
            |o| Some(format!("ld.global.b32 %r15, [%rd21+{}];", 2 * REGION + o)),
            |o| format!("st.shared.b32 [%rd14+{o}], %r15;"),
        ));
    } else {
        lines.extend(words(|_| None, |o| format!("st.shared.b32 [%rd14+{o}], %r14;")));
    }
    lines.push("fence.proxy.async.shared::cta;".into());
    k.by(0, THREADS, &lines);
    init_mbar(&mut k);
    // The bytes this CTA receives: every thread's of the sending CTA.
    let total = bytes * THREADS;
    k.by(
        0,
        1,
        &[format!(
            "mbarrier.arrive.expect_tx.shared::cta.b64 %rd10, [mbar], {total};"
        )],
    );
    // The other CTA's mbar is initialized, and its tx-count set, before any thread signals it.
    k.by(
        0,
        THREADS,
        &[
            "barrier.cluster.arrive.release.aligned;".into(),
            "barrier.cluster.wait.acquire.aligned;".into(),
        ],
    );
    let mut issue = Vec::new();
    for j in 0..n {
        let w = elem.bytes() as u32;
        if wide {
            issue.push(format!("ld.global.b64 %rd{}, [%rd11+{}];", 20 + j, w * j));
        } else {
            issue.push(format!("ld.global.b32 %r{}, [%rd11+{}];", 20 + j, w * j));
        }
    }
    issue.push(instr(
        form,
        &[
            ("addr", "[%rd12]".into()),
            ("b", val.clone()),
            ("mbar", "[%rd13]".into()),
        ],
    )?);
    k.by(0, THREADS, &issue);
    wait_phase(&mut k, 0, &format!("the phase tracking {total} bytes (L13006, L17936)"));
    // Expected, per rank r of the receiving CTA: the sender's values.
    let mut per_rank = Vec::new();
    for r in 0..2usize {
        let sender = r ^ 1;
        let mut region = match reduce_op {
            Some(_) => {
                let o = (2 + r) * REGION as usize;
                Region::new(
                    input[o..o + REGION as usize].to_vec(),
                    "the old value: no reduction writes it",
                )
            }
            None => Region::filled(SENTINEL),
        };
        for th in 0..THREADS as usize {
            let at = th * SLOT as usize;
            let src = &input[sender * REGION as usize + at..sender * REGION as usize + at + bytes as usize];
            let (data, what) = match reduce_op {
                Some(op) => (
                    reduce(op, elem, &region.bytes[at..at + bytes as usize], src),
                    format!("thread {th} of CTA {sender}: old value .{op} its value (L17890-17900)"),
                ),
                None => (
                    src.to_vec(),
                    format!("thread {th} of CTA {sender}: its {bytes}-byte value (L12990)"),
                ),
            };
            region.bytes[at..at + data.len()].copy_from_slice(&data);
            region.what[at / 16] = what;
        }
        per_rank.push(region);
    }
    let how = format!(
        "{} of {bytes} bytes per thread into the other CTA's sm of a cluster of 2, tracked by its mbar",
        if reduce_op.is_some() { "reductions" } else { "stores" },
    );
    let head = header(form, 90, PtxVersion(8, 1));
    Ok(finish_pair(k, form, &how, head, &input, per_rank))
}

/// The end of a two-CTA scenario: each CTA stores its `sm` to its half of `out` (which must
/// be `per_rank[rank]`), then waits at a cluster barrier so that its shared memory outlives
/// the other CTA's accesses (L89); the checks of CTA 1 are those of CTA 0 a half further.
fn finish_pair(
    mut k: Kernel,
    form: &Form,
    how: &str,
    head: (PtxVersion, spec::catalog::Target),
    input: &[u8],
    per_rank: Vec<Region>,
) -> Scenario {
    let base = k.out;
    dump_shared(
        &mut k,
        &per_rank[0],
        "sm of the CTA after its phase completed: every value stored into it",
    );
    k.by(
        0,
        THREADS,
        &[
            "barrier.cluster.arrive.release.aligned;".into(),
            "barrier.cluster.wait.acquire.aligned;".into(),
        ],
    );
    let half = k.out;
    // Rank 1's checks: rank 0's place moved by a half; its sm region's expected bytes.
    let mut second: Vec<super::Check> = k
        .checks
        .iter()
        .map(|c| super::Check {
            offset: c.offset + half,
            rule: c.rule.clone(),
            what: format!("CTA 1: {}", c.what),
        })
        .collect();
    for (c, chunk) in per_rank[1].bytes.chunks(16).enumerate() {
        if let Some(x) = second.iter_mut().find(|x| x.offset == half + base + 16 * c) {
            x.rule = super::Rule::Bytes(chunk.to_vec());
            x.what = format!(
                "CTA 1: sm after its phase, bytes {:#x}..: {}",
                16 * c,
                per_rank[1].what[c]
            );
        }
    }
    for c in &mut k.checks {
        c.what = format!("CTA 0: {}", c.what);
    }
    k.checks.extend(second);
    let mut s = k.finish(form, how, head, DECLS, input);
    s.job.ptx = s.job.ptx.replace("@HALF@", &half.to_string());
    s.job.grid = [2, 1, 1];
    s.job.cluster = Some([2, 1, 1]);
    if let Some(b) = s.job.buffers.iter_mut().find(|b| b.name == "out") {
        b.size = Some(2 * half as u64);
    }
    s
}

/// The kernel's first lines in a two-CTA scenario: `%r1` the CTA's rank, `out` moved to the
/// CTA's half (`@HALF@`, known at the end), the bulk prologue, `%r10` the destination rank
/// (the other CTA).
fn pair_prologue(k: &mut Kernel) {
    k.line("mov.u32 %r1, %cluster_ctarank;");
    k.line("mul.wide.u32 %rd3, %r1, @HALF@;");
    k.line("add.s64 %rd0, %rd0, %rd3;");
    k.line("add.s64 %rd4, %rd4, %rd3;");
    prologue(k);
    k.line("xor.b32 %r10, %r1, 1;");
}

/// `cp.async.bulk.shared::cluster.shared::cta`, which must write another CTA's shared memory
/// (L14487): in a cluster of two, each CTA copies three slices of its `smsrc` (from its part of
/// `in`) into the other CTA's sentinel-filled `sm`, signalling the other CTA's `mbar`, whose
/// tx-count that CTA set to the bytes it receives before the cluster barrier that precedes the
/// copies; each CTA waits for its phase and stores its `sm`.
pub(super) fn bulk_to_peer(form: &Form, rng: &mut Rng) -> Result<Scenario, BuildError> {
    // in: rank r's smsrc at [(1 + r)·REGION, ...).
    let input = rng.bytes(3 * REGION as usize);
    let ops = super::bulk::layout(rng);
    let mut k = Kernel::new();
    pair_prologue(&mut k);
    k.line("mapa.shared::cluster.u64 %rd12, %rd5, %r10;");
    k.line("mapa.shared::cluster.u64 %rd13, %rd7, %r10;");
    let mut lines = vec![
        format!("mul.wide.u32 %rd21, %r1, {REGION};"),
        "add.s64 %rd21, %rd21, %rd16;".to_string(),
    ];
    lines.extend(words(|_| None, |o| format!("st.shared.b32 [%rd14+{o}], %r14;")));
    lines.extend(words(
        |o| Some(format!("ld.global.b32 %r15, [%rd21+{}];", REGION + o)),
        |o| format!("st.shared.b32 [%rd15+{o}], %r15;"),
    ));
    lines.push("fence.proxy.async.shared::cta;".into());
    k.by(0, THREADS, &lines);
    init_mbar(&mut k);
    let total: u32 = ops.iter().map(|o| o.2).sum();
    k.by(
        0,
        1,
        &[format!(
            "mbarrier.arrive.expect_tx.shared::cta.b64 %rd10, [mbar], {total};"
        )],
    );
    k.by(
        0,
        THREADS,
        &[
            "barrier.cluster.arrive.release.aligned;".into(),
            "barrier.cluster.wait.acquire.aligned;".into(),
        ],
    );
    let mut issue = Vec::new();
    for &(d, s, size) in &ops {
        issue.push(instr(
            form,
            &[
                ("dst", format!("[%rd12+{d}]")),
                ("src", format!("[%rd6+{s}]")),
                ("size", size.to_string()),
                ("mbar", "[%rd13]".into()),
            ],
        )?);
    }
    k.by(0, 1, &issue);
    wait_phase(
        &mut k,
        0,
        &format!("the phase tracking the {total} bytes the other CTA copies (L14529)"),
    );
    let per_rank = (0..2usize)
        .map(|r| {
            let sender = r ^ 1;
            let mut region = Region::filled(SENTINEL);
            for (j, &(d, s, size)) in ops.iter().enumerate() {
                let from = (1 + sender) * REGION as usize + s as usize;
                region.bytes[d as usize..(d + size) as usize].copy_from_slice(&input[from..from + size as usize]);
                for c in d / 16..(d + size) / 16 {
                    region.what[c as usize] =
                        format!("copy {j} of {size} bytes from smsrc+{s:#x} of CTA {sender} (L14483, L14487)");
                }
            }
            region
        })
        .collect();
    let how = format!(
        "each CTA of a cluster of 2 copies {} bytes of its smsrc into the other's sm, tracked by the other's mbar",
        total
    );
    let head = header(form, 90, PtxVersion(8, 0));
    Ok(finish_pair(k, form, &how, head, &input, per_rank))
}

/// The `.release` `.global` forms (see the module doc): an 8-byte slot per thread.
fn global(form: &Form, rng: &mut Rng) -> Result<Scenario, BuildError> {
    let red = form.exec() == Some(Exec::RedAsync);
    let t = form.var("t").unwrap_or("b32");
    let elem = Elem::of(t)
        .or(match t {
            "u8" | "s8" | "b8" => Some(Elem::Bits(1)),
            "u16" | "s16" | "b16" => Some(Elem::Bits(2)),
            _ => None,
        })
        .ok_or_else(|| BuildError(format!("`{}`: no element type", form.name)))?;
    let n = elem.bytes();
    let input = rng.bytes(2 * REGION as usize);
    let mut k = Kernel::new();
    prologue(&mut k);
    let generic = form.var("ss").is_none_or(str::is_empty);
    let base = k.out;
    k.out += REGION as usize;
    // The out region: the sentinel, or for red.async the old values in[REGION..].
    let lines = if red {
        words(
            |o| Some(format!("ld.global.b32 %r15, [%rd16+{}];", REGION + o)),
            |o| format!("st.global.b32 [%rd4+{}], %r15;", base as u32 + o),
        )
    } else {
        words(|_| None, |o| format!("st.global.b32 [%rd4+{}], %r14;", base as u32 + o))
    };
    k.by(0, THREADS, &lines);
    // The thread's value at in + 8·tid; its slot at out + base + 8·tid (a generic address for
    // the forms without a state space, L13040, L17968).
    let mut issue = vec![
        ".reg .b8 %rc<2>;".to_string(),
        "mul.wide.u32 %rd17, %r0, 8;".into(),
        "add.s64 %rd11, %rd1, %rd17;".into(),
        if generic {
            "cvta.global.u64 %rd12, %rd0;".into()
        } else {
            "mov.u64 %rd12, %rd0;".into()
        },
        format!("add.s64 %rd12, %rd12, {base};"),
        "add.s64 %rd13, %rd12, %rd17;".into(),
    ];
    // A register of the type's own size: ptxas 12.9 refuses a wider one for `st.async`
    // ("Arguments mismatch", where `st` takes it, L4545; `st.async` is not among `ld`, `st`, `cvt`).
    let reg = match n {
        8 => "%rd20",
        4 => "%r20",
        2 => "%rs5",
        _ => "%rc1",
    };
    issue.push(match n {
        8 => "ld.global.b64 %rd20, [%rd11];".to_string(),
        4 => "ld.global.b32 %r20, [%rd11];".into(),
        2 => "ld.global.b16 %rs5, [%rd11];".into(),
        _ => "ld.global.b8 %rc1, [%rd11];".into(),
    });
    issue.push(instr(form, &[("addr", "[%rd13]".into()), ("b", reg.into())])?);
    let mut expected = if red {
        Region::new(
            input[REGION as usize..2 * REGION as usize].to_vec(),
            "the old value: no reduction writes it",
        )
    } else {
        Region::filled(SENTINEL)
    };
    for th in 0..THREADS as usize {
        let v = &input[8 * th..8 * th + n];
        let at = 8 * th;
        if red {
            let r = reduce("add", elem, &expected.bytes[at..at + n], v);
            expected.bytes[at..at + n].copy_from_slice(&r);
        } else {
            expected.bytes[at..at + n].copy_from_slice(v);
        }
    }
    if red {
        // Thread t also adds its value into thread t+1's slot: two reductions per element, from
        // two threads, both applied (L17890-17900).
        issue.push("add.s64 %rd13, %rd13, 8;".into());
        issue.push("setp.eq.u32 %p4, %r0, 31;".into());
        issue.push("@%p4 sub.s64 %rd13, %rd13, 256;".into());
        issue.push(instr(form, &[("addr", "[%rd13]".into()), ("b", reg.into())])?);
        for th in 0..THREADS as usize {
            let at = 8 * ((th + 1) % THREADS as usize);
            let r = reduce("add", elem, &expected.bytes[at..at + n], &input[8 * th..8 * th + n]);
            expected.bytes[at..at + n].copy_from_slice(&r);
        }
        for c in 0..16 {
            expected.what[c] = format!(
                "slots of threads {} and {}: old value + the slot's thread's value + the previous thread's (L17890-17900)",
                2 * c,
                2 * c + 1
            );
        }
    } else {
        for c in 0..16 {
            expected.what[c] = format!(
                "slots of threads {} and {}: each thread's {n}-byte value, the sentinel after it (L12990)",
                2 * c,
                2 * c + 1
            );
        }
    }
    k.by(0, THREADS, &issue);
    push_checks(
        &mut k,
        base,
        &expected,
        "the out region after the launch: the release operations complete by the end of the CTA (L12990, L17918)",
    );
    let how = format!(
        "{} of {n} bytes per thread into out, completed at the end of the CTA",
        if red { "two reductions" } else { "a store" }
    );
    let head = header(form, 100, PtxVersion(8, 7));
    Ok(k.finish(form, &how, head, DECLS, &input))
}
