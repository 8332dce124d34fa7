//! Conformance kernels of the *operational* forms: instructions whose meaning is an effect on
//! memory or on other threads, not a value of their operands (`cp.async` and its groups, the
//! `mbarrier` objects, `elect.sync`, the bulk copies and reductions, `st.async`, `red.async`,
//! `st.bulk`; the cluster forms, `mapa`, `getctarank`, `barrier.cluster` and the
//! `.shared::cluster` accesses, with scenarios of several CTAs in one cluster; the fences; the
//! control and cache-hint forms, whose scenarios check that a program using them computes its
//! data), so they have no golden vectors.
//!
//! Each such form gets one or a few *scenarios*: a whole kernel that uses the form the way a real
//! program does, race-free (one CTA, or a cluster of two or four CTAs, steps separated by
//! `bar.sync`), and stores what the manual determines — the bytes a copy left in shared memory,
//! whether a phase is complete, a pending count — to the `out` buffer. Each stored word is a
//! [`Check`]: its place, the bytes the manual requires there (computed here, by byte copying,
//! element-wise arithmetic and by this module's own model of an mbarrier object,
//! [`mbarrier::Barrier`], never by the oracle), and what it means with the manual's line.
//! What the manual leaves open (an arrive's `state` bits, how long `try_wait` suspends, which lane
//! `elect.sync` picks) is never compared bit for bit: a state is only handed back to a wait, and
//! the leader is checked by the relation the manual states ([`Rule::Leader`]).
//!
//! The forms come from the catalog: every form whose executor ([`Exec`]) is one of those
//! [`covers`] lists, its modifiers and operands read as the catalog names them. Scenarios are
//! generated when `conform` runs (as every conformance kernel is), deterministic for a seed.

mod bulk;
mod cluster;
mod control;
mod cp_async;
mod dsmem;
mod elect;
mod fence;
pub mod mbarrier;
mod ranks;
mod st_async;
mod tensor;

use crate::backend::{Buffers, Job};
use spec::catalog::{catalog, Exec, Form, PtxVersion, Target};
use std::fmt::{self, Write as _};

/// Threads of a scenario's one CTA: one warp, so `elect.sync` and the waits see the whole CTA.
pub const THREADS: u32 = 32;

/// One scenario: a launch and what the manual determines of its `out` buffer.
#[derive(Clone, Debug)]
pub struct Scenario {
    /// What it does, in a line.
    pub name: String,
    /// The launch (`conform(.param .u64 in, .param .u64 out)`, one CTA of [`THREADS`]).
    pub job: Job,
    /// Every determined observation.
    pub checks: Vec<Check>,
}

/// One determined observation: the bytes of `out` at `offset` and the rule they follow.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Check {
    /// Byte offset in the `out` buffer.
    pub offset: usize,
    /// What the bytes must be.
    pub rule: Rule,
    /// What it observes, with the manual's line (`test_wait.parity 0 after 3 of 4 arrivals:
    /// the phase is incomplete (L18488-18490), thread 5`).
    pub what: String,
}

/// What a [`Check`]'s bytes must be.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Rule {
    /// Exactly these bytes.
    Bytes(Vec<u8>),
    /// `elect.sync d|p, mask` (L18320): 32 records of (d: u32, p: u32 0/1), one per lane;
    /// every lane of `mask` holds the same `d`, a lane of `mask`, and `p` is 1 on that lane
    /// only. Which lane leads is left open.
    Leader {
        /// The member mask.
        mask: u32,
    },
}

impl Rule {
    /// Bytes of `out` the rule reads.
    pub fn len(&self) -> usize {
        match self {
            Rule::Bytes(b) => b.len(),
            Rule::Leader { .. } => 8 * THREADS as usize,
        }
    }

    /// Whether the rule reads no bytes.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Why `got` breaks the rule, or `None`.
    fn broken(&self, got: &[u8]) -> Option<String> {
        match self {
            Rule::Bytes(b) => (got != b.as_slice()).then(|| format!("expected {}", hex(b))),
            Rule::Leader { mask } => {
                let word = |k: usize| u32::from_le_bytes(got[4 * k..4 * k + 4].try_into().expect("4 bytes"));
                let lanes: Vec<u32> = (0..THREADS).filter(|l| mask >> l & 1 == 1).collect();
                let d = word(2 * lanes[0] as usize);
                if let Some(&l) = lanes.iter().find(|&&l| word(2 * l as usize) != d) {
                    return Some(format!(
                        "lanes {} and {l} of mask {mask:#010x} returned leaders {d} and {}: every member gets the same laneid (L18320)",
                        lanes[0],
                        word(2 * l as usize)
                    ));
                }
                if d >= THREADS || mask >> d & 1 == 0 {
                    return Some(format!("leader {d} is not a lane of mask {mask:#010x} (L18320)"));
                }
                lanes
                    .iter()
                    .find(|&&l| word(2 * l as usize + 1) != u32::from(l == d))
                    .map(|l| {
                        format!(
                            "lane {l}: p = {} with leader {d}: p is True on the leader only (L18320)",
                            word(2 * *l as usize + 1)
                        )
                    })
            }
        }
    }
}

