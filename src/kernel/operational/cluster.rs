//! Scenarios of the cluster forms — `mapa` (§9.7.9.23, L14081), `getctarank` (§9.7.9.24,
//! L14132) and `barrier.cluster.arrive`/`wait` (§9.7.13.3, L17150) — and [`Grid`], the
//! builder of the scenarios that launch several CTAs as one cluster (also used by the
//! distributed-shared-memory and fence scenarios).
//!
//! A cluster scenario's CTAs each hold a word per thread in their shared memory, written from
//! `in`; after a `barrier.cluster` phase every thread reads a word of another CTA through the
//! address `mapa` gives (or asks `getctarank` whose an address is), and stores it to `out`.
//! What the manual determines: the word CTA `r` wrote there (`mapa`: "the address in CTA `b`
//! corresponding to `a`", L14114-14116), the rank (L14163), and for `barrier.cluster` that the
//! wait returns only after every thread's arrive and makes what they wrote before it visible
//! (L17171-17177). Each scenario ends with a cluster barrier before any CTA exits, as L89
//! requires of a CTA whose shared memory a peer accesses.

use super::{header, instr, BuildError, Check, Kernel, Rng, Rule, Scenario, THREADS};
use crate::backend::Job;
use spec::catalog::{Exec, Form, PtxVersion, Target};
use std::fmt::Write as _;

/// The plain cluster barrier of the scenarios' own steps (`.aligned`: every step is executed by
/// whole CTAs).
pub(super) const SYNC: [&str; 2] = ["barrier.cluster.arrive.aligned;", "barrier.cluster.wait.aligned;"];

/// A kernel launched as one cluster of `ctas` CTAs of `threads` threads in a row ([`THREADS`]
/// unless [`Grid::with`] says otherwise).
///
/// Registers besides [`Kernel`]'s: `%r1` the CTA's rank in the cluster (`%cluster_ctarank`),
/// `%r2` the thread's index in the cluster (`rank·threads + tid`), `%rd6` a record's address in
/// `out`; `%h<48>` 16-bit and, where the form needs them, `%q<8>` 128-bit registers.
pub(super) struct Grid {
    pub k: Kernel,
    pub ctas: u32,
    pub threads: u32,
    /// Performance-tuning directives of the entry (`.maxnreg 128`), written before its body.
    pub directives: String,
}

impl Grid {
    pub fn new(ctas: u32) -> Grid {
        Grid::with(ctas, THREADS)
    }

    pub fn with(ctas: u32, threads: u32) -> Grid {
        Grid {
            k: Kernel::new(),
            ctas,
            threads,
            directives: String::new(),
        }
    }

    pub fn line(&mut self, s: impl AsRef<str>) {
        self.k.line(s);
    }

    /// `lines` run by every thread of the CTA of rank `rank` (every CTA when `None`); no
    /// barrier after them.
    pub fn by(&mut self, rank: Option<u32>, lines: &[String]) {
        let skip = self.k.label();
        if let Some(r) = rank {
            self.k.line(format!("setp.ne.u32 %p1, %r1, {r};"));
            self.k.line(format!("@%p1 bra {skip};"));
        }
        for l in lines {
            self.k.line(l);
        }
        let _ = writeln!(self.k.body, "{skip}:");
    }

    /// The scenario's own cluster barrier (both halves, by every thread).
    pub fn sync(&mut self) {
        for l in SYNC {
            self.k.line(l);
        }
    }

    /// `bpt` bytes of `out` per thread of the cluster, reserved: their base offset. A thread's
    /// record is at `out + base + bpt·%r2`; [`Grid::at`] puts its address in `%rd6`.
    pub fn records(&mut self, bpt: usize) -> usize {
        let base = self.k.out;
        self.k.out += bpt * (self.threads * self.ctas) as usize;
        base
    }

    /// The line that puts the address of the thread's record of `bpt` bytes (`out` + `bpt·%r2`,
    /// the base to be added as the store's offset) in `%rd6`.
    pub fn at(bpt: usize) -> String {
        format!("mad.wide.u32 %rd6, %r2, {bpt}, %rd0;")
    }

    /// The check of thread `g`'s record (cluster index) at `base`, `bpt` bytes apart.
    pub fn check(&mut self, base: usize, bpt: usize, g: u32, bytes: Vec<u8>, what: String) {
        self.k.checks.push(Check {
            offset: base + bpt * g as usize,
            rule: Rule::Bytes(bytes),
            what: format!("{what} (CTA rank {}, thread {})", g / self.threads, g % self.threads),
        });
    }

