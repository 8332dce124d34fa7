//! Scenarios of the non-tensor bulk operations: `cp.async.bulk` (§9.7.9.25.4.1, L14431),
//! `cp.reduce.async.bulk` (§9.7.9.25.4.2, L14591), `cp.async.bulk.prefetch` (§9.7.9.25.4.3,
//! L14760), the bulk async-groups (`cp.async.bulk.commit_group`, `wait_group{.read}`,
//! §9.7.9.25.6, L15303-15380) and `st.bulk` (§9.7.9.13, L13062).
//!
//! Each kernel is the protocol a real program follows: thread 0 initializes the mbarrier object
//! (`fence.mbarrier_init` after it), every thread that wrote shared or global memory the async
//! proxy then reads or writes runs `fence.proxy.async` (L14239-14241), thread 0 sets the
//! transaction count with `mbarrier.arrive.expect_tx` and issues the operations, every thread
//! waits for the phase with a `try_wait.parity` loop (an mbarrier-tracked destination, L14529)
//! or thread 0 commits and waits for its bulk async-group (a `.global` destination, L15350),
//! and the destination is stored to `out`. Every 16 bytes of a destination region is one
//! [`Check`], its bytes computed here: the region's sentinel or old contents, with the copies
//! laid over them byte by byte ([`Region`]) or reduced element by element ([`reduce`]).

mod half;
mod multicast;

use super::{header, instr_with, trailing_hints, BuildError, Check, Kernel, Rng, Rule, Scenario, POLLS, THREADS};
use spec::catalog::{Exec, Form, PtxVersion};

/// Bytes of each region (shared destination, shared source, `out` region): 8 words a thread.
pub(super) const REGION: u32 = 1024;

/// What a destination region holds before the operations, where no operation writes.
pub(super) const SENTINEL: u8 = 0xa5;

/// The modules' shared memory: the destination, the source, the mbarrier object.
const DECLS: &str =
    ".shared .align 128 .b8 sm[1024];\n.shared .align 128 .b8 smsrc[1024];\n.shared .align 8 .b64 mbar;";

/// The cache policy `.L2::cache_hint` forms pass: made by `createpolicy` as a program makes it
/// (a policy is only a hint and never changes the bytes, L14526).
const POLICY: &str = "createpolicy.fractional.L2::evict_last.L2::evict_unchanged.b64 %rd9, 0.5;";

/// The expected contents of a region, 16-byte chunk by chunk with what wrote each.
pub(super) struct Region {
    pub(super) bytes: Vec<u8>,
    /// Per 16-byte chunk, what it holds (for the check's text).
    pub(super) what: Vec<String>,
}

impl Region {
    pub(super) fn new(bytes: Vec<u8>, what: &str) -> Region {
        let n = bytes.len() / 16;
        Region {
            bytes,
            what: vec![what.to_string(); n],
        }
    }

    pub(super) fn filled(byte: u8) -> Region {
        Region::new(
            vec![byte; REGION as usize],
            "the sentinel the kernel stored: no operation writes it",
        )
    }

    /// `data` written at `off`, only the bytes of each 16-byte chunk that `mask` selects
    /// (`.cp_mask`, L14539).
    fn write(&mut self, off: usize, data: &[u8], mask: Option<u16>, what: &str) {
        for (j, &d) in data.iter().enumerate() {
            if mask.is_none_or(|m| m >> (j % 16) & 1 == 1) {
                self.bytes[off + j] = d;
            }
        }
        for c in off / 16..(off + data.len()) / 16 {
            self.what[c] = what.to_string();
        }
    }
}

/// The kernel's registers: `%rd5` the destination `sm`, `%rd6` the source `smsrc`, `%rd7`
/// `mbar` (shared-window addresses); `%rd14`, `%rd15`, `%rd16` those of `sm`, `smsrc`, `in`
/// plus 4·tid (each thread's words are tid, tid + 32, ...); `%r14` the sentinel word.
pub(super) fn prologue(k: &mut Kernel) {
    k.line("mov.u64 %rd5, sm;");
    k.line("mov.u64 %rd6, smsrc;");
    k.line("mov.u64 %rd7, mbar;");
    k.line("mul.wide.u32 %rd8, %r0, 4;");
    k.line("add.s64 %rd14, %rd5, %rd8;");
    k.line("add.s64 %rd15, %rd6, %rd8;");
    k.line("add.s64 %rd16, %rd1, %rd8;");
    k.line(format!("mov.b32 %r14, {:#x};", u32::from_le_bytes([SENTINEL; 4])));
}

/// The lines by which every thread moves its words of a [`REGION`]: `load(k)` then `store(k)`
/// for the word offsets `k` of the thread (from its base register).
pub(super) fn words(load: impl Fn(u32) -> Option<String>, store: impl Fn(u32) -> String) -> Vec<String> {
    let mut v = Vec::new();
    for w in 0..REGION / (4 * THREADS) {
        let off = 4 * THREADS * w;
        v.extend(load(off));
        v.push(store(off));
    }
    v
}