/// A check the backend's bytes broke.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Broken {
    /// Index in [`Scenario::checks`].
    pub check: usize,
    /// The bytes it returned there (hex, memory order).
    pub got: String,
    /// `out+0x40 (4 bytes): expected 01000000` or the relation broken.
    pub detail: String,
}

/// Why a scenario cannot be judged from a reply.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JudgeError {
    /// No `out` buffer in the reply.
    NoOut,
    /// `out` is shorter than the checks need.
    Short {
        /// Its size.
        found: usize,
        /// The size the checks need.
        needed: usize,
    },
}

impl fmt::Display for JudgeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JudgeError::NoOut => f.write_str("the backend returned no `out` buffer"),
            JudgeError::Short { found, needed } => {
                write!(f, "the `out` buffer has {found} bytes, the checks read {needed}")
            }
        }
    }
}

impl std::error::Error for JudgeError {}

impl Scenario {
    /// The checks `bufs` (a backend's reply to [`Scenario::job`]) breaks.
    pub fn judge(&self, bufs: &Buffers) -> Result<Vec<Broken>, JudgeError> {
        let out = bufs
            .iter()
            .find(|(n, _)| n == "out")
            .map(|(_, b)| b)
            .ok_or(JudgeError::NoOut)?;
        let needed = self.checks.iter().map(|c| c.offset + c.rule.len()).max().unwrap_or(0);
        if out.len() < needed {
            return Err(JudgeError::Short {
                found: out.len(),
                needed,
            });
        }
        Ok(self
            .checks
            .iter()
            .enumerate()
            .filter_map(|(k, c)| {
                let got = &out[c.offset..c.offset + c.rule.len()];
                c.rule.broken(got).map(|why| Broken {
                    check: k,
                    got: hex(got),
                    detail: format!("out+{:#x} ({} bytes): {why}", c.offset, c.rule.len()),
                })
            })
            .collect())
    }

    /// The checks as text, one per line (a repro's `expected.txt`).
    pub fn expected_text(&self) -> String {
        let mut s = format!(
            "# {}\n# offset in `out`, expected bytes (hex, memory order), meaning\n",
            self.name
        );
        for c in &self.checks {
            let e = match &c.rule {
                Rule::Bytes(b) => hex(b),
                Rule::Leader { mask } => format!("leader-of-{mask:#010x}"),
            };
            let _ = writeln!(s, "{:#06x} {e} {}", c.offset, c.what);
        }
        s
    }
}

/// Lowercase hex of bytes in memory order.
fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// The executors whose forms have scenarios here.
const EXECUTORS: &[Exec] = &[
    Exec::CpAsync,
    Exec::CpAsyncCommit,
    Exec::CpAsyncWait,
    Exec::Mbarrier,
    Exec::Elect,
    Exec::BulkCopy,
    Exec::BulkGroup,
    Exec::StBulk,
    Exec::StAsync,
    Exec::RedAsync,
    Exec::TensorCopy,
    Exec::TensormapReplace,
    Exec::TensormapCpFenceproxy,
    Exec::TensormapFence,
];

/// Whether `form` is judged by scenarios (an operational form of the executors above; a form
/// with golden vectors is judged by those).
pub fn covers(form: &Form) -> bool {
    (form.exec().is_some_and(|e| EXECUTORS.contains(&e))
        || cluster::is_cluster(form)
        || dsmem::is_dsmem(form)
        || fence::is_fence(form)
        || control::is_control(form)
        || (form.exec() == Some(Exec::Prefetch) && tensor::is_param_prefetch(form)))
        && !spec::eval::has_semantics(form)
}

/// Every form [`covers`] accepts, in catalog order.
pub fn forms() -> Vec<spec::catalog::FormId> {
    catalog()
        .enumerate()
        .filter(|(_, f)| covers(f))
        .map(|(i, _)| i)
        .collect()
}

