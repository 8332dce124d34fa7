//! The type checker against NVIDIA's `ptxas` on generated modules: thousands of small complete
//! PTX modules (`variants.rs`: catalog forms, modifier orders, declaration styles, versions and
//! targets, 32-bit addressing, operand notations, mutations), each judged by `ptxas` 12.9 (the
//! truth) and by the oracle (`parse` then `check`).
//!
//! Agreement is "both accept or both reject". *Unsupported* is counted apart: `ptxas` accepts, the
//! oracle loads the module but says an instruction is valid and not executed yet (the same rule
//! as `typecheck.rs`: the program's first `Op::Unsupported`). Where `ptxas` rejects and the oracle
//! only says "not executed", the oracle took the instruction for valid: a disagreement.
//! `ptxas`'s verdict is taken as it is: under `.address_size 32` ptxas 12.9 never assembles
//! ("32-Bit compilation is no longer supported"), so such a module is rejected, and the
//! oracle, which refuses it too, agrees.
//!
//! Every disagreement is reduced to the components that cause it (dropping twists and extra
//! instructions while the disagreement stays), and its key (`form:cvt.rn.sat.f16.bf16`,
//! `modorder:div.ftz.rn.f32`, `version:6.0<form`) is looked up in the checked-in list
//! `corpus/findings/ptxas-12.9-typecheck-disagreements.txt`. An unlisted disagreement fails the
//! test; listed classes that no longer occur while matching variants now agree are printed.
//!
//! `cargo test` runs the first 300 variants of the fixed seed (`PTXCONF_PTXAS_VARIANTS=N` for
//! more) in a few seconds (ptxas runs in parallel threads); `cargo test -p ptxconf-oracle --test
//! ptxas_agreement -- --ignored` runs 10,000 (about 100 s on 2 cores) and writes a report (figures,
//! the figures per dimension, every class with a count and its smallest example) and a JSON line
//! per variant to `$CARGO_TARGET_TMPDIR`; with `PTXCONF_PTXAS_BLESS=1` it rewrites the known list
//! instead of checking it (counts updated, fixed classes dropped, draft lines for new classes).
//! Without ptxas the ptxas tests fail unless `PTXCONF_NO_PTXAS=1` (as `typecheck.rs`).
//! Manual lines (`L4480`) are those of `ptx-isa-8.7.zh.txt`.

#[path = "ptxas_agreement/variants.rs"]
mod variants;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use variants::{Keep, Rendered, Variant};

const SEED: u64 = 0x5eed_2026_1126_0013;
const CI_SAMPLE: usize = 300;
const FULL: usize = 10_000;

/// Messages with which the oracle declines valid PTX it does not execute (as `typecheck.rs`).
const BY_DESIGN: &[&str] = &[
    "not supported by the oracle",
    "does not execute it yet",
    "not executed by the oracle",
];

fn known_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/findings/ptxas-12.9-typecheck-disagreements.txt")
}

// ---- verdicts -----------------------------------------------------------------------------

#[derive(Clone, Debug, PartialEq, Eq)]
enum Ptxas {
    Accept,
    Reject(String),
    /// No verdict: ptxas crashed (failed without an error message), or failed inside one of its
    /// own expansions (`ptxas <builtin>, line 12; fatal : Parsing error`: it pastes `%v0.w` into
    /// the emulation of `redux.sync`/`vote.sync`/`match.sync` on older targets and cannot parse
    /// it back). The string says which.
    Crash(String),
}

#[derive(Clone, Debug)]
enum Oracle {
    Accept,
    Reject(String),
    Unsupported(String),
    Panic(String),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Outcome {
    BothAccept,
    BothReject,
    /// ptxas accepts; the oracle declines by design.
    Unsupported,
    /// ptxas accepts, the oracle rejects.
    PtxasAccepts,
    /// ptxas rejects, the oracle accepts.
    PtxasRejects,
    OraclePanics,
    /// ptxas crashed: no truth to compare with (counted apart, outside the agreement figure).
    PtxasCrashes,
}

impl Outcome {
    fn agrees(self) -> bool {
        !matches!(
            self,
            Outcome::PtxasAccepts | Outcome::PtxasRejects | Outcome::OraclePanics | Outcome::PtxasCrashes
        )
    }
    fn disagrees(self) -> bool {
        matches!(
            self,
            Outcome::PtxasAccepts | Outcome::PtxasRejects | Outcome::OraclePanics
        )
    }
    fn direction(self) -> &'static str {
        match self {
            Outcome::PtxasAccepts => "ptxas-accepts",
            Outcome::PtxasRejects => "ptxas-rejects",
            Outcome::OraclePanics => "oracle-panics",
            _ => "agree",
        }
    }
}

fn outcome(p: &Ptxas, o: &Oracle) -> Outcome {
    match (p, o) {
        (_, Oracle::Panic(_)) => Outcome::OraclePanics,
        (Ptxas::Crash(_), _) => Outcome::PtxasCrashes,
        (Ptxas::Accept, Oracle::Accept) => Outcome::BothAccept,
        (Ptxas::Accept, Oracle::Unsupported(_)) => Outcome::Unsupported,
        (Ptxas::Accept, Oracle::Reject(_)) => Outcome::PtxasAccepts,
        (Ptxas::Reject(_), Oracle::Accept | Oracle::Unsupported(_)) => Outcome::PtxasRejects,
        (Ptxas::Reject(_), _) => Outcome::BothReject,
    }
}

/// ptxas's first error line (or its whole output when it has none), without the file name.
fn first_error(out: &str) -> String {
    let line = out
        .lines()
        .find(|l| l.contains("error") || l.contains("fatal"))
        .unwrap_or(out.lines().next().unwrap_or(""));
    match line.find("; ") {
        Some(i) if line.starts_with("ptxas ") => line[i + 2..].trim().to_string(),
        _ => line.trim().to_string(),
    }
}