/// Every thread stores the shared region at `%rd14` (`sm`) to a fresh region of `out`, which
/// must be `expected`: one check per 16 bytes.
pub(super) fn dump_shared(k: &mut Kernel, expected: &Region, what: &str) {
    let base = k.out;
    k.out += REGION as usize;
    let lines = words(
        |o| Some(format!("ld.shared.b32 %r15, [%rd14+{o}];")),
        |o| format!("st.global.b32 [%rd4+{}], %r15;", base as u32 + o),
    );
    k.by(0, THREADS, &lines);
    push_checks(k, base, expected, what);
}

/// One check per 16 bytes of `expected`, at `base` in `out`.
pub(super) fn push_checks(k: &mut Kernel, base: usize, expected: &Region, what: &str) {
    for (c, chunk) in expected.bytes.chunks(16).enumerate() {
        k.checks.push(Check {
            offset: base + 16 * c,
            rule: Rule::Bytes(chunk.to_vec()),
            what: format!("{what}, bytes {:#x}..{:#x}: {}", 16 * c, 16 * c + 16, expected.what[c]),
        });
    }
}

/// Thread 0 initializes `mbar` for one arrival and makes the initialization visible to the
/// async proxy and the cluster (`fence.mbarrier_init`, L17341).
pub(super) fn init_mbar(k: &mut Kernel) {
    k.by(
        0,
        1,
        &[
            "mbarrier.init.shared::cta.b64 [mbar], 1;".into(),
            "fence.mbarrier_init.release.cluster;".into(),
        ],
    );
}

/// Every thread polls `mbarrier.try_wait.parity` on `mbar` for phase parity `parity` until it
/// returns True, and stores the result, which must be True.
pub(super) fn wait_phase(k: &mut Kernel, parity: u32, what: &str) {
    let (poll, done) = (k.label(), k.label());
    let off = k.slots();
    k.by(
        0,
        THREADS,
        &[
            vec![format!("mov.u32 %r17, {parity};")],
            super::bounded_wait(
                "mbarrier.try_wait.parity.shared::cta.b64 %p3, [mbar], %r17;",
                &poll,
                &done,
                off,
                true,
            ),
        ]
        .concat(),
    );
    for t in 0..THREADS {
        k.checks.push(Check {
            offset: off + 4 * t as usize,
            rule: Rule::Bytes(1u32.to_le_bytes().to_vec()),
            what: format!("{what}: try_wait.parity {parity} True within {POLLS} polls (L18486-18490) (thread {t})"),
        });
    }
}

/// The hint sets a form's scenarios are written with: none, and each trailing hint alone
/// (`.L2::cache_hint`, with its policy operand).
fn hint_sets(form: &Form) -> Vec<Vec<&'static str>> {
    let mut sets = vec![Vec::new()];
    sets.extend(trailing_hints(form).into_iter().flatten().map(|h| vec![h]));
    if sets.len() == 1 && hinted_name(form, "L2::cache_hint").is_some() {
        sets.push(vec!["L2::cache_hint"]);
    }
    sets
}

/// The form's name with `hint` written where its pattern places it before other modifiers
/// (`cp.reduce.async.bulk.global.shared::cta.bulk_group.L2::cache_hint.add.u32`), when the
/// pattern has such a hint part and the form's modifiers rebuild its name.
fn hinted_name(form: &Form, hint: &str) -> Option<String> {
    use spec::catalog::pattern::Part;
    let parts = &spec::catalog::catalog().rows[form.row].parts;
    let (mut plain, mut hinted) = (Vec::new(), Vec::new());
    let mut placed = false;
    for p in parts {
        match p {
            Part::Lit(l) => {
                plain.push(l.to_string());
                hinted.push(l.to_string());
            }
            Part::Alt { name: Some(n), .. } => {
                let v = form.var(n).filter(|v| !v.is_empty())?;
                plain.push(v.to_string());
                hinted.push(v.to_string());
            }
            Part::Alt { name: None, alts } => {
                let chosen = alts
                    .iter()
                    .find(|a| !a.is_empty() && a.split('.').all(|m| form.has(m)))
                    .copied();
                if let Some(a) = chosen {
                    plain.push(a.to_string());
                    hinted.push(a.to_string());
                }
            }
            Part::Hint(alts) if alts.contains(&hint) => {
                hinted.push(hint.to_string());
                placed = true;
            }
            Part::Hint(_) => {}
        }
    }
    let last_is_hint = matches!(parts.last(), Some(Part::Hint(_)));
    (placed && !last_is_hint && plain.join(".") == form.name).then(|| hinted.join("."))
}

/// [`instr_with`] for the bulk forms: a hint the pattern places before other modifiers is
/// written there ([`hinted_name`]).
fn bulk_instr(form: &Form, hints: &[&str], given: &[(&str, String)]) -> Result<String, BuildError> {
    match hints {
        [h] if trailing_hints(form).is_empty() => {
            let name = hinted_name(form, h)
                .ok_or_else(|| BuildError(format!("`{}`: no place for the hint `{h}`", form.name)))?;
            let plain = instr_with(form, &[], given)?;
            Ok(format!("{name}{}", &plain[form.name.len()..]))
        }
        _ => instr_with(form, hints, given),
    }
}