/// Why a form's scenarios cannot be built (a defect of a template, never of a backend).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuildError(pub String);

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BuildError {}

/// The scenarios of `form`, deterministic for `seed`.
pub fn scenarios(form: &Form, seed: u64) -> Result<Vec<Scenario>, BuildError> {
    let mut rng = Rng::new(seed, &form.name);
    match form.exec() {
        Some(Exec::CpAsync | Exec::CpAsyncCommit | Exec::CpAsyncWait) => cp_async::scenarios(form, &mut rng),
        Some(Exec::Mbarrier) if cp_async::is_arrive(form) => cp_async::scenarios(form, &mut rng),
        Some(Exec::Mbarrier) => mbarrier::scenarios(form, &mut rng),
        Some(Exec::Elect) => elect::scenarios(form, &mut rng),
        Some(Exec::BulkCopy | Exec::BulkGroup | Exec::StBulk) => bulk::scenarios(form, &mut rng),
        Some(Exec::StAsync | Exec::RedAsync) => st_async::scenarios(form, &mut rng),
        Some(Exec::TensorCopy | Exec::TensormapReplace | Exec::TensormapCpFenceproxy | Exec::TensormapFence) => {
            tensor::scenarios(form, &mut rng)
        }
        Some(Exec::Prefetch) if tensor::is_param_prefetch(form) => tensor::scenarios(form, &mut rng),
        _ if cluster::is_cluster(form) => cluster::scenarios(form, &mut rng),
        _ if dsmem::is_dsmem(form) => dsmem::scenarios(form, &mut rng),
        _ if fence::is_fence(form) => fence::scenarios(form, &mut rng),
        _ if control::is_control(form) => control::scenarios(form, &mut rng),
        _ => Err(BuildError(format!("`{}` has no operational scenario", form.name))),
    }
}

/// Polls of a scenario's wait loop before giving up (each after `nanosleep` of 1 µs where the
/// loop sleeps: 65 ms in all, far beyond a copy's latency): an implementation whose phase never
/// completes fails the check instead of hanging.
const POLLS: u32 = 1 << 16;

/// A wait loop of at most [`POLLS`] rounds on the predicate `%p3` that `wait` (an mbarrier
/// `test_wait`/`try_wait`) sets, labels `poll` and `done`, `nanosleep` between rounds when
/// `sleep`; the thread's outcome (1: True) stored at `out + off` through `%rd4`. Counts in
/// `%r16`, `%p5`; the outcome in `%r9`.
fn bounded_wait(wait: &str, poll: &str, done: &str, off: usize, sleep: bool) -> Vec<String> {
    let mut l = vec![
        "mov.u32 %r16, 0;".to_string(),
        format!("{poll}:"),
        wait.to_string(),
        format!("@%p3 bra {done};"),
    ];
    if sleep {
        l.push("nanosleep.u32 1000;".into());
    }
    l.extend([
        "add.u32 %r16, %r16, 1;".to_string(),
        format!("setp.lt.u32 %p5, %r16, {POLLS};"),
        format!("@%p5 bra {poll};"),
        format!("{done}:"),
        "selp.u32 %r9, 1, 0, %p3;".into(),
        format!("st.global.u32 [%rd4+{off}], %r9;"),
    ]);
    l
}

/// SplitMix64, seeded by the seed and the form's name: a form's data does not change when
/// another form is added.
struct Rng(u64);

impl Rng {
    fn new(seed: u64, name: &str) -> Rng {
        // FNV-1a of the name.
        let h = name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
        });
        Rng(seed ^ h)
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `lo..=hi`.
    fn range(&mut self, lo: u32, hi: u32) -> u32 {
        lo + (self.next() % u64::from(hi - lo + 1)) as u32
    }

    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }
}

/// The `.version`/`.target` of a scenario of `form` whose other instructions need `floor`
/// (sm_80 for `cp.async` and `mbarrier`, sm_90 for `try_wait`, `expect_tx`, `elect.sync`) and PTX
/// `ptx` at least.
fn header(form: &Form, floor: u32, ptx: PtxVersion) -> (PtxVersion, Target) {
    let target = if form.target.sm >= floor {
        form.target
    } else {
        Target {
            sm: floor,
            suffix: None,
        }
    };
    let need = catalog().target_version(target).unwrap_or(PtxVersion(8, 7));
    (form.ptx.max(ptx).max(need), target)
}