fn run_ptxas(ptxas: &Path, dir: &Path, name: &str, r: &Rendered) -> Ptxas {
    let path = dir.join(format!("{name}.ptx"));
    std::fs::write(&path, &r.text).unwrap();
    let (ok, out) = oracle::ptxas::accepts(ptxas, &path, &r.arch);
    let _ = std::fs::remove_file(&path);
    if ok {
        return Ptxas::Accept;
    }
    if !out.contains("error") && !out.contains("fatal") {
        Ptxas::Crash("crashes".into())
    } else if out.contains("<builtin>") {
        Ptxas::Crash(format!(
            "fails in its own expansion: {}",
            out.lines().next().unwrap_or("").trim()
        ))
    } else {
        Ptxas::Reject(first_error(&out))
    }
}

fn run_oracle(text: &str) -> Oracle {
    let t = text.to_string();
    let r = std::panic::catch_unwind(move || {
        let m = oracle::parse::parse(&t)?;
        match oracle::check::check(&m)?.first_unsupported() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    });
    match r {
        Ok(Ok(())) => Oracle::Accept,
        Ok(Err(e)) => {
            let msg = format!("{}: {}", e.location("k.ptx"), e.message);
            if BY_DESIGN.iter().any(|m| e.message.contains(m)) {
                Oracle::Unsupported(msg)
            } else {
                Oracle::Reject(msg)
            }
        }
        Err(p) => Oracle::Panic(
            p.downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default(),
        ),
    }
}

// ---- evaluation ---------------------------------------------------------------------------

/// One rendering judged by both.
#[derive(Clone, Debug)]
struct Judged {
    rendered: Rendered,
    ptxas: Ptxas,
    oracle: Oracle,
    outcome: Outcome,
}

/// A variant's result, with the reduced disagreement if there is one.
#[derive(Clone, Debug)]
struct Result1 {
    variant: Variant,
    full: Judged,
    /// Keys of every component.
    keys: Vec<String>,
    /// The disagreement reduced: its components' keys and the smallest rendering.
    reduced: Option<(Vec<String>, Judged)>,
    ptxas_calls: usize,
}

fn judge(ptxas: &Path, dir: &Path, name: &str, v: &Variant, keep: &Keep) -> Judged {
    let rendered = v.render(keep);
    let p = run_ptxas(ptxas, dir, name, &rendered);
    let o = run_oracle(&rendered.text);
    let outcome = outcome(&p, &o);
    Judged {
        rendered,
        ptxas: p,
        oracle: o,
        outcome,
    }
}

/// Drops components while the disagreement stays the same: twists (last first), then extra
/// instructions, then the instruction under test (a header twist may disagree on its own).
fn reduce(ptxas: &Path, dir: &Path, name: &str, v: &Variant, full: &Judged, calls: &mut usize) -> (Keep, Judged) {
    let mut keep = v.all();
    let mut best = full.clone();
    for i in (0..v.twists.len()).rev() {
        let mut k = keep.clone();
        k.twists[i] = false;
        *calls += 1;
        let j = judge(ptxas, dir, name, v, &k);
        if j.outcome == full.outcome {
            keep = k;
            best = j;
        }
    }
    for i in (0..v.insts.len()).rev() {
        let mut k = keep.clone();
        k.insts[i] = false;
        if k.insts.iter().all(|x| !x) && k.twists.iter().all(|x| !x) {
            continue;
        }
        *calls += 1;
        let j = judge(ptxas, dir, name, v, &k);
        if j.outcome == full.outcome {
            keep = k;
            best = j;
        }
    }
    (keep, best)
}

fn evaluate(ptxas: &Path, n: usize) -> (Vec<Result1>, std::time::Duration) {
    let start = std::time::Instant::now();
    let dir = std::env::temp_dir().join(format!("ptxconf-ptxas-agreement-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let next = AtomicUsize::new(0);
    let out: Mutex<Vec<Option<Result1>>> = Mutex::new(vec![None; n]);
    // ptxas is a short process; a few more workers than cores keep the cores busy while one
    // starts up.
    let workers = std::thread::available_parallelism().map_or(2, |p| p.get()) + 1;
    std::thread::scope(|s| {
        for w in 0..workers {
            let (dir, next, out) = (&dir, &next, &out);
            s.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= n {
                    break;
                }
                let v = variants::generate(SEED, i as u64);
                let name = format!("w{w}");
                let all = v.all();
                let full = judge(ptxas, dir, &name, &v, &all);
                let mut calls = 1;
                let reduced = full.outcome.disagrees().then(|| {
                    let (k, j) = reduce(ptxas, dir, &name, &v, &full, &mut calls);
                    (v.keys(&k), j)
                });
                let keys = v.keys(&all);
                out.lock().unwrap()[i] = Some(Result1 {
                    variant: v,
                    full,
                    keys,
                    reduced,
                    ptxas_calls: calls,
                });
            });
        }
    });
    let _ = std::fs::remove_dir_all(&dir);
    let results = out.into_inner().unwrap().into_iter().map(Option::unwrap).collect();
    (results, start.elapsed())
}

// ---- the known list -----------------------------------------------------------------------

/// One line of the known-disagreement list: `direction | pattern | ptxas: ... | oracle: ... | L<n> ...`.
#[derive(Clone, Debug)]
struct Known {
    direction: String,
    /// Globs (`*` only), all of which must match some component key.
    pattern: Vec<String>,
    line: String,
}