/// The scenarios of a bulk form.
pub(super) fn scenarios(form: &Form, rng: &mut Rng) -> Result<Vec<Scenario>, BuildError> {
    let head = header(form, 90, PtxVersion(8, 0));
    match form.exec() {
        Some(Exec::BulkGroup) => Ok(vec![groups(form, rng, head)?]),
        Some(Exec::StBulk) => Ok(vec![st_bulk(form, rng, head)?]),
        _ if super::st_async::needs_remote(form) => Ok(vec![super::st_async::bulk_to_peer(form, rng)?]),
        _ => {
            let mut v = hint_sets(form)
                .iter()
                .map(|hints| {
                    if form.has("prefetch") {
                        prefetch(form, hints, rng, head)
                    } else if form.var("dst") == Some("global") {
                        to_global(form, hints, rng, head)
                    } else {
                        to_shared(form, hints, rng, head)
                    }
                })
                .collect::<Result<Vec<_>, _>>()?;
            if form.inputs.iter().any(|o| o.name == "cta_mask") {
                v.push(multicast::to_cluster(form, rng, head)?);
            }
            Ok(v)
        }
    }
}

/// The element type of a reduction form: its bytes and kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Elem {
    Unsigned(usize),
    Signed(usize),
    Bits(usize),
    F16,
    Bf16,
    F32,
    F64,
}

impl Elem {
    pub(super) fn of(t: &str) -> Option<Elem> {
        Some(match t {
            "u32" => Elem::Unsigned(4),
            "u64" => Elem::Unsigned(8),
            "s32" => Elem::Signed(4),
            "s64" => Elem::Signed(8),
            "b32" => Elem::Bits(4),
            "b64" => Elem::Bits(8),
            "f16" => Elem::F16,
            "bf16" => Elem::Bf16,
            "f32" => Elem::F32,
            "f64" => Elem::F64,
            _ => return None,
        })
    }

    pub(super) fn bytes(self) -> usize {
        match self {
            Elem::Unsigned(n) | Elem::Signed(n) | Elem::Bits(n) => n,
            Elem::F16 | Elem::Bf16 => 2,
            Elem::F32 => 4,
            Elem::F64 => 8,
        }
    }

    /// A random element for `op`: small integers for `.inc`/`.dec` (so that both the wrap and
    /// the step happen), normal floating-point values of moderate exponent (no subnormal, NaN or
    /// infinity: `.add.f32` flushes subnormals, L14647, which these values never reach).
    pub(super) fn random(self, op: &str, rng: &mut Rng) -> Vec<u8> {
        let n = self.bytes();
        let bits = rng.next();
        let v: u64 = match self {
            _ if matches!(op, "inc" | "dec") => bits % 8,
            Elem::F16 => {
                // Exponent in [-4, 4]: any sum of two is exact in f32 ([`reduce`]).
                let e = (bits >> 10) % 9 + 15 - 4;
                (bits >> 15 & 1) << 15 | e << 10 | (bits & 0x3ff)
            }
            Elem::Bf16 => {
                let e = (bits >> 7) % 9 + 127 - 4;
                (bits >> 15 & 1) << 15 | e << 7 | (bits & 0x7f)
            }
            Elem::F32 => {
                let e = (bits >> 23) % 21 + 127 - 10;
                (bits >> 31 & 1) << 31 | e << 23 | (bits & 0x7f_ffff)
            }
            Elem::F64 => {
                let e = (bits >> 52) % 41 + 1023 - 20;
                (bits >> 63 & 1) << 63 | e << 52 | (bits & 0xf_ffff_ffff_ffff)
            }
            _ => bits,
        };
        v.to_le_bytes()[..n].to_vec()
    }
}

impl Elem {
    /// A random `.f16`/`.bf16` element for `.add` (`.noftz`): a quarter subnormal (exponent field 0,
    /// a non-zero fraction), a quarter among the smallest normals (exponent field 1, where the
    /// sum of two subnormals lands when it carries), the rest as [`Elem::random`]'s. Other
    /// types and operations: [`Elem::random`] (the manual states the subnormal behaviour of
    /// `.add` only, L14647).
    pub(super) fn random_subnormal(self, op: &str, rng: &mut Rng) -> Vec<u8> {
        let add = spec::atom::Op::parse(op) == Some(spec::atom::Op::Add);
        let man = match self {
            Elem::F16 if add => 10,
            Elem::Bf16 if add => 7,
            _ => return self.random(op, rng),
        };
        let bits = rng.next();
        let frac = bits as u16 & ((1 << man) - 1);
        let sign = (bits >> 32) as u16 & 0x8000;
        match bits >> 40 & 3 {
            0 => (sign | frac.max(1)).to_le_bytes().to_vec(),
            1 => (sign | 1 << man | frac).to_le_bytes().to_vec(),
            _ => self.random(op, rng),
        }
    }
}