    /// The whole module and its cluster launch: `decls` at module scope, `input` as `in`,
    /// `wide` when the kernel uses `%q` (b128) registers.
    pub fn finish(
        self,
        form: &Form,
        how: &str,
        head: (PtxVersion, Target),
        decls: &str,
        input: &[u8],
        wide: bool,
    ) -> Scenario {
        let (ptx, target) = head;
        let mut m = format!(
            "// ptxconf operational conformance kernel for `{}` ({}): {how}\n.version {ptx}\n.target {target}\n.address_size {}\n\n{decls}\n\
             .visible .entry {}(.param .u64 in, .param .u64 out)\n{}{{\n",
            form.name,
            form.signature(),
            self.k.address_size,
            crate::kernel::ENTRY,
            self.directives
        );
        m.push_str("\t.reg .pred %p<8>;\n\t.reg .b16 %h<48>;\n\t.reg .b32 %r<48>;\n\t.reg .b64 %rd<48>;\n");
        if wide {
            m.push_str("\t.reg .b128 %q<8>;\n");
        }
        let _ = write!(
            m,
            "\tld.param.u64 %rd0, [out];\n\tcvta.to.global.u64 %rd0, %rd0;\n\
             \tld.param.u64 %rd1, [in];\n\tcvta.to.global.u64 %rd1, %rd1;\n\
             \tmov.u32 %r0, %tid.x;\n\tmov.u32 %r1, %cluster_ctarank;\n\tmad.lo.u32 %r2, %r1, {}, %r0;\n\
             \tmul.wide.u32 %rd3, %r0, 4;\n\tadd.s64 %rd4, %rd0, %rd3;\n",
            self.threads
        );
        m.push_str(&self.k.body);
        m.push_str("\tret;\n}\n");
        let out = self.k.out.max(4);
        let mut input = input.to_vec();
        if input.is_empty() {
            input.push(0);
        }
        let mut job: Job = crate::kernel::in_out_job(&m, self.ctas as usize, self.threads as usize, &input, out);
        job.cluster = Some([self.ctas, 1, 1]);
        Scenario {
            name: how.to_string(),
            job,
            checks: self.k.checks,
        }
    }
}

/// Module-scope declarations of the cluster scenarios: a word per thread.
const DECLS: &str = ".shared .align 16 .b8 buf[128];";

/// CTAs of the `mapa`/`getctarank`/`barrier.cluster` scenarios.
const CTAS: u32 = 4;

/// Every thread stores its word of `in` (`in[%r2]`) to `buf[4·tid]`.
fn fill(g: &mut Grid) {
    g.by(
        None,
        &[
            "mul.wide.u32 %rd7, %r2, 4;".into(),
            "add.s64 %rd7, %rd1, %rd7;".into(),
            "ld.global.u32 %r10, [%rd7];".into(),
            "mov.u64 %rd8, buf;".into(),
            "add.s64 %rd8, %rd8, %rd3;".into(),
            "st.shared.u32 [%rd8], %r10;".into(),
        ],
    );
}

/// The word thread `t` reads, and the rank it reads it from: word `(7t + 3) mod 32` of CTA
/// `(rank + 1 + t) mod CTAS`.
fn peer(rank: u32, t: u32) -> (u32, u32) {
    ((rank + 1 + t) % CTAS, (7 * t + 3) % THREADS)
}

/// Lines putting [`peer`]'s rank in `%r11` and word offset in `%r12`.
fn peer_lines() -> Vec<String> {
    vec![
        "add.u32 %r11, %r1, %r0;".into(),
        "add.u32 %r11, %r11, 1;".into(),
        format!("rem.u32 %r11, %r11, {CTAS};"),
        "mad.lo.u32 %r12, %r0, 7, 3;".into(),
        format!("rem.u32 %r12, %r12, {THREADS};"),
        "shl.b32 %r12, %r12, 2;".into(),
    ]
}

/// `in`'s word `k`.
fn word(input: &[u8], k: u32) -> [u8; 4] {
    input[4 * k as usize..4 * k as usize + 4].try_into().expect("4 bytes")
}

/// Whether `form` is one of this module's: `barrier.cluster`, `mapa` and `getctarank`.
pub(super) fn is_cluster(form: &Form) -> bool {
    matches!(form.exec(), Some(Exec::BarrierCluster | Exec::Mapa | Exec::Getctarank))
}

/// The `.address_size` of a `mapa`/`getctarank` scenario: 32 for the generic `.u32` forms,
/// whose operand is a generic address in 32 bits (L14112), which only a 32-bit module's fits
/// (§11.1.3, L33312-33347); 64 otherwise.
fn address_size(form: &Form) -> u32 {
    if kind(form) == (true, false) {
        32
    } else {
        64
    }
}