fn parse_known(text: &str) -> Result<Vec<Known>, String> {
    let mut v = Vec::new();
    for (i, l) in text.lines().enumerate() {
        let l = l.trim();
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        let f: Vec<&str> = l.split(" | ").map(str::trim).collect();
        if f.len() < 5 {
            return Err(format!(
                "line {}: expected `direction | pattern | ptxas | oracle | manual`",
                i + 1
            ));
        }
        if !matches!(f[0], "ptxas-accepts" | "ptxas-rejects" | "oracle-panics") {
            return Err(format!("line {}: bad direction `{}`", i + 1, f[0]));
        }
        if !f[4].contains('L')
            || !f[4].split(|c: char| !c.is_ascii_alphanumeric()).any(|w| {
                w.strip_prefix('L')
                    .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
            })
        {
            return Err(format!("line {}: the manual column names no line `L<n>`", i + 1));
        }
        v.push(Known {
            direction: f[0].to_string(),
            pattern: f[1].split(" + ").map(|s| s.trim().to_string()).collect(),
            line: l.to_string(),
        });
    }
    Ok(v)
}

fn glob(p: &str, s: &str) -> bool {
    match p.split_once('*') {
        None => p == s,
        Some((head, rest)) => {
            let Some(tail) = s.strip_prefix(head) else {
                return false;
            };
            (0..=tail.len()).any(|i| tail.is_char_boundary(i) && glob(rest, &tail[i..]))
        }
    }
}

impl Known {
    fn matches(&self, direction: &str, keys: &[String]) -> bool {
        self.direction == direction && self.pattern.iter().all(|p| keys.iter().any(|k| glob(p, k)))
    }
}

// ---- the report ---------------------------------------------------------------------------

struct Summary {
    text: String,
    /// The first lines of `text`: the figures.
    figures: String,
    unlisted: Vec<String>,
    /// Per line of the known list: disagreements it matched, agreeing variants its pattern matches.
    per_known: Vec<(usize, usize)>,
    /// Draft lines for the unlisted disagreements (`L?` and `TODO` for a person to fill in).
    drafts: Vec<String>,
    total: usize,
    agree: usize,
    listed_disagreements: usize,
}

/// The lines of a rendering a reader needs: the header and the instruction's own lines.
fn excerpt(r: &Rendered) -> String {
    let lines: Vec<&str> = r.text.lines().collect();
    let mut v: Vec<String> = lines[..3].iter().map(|s| s.to_string()).collect();
    for &l in &r.lines {
        if let Some(t) = lines.get(l as usize - 1) {
            v.push(t.trim().to_string());
        }
    }
    v.join(" ⏎ ")
}

fn oracle_msg(o: &Oracle) -> String {
    match o {
        Oracle::Accept => "accepts".into(),
        Oracle::Reject(m) => format!("rejects: {m}"),
        Oracle::Unsupported(m) => format!("declines (unsupported): {m}"),
        Oracle::Panic(m) => format!("panics: {m}"),
    }
}

fn ptxas_msg(p: &Ptxas) -> String {
    match p {
        Ptxas::Accept => "accepts".into(),
        Ptxas::Reject(m) => format!("rejects: {m}"),
        Ptxas::Crash(why) => format!("no verdict: {why}"),
    }
}