/// The element-wise reduction `op` of type `t` of `old` with `src` (L14641-14647; `.inc` and
/// `.dec` as `atom`'s, L17499-17500): integers by wide arithmetic, `.f32`/`.f64` `.add` by the
/// native addition (IEEE round to nearest even, as `.add` rounds, L14647), `.f16`/`.bf16` by
/// the sum in f64 rounded to nearest even with subnormal results kept ([`half`]: `.noftz`,
/// L14647), min/max of floating-point values by their order.
pub(super) fn reduce(op: &str, t: Elem, old: &[u8], src: &[u8]) -> Vec<u8> {
    use spec::atom::Op;
    // The modifier as the catalog's row spells it; an unknown one is a template defect.
    let op = Op::parse(op).unwrap_or_else(|| panic!("`.{op}`: not a reduction of the catalog"));
    let n = t.bytes();
    let mut out = Vec::with_capacity(old.len());
    for (a, b) in old.chunks(n).zip(src.chunks(n)) {
        let mut wa = [0u8; 8];
        let mut wb = [0u8; 8];
        wa[..n].copy_from_slice(a);
        wb[..n].copy_from_slice(b);
        let (x, y) = (u64::from_le_bytes(wa), u64::from_le_bytes(wb));
        let bits = 8 * n as u32;
        let mask = if bits == 64 { u64::MAX } else { (1u64 << bits) - 1 };
        let signed = |v: u64| -> i128 { i128::from(((v << (64 - bits)) as i64) >> (64 - bits)) };
        let r: u64 = match (t, op) {
            (Elem::F16 | Elem::Bf16, _) => {
                let h = if t == Elem::F16 { half::F16 } else { half::BF16 };
                let (fx, fy) = (h.value(x as u16), h.value(y as u16));
                match op {
                    Op::Add => u64::from(h.round(fx + fy)),
                    Op::Min => {
                        if fy < fx {
                            y
                        } else {
                            x
                        }
                    }
                    _ => {
                        if fy > fx {
                            y
                        } else {
                            x
                        }
                    }
                }
            }
            (Elem::F32, _) => u64::from((f32::from_bits(x as u32) + f32::from_bits(y as u32)).to_bits()),
            (Elem::F64, _) => (f64::from_bits(x) + f64::from_bits(y)).to_bits(),
            (_, Op::Add) => (u128::from(x) + u128::from(y)) as u64 & mask,
            (_, Op::And) => x & y,
            (_, Op::Or) => x | y,
            (_, Op::Xor) => x ^ y,
            (_, Op::Inc) => {
                if x >= y {
                    0
                } else {
                    x + 1
                }
            }
            (_, Op::Dec) => {
                if x == 0 || x > y {
                    y
                } else {
                    x - 1
                }
            }
            (Elem::Signed(_), Op::Min) => {
                if signed(y) < signed(x) {
                    y
                } else {
                    x
                }
            }
            (Elem::Signed(_), _) => {
                if signed(y) > signed(x) {
                    y
                } else {
                    x
                }
            }
            (_, Op::Min) => x.min(y),
            _ => x.max(y),
        };
        out.extend_from_slice(&r.to_le_bytes()[..n]);
    }
    out
}

/// The operations of a scenario: (destination offset, source offset, size) triples, 16-byte
/// aligned with a 16-byte gap between destinations, so that a copy one chunk too long or too
/// short writes or leaves a sentinel chunk. Sizes: 16, then two random multiples of 16.
pub(super) fn layout(rng: &mut Rng) -> Vec<(u32, u32, u32)> {
    let sizes = [16, 16 * rng.range(2, 8), 16 * rng.range(9, 24)];
    let mut dst = 16 * rng.range(0, 2);
    let mut v = Vec::new();
    for s in sizes {
        let src = 16 * rng.range(0, (REGION - s) / 16);
        v.push((dst, src, s));
        dst += s + 16;
    }
    v
}

/// The operand of the policy and the first line making it, for a hint set.
fn policy(hints: &[&str], k: &mut Kernel) -> Option<(&'static str, String)> {
    hints.contains(&"L2::cache_hint").then(|| {
        k.line(POLICY);
        ("cache_policy", "%rd9".to_string())
    })
}