pub(super) fn scenarios(form: &Form, rng: &mut Rng) -> Result<Vec<Scenario>, BuildError> {
    match form.exec() {
        Some(Exec::Mapa) => mapa(form, rng),
        Some(Exec::Getctarank) => getctarank(form, rng),
        Some(Exec::BarrierCluster) => barrier(form, rng),
        _ => Err(BuildError(format!("`{}` is not a cluster form", form.name))),
    }
}

/// Whether the form takes a generic address (no `.shared::cluster`), and its address type is
/// 64-bit.
fn kind(form: &Form) -> (bool, bool) {
    (form.var("ss").is_none_or(str::is_empty), form.var("t") != Some("u32"))
}

/// The address of `buf + %r12` (its shared-memory word) as the form takes it: in `%rd10`
/// (64-bit) or `%r13` (32-bit), generic or `.shared`.
fn own_address(form: &Form) -> Vec<String> {
    let (generic, wide) = kind(form);
    match (generic, wide) {
        (false, true) => vec![
            "mov.u64 %rd10, buf;".into(),
            "cvt.u64.u32 %rd9, %r12;".into(),
            "add.s64 %rd10, %rd10, %rd9;".into(),
        ],
        (false, false) => vec!["mov.u32 %r13, buf;".into(), "add.u32 %r13, %r13, %r12;".into()],
        (true, true) => vec![
            "mov.u64 %rd10, buf;".into(),
            "cvt.u64.u32 %rd9, %r12;".into(),
            "add.s64 %rd10, %rd10, %rd9;".into(),
            "cvta.shared.u64 %rd10, %rd10;".into(),
        ],
        // A generic address in 32 bits: the scenario's module is 32-bit (`address_size`).
        (true, false) => vec![
            "mov.u32 %r13, buf;".into(),
            "add.u32 %r13, %r13, %r12;".into(),
            "cvta.shared.u32 %r13, %r13;".into(),
        ],
    }
}

/// `mapa`: every thread maps its peer word's address into the peer's rank and loads it
/// there; a second round maps into the thread's own rank.
fn mapa(form: &Form, rng: &mut Rng) -> Result<Vec<Scenario>, BuildError> {
    let head = header(form, 90, PtxVersion(7, 8));
    let input = rng.bytes(4 * (THREADS * CTAS) as usize);
    let (generic, wide) = kind(form);
    let mut g = Grid::new(CTAS);
    g.k.address_size = address_size(form);
    fill(&mut g);
    g.sync();
    for own in [false, true] {
        let base = g.records(4);
        let mut lines = peer_lines();
        if own {
            lines.push("mov.u32 %r11, %r1;".into());
        }
        lines.extend(own_address(form));
        let (d, a) = if wide { ("%rd11", "%rd10") } else { ("%r14", "%r13") };
        lines.push(instr(form, &[("d", d.into()), ("a", a.into()), ("b", "%r11".into())])?);
        match (generic, wide) {
            (true, true) => lines.push("ld.u32 %r9, [%rd11];".into()),
            // A 32-bit module's generic address.
            (true, false) => lines.push("ld.u32 %r9, [%r14];".into()),
            (false, true) => lines.push("ld.shared::cluster.u32 %r9, [%rd11];".into()),
            (false, false) => lines.extend([
                "cvt.u64.u32 %rd11, %r14;".into(),
                "ld.shared::cluster.u32 %r9, [%rd11];".into(),
            ]),
        }
        lines.push(Grid::at(4));
        lines.push(format!("st.global.u32 [%rd6+{base}], %r9;"));
        g.by(None, &lines);
        for rank in 0..CTAS {
            for t in 0..THREADS {
                let (r, w) = peer(rank, t);
                let r = if own { rank } else { r };
                g.check(
                    base,
                    4,
                    rank * THREADS + t,
                    word(&input, r * THREADS + w).to_vec(),
                    format!(
                        "the word at the address `mapa` gives for word {w} in CTA rank {r}: the one that CTA wrote (L14114-14116)"
                    ),
                );
            }
        }
    }
    g.sync();
    Ok(vec![g.finish(
        form,
        "mapa of a shared word into each CTA of a 4-CTA cluster, loaded there",
        head,
        DECLS,
        &input,
        false,
    )])
}