fn summarize(results: &[Result1], known: &[Known], elapsed: std::time::Duration) -> Summary {
    // Variants ptxas crashed on have no truth: they are counted apart.
    let crashes = results
        .iter()
        .filter(|r| r.full.outcome == Outcome::PtxasCrashes)
        .count();
    let total = results.len() - crashes;
    let mut counts: BTreeMap<Outcome, usize> = BTreeMap::new();
    for r in results {
        *counts.entry(r.full.outcome).or_default() += 1;
    }
    let c = |o: Outcome| counts.get(&o).copied().unwrap_or(0);
    let agree = results.iter().filter(|r| r.full.outcome.agrees()).count();
    let ptxas_ok = results.iter().filter(|r| matches!(r.full.ptxas, Ptxas::Accept)).count();
    let listed_forms = results
        .iter()
        .filter(|r| r.keys.iter().any(|k| k.starts_with("form:listed:")))
        .count();
    let listed_forms_dis = results
        .iter()
        .filter(|r| {
            r.reduced
                .as_ref()
                .is_some_and(|(k, _)| k.iter().any(|k| k.starts_with("form:listed:")))
        })
        .count();
    let twisted = results.iter().filter(|r| !r.variant.twists.is_empty()).count();
    let calls: usize = results.iter().map(|r| r.ptxas_calls).sum();
    let mut s = String::new();
    let pct = |a: usize| 100.0 * a as f64 / total.max(1) as f64;
    s += &format!(
        "{} variants (seed {SEED:#x}; {twisted} with twists), {calls} ptxas runs in {:.1} s; ptxas gave no verdict \
         (crashed) on {crashes}, left out, {total} judged\n",
        results.len(),
        elapsed.as_secs_f64()
    );
    s += &format!(
        "ptxas accepts {ptxas_ok} ({:.1}%), rejects {} ({:.1}%) of those judged\n",
        pct(ptxas_ok),
        total - ptxas_ok,
        pct(total - ptxas_ok)
    );
    s += &format!(
        "agreement {agree}/{total} = {:.2}%: both accept {}, both reject {}, unsupported (ptxas accepts, oracle \
         declines by design) {}\n",
        pct(agree),
        c(Outcome::BothAccept),
        c(Outcome::BothReject),
        c(Outcome::Unsupported)
    );
    s += &format!(
        "disagreements {}: ptxas accepts/oracle rejects {}, ptxas rejects/oracle accepts {}, oracle panics {}\n",
        total - agree,
        c(Outcome::PtxasAccepts),
        c(Outcome::PtxasRejects),
        c(Outcome::OraclePanics)
    );
    s += &format!(
        "variants using a form of ptxas-12.9-rejects.txt: {listed_forms} ({listed_forms_dis} disagreements reduce to one)\n"
    );
    for r in results
        .iter()
        .filter(|r| r.full.outcome == Outcome::PtxasCrashes)
        .take(5)
    {
        s += &format!(
            "ptxas gives no verdict on variant {} ({}): {}\n",
            r.variant.index,
            ptxas_msg(&r.full.ptxas),
            excerpt(&r.full.rendered)
        );
    }
    // Unsupported messages.
    let mut unsup: BTreeMap<String, usize> = BTreeMap::new();
    for r in results {
        if let Oracle::Unsupported(m) = &r.full.oracle {
            if r.full.outcome == Outcome::Unsupported {
                let m = m.split_once(": ").map_or(m.as_str(), |x| x.1);
                *unsup.entry(normalize(m)).or_default() += 1;
            }
        }
    }
    if !unsup.is_empty() {
        s += "unsupported, by message:\n";
        let mut v: Vec<_> = unsup.into_iter().collect();
        v.sort_by_key(|x| std::cmp::Reverse(x.1));
        for (m, n) in v {
            s += &format!("  {n:5}  {m}\n");
        }
    }
    // How often ptxas takes the plain instances (no twist) of each family: a low rate means the
    // writer cannot form that family's operands, or ptxas's grammar is narrower than the catalog's.
    type Family = (usize, usize, BTreeMap<String, (usize, String)>);
    let mut fam: BTreeMap<&str, Family> = BTreeMap::new();
    for r in results.iter().filter(|r| r.variant.twists.is_empty()) {
        let f = &spec::catalog::catalog().forms[r.variant.insts[0]];
        let e = fam.entry(spec::catalog::catalog().family_of(f).id).or_default();
        e.0 += 1;
        match &r.full.ptxas {
            Ptxas::Reject(m) => {
                let x = e.2.entry(normalize(m)).or_insert((0, excerpt(&r.full.rendered)));
                x.0 += 1;
            }
            _ => e.1 += 1,
        }
    }
    s += "\nplain variants (no twist) ptxas accepts, by family:\n";
    for (f, (n, ok, msgs)) in &fam {
        s += &format!("  {f:8} {ok:5}/{n:<5}\n");
        if std::env::var("PTXCONF_PTXAS_DEBUG").is_ok() {
            let mut v: Vec<_> = msgs.iter().collect();
            v.sort_by_key(|x| std::cmp::Reverse(x.1 .0));
            for (m, (k, ex)) in v.iter().take(8) {
                s += &format!("        {k:4} {m}\n             {ex}\n");
            }
        }
    }
    // Per dimension (twist kind, or `plain`): variants, ptxas accepts, agreement.
    let mut dims: BTreeMap<String, (usize, usize, usize)> = BTreeMap::new();
    for r in results {
        let mut ks: Vec<String> = r
            .keys
            .iter()
            .filter(|k| !k.starts_with("form:"))
            .map(|k| {
                let mut parts = k.split(':');
                let a = parts.next().unwrap_or("");
                match (a, parts.next()) {
                    ("version" | "target" | "decl" | "func" | "mut" | "addr" | "imm", Some(b)) => {
                        let b = b.split(['<', '.']).next().unwrap_or(b);
                        let b = if a == "target" || a == "version" { "*" } else { b };
                        format!("{a}:{b}")
                    }
                    _ => a.to_string(),
                }
            })
            .collect();
        if ks.is_empty() {
            ks.push("plain".into());
        }
        ks.dedup();
        for k in ks {
            let e = dims.entry(k).or_default();
            e.0 += 1;
            e.1 += usize::from(matches!(r.full.ptxas, Ptxas::Accept));
            e.2 += usize::from(r.full.outcome.agrees());
        }
    }
    s += "\nby dimension (variants, ptxas accepts, agree):\n";
    for (k, (n, ok, ag)) in &dims {
        s += &format!("  {k:22} {n:6} {ok:6} {ag:6}\n");
    }
    // Disagreements by class.
    let mut by_known: Vec<Vec<&Result1>> = vec![Vec::new(); known.len()];
    let mut unlisted: BTreeMap<(String, String), Vec<&Result1>> = BTreeMap::new();
    for r in results {
        let Some((keys, _)) = &r.reduced else { continue };
        let dir = r.full.outcome.direction();
        match known.iter().position(|k| k.matches(dir, keys)) {
            Some(i) => by_known[i].push(r),
            None => unlisted.entry((dir.to_string(), keys.join(" + "))).or_default().push(r),
        }
    }
    let example = |rs: &[&Result1]| -> String {
        let r = rs
            .iter()
            .min_by_key(|r| r.reduced.as_ref().map_or(usize::MAX, |(_, j)| j.rendered.text.len()))
            .unwrap();
        let (_, j) = r.reduced.as_ref().unwrap();
        format!(
            "      e.g. variant {}: {}\n      ptxas: {}\n      oracle: {}\n",
            r.variant.index,
            excerpt(&j.rendered),
            ptxas_msg(&j.ptxas),
            oracle_msg(&j.oracle)
        )
    };
    let listed_disagreements: usize = by_known.iter().map(Vec::len).sum();
    s += &format!("\nlisted disagreement classes seen ({listed_disagreements} variants):\n");
    let mut now_agree = Vec::new();
    let mut per_known = Vec::new();
    for (k, rs) in known.iter().zip(&by_known) {
        // Variants whose components match the class but agree.
        let agreeing = results
            .iter()
            .filter(|r| r.full.outcome.agrees() && k.pattern.iter().all(|p| r.keys.iter().any(|x| glob(p, x))))
            .count();
        per_known.push((rs.len(), agreeing));
        if rs.is_empty() {
            if agreeing > 0 {
                now_agree.push(format!("  ({agreeing} agreeing variants) {}", k.line));
            }
            continue;
        }
        s += &format!("  {:5}  {} | {}\n", rs.len(), k.direction, k.pattern.join(" + "));
        s += &example(rs);
    }
    if !now_agree.is_empty() {
        s += "\nlisted classes that did not disagree in this run although matching variants were drawn (fixed?):\n";
        s += &now_agree.join("\n");
        s += "\n";
    }
    let mut unlisted_lines = Vec::new();
    let mut drafts = Vec::new();
    for ((dir, key), rs) in &unlisted {
        let r = rs
            .iter()
            .min_by_key(|r| r.reduced.as_ref().map_or(usize::MAX, |(_, j)| j.rendered.text.len()))
            .unwrap();
        let (_, j) = r.reduced.as_ref().unwrap();
        let clean = |t: String| t.replace(" | ", " / ");
        drafts.push(format!(
            "{dir} | {key} | ptxas: {} | oracle: {} | L? (TODO: the manual's line) | {} variants | e.g. `{}` | TODO: the cause",
            clean(ptxas_msg(&j.ptxas)),
            clean(oracle_msg(&j.oracle)),
            rs.len(),
            clean(excerpt(&j.rendered).replace(" ⏎ ", " "))
        ));
    }
    if !unlisted.is_empty() {
        let n: usize = unlisted.values().map(Vec::len).sum();
        s += &format!("\nUNLISTED disagreements ({n} variants, {} keys):\n", unlisted.len());
        let mut v: Vec<_> = unlisted.iter().collect();
        v.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then(a.0.cmp(b.0)));
        for ((dir, key), rs) in v {
            let line = format!("  {:5}  {dir} | {key}\n{}", rs.len(), example(rs));
            s += &line;
            unlisted_lines.push(line);
        }
    }
    let figures = s.lines().take(4).collect::<Vec<_>>().join("\n");
    Summary {
        figures,
        per_known,
        drafts,
        text: s,
        unlisted: unlisted_lines,
        total,
        agree,
        listed_disagreements,
    }
}