/// `.global` → `.shared::cta`/`.shared::cluster` (with `.multicast::cluster` to the own CTA's
/// bit of ctaMask, L14533): three copies from `in` into the sentinel-filled `sm`, tracked by
/// `mbar`, awaited by every thread, `sm` stored. A `.shared::cta` → `.shared::cluster` copy
/// must write another CTA (L14487): `st_async::bulk_to_peer` is its scenario.
/// Of `cp.reduce.async.bulk` with a `.shared::cluster` destination: `sm` holds the old values
/// (from `in`), `smsrc` the operands, and the reductions land in `sm`.
fn to_shared(
    form: &Form,
    hints: &[&str],
    rng: &mut Rng,
    head: (PtxVersion, spec::catalog::Target),
) -> Result<Scenario, BuildError> {
    let reduce_op = form.has("reduce").then(|| form.var("op").unwrap_or("add"));
    let from_shared = form.var("src") == Some("shared::cta");
    let elem = form.var("t").and_then(Elem::of);
    // in: [0, REGION) the source of global copies or the old values; [REGION, 2·REGION) the
    // shared source.
    let mut input = rng.bytes(2 * REGION as usize);
    if let (Some(op), Some(t)) = (reduce_op, elem) {
        for half in [0, REGION as usize] {
            for e in 0..REGION as usize / t.bytes() {
                let v = t.random_subnormal(op, rng);
                input[half + e * t.bytes()..half + (e + 1) * t.bytes()].copy_from_slice(&v);
            }
        }
    }
    let ops = layout(rng);
    let mut k = Kernel::new();
    prologue(&mut k);
    let cluster = form.var("dst") == Some("shared::cluster");
    if cluster {
        // The destination and mbar as `.shared::cluster` addresses of the own CTA.
        k.line("mov.u32 %r10, %cluster_ctarank;");
        k.line("mapa.shared::cluster.u64 %rd12, %rd5, %r10;");
        k.line("mapa.shared::cluster.u64 %rd13, %rd7, %r10;");
    }
    let pol = policy(hints, &mut k);
    let (mut expected, fill) = if reduce_op.is_some() {
        (
            Region::new(
                input[..REGION as usize].to_vec(),
                "the old value the kernel stored: no reduction writes it",
            ),
            words(
                |o| Some(format!("ld.global.b32 %r15, [%rd16+{o}];")),
                |o| format!("st.shared.b32 [%rd14+{o}], %r15;"),
            ),
        )
    } else {
        (
            Region::filled(SENTINEL),
            words(|_| None, |o| format!("st.shared.b32 [%rd14+{o}], %r14;")),
        )
    };
    let mut lines = fill;
    if from_shared {
        lines.extend(words(
            |o| Some(format!("ld.global.b32 %r15, [%rd16+{}];", REGION + o)),
            |o| format!("st.shared.b32 [%rd15+{o}], %r15;"),
        ));
    }
    // The generic writes of sm and smsrc before the async proxy writes and reads them.
    lines.push("fence.proxy.async.shared::cta;".into());
    k.by(0, THREADS, &lines);
    init_mbar(&mut k);
    let total: u32 = ops.iter().map(|o| o.2).sum();
    let mut issue = vec![format!(
        "mbarrier.arrive.expect_tx.shared::cta.b64 %rd10, [mbar], {total};"
    )];
    let (dbase, mbar) = if cluster {
        ("%rd12", "[%rd13]")
    } else {
        ("%rd5", "[mbar]")
    };
    let mut done = Vec::new();
    for (j, &(d, s, size)) in ops.iter().enumerate() {
        let src = if from_shared {
            format!("[%rd6+{s}]")
        } else {
            format!("[%rd1+{s}]")
        };
        let mut given = vec![
            ("dst", format!("[{dbase}+{d}]")),
            ("src", src),
            // Sizes in a register and as an immediate.
            (
                "size",
                if j == 1 {
                    format!("%r{}", 20 + j)
                } else {
                    size.to_string()
                },
            ),
            ("mbar", mbar.to_string()),
        ];
        if j == 1 {
            issue.push(format!("mov.u32 %r{}, {size};", 20 + j));
        }
        if form.inputs.iter().any(|o| o.name == "cta_mask") {
            // ctaMask: the bit of the own CTA (L14533).
            issue.push("mov.u32 %r11, 1;".into());
            issue.push("shl.b32 %r11, %r11, %r10;".into());
            issue.push("cvt.u16.u32 %rs1, %r11;".into());
            given.push(("cta_mask", "%rs1".into()));
        }
        given.extend(pol.clone());
        issue.push(bulk_instr(form, hints, &given)?);
        let base = if from_shared { REGION } else { 0 } + s;
        let data = &input[base as usize..(base + size) as usize];
        match (reduce_op, elem) {
            (Some(op), Some(t)) => {
                let old = expected.bytes[d as usize..(d + size) as usize].to_vec();
                let r = reduce(op, t, &old, data);
                expected.write(
                    d as usize,
                    &r,
                    None,
                    &format!("operation {j} ({size} bytes): old value .{op} source element (L14641)"),
                );
            }
            _ => expected.write(
                d as usize,
                data,
                None,
                &format!("copy {j} of {size} bytes from source offset {s:#x} (L14483)"),
            ),
        }
        done.push(format!("{size}"));
    }
    k.by(0, 1, &issue);
    wait_phase(&mut k, 0, &format!("the phase tracking {total} bytes (L14529)"));
    dump_shared(
        &mut k,
        &expected,
        "sm after the phase completed: the destination of the operations (L14529, L14243)",
    );
    let written: String = hints.iter().map(|h| format!(".{h}")).collect();
    let how = format!(
        "{}{written} of {} bytes into sm, tracked by mbar, awaited by try_wait.parity",
        if reduce_op.is_some() { "reductions" } else { "copies" },
        done.join(", ")
    );
    let mut s = k.finish(form, &how, with_hints(head, hints), &decls(), &input);
    if cluster || form.var("src") == Some("shared::cta") {
        s.job.cluster = Some([1, 1, 1]);
    }
    Ok(s)
}

/// The module declarations, with the 16-bit register ctaMask needs.
fn decls() -> String {
    format!("{DECLS}\n")
}

/// The header raised to what the hints need (`hint_needs`).
fn with_hints(head: (PtxVersion, spec::catalog::Target), hints: &[&str]) -> (PtxVersion, spec::catalog::Target) {
    let mut h = head;
    for (v, t) in hints.iter().filter_map(|x| spec::catalog::catalog().hint_needs(x)) {
        h.0 = h.0.max(v);
        h.1 = if t.sm > h.1.sm { t } else { h.1 };
    }
    h
}