/// `getctarank`: the rank of the thread's own word (its own rank) and of that word mapped into
/// the peer's rank (the peer's).
fn getctarank(form: &Form, rng: &mut Rng) -> Result<Vec<Scenario>, BuildError> {
    let head = header(form, 90, PtxVersion(7, 8));
    let input = rng.bytes(4);
    let (generic, wide) = kind(form);
    let mut g = Grid::new(CTAS);
    g.k.address_size = address_size(form);
    for own in [true, false] {
        let base = g.records(4);
        let mut lines = peer_lines();
        lines.extend(own_address(form));
        let a = match (own, wide) {
            (true, true) => "%rd10",
            (true, false) => "%r13",
            (false, true) => {
                let m = if generic {
                    "mapa.u64"
                } else {
                    "mapa.shared::cluster.u64"
                };
                lines.push(format!("{m} %rd11, %rd10, %r11;"));
                "%rd11"
            }
            (false, false) => {
                let m = if generic {
                    "mapa.u32"
                } else {
                    "mapa.shared::cluster.u32"
                };
                lines.push(format!("{m} %r14, %r13, %r11;"));
                "%r14"
            }
        };
        lines.push(instr(form, &[("d", "%r9".into()), ("a", a.into())])?);
        lines.push(Grid::at(4));
        lines.push(format!("st.global.u32 [%rd6+{base}], %r9;"));
        g.by(None, &lines);
        for rank in 0..CTAS {
            for t in 0..THREADS {
                let r = if own { rank } else { peer(rank, t).0 };
                g.check(
                    base,
                    4,
                    rank * THREADS + t,
                    r.to_le_bytes().to_vec(),
                    format!(
                        "getctarank of {}: rank {r} (L14163)",
                        if own {
                            "the thread's own shared word".to_string()
                        } else {
                            format!("its word mapped into CTA rank {r}")
                        }
                    ),
                );
            }
        }
    }
    Ok(vec![g.finish(
        form,
        "getctarank of own and mapped shared addresses in a 4-CTA cluster",
        head,
        DECLS,
        &input,
        false,
    )])
}

/// `barrier.cluster`: three rounds of every thread writing its shared word, the barrier (the
/// form under test with the other half [`SYNC`]'s), and every thread loading a peer's word, which
/// must be the round's. An `.arrive.relaxed` is preceded by `fence.acq_rel.cluster`, as the
/// manual's example does (L17179, L17197-17201): the relaxed arrive orders nothing itself.
fn barrier(form: &Form, rng: &mut Rng) -> Result<Vec<Scenario>, BuildError> {
    let head = header(form, 90, PtxVersion(7, 8));
    const ROUNDS: u32 = 3;
    let input = rng.bytes(4 * (THREADS * CTAS * ROUNDS) as usize);
    let arrive = form.has("arrive");
    let it = instr(form, &[])?;
    let (a, w) = if arrive {
        (it, SYNC[1].to_string())
    } else {
        (SYNC[0].to_string(), it)
    };
    let relaxed = form.var("sem") == Some("relaxed");
    let mut g = Grid::new(CTAS);
    let half = |g: &mut Grid| {
        if relaxed {
            g.line("fence.acq_rel.cluster;");
        }
        g.line(&a);
        g.line(&w);
    };
    for round in 0..ROUNDS {
        g.by(
            None,
            &[
                format!("add.u32 %r15, %r2, {};", round * THREADS * CTAS),
                "mul.wide.u32 %rd7, %r15, 4;".into(),
                "add.s64 %rd7, %rd1, %rd7;".into(),
                "ld.global.u32 %r10, [%rd7];".into(),
                "mov.u64 %rd8, buf;".into(),
                "add.s64 %rd8, %rd8, %rd3;".into(),
                "st.shared.u32 [%rd8], %r10;".into(),
            ],
        );
        half(&mut g);
        let base = g.records(4);
        let mut lines = peer_lines();
        lines.extend([
            "mov.u64 %rd10, buf;".into(),
            "cvt.u64.u32 %rd9, %r12;".into(),
            "add.s64 %rd10, %rd10, %rd9;".into(),
            "mapa.shared::cluster.u64 %rd11, %rd10, %r11;".into(),
            "ld.shared::cluster.u32 %r9, [%rd11];".into(),
            Grid::at(4),
            format!("st.global.u32 [%rd6+{base}], %r9;"),
        ]);
        g.by(None, &lines);
        half(&mut g);
        for rank in 0..CTAS {
            for t in 0..THREADS {
                let (r, wd) = peer(rank, t);
                g.check(
                    base,
                    4,
                    rank * THREADS + t,
                    word(&input, round * THREADS * CTAS + r * THREADS + wd).to_vec(),
                    format!(
                        "round {round}: word {wd} of CTA rank {r}, written before that CTA's arrive: visible after the wait (L17177)"
                    ),
                );
            }
        }
    }
    Ok(vec![g.finish(
        form,
        "three rounds of shared writes, barrier.cluster, loads of the peers' words in a 4-CTA cluster",
        head,
        DECLS,
        &input,
        false,
    )])
}