/// A message with its specifics (backquoted text, numbers) blanked, for grouping.
fn normalize(m: &str) -> String {
    let mut out = String::new();
    let mut in_tick = false;
    for ch in m.chars() {
        match ch {
            '`' | '\'' => {
                if !in_tick {
                    out.push_str("`…`");
                }
                in_tick = !in_tick;
            }
            _ if in_tick => {}
            _ => out.push(ch),
        }
    }
    out
}

fn run(n: usize) -> Option<Summary> {
    let ptxas = oracle::ptxas::required("the generated-variant agreement test")?;
    let known = parse_known(&std::fs::read_to_string(known_path()).unwrap_or_default()).unwrap();
    let (results, elapsed) = evaluate(&ptxas, n);
    let sum = summarize(&results, &known, elapsed);
    let report = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("ptxas-agreement-{n}.txt"));
    let _ = std::fs::write(&report, &sum.text);
    // Every variant's components and verdicts, one JSON object per line (a variant's text is
    // `variants::generate(SEED, index)` rendered; reduced disagreements carry theirs).
    let mut jl = String::new();
    for r in &results {
        let mut o = serde_json::json!({
            "index": r.variant.index,
            "keys": r.keys,
            "outcome": format!("{:?}", r.full.outcome),
            "ptxas": ptxas_msg(&r.full.ptxas),
            "oracle": oracle_msg(&r.full.oracle),
        });
        if let Some((k, j)) = &r.reduced {
            o["reduced"] = serde_json::json!({"keys": k, "text": j.rendered.text, "ptxas": ptxas_msg(&j.ptxas),
                "oracle": oracle_msg(&j.oracle)});
        }
        jl += &o.to_string();
        jl.push('\n');
    }
    let _ = std::fs::write(report.with_extension("jsonl"), jl);
    eprintln!("{}\n(report: {})", sum.text, report.display());
    Some(sum)
}

/// The known list's header; `{figures}` is replaced by the run's figures.
const HEADER: &str = "\
# Known disagreements between the oracle's type checker and ptxas 12.9 on generated variants
#
# Produced by oracle/tests/ptxas_agreement.rs (`cargo test -p ptxconf-oracle --test ptxas_agreement -- --ignored`;
# with PTXCONF_PTXAS_BLESS=1 it rewrites this file: counts updated, fixed classes dropped, draft lines added for new
# ones, with `L?`/`TODO` for a person to fill in before the list parses again).
# 10,000 deterministic variants (generator oracle/tests/ptxas_agreement/variants.rs), each a small complete module
# judged by ptxas 12.9.86 (`-arch=sm_<target>`, the truth) and by the oracle (parse + check); every disagreement
# reduced to the components (instructions, twists) that cause it. Figures of the run this list was written from:
{figures}
#
# One line per class:  direction | pattern | ptxas: message | oracle: message | manual (ptx-isa-8.7.zh.txt lines) |
#                      count in that run | smallest example | cause
# - direction: `ptxas-accepts` (the oracle rejects), `ptxas-rejects` (the oracle accepts), `oracle-panics`.
# - pattern: ` + `-separated globs (`*` matches anything); each must match one component key of the reduced
#   disagreement. Keys: `form:<form key>[operand names when several forms share the name]` (`form:listed:...` for
#   forms of ptxas-12.9-rejects.txt), `version:X.Y[<form|<target]`, `target:sm_X[<form]`, `addr32`, `decl:<style>`,
#   `modorder:<name as written>`, `hint:<opcode>.<hint>`, `<operand twist>:<opcode>.<operand>` (imm:oct, addr:+imm,
#   addr:var, addr:othervar, addr:imm, addr:32bitreg, sink, sink:pred, brace1, vecreg:whole, vecreg:elem, varval,
#   symbol, nopipe, neg, pred:not, regtype, mut:width, mut:immreg, mut:immdst, mut:undeclared, mut:pred-as-int),
#   `mut:dupmod.<m>:<opcode>`, `mut:mod.<m>:<opcode>`, `mut:droptype:<opcode>`, `mut:dropop:<opcode>`,
#   `mut:extraop:<opcode>`, `guard:<p|!p>:<opcode>`, `func:<regparams|paramcall>`.
# - The test fails on a disagreement no line matches, and prints the lines that matched nothing although variants
#   matching their pattern were drawn (fixed: delete them). Every line's example is judged again by ptxas and the
#   oracle on each `cargo test` (`every_listed_example_still_disagrees`: the example's statements in the variants'
#   kernel template), which fails when one no longer disagrees in its line's direction: a stale line. The variants
#   write matrix fragments with the lengths of spec::catalog::fragment, and the forms of ptxas-12.9-rejects.txt are
#   refused by the checker as ptxas refuses them, so neither shows up here.
#
";