/// `.shared::cta` → `.global` (`cp.async.bulk` with `.bulk_group`, `.cp_mask`; the
/// `.global` `cp.reduce.async.bulk`): every thread fills `smsrc` from `in` and a region of
/// `out` with the sentinel (or the old values), thread 0 issues three operations, commits them
/// and waits for the group; the `out` region is the result.
fn to_global(
    form: &Form,
    hints: &[&str],
    rng: &mut Rng,
    head: (PtxVersion, spec::catalog::Target),
) -> Result<Scenario, BuildError> {
    let reduce_op = form.has("reduce").then(|| form.var("op").unwrap_or("add"));
    let elem = form.var("t").and_then(Elem::of);
    let mut input = rng.bytes(2 * REGION as usize);
    if let (Some(op), Some(t)) = (reduce_op, elem) {
        for half in [0, REGION as usize] {
            for e in 0..REGION as usize / t.bytes() {
                let v = t.random_subnormal(op, rng);
                input[half + e * t.bytes()..half + (e + 1) * t.bytes()].copy_from_slice(&v);
            }
        }
    }
    let ops = layout(rng);
    let mut k = Kernel::new();
    prologue(&mut k);
    let pol = policy(hints, &mut k);
    let base = k.out;
    k.out += REGION as usize;
    let (mut expected, mut lines) = if reduce_op.is_some() {
        (
            Region::new(
                input[..REGION as usize].to_vec(),
                "the old value the kernel stored: no reduction writes it",
            ),
            words(
                |o| Some(format!("ld.global.b32 %r15, [%rd16+{o}];")),
                |o| format!("st.global.b32 [%rd4+{}], %r15;", base as u32 + o),
            ),
        )
    } else {
        (
            Region::filled(SENTINEL),
            words(|_| None, |o| format!("st.global.b32 [%rd4+{}], %r14;", base as u32 + o)),
        )
    };
    lines.extend(words(
        |o| Some(format!("ld.global.b32 %r15, [%rd16+{}];", REGION + o)),
        |o| format!("st.shared.b32 [%rd15+{o}], %r15;"),
    ));
    // Generic writes of smsrc and of the out region before the async proxy reads and writes
    // them (L14239-14241).
    lines.push("fence.proxy.async;".into());
    k.by(0, THREADS, &lines);
    let mut issue = Vec::new();
    let mut done = Vec::new();
    for (j, &(d, s, size)) in ops.iter().enumerate() {
        let mut given = vec![
            ("dst", format!("[%rd0+{}]", base as u32 + d)),
            ("src", format!("[%rd6+{s}]")),
            (
                "size",
                if j == 1 {
                    format!("%r{}", 20 + j)
                } else {
                    size.to_string()
                },
            ),
        ];
        if j == 1 {
            issue.push(format!("mov.u32 %r{}, {size};", 20 + j));
        }
        given.extend(pol.clone());
        let mut mask = None;
        if form.inputs.iter().any(|o| o.name == "byte_mask") {
            // A different byteMask per copy; the first copy all bytes.
            let m = if j == 0 { 0xffff } else { rng.next() as u16 };
            issue.push(format!("mov.b16 %rs{}, {m:#06x};", 2 + j));
            given.push(("byte_mask", format!("%rs{}", 2 + j)));
            mask = Some(m);
        }
        issue.push(bulk_instr(form, hints, &given)?);
        let data = &input[(REGION + s) as usize..(REGION + s + size) as usize];
        match (reduce_op, elem) {
            (Some(op), Some(t)) => {
                let old = expected.bytes[d as usize..(d + size) as usize].to_vec();
                let r = reduce(op, t, &old, data);
                expected.write(
                    d as usize,
                    &r,
                    None,
                    &format!("operation {j} ({size} bytes): old value .{op} source element (L14641)"),
                );
            }
            _ => expected.write(
                d as usize,
                data,
                mask,
                &format!(
                    "copy {j} of {size} bytes from smsrc+{s:#x}{} (L14483{})",
                    mask.map(|m| format!(", byteMask {m:#06x}")).unwrap_or_default(),
                    if mask.is_some() { ", L14539" } else { "" }
                ),
            ),
        }
        done.push(size.to_string());
    }
    issue.push("cp.async.bulk.commit_group;".into());
    issue.push("cp.async.bulk.wait_group 0;".into());
    k.by(0, 1, &issue);
    push_checks(
        &mut k,
        base,
        &expected,
        "the out region after cp.async.bulk.wait_group 0 (L15350-15360)",
    );
    let written: String = hints.iter().map(|h| format!(".{h}")).collect();
    let how = format!(
        "{}{written} of {} bytes from smsrc into out, one bulk async-group, wait_group 0",
        if reduce_op.is_some() { "reductions" } else { "copies" },
        done.join(", ")
    );
    Ok(k.finish(form, &how, with_hints(head, hints), &decls(), &input))
}