/// One instruction of `form`, its operands given by the catalog's names: an output not given is
/// the sink `_`, an input not given is left out (it must be optional).
fn instr(form: &Form, given: &[(&str, String)]) -> Result<String, BuildError> {
    instr_with(form, &[], given)
}

/// The performance hints a form's pattern allows after its last modifier (`[L2::cache_hint]`,
/// `[L2::64B|L2::128B|L2::256B]` of `cp.async`): each group's alternatives. They are not part of
/// the form (`spec::catalog::pattern::Part::Hint`), so a scenario writes them on top of its name.
fn trailing_hints(form: &Form) -> Vec<Vec<&'static str>> {
    let parts = &catalog().rows[form.row].parts;
    let last = parts
        .iter()
        .rposition(|p| !matches!(p, spec::catalog::pattern::Part::Hint(_)))
        .map_or(0, |k| k + 1);
    parts[last..]
        .iter()
        .filter_map(|p| match p {
            spec::catalog::pattern::Part::Hint(alts) => Some(alts.clone()),
            _ => None,
        })
        .collect()
}

/// [`instr`] with performance hints written after the form's name.
fn instr_with(form: &Form, hints: &[&str], given: &[(&str, String)]) -> Result<String, BuildError> {
    let get = |n: &str| given.iter().find(|(k, _)| *k == n).map(|(_, v)| v.clone());
    let outs: Vec<String> = form
        .outputs
        .iter()
        .map(|o| get(o.name).unwrap_or_else(|| "_".into()))
        .collect();
    let mut ins = Vec::new();
    for o in &form.inputs {
        let v = get(o.name);
        if v.is_none() && !o.optional {
            return Err(BuildError(format!("`{}` needs its `{}` operand", form.name, o.name)));
        }
        ins.push(v);
    }
    let ops = spec::catalog::write::operand_list(form, &outs, &ins);
    let name: String = std::iter::once(form.name.as_str())
        .chain(hints.iter().copied())
        .collect::<Vec<_>>()
        .join(".");
    Ok(if ops.is_empty() {
        format!("{name};")
    } else {
        format!("{name} {ops};")
    })
}

/// A scenario kernel under construction: one CTA of [`THREADS`], steps guarded by thread ranges
/// and separated by `bar.sync 0`, observations stored to `out`.
///
/// Registers: `%r0` the thread index, `%rd0` `out`, `%rd1` `in`, `%rd4` `out + 4·tid`;
/// `%p1`/`%p2` the guards, `%p3` a wait's result, `%r9` a stored word; the rest is the
/// template's.
struct Kernel {
    body: String,
    /// Bytes of `out` used so far.
    out: usize,
    checks: Vec<Check>,
    labels: u32,
}

impl Kernel {
    fn new() -> Kernel {
        Kernel {
            body: String::new(),
            out: 0,
            checks: Vec::new(),
            labels: 0,
        }
    }

    fn line(&mut self, s: impl AsRef<str>) {
        let _ = writeln!(self.body, "\t{}", s.as_ref());
    }

    fn label(&mut self) -> String {
        self.labels += 1;
        format!("L{}", self.labels)
    }

    /// `lines` run by the threads `lo..hi`, then every thread meets at `bar.sync 0`.
    fn by(&mut self, lo: u32, hi: u32, lines: &[String]) {
        let skip = self.label();
        if lo > 0 || hi < THREADS {
            self.line(format!("setp.lt.u32 %p1, %r0, {lo};"));
            self.line(format!("setp.ge.u32 %p2, %r0, {hi};"));
            self.line("or.pred %p1, %p1, %p2;");
            self.line(format!("@%p1 bra {skip};"));
        }
        for l in lines {
            self.line(l);
        }
        let _ = writeln!(self.body, "{skip}:");
        self.line("bar.sync 0;");
    }

    /// A 4-byte slot per thread of `out`, reserved: its offset.
    fn slots(&mut self) -> usize {
        let off = self.out;
        self.out += 4 * THREADS as usize;
        off
    }

    /// Threads `lo..hi` run `instr` (which sets `%p3`) and store it as a u32 0/1, which must be
    /// `expected`.
    fn observe_pred(&mut self, lo: u32, hi: u32, instr: String, expected: bool, what: &str) {
        let off = self.slots();
        self.by(
            lo,
            hi,
            &[
                instr,
                "selp.u32 %r9, 1, 0, %p3;".into(),
                format!("st.global.u32 [%rd4+{off}], %r9;"),
            ],
        );
        for t in lo..hi {
            self.checks.push(Check {
                offset: off + 4 * t as usize,
                rule: Rule::Bytes(u32::from(expected).to_le_bytes().to_vec()),
                what: format!("{what}: {} (thread {t})", if expected { "True" } else { "False" }),
            });
        }
    }