/// Rewrites the known list from a full run: the header's figures, each line's count, lines that
/// matched no disagreement while matching variants agree dropped (fixed), drafts for new classes.
fn bless(sum: &Summary) {
    let text = std::fs::read_to_string(known_path()).unwrap_or_default();
    let mut out = HEADER.replace(
        "{figures}",
        &sum.figures
            .lines()
            .map(|l| format!("#   {l}"))
            .collect::<Vec<_>>()
            .join("\n"),
    );
    let mut i = 0;
    for l in text.lines() {
        let t = l.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        let (dis, agreeing) = sum.per_known.get(i).copied().unwrap_or((0, 0));
        i += 1;
        if dis == 0 && agreeing > 0 {
            eprintln!("bless: dropping (fixed) {t}");
            continue;
        }
        let mut f: Vec<String> = t.split(" | ").map(str::to_string).collect();
        if f.len() > 5 {
            f[5] = format!("{dis} variants");
        }
        out += &f.join(" | ");
        out.push('\n');
    }
    for d in &sum.drafts {
        eprintln!("bless: new class (fill in its manual line and cause) {d}");
        out += d;
        out.push('\n');
    }
    std::fs::write(known_path(), out).unwrap();
}

fn check(sum: &Summary) {
    // Agreement excluding the listed disagreements must be at least 99.9%; any unlisted one fails.
    let effective = (sum.agree + sum.listed_disagreements) as f64 / sum.total as f64;
    assert!(
        sum.unlisted.is_empty() && effective >= 0.999,
        "{} unlisted disagreement classes (agreement excluding listed ones {:.2}%); list them in {} once \
         understood, or fix the checker:\n{}",
        sum.unlisted.len(),
        100.0 * effective,
        known_path().display(),
        sum.unlisted.join("")
    );
}

// ---- tests --------------------------------------------------------------------------------

#[test]
fn generator_is_deterministic_and_mixed() {
    let a: Vec<String> = (0..200)
        .map(|i| {
            variants::generate(SEED, i)
                .render(&variants::generate(SEED, i).all())
                .text
        })
        .collect();
    let b: Vec<String> = (0..200)
        .map(|i| {
            variants::generate(SEED, i)
                .render(&variants::generate(SEED, i).all())
                .text
        })
        .collect();
    assert_eq!(a, b);
    let vs: Vec<Variant> = (0..1000).map(|i| variants::generate(SEED, i)).collect();
    let twisted = vs.iter().filter(|v| !v.twists.is_empty()).count();
    let multi = vs.iter().filter(|v| v.insts.len() > 1).count();
    assert!((300..800).contains(&twisted), "{twisted} of 1000 twisted");
    assert!(multi >= 100, "{multi} of 1000 with several instructions");
    let mut fams = std::collections::BTreeSet::new();
    for v in &vs {
        let f = &spec::catalog::catalog().forms[v.insts[0]];
        fams.insert(spec::catalog::catalog().family_of(f).id);
    }
    assert!(fams.len() >= 15, "{fams:?}");
}

#[test]
fn the_template_alone_is_valid() {
    let v = variants::generate(SEED, 0);
    let keep = Keep {
        insts: vec![false; v.insts.len()],
        twists: vec![false; v.twists.len()],
    };
    let r = v.render(&keep);
    assert!(matches!(run_oracle(&r.text), Oracle::Accept), "{}", r.text);
}

#[test]
fn the_known_list_is_well_formed() {
    let text = std::fs::read_to_string(known_path()).expect("the known-disagreement list");
    let known = parse_known(&text).unwrap();
    assert!(!known.is_empty());
    assert!(glob("form:listed:*", "form:listed:set.equ.f16.u32"));
    assert!(glob("modorder:div.*.f32", "modorder:div.ftz.rn.f32"));
    assert!(!glob("modorder:div.*.f32", "modorder:div.ftz.rn.f64"));
}

/// The module of a known line's example (`e.g. `.version V .target sm_T [.address_size N] STATEMENTS``):
/// the statements in the kernel of the variants' template (`variants::render`: the same module-scope
/// buffers `gbuf`, `cbuf`, `sbuf`, `fvoid` and the kernel's `lbuf`). `None` without an example.
fn example_module(line: &str) -> Option<variants::Rendered> {
    let ex = line.split("e.g. `").nth(1)?.split('`').next()?.trim();
    let (version, rest) = ex.strip_prefix(".version ")?.split_once(' ')?;
    let (target, rest) = rest.trim_start().strip_prefix(".target sm_")?.split_once(' ')?;
    let (bits, body) = match rest.trim_start().strip_prefix(".address_size ") {
        Some(r) => r.split_once(' ')?,
        None => ("64", rest),
    };
    let text = format!(
        ".version {version}\n.target sm_{target}\n.address_size {bits}\n\n\
         .global .align 16 .b8 gbuf[256];\n\
         .const .align 16 .b8 cbuf[256];\n\
         .shared .align 16 .b8 sbuf[256];\n\n\
         .func fvoid()\n{{\n\tret;\n}}\n\n\
         .visible .entry k(.param .u64 kp)\n{{\n\t.local .align 16 .b8 lbuf[64];\n\t{}\nL_end:\n\tret;\n}}\n",
        body.trim()
    );
    Some(variants::Rendered {
        text,
        arch: target.to_string(),
        lines: vec![17],
    })
}