/// `cp.async.bulk.prefetch.L2`: thread 0 prefetches `in` (a hint: no effect on any value,
/// L14777), then every thread copies `in` to `out` by plain loads and stores; the bytes are
/// `in`'s.
fn prefetch(
    form: &Form,
    hints: &[&str],
    rng: &mut Rng,
    head: (PtxVersion, spec::catalog::Target),
) -> Result<Scenario, BuildError> {
    let input = rng.bytes(REGION as usize);
    let mut k = Kernel::new();
    prologue(&mut k);
    let pol = policy(hints, &mut k);
    let size = 16 * rng.range(1, REGION / 16);
    let mut given = vec![("src", "[%rd1]".to_string()), ("size", size.to_string())];
    given.extend(pol);
    k.by(0, 1, &[instr_with(form, hints, &given)?]);
    let base = k.out;
    k.out += REGION as usize;
    let lines = words(
        |o| Some(format!("ld.global.b32 %r15, [%rd16+{o}];")),
        |o| format!("st.global.b32 [%rd4+{}], %r15;", base as u32 + o),
    );
    k.by(0, THREADS, &lines);
    let expected = Region::new(
        input.clone(),
        &format!("in, of which {size} bytes were prefetched (L14777)"),
    );
    push_checks(&mut k, base, &expected, "in copied to out after the prefetch");
    let written: String = hints.iter().map(|h| format!(".{h}")).collect();
    let how = format!("prefetch{written} of {size} bytes of in, then in copied to out");
    Ok(k.finish(form, &how, with_hints(head, hints), &decls(), &input))
}

/// The bulk async-group forms: thread 0 issues three `.shared::cta` → `.global` copies, each
/// its own group, and observes the destinations group by group after `wait_group 2, 1, 0`
/// (reading a pending destination is a race the oracle reports); with `.read`, after
/// `wait_group.read 1` it overwrites the source of the second group (read only because of that
/// wait) and copies it again in a fourth group: the second group's destination has the old
/// bytes (L15362).
fn groups(form: &Form, rng: &mut Rng, head: (PtxVersion, spec::catalog::Target)) -> Result<Scenario, BuildError> {
    let input = rng.bytes(2 * REGION as usize);
    let mut k = Kernel::new();
    prologue(&mut k);
    let read = form.has("read");
    let commit = if form.inputs.is_empty() {
        instr_with(form, &[], &[])?
    } else {
        "cp.async.bulk.commit_group;".into()
    };
    let wait = |n: u32| -> Result<String, BuildError> {
        if form.inputs.is_empty() {
            Ok(format!("cp.async.bulk.wait_group {n};"))
        } else {
            instr_with(form, &[], &[("n", n.to_string())])
        }
    };
    // The out region: sentinel; smsrc: in[REGION..].
    let base = k.out;
    k.out += REGION as usize;
    let mut lines = words(|_| None, |o| format!("st.global.b32 [%rd4+{}], %r14;", base as u32 + o));
    lines.extend(words(
        |o| Some(format!("ld.global.b32 %r15, [%rd16+{}];", REGION + o)),
        |o| format!("st.shared.b32 [%rd15+{o}], %r15;"),
    ));
    lines.push("fence.proxy.async;".into());
    k.by(0, THREADS, &lines);
    let mut expected = Region::filled(SENTINEL);
    let src = |j: u32| 256 * j;
    let size = [16 * rng.range(1, 4), 16 * rng.range(1, 8), 16 * rng.range(1, 16)];
    let copy = |j: u32, d: u32, n: u32| {
        format!(
            "cp.async.bulk.global.shared::cta.bulk_group [%rd0+{}], [%rd6+{}], {n};",
            base as u32 + d,
            src(j)
        )
    };
    let mut issue = Vec::new();
    for j in 0..3 {
        issue.push(copy(j, 256 * j, size[j as usize]));
        issue.push(commit.clone());
        let data = &input[(REGION + src(j)) as usize..(REGION + src(j) + size[j as usize]) as usize];
        expected.write(
            (256 * j) as usize,
            data,
            None,
            &format!("group {j}: copy of {} bytes from smsrc+{:#x}", size[j as usize], src(j)),
        );
    }
    let how = if read {
        // wait_group.read 1: the older two groups have read their sources (L15362); the first
        // 16 bytes of the second group's source get new ones (generic writes, then the fence
        // before the async proxy reads them) and are copied again, to 768.
        issue.push(wait(1)?);
        let fresh: Vec<u8> = input[..16].to_vec();
        for w in 0..4 {
            issue.push(format!("ld.global.b32 %r15, [%rd1+{}];", 4 * w));
            issue.push(format!("st.shared.b32 [%rd6+{}], %r15;", src(1) + 4 * w));
        }
        issue.push("fence.proxy.async.shared::cta;".into());
        issue.push(copy(1, 768, 16));
        issue.push(commit.clone());
        issue.push("cp.async.bulk.wait_group 0;".into());
        expected.write(
            768,
            &fresh,
            None,
            "a fourth group's copy of smsrc+0x100 after it was rewritten following wait_group.read 1",
        );
        k.by(0, 1, &issue);
        push_checks(
            &mut k,
            base,
            &expected,
            "the out region: the second group copied smsrc+0x100 before it was rewritten, since wait_group.read 1 waited for the read (L15362)",
        );
        "three groups, wait_group.read 1, the second group's source rewritten and copied again, wait_group 0"
    } else {
        // After wait_group n the groups but the newest n are complete and visible to the thread
        // (L15350-15360): thread 0 copies each completed destination's first 16 bytes to a
        // second region (a read before completion is the race the oracle reports).
        let seen = k.out;
        k.out += 48;
        for (j, n) in [(0u32, 2u32), (1, 1), (2, 0)] {
            issue.push(wait(n)?);
            for w in 0..4 {
                issue.push(format!("ld.global.b32 %r15, [%rd0+{}];", base as u32 + 256 * j + 4 * w));
                issue.push(format!("st.global.b32 [%rd0+{}], %r15;", seen as u32 + 16 * j + 4 * w));
            }
        }
        k.by(0, 1, &issue);
        for j in 0..3usize {
            k.checks.push(Check {
                offset: seen + 16 * j,
                rule: Rule::Bytes(expected.bytes[256 * j..256 * j + 16].to_vec()),
                what: format!(
                    "group {j}'s destination read by thread 0 after wait_group {}: complete and visible (L15350-15360)",
                    2 - j
                ),
            });
        }
        push_checks(
            &mut k,
            base,
            &expected,
            "the out region after the last wait_group (L15350-15360)",
        );
        "three bulk groups, each destination read after wait_group 2, 1, 0"
    };
    Ok(k.finish(form, how, head, &decls(), &input))
}