    /// Thread `t` runs `lines` (the last one sets `%r9`) and stores `%r9`, which must be
    /// `expected`.
    fn observe_u32(&mut self, t: u32, lines: &[String], expected: u32, what: &str) {
        let off = self.slots();
        let mut all = lines.to_vec();
        all.push(format!("st.global.u32 [%rd4+{off}], %r9;"));
        self.by(t, t + 1, &all);
        self.checks.push(Check {
            offset: off + 4 * t as usize,
            rule: Rule::Bytes(expected.to_le_bytes().to_vec()),
            what: format!("{what}: {expected} (thread {t})"),
        });
    }

    /// The whole module and its launch: `decls` at module scope, `input` as `in`.
    fn finish(self, form: &Form, how: &str, header: (PtxVersion, Target), decls: &str, input: &[u8]) -> Scenario {
        let (ptx, target) = header;
        let mut m = format!(
            "// ptxconf operational conformance kernel for `{}` ({}): {how}\n.version {ptx}\n.target {target}\n.address_size 64\n\n{decls}\n\
             .visible .entry {}(.param .u64 in, .param .u64 out)\n{{\n",
            form.name,
            form.signature(),
            super::ENTRY
        );
        m.push_str(
            "\t.reg .pred %p<8>;\n\t.reg .b16 %rs<8>;\n\t.reg .b32 %r<32>;\n\t.reg .b64 %rd<32>;\n\
             \tld.param.u64 %rd0, [out];\n\tcvta.to.global.u64 %rd0, %rd0;\n\
             \tld.param.u64 %rd1, [in];\n\tcvta.to.global.u64 %rd1, %rd1;\n\
             \tmov.u32 %r0, %tid.x;\n\tmul.wide.u32 %rd3, %r0, 4;\n\tadd.s64 %rd4, %rd0, %rd3;\n",
        );
        m.push_str(&self.body);
        m.push_str("\tret;\n}\n");
        let out = self.out.max(4);
        let mut input = input.to_vec();
        if input.is_empty() {
            input.push(0);
        }
        Scenario {
            name: how.to_string(),
            job: super::in_out_job(&m, 1, THREADS as usize, &input, out),
            checks: self.checks,
        }
    }
}