/// Every line of the known list still disagrees: its example, judged again by ptxas and by the
/// oracle, disagrees in the line's direction. A line the checker (or ptxas) has since come to
/// agree with is stale and fails here, naming the line (delete it, or give it an example that
/// still disagrees).
#[test]
fn every_listed_example_still_disagrees() {
    let text = std::fs::read_to_string(known_path()).expect("the known-disagreement list");
    let known = parse_known(&text).unwrap();
    let Some(ptxas) = oracle::ptxas::required("the known-disagreement examples") else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("ptxconf-ptxas-known-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut stale = Vec::new();
    for (i, k) in known.iter().enumerate() {
        let r = example_module(&k.line).unwrap_or_else(|| panic!("no parsable example `e.g. `...`` in: {}", k.line));
        let p = run_ptxas(&ptxas, &dir, &format!("known{i}"), &r);
        let o = run_oracle(&r.text);
        let got = outcome(&p, &o);
        if got.direction() != k.direction {
            stale.push(format!(
                "{}\n  now: {:?} (ptxas {}; oracle {})\n  module:\n{}",
                k.line,
                got,
                ptxas_msg(&p),
                oracle_msg(&o),
                r.text
            ));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        stale.is_empty(),
        "{} lines of {} no longer disagree as they say (stale: delete or update them):\n{}",
        stale.len(),
        known_path().display(),
        stale.join("\n")
    );
}

/// A stale line is caught: the example of the line that used to list `cvt`'s packed `.e2m3x2`
/// source with an immediate (ptxas refuses it, and the checker now refuses it too, catalog
/// `+reg`) agrees, and an example that still disagrees does not.
#[test]
fn a_stale_example_is_told_apart() {
    let line = "ptxas-rejects | imm:* | ptxas: rejects | oracle: accepts | L3018 | 1 variants | e.g. \
                `.version 8.7 .target sm_100a .reg .b32 %r<1>; cvt.rn.f16x2.e2m3x2 %r0, 63;` | cause";
    let r = example_module(line).unwrap();
    assert!(r.text.contains(".target sm_100a\n.address_size 64\n"), "{}", r.text);
    assert!(
        r.text.lines().nth(16).unwrap().contains("cvt.rn.f16x2.e2m3x2 %r0, 63;"),
        "{}",
        r.text
    );
    assert!(
        matches!(run_oracle(&r.text), Oracle::Reject(_)),
        "the checker refuses it now"
    );
}

/// The CI sample: the first 300 variants (`PTXCONF_PTXAS_VARIANTS=N` for N).
#[test]
fn ptxas_agreement_sample() {
    let n = std::env::var("PTXCONF_PTXAS_VARIANTS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(CI_SAMPLE);
    if let Some(sum) = run(n) {
        check(&sum);
    }
}

#[test]
#[ignore = "10,000 variants (a few minutes on 2 cores); the CI test runs the first 300"]
fn ptxas_agreement_full() {
    if let Some(sum) = run(FULL) {
        if std::env::var("PTXCONF_PTXAS_BLESS").as_deref() == Ok("1") {
            bless(&sum);
            return;
        }
        check(&sum);
    }
}

/// Every catalog form the writer can form, written plainly under its own minimum target, judged by
/// ptxas and by the oracle: one line per form to `$CARGO_TARGET_TMPDIR/ptxas-census.tsv` (form key,
/// ptxas verdict, oracle verdict). The evidence behind the forms `ptxas-12.9-rejects.txt` lists.
#[test]
#[ignore = "every catalog form through ptxas (a few minutes on 2 cores)"]
fn ptxas_census() {
    let Some(ptxas) = oracle::ptxas::required("the ptxas census") else {
        return;
    };
    let forms: Vec<Variant> = spec::catalog::catalog().ids().filter_map(Variant::plain).collect();
    let dir = std::env::temp_dir().join(format!("ptxconf-ptxas-census-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let next = AtomicUsize::new(0);
    let out: Mutex<Vec<String>> = Mutex::new(vec![String::new(); forms.len()]);
    let workers = std::thread::available_parallelism().map_or(2, |p| p.get()) + 1;
    std::thread::scope(|s| {
        for w in 0..workers {
            let (dir, next, out, forms, ptxas) = (&dir, &next, &out, &forms, &ptxas);
            s.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= forms.len() {
                    break;
                }
                let v = &forms[i];
                let j = judge(ptxas, dir, &format!("c{w}"), v, &v.all());
                let keys = v.keys(&v.all()).join(" ");
                let text: Vec<&str> = j
                    .rendered
                    .lines
                    .iter()
                    .map(|&l| j.rendered.text.lines().nth(l as usize - 1).unwrap_or("").trim())
                    .collect();
                out.lock().unwrap()[i] = format!(
                    "{keys}\t{:?}\t{}\t{}\tsm_{}\t{}",
                    j.outcome,
                    ptxas_msg(&j.ptxas),
                    oracle_msg(&j.oracle),
                    j.rendered.arch,
                    text.join(" ")
                );
            });
        }
    });
    let _ = std::fs::remove_dir_all(&dir);
    let lines = out.into_inner().unwrap();
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join("ptxas-census.tsv");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    eprintln!("{} forms judged: {}", lines.len(), path.display());
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/findings/ptxas-12.9-rejects.txt");
    let text = std::fs::read_to_string(&file).unwrap();
    let kept = text.split(CENSUS_MARK).next().unwrap_or("").trim_end().to_string();
    let from_kernels: std::collections::BTreeSet<&str> = kept
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    let listed = census_listed(&lines, &from_kernels);
    let fresh = format!("{kept}\n\n{CENSUS_MARK}{}", listed.join(""));
    if std::env::var("PTXCONF_PTXAS_BLESS").as_deref() == Ok("1") {
        std::fs::write(&file, fresh).unwrap();
    } else {
        assert!(
            text == fresh,
            "ptxas-12.9-rejects.txt's census section differs from this census (PTXCONF_PTXAS_BLESS=1 rewrites it)"
        );
    }
}

/// Where the census's part of `ptxas-12.9-rejects.txt` begins (the part above it comes from the
/// conformance kernels).
const CENSUS_MARK: &str = "# ---- census (oracle/tests/ptxas_agreement.rs `ptxas_census`) ----\n";

/// ptxas's messages that refuse a form itself, whatever its operands: the modifiers together,
/// the types together, the shape with its count. Others (vector sizes, argument counts, the sink
/// destination) are about how the census wrote the operands, and the checker judges them.
const GRAMMAR_MESSAGES: &[&str] = &[
    // .m16n16 ldmatrix and .m16n8 stmatrix only with .trans.
    "require for instruction",
    // A form of PTX 8.7's grammar that ptxas 12.9 takes only from 8.8 on (tcgen05.mma
    // .block_scale without .scale_vec reads as `.block32`); the checker lists it for older
    // versions only.
    "requires PTX ISA .version",
    "Illegal reduction operation",
    "requires scope with",
    "requires order with",
    "requires modifier",
    "cannot be combined with",
    "Modifier '.trans' require",
    "State space incorrect",
    "Illegal modifier",
    "Incorrect no. of matrix",
    "Unexpected instruction types",
    ".dtype must be",
];

/// Forms (key prefix) ptxas refuses with a message about operands however they are written
/// (tried by hand with every fragment length): mma.sp with C and D of different types
/// ("Arguments mismatch" with D and C of two or four registers each); ldmatrix .m16n16.x4
/// ("Incorrect no. of matrix: 4" with four registers, "Illegal vector size: 8" with eight).
const REFUSED_WHATEVER_WRITTEN: &[(&str, &str)] = &[
    ("mma.sp", "Arguments mismatch"),
    ("ldmatrix.sync.aligned.m16n16.x4", "Illegal vector size"),
];

/// The census lines of forms ptxas refuses by a [`GRAMMAR_MESSAGES`] message, other than those the
/// conformance kernels found, as `KEY MESSAGE` lines (one per form key).
fn census_listed(lines: &[String], from_kernels: &std::collections::BTreeSet<&str>) -> Vec<String> {
    let mut out = std::collections::BTreeMap::new();
    for l in lines {
        let cols: Vec<&str> = l.split('\t').collect();
        let (Some(keys), Some(msg)) = (cols.first(), cols.get(2)) else {
            continue;
        };
        let Some(key) = keys.split(' ').next().and_then(|k| k.strip_prefix("form:")) else {
            continue;
        };
        let key = key.strip_prefix("listed:").unwrap_or(key);
        let key = key.split('[').next().unwrap_or(key);
        if from_kernels.contains(key) {
            continue;
        }
        let Some(msg) = msg.strip_prefix("rejects: ") else {
            continue;
        };
        let refused_whatever_written = REFUSED_WHATEVER_WRITTEN
            .iter()
            .any(|(k, m)| key.starts_with(k) && msg.contains(m));
        if refused_whatever_written || GRAMMAR_MESSAGES.iter().any(|g| msg.contains(g)) {
            let msg = msg
                .trim_start_matches("error")
                .trim_start()
                .trim_start_matches(':')
                .trim();
            out.entry(key.to_string()).or_insert_with(|| format!("{key} {msg}\n"));
        }
    }
    out.into_values().collect()
}

/// A sample of the census part of `ptxas-12.9-rejects.txt` (every 100th form): written plainly,
/// ptxas still refuses each with the listed message, and the type checker refuses it too.
#[test]
fn census_listed_forms_are_refused() {
    let Some(ptxas) = oracle::ptxas::required("the census sample") else {
        return;
    };
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/findings/ptxas-12.9-rejects.txt");
    let text = std::fs::read_to_string(file).unwrap();
    let listed: Vec<(&str, &str)> = text
        .split(CENSUS_MARK)
        .nth(1)
        .unwrap_or("")
        .lines()
        .filter_map(|l| l.split_once(' '))
        .collect();
    assert!(listed.len() > 1000, "{} census forms", listed.len());
    let dir = std::env::temp_dir().join(format!("ptxconf-census-sample-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut bad = Vec::new();
    for (key, msg) in listed.iter().step_by(100) {
        let fi = spec::vector::form_by_key(key).unwrap_or_else(|| panic!("no form {key}"));
        let v = Variant::plain(fi).unwrap();
        let j = judge(&ptxas, &dir, "s", &v, &v.all());
        let refused = matches!(&j.ptxas, Ptxas::Reject(m) if m.contains(msg));
        if !refused || !matches!(j.oracle, Oracle::Reject(_)) {
            bad.push(format!(
                "{key}: ptxas {}, oracle {}",
                ptxas_msg(&j.ptxas),
                oracle_msg(&j.oracle)
            ));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// The forms the manual forbids (`spec::matrix::wide::forbidden`: `ldmatrix .m16n16` without
/// `.trans` or with `.x4`, `stmatrix .m16n8` without `.trans`): written plainly, ptxas refuses
/// every one and the type checker refuses it too, naming the manual's rule.
#[test]
fn forbidden_forms_are_refused_by_both() {
    let Some(ptxas) = oracle::ptxas::required("the forbidden forms") else {
        return;
    };
    let cat = spec::catalog::catalog();
    let dir = std::env::temp_dir().join(format!("ptxconf-forbidden-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (mut n, mut bad) = (0, Vec::new());
    for (fi, f) in cat.enumerate() {
        let Some(rule) = spec::matrix::wide::forbidden(f) else {
            continue;
        };
        n += 1;
        let v = Variant::plain(fi).unwrap();
        let j = judge(&ptxas, &dir, "f", &v, &v.all());
        let oracle_names_rule = matches!(&j.oracle, Oracle::Reject(m) if m.contains(rule.message));
        if !matches!(j.ptxas, Ptxas::Reject(_)) || !oracle_names_rule {
            bad.push(format!(
                "{}: ptxas {}, oracle {}",
                f.name,
                ptxas_msg(&j.ptxas),
                oracle_msg(&j.oracle)
            ));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(n, 27);
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