/// `st.bulk`: `sm` filled with the sentinel, thread 0 zero-fills two ranges (sizes multiples
/// of 8, L13076), every thread stores `sm`. A generic address for the form without a state
/// space (L13080).
fn st_bulk(form: &Form, rng: &mut Rng, head: (PtxVersion, spec::catalog::Target)) -> Result<Scenario, BuildError> {
    let mut k = Kernel::new();
    prologue(&mut k);
    let lines = words(|_| None, |o| format!("st.shared.b32 [%rd14+{o}], %r14;"));
    k.by(0, THREADS, &lines);
    let generic = form.var("ss").is_none_or(str::is_empty);
    let mut expected = Region::filled(SENTINEL);
    let mut issue = Vec::new();
    if generic {
        issue.push("cvta.shared.u64 %rd11, %rd5;".to_string());
    } else {
        issue.push("mov.u64 %rd11, %rd5;".to_string());
    }
    let first = 8 * rng.range(0, 8);
    let ranges = [(first, 8), (first + 8 + 8 * rng.range(1, 8), 8 * rng.range(2, 64))];
    let mut done = Vec::new();
    for (j, &(off, size)) in ranges.iter().enumerate() {
        issue.push(format!("add.s64 %rd{}, %rd11, {off};", 22 + j));
        let size_op = if j == 1 {
            issue.push(format!("mov.u64 %rd24, {size};"));
            "%rd24".to_string()
        } else {
            size.to_string()
        };
        issue.push(instr_with(
            form,
            &[],
            &[
                ("addr", format!("[%rd{}]", 22 + j)),
                ("size", size_op),
                ("initval", "0".into()),
            ],
        )?);
        let o = off as usize;
        for b in &mut expected.bytes[o..o + size as usize] {
            *b = 0;
        }
        for c in o / 16..(o + size as usize).div_ceil(16) {
            expected.what[c] = format!("st.bulk {j} zeroes [{off:#x}, {:#x}) (L13066-13078)", off + size);
        }
        done.push(format!("{size} at {off:#x}"));
    }
    k.by(0, 1, &issue);
    dump_shared(&mut k, &expected, "sm after st.bulk and bar.sync");
    let how = format!("st.bulk of {} in sentinel-filled sm", done.join(", "));
    Ok(k.finish(form, &how, head, &decls(), &[]))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reductions on values worked by hand.
    #[test]
    fn reductions_by_hand() {
        let u = |v: &[u32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
        assert_eq!(reduce("inc", Elem::Unsigned(4), &u(&[3, 5]), &u(&[3, 7])), u(&[0, 6]));
        assert_eq!(
            reduce("dec", Elem::Unsigned(4), &u(&[0, 5, 4]), &u(&[3, 4, 7])),
            u(&[3, 4, 3])
        );
        assert_eq!(reduce("add", Elem::Unsigned(4), &u(&[u32::MAX]), &u(&[2])), u(&[1]));
        assert_eq!(
            reduce("min", Elem::Signed(4), &u(&[u32::MAX]), &u(&[1])),
            u(&[u32::MAX])
        );
        assert_eq!(reduce("min", Elem::Unsigned(4), &u(&[u32::MAX]), &u(&[1])), u(&[1]));
        // f16 1.0 + 1.0 = 2.0; bf16 max(-1, 0.5) = 0.5; f16 subnormals 0x03ff + 0x0001 = the
        // smallest normal 0x0400, kept (`.noftz`, L14647), and 0x0001 + (-0x0001) = +0.
        assert_eq!(reduce("add", Elem::F16, &[0xff, 0x03], &[0x01, 0x00]), vec![0x00, 0x04]);
        assert_eq!(reduce("add", Elem::F16, &[0x01, 0x00], &[0x01, 0x80]), vec![0x00, 0x00]);
        assert_eq!(
            reduce("add", Elem::Bf16, &[0x03, 0x00], &[0x05, 0x00]),
            vec![0x08, 0x00]
        );
        assert_eq!(reduce("add", Elem::F16, &[0x00, 0x3c], &[0x00, 0x3c]), vec![0x00, 0x40]);
        assert_eq!(
            reduce("max", Elem::Bf16, &[0x80, 0xbf], &[0x00, 0x3f]),
            vec![0x00, 0x3f]
        );
    }
}