/// The form's name in reports: its [`spec::vector::form_key`], and where other covered forms
/// share that name, `~` and each source operand they do not all have (`mbarrier.arrive.shared.b64`
/// and `mbarrier.arrive.shared.b64~count`; `cp.async.ca.shared.global~src_size` and
/// `~ignore_src`).
pub fn key(form: &Form) -> String {
    let cat = catalog();
    let mut key = spec::vector::form_key(form);
    let same: Vec<&Form> = cat
        .by_name(&form.name)
        .iter()
        .map(|&i| &cat.forms[i])
        .filter(|f| covers(f))
        .collect();
    if same.len() > 1 {
        for o in &form.inputs {
            if !same.iter().all(|f| f.inputs.iter().any(|p| p.name == o.name)) {
                let _ = write!(key, "~{}", o.name);
            }
        }
    }
    key
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::{oracle::Oracle, Backend, Options};

    fn judge_on_oracle(form: &Form) -> Result<usize, String> {
        let oracle = Oracle::new(&Options::default());
        let mut n = 0;
        for s in scenarios(form, 1).map_err(|e| e.to_string())? {
            let bufs = oracle
                .run(&s.job)
                .map_err(|e| format!("{}: {e}\n{}", form.name, s.job.ptx))?;
            let broken = s.judge(&bufs).map_err(|e| e.to_string())?;
            if let Some(b) = broken.first() {
                return Err(format!(
                    "{}: {} of {} checks broken; first: {} got {} ({})\n{}",
                    form.signature(),
                    broken.len(),
                    s.checks.len(),
                    s.checks[b.check].what,
                    b.got,
                    b.detail,
                    s.job.ptx
                ));
            }
            n += s.checks.len();
        }
        Ok(n)
    }

    /// The keys name every covered form once; the scenarios are deterministic for a seed and
    /// change with it.
    #[test]
    fn keys_are_unique_and_scenarios_deterministic() {
        let cat = catalog();
        let ids = forms();
        let keys: std::collections::BTreeSet<String> = ids.iter().map(|&i| key(&cat.forms[i])).collect();
        assert_eq!(keys.len(), ids.len());
        assert!(keys.contains("cp.async.ca.shared.global~src_size"));
        assert!(keys.contains("cp.async.ca.shared.global~ignore_src"));
        assert!(keys.contains("mbarrier.arrive.shared.b64~count"));
        let f = &cat.forms[ids[0]];
        let (a, b) = (scenarios(f, 1).unwrap(), scenarios(f, 1).unwrap());
        assert_eq!(
            a.iter().map(|s| &s.job.ptx).collect::<Vec<_>>(),
            b.iter().map(|s| &s.job.ptx).collect::<Vec<_>>()
        );
        assert_eq!(a[0].checks, b[0].checks);
        assert_ne!(a[0].job.buffers[0].hex, scenarios(f, 2).unwrap()[0].job.buffers[0].hex);
    }

    /// The judge: exact bytes, and the leader relation of `elect.sync`, each broken by hand.
    #[test]
    fn rules_are_broken_by_wrong_bytes() {
        let bytes = Rule::Bytes(vec![1, 0, 0, 0]);
        assert_eq!(bytes.broken(&[1, 0, 0, 0]), None);
        assert_eq!(bytes.broken(&[0, 0, 0, 0]).as_deref(), Some("expected 01000000"));
        // Lanes 1 and 3 of mask 0b1010; records (d, p) per lane.
        let rec = |leaders: [(u32, u32); 4]| {
            let mut v = vec![0u8; 8 * THREADS as usize];
            for (l, (d, p)) in leaders.iter().enumerate() {
                v[8 * l..8 * l + 4].copy_from_slice(&d.to_le_bytes());
                v[8 * l + 4..8 * l + 8].copy_from_slice(&p.to_le_bytes());
            }
            v
        };
        let leader = Rule::Leader { mask: 0b1010 };
        assert_eq!(leader.broken(&rec([(0, 0), (3, 0), (0, 0), (3, 1)])), None);
        assert_eq!(leader.broken(&rec([(9, 9), (1, 1), (9, 9), (1, 0)])), None);
        // Different leaders, a leader outside the mask, p on the wrong lane.
        assert!(leader
            .broken(&rec([(0, 0), (1, 1), (0, 0), (3, 1)]))
            .unwrap()
            .contains("same laneid"));
        assert!(leader
            .broken(&rec([(0, 0), (2, 0), (0, 0), (2, 0)]))
            .unwrap()
            .contains("not a lane"));
        assert!(leader
            .broken(&rec([(0, 0), (3, 1), (0, 0), (3, 1)]))
            .unwrap()
            .contains("lane 1"));
    }

    /// A scenario's expectation pinned by hand: the `cp.async.cg` form with src-size copies,
    /// thread 5, case 1 (the second 16-byte copy, at slice offset 16) takes src-size
    /// (5 + 1) mod 17 = 6: six source bytes, ten zeros (L14273).
    #[test]
    fn zero_fill_is_expected_past_src_size() {
        let cat = catalog();
        let f = forms()
            .into_iter()
            .map(|i| &cat.forms[i])
            .find(|f| key(f) == "cp.async.cg.shared.global~src_size")
            .unwrap();
        let s = &scenarios(f, 1).unwrap()[0];
        let input = oracle::launch::decode_hex(s.job.buffers[0].hex.as_deref().unwrap()).unwrap();
        let c = s.checks.iter().find(|c| c.what.ends_with("(thread 5)")).unwrap();
        let Rule::Bytes(b) = &c.rule else { panic!() };
        assert_eq!(&b[..16], &input[5 * 64..5 * 64 + 16], "case 0: no src-size, 16 bytes");
        assert_eq!(&b[16..22], &input[5 * 64 + 16..5 * 64 + 22]);
        assert_eq!(&b[22..32], &[0u8; 10]);
        assert_eq!(&b[32..], &[0xa5u8; 32], "the sentinel where nothing was copied");
    }

    #[test]
    fn every_form_runs_on_the_oracle() {
        let cat = catalog();
        let mut bad = Vec::new();
        let (mut n, mut checks) = (0, 0);
        for i in forms() {
            n += 1;
            match judge_on_oracle(&cat.forms[i]) {
                Ok(c) => checks += c,
                Err(e) => bad.push(e),
            }
        }
        eprintln!("{n} forms, {checks} checks");
        assert!(bad.is_empty(), "{} failed:\n{}", bad.len(), bad.join("\n\n"));
    }
}
