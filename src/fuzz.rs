//! Differential fuzzing campaigns (`ptxconf fuzz`) and program files (`ptxconf gen`).
//!
//! A campaign generates program after program ([`generators::program`]), runs each on the oracle
//! and on the backend under test, and judges the backend's signature against the oracle's
//! ([`crate::judge`], [`crate::compare`]). Every difference is reduced ([`crate::reduce`]) and
//! written atomically to the findings directory ([`crate::findings`]) — the minimal `.ptx`, its
//! launch file and a report — before it is printed, so a campaign killed at any moment loses
//! nothing it has reported.
//!
//! Program `i` of a campaign seeded `s` is `from_seed(program_seed(s, i))`, so a finding names
//! the program that shows it, and its report's `replay:` line — `ptxconf gen` with every option
//! that shapes programs, as the campaign resolved them ([`gen_args`]: target, version, families,
//! exclusions, size, geometry, features, swarm, `--forms-from`) and `--seed s --first i --count
//! 1` — writes it again byte for byte.
//! Workers take program numbers in order; a campaign limited by `--count` is deterministic (the
//! report lists results in program order), one limited by time runs what fits.

use crate::backend::{Backend, Failure};
use crate::baseline::findings as known;
use crate::compare::{self, Difference};
use crate::findings;
use crate::reduce::{self, Case};
use generators::program::aim::Allowed;
use generators::program::{checked, from_seed, program_seed, Config, Program, PTX_FILE};
use spec::catalog::{catalog, FormId};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The forms a backend passed in a conformance report (`ptxconf conform --json`), to aim a
/// campaign at what the backend implements (`ptxconf fuzz --forms-from`, issue 17): programs
/// then contain only these forms besides the skeleton every program uses
/// ([`generators::program::aim::SKELETON`]).
#[derive(Clone, Debug, PartialEq)]
pub struct FormsFrom {
    /// The report's backend.
    pub backend: String,
    /// Every form key in the report with its status (`passed`, `failed`, `skipped`).
    pub status: BTreeMap<String, String>,
    /// The keys the catalog does not know (a report of another catalog), ignored.
    pub unknown: Vec<String>,
}

/// How one skeleton instruction fared in a report ([`FormsFrom::skeleton`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkeletonStatus {
    /// The instruction as programs write it (`ld.global.b32`).
    pub name: &'static str,
    /// Its form keys (at the campaign's version and target) with their status in the report
    /// (`absent` when the report has none).
    pub forms: Vec<(String, String)>,
}

impl SkeletonStatus {
    /// Some form of it passed.
    pub fn passed(&self) -> bool {
        self.forms.iter().any(|(_, s)| s == "passed")
    }
    /// None passed and one failed: every program would differ on it.
    pub fn failed(&self) -> bool {
        !self.passed() && self.forms.iter().any(|(_, s)| s == "failed")
    }
}

impl FormsFrom {
    /// Reads a report (`conform --json`'s `forms`: `form` and `status` of each).
    pub fn parse(json: &str) -> Result<FormsFrom, String> {
        let v: serde_json::Value = serde_json::from_str(json).map_err(|e| format!("not JSON: {e}"))?;
        let forms = v
            .get("forms")
            .and_then(|f| f.as_array())
            .ok_or("no `forms` array (is it `ptxconf conform --json`'s report?)")?;
        let known: std::collections::BTreeSet<String> = catalog().forms.iter().map(spec::vector::form_key).collect();
        let mut status = BTreeMap::new();
        let mut unknown = Vec::new();
        for f in forms {
            let (Some(key), Some(st)) = (
                f.get("form").and_then(|k| k.as_str()),
                f.get("status").and_then(|k| k.as_str()),
            ) else {
                return Err(format!("a form without `form` and `status`: {f}"));
            };
            if known.contains(key) {
                status.insert(key.to_string(), st.to_string());
            } else {
                unknown.push(key.to_string());
            }
        }
        Ok(FormsFrom {
            backend: v.get("backend").and_then(|b| b.as_str()).unwrap_or("").to_string(),
            status,
            unknown,
        })
    }

    /// What programs may use: the forms that passed, and which the report judged.
    pub fn allowed(&self) -> Allowed {
        Allowed {
            passed: self
                .status
                .iter()
                .filter(|(_, s)| *s == "passed")
                .map(|(k, _)| k.clone())
                .collect(),
            judged: self.status.keys().cloned().collect(),
        }
    }

    /// Each skeleton instruction's forms at `cfg`'s version and target, with their status.
    pub fn skeleton(&self, cfg: &Config) -> Vec<SkeletonStatus> {
        let cat = catalog();
        generators::program::aim::SKELETON
            .iter()
            .map(|&name| SkeletonStatus {
                name,
                forms: cat
                    .lookup(name)
                    .map(|f| f.forms)
                    .unwrap_or_default()
                    .into_iter()
                    .map(|i| &cat.forms[i])
                    .filter(|f| f.available(cfg.ptx, cfg.target))
                    .map(|f| {
                        let key = spec::vector::form_key(f);
                        let st = self.status.get(&key).cloned().unwrap_or_else(|| "absent".into());
                        (key, st)
                    })
                    .collect(),
            })
            .collect()
    }
}

/// Where a campaign's allowed forms were read from (`--forms-from`), for its replay line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Aim {
    /// The conformance report.
    pub report: PathBuf,
    /// The report shows a skeleton instruction failing and the campaign ran anyway
    /// (`--allow-failed-skeleton`), as the replay must.
    pub allow_failed_skeleton: bool,
}

/// The `ptxconf gen` options that make the programs of `cfg` again, byte for byte (the seed and
/// numbers aside): every option that shapes programs, with the value the campaign resolved —
/// including what came from the backend's capabilities (its target, version and families, the
/// forms it rejects or lacks, as `--exclude`), which `gen` cannot ask a backend for. `aim`: the
/// report `cfg.allowed` was read from. `Err`: what the command line cannot express (a
/// configuration built by a library caller).
pub fn gen_args(cfg: &Config, aim: Option<&Aim>) -> Result<Vec<String>, String> {
    let d = Config::default();
    if (cfg.max_funcs, cfg.max_depth, cfg.max_trips) != (d.max_funcs, d.max_depth, d.max_trips) {
        return Err("functions, depth or loop trips other than the command line's".into());
    }
    let mut a: Vec<String> = vec![
        "--target".into(),
        cfg.target.to_string(),
        "--ptx".into(),
        cfg.ptx.to_string(),
    ];
    match &cfg.families {
        Some(f) if f.is_empty() => return Err("an empty family list".into()),
        Some(f) => f.iter().for_each(|f| a.extend(["--family".into(), f.clone()])),
        None => {}
    }
    let default_exclude = &d.exclude;
    let extra: Vec<&String> = if cfg.exclude.is_superset(default_exclude) {
        cfg.exclude.difference(default_exclude).collect()
    } else {
        a.push("--ptxas-rejected".into());
        cfg.exclude.iter().collect()
    };
    for k in extra {
        a.extend(["--exclude".into(), k.clone()]);
    }
    a.extend([
        "--size".into(),
        cfg.size.to_string(),
        "--warps".into(),
        cfg.warps.to_string(),
        "--ctas".into(),
        cfg.ctas.to_string(),
    ]);
    if cfg.features != generators::program::Features::ALL {
        let on = cfg.features.on();
        if on.is_empty() {
            return Err("no features at all".into());
        }
        a.extend(["--features".into(), on.join(",")]);
    }
    if !cfg.swarm {
        a.push("--no-swarm".into());
    }
    match (&cfg.allowed, aim) {
        (None, _) => {}
        (Some(_), None) => return Err("an allowed set not read from a report".into()),
        (Some(_), Some(aim)) => {
            a.extend(["--forms-from".into(), aim.report.display().to_string()]);
            if aim.allow_failed_skeleton {
                a.push("--allow-failed-skeleton".into());
            }
        }
    }
    Ok(a)
}

/// The command that writes program `i` of campaign `c` again (into `replay/`), or why there is
/// none.
pub fn replay_command(c: &Campaign, i: u64) -> Result<String, String> {
    let mut words = vec!["ptxconf".to_string(), "gen".into()];
    words.extend(gen_args(&c.cfg, c.aim.as_ref())?);
    words.extend([
        "--seed".into(),
        c.seed.to_string(),
        "--first".into(),
        i.to_string(),
        "--count".into(),
        "1".into(),
        "--out".into(),
        "replay".into(),
    ]);
    Ok(words.iter().map(|w| shell_word(w)).collect::<Vec<_>>().join(" "))
}

/// `w` as one word of a POSIX shell command line.
fn shell_word(w: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_-+./:=,@%".contains(c);
    if !w.is_empty() && w.chars().all(plain) {
        w.to_string()
    } else {
        format!("'{}'", w.replace('\'', "'\\''"))
    }
}

/// The lines a finding's report starts with: the program's number and how to write it again.
fn origin(c: &Campaign, i: u64) -> String {
    let replay = match replay_command(c, i) {
        Ok(cmd) => cmd,
        Err(why) => format!("(none: {why})"),
    };
    format!("program {i} of seed {}\nreplay: {replay}\n", c.seed)
}

/// Writes a program as `NAME.ptx` and `NAME.json` (its launch, naming `NAME.ptx`) in `dir`.
pub fn write_program(dir: &Path, name: &str, p: &Program) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let ptx_name = format!("{name}.ptx");
    let mut launch = p.launch.clone();
    launch.ptx = ptx_name.clone();
    std::fs::write(dir.join(&ptx_name), &p.ptx)?;
    std::fs::write(dir.join(format!("{name}.json")), launch.to_json())
}

/// A campaign's settings.
#[derive(Clone, Debug)]
pub struct Campaign {
    /// The program generator's configuration.
    pub cfg: Config,
    /// The campaign's seed: program `i` is `from_seed(program_seed(seed, i))`.
    pub seed: u64,
    /// Program numbers start here (to resume or replay).
    pub first: u64,
    /// Stop after this many programs...
    pub count: Option<u64>,
    /// ...or after this long.
    pub duration: Option<Duration>,
    /// Worker threads.
    pub jobs: usize,
    /// Where findings go (one directory each).
    pub findings: PathBuf,
    /// Reduce each finding before writing it.
    pub reduce: bool,
    /// The reducer's limits.
    pub reduce_opts: reduce::Options,
    /// Stop at the first finding.
    pub stop_at_first: bool,
    /// Where `cfg.allowed` was read from, for the findings' replay lines ([`gen_args`]).
    pub aim: Option<Aim>,
    /// How to open the backend again (its name and options): a `cmd:` backend is reopened for
    /// each reduction with a timeout fitted to the finding ([`compare::tight_timeout`]), so that
    /// candidates whose loops the reduction broke are cut short.
    pub reopen: Option<(String, crate::backend::Options)>,
}

/// One program whose results differ (or that the oracle itself could not run).
#[derive(Clone, Debug)]
pub struct Finding {
    /// The program's number in the campaign.
    pub program: u64,
    /// Where it was written.
    pub dir: PathBuf,
    /// One line: what differs.
    pub summary: String,
    /// Instructions before and after reduction.
    pub instructions: (usize, usize),
    /// Its signature ([`crate::baseline::findings::signature`]): the difference's class and
    /// the (reduced) program's distinct instructions.
    pub signature: String,
}

/// What a campaign did.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    /// Programs run.
    pub programs: u64,
    /// Thread-instructions the oracle executed.
    pub executed: u64,
    /// Programs whose results differ.
    pub mismatches: u64,
    /// Value forms used by the programs run.
    pub forms: std::collections::BTreeSet<FormId>,
    /// Value forms the configuration allows.
    pub eligible: usize,
    /// The findings written, in program order.
    pub findings: Vec<Finding>,
    /// Wall time so far.
    pub seconds: f64,
    /// Why the campaign stopped early (the backend is unavailable), if it did.
    pub aborted: Option<String>,
}

impl Summary {
    /// Programs per second.
    pub fn rate(&self) -> f64 {
        self.programs as f64 / self.seconds.max(1e-9)
    }

    /// The live progress line.
    pub fn line(&self) -> String {
        format!(
            "{} programs ({:.0}/s), {} thread-instructions, {} mismatch(es), forms {}/{}",
            self.programs,
            self.rate(),
            self.executed,
            self.mismatches,
            self.forms.len(),
            self.eligible
        )
    }
}

/// The directory name of a backend's findings (`cmd:./x --y` → `cmd_x_y`).
fn backend_dir(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' })
        .collect();
    s.trim_matches('_').chars().take(60).collect()
}

/// Runs a campaign against `backend`; `progress` is called with the running totals after each
/// program (from worker threads, serialized).
pub fn run(c: &Campaign, backend: &dyn Backend, progress: &(dyn Fn(&Summary) + Sync)) -> Summary {
    let start = Instant::now();
    let next = AtomicU64::new(c.first);
    let stop = AtomicBool::new(false);
    let sum = Mutex::new(Summary {
        eligible: generators::program::eligible_forms(&c.cfg),
        ..Summary::default()
    });
    let differential = backend.name() != "oracle";
    let out_dir = c.findings.join(backend_dir(&backend.name()));
    std::thread::scope(|s| {
        for _ in 0..c.jobs.max(1) {
            s.spawn(|| loop {
                if stop.load(Ordering::Relaxed) || c.duration.is_some_and(|d| start.elapsed() >= d) {
                    break;
                }
                let i = next.fetch_add(1, Ordering::Relaxed);
                if c.count.is_some_and(|n| i >= c.first + n) {
                    break;
                }
                let (executed, finding, forms) = one(c, i, backend, differential, &out_dir, &stop);
                let mut g = sum.lock().expect("summary lock");
                g.programs += 1;
                g.executed += executed;
                g.forms.extend(forms);
                if let Some(f) = finding {
                    match f {
                        Ok(f) => {
                            g.mismatches += 1;
                            g.findings.push(f);
                            if c.stop_at_first {
                                stop.store(true, Ordering::Relaxed);
                            }
                        }
                        Err(abort) => {
                            g.aborted = Some(abort);
                            stop.store(true, Ordering::Relaxed);
                        }
                    }
                }
                g.seconds = start.elapsed().as_secs_f64();
                progress(&g);
            });
        }
    });
    let mut g = sum.into_inner().expect("summary lock");
    g.seconds = start.elapsed().as_secs_f64();
    g.findings.sort_by_key(|f| f.program);
    g
}

/// What one program gave: thread-instructions executed, a finding (or why to abort), the forms
/// it used.
type One = (u64, Option<Result<Finding, String>>, Vec<FormId>);

/// Runs program `i`.
fn one(c: &Campaign, i: u64, backend: &dyn Backend, differential: bool, out_dir: &Path, stop: &AtomicBool) -> One {
    let seed = program_seed(c.seed, i);
    let dir = out_dir.join(format!("s{}-p{i}", c.seed));
    let ck = match checked(seed, &c.cfg) {
        Ok(ck) => ck,
        Err(e) => {
            // A generated program the oracle cannot run is a bug of ours (generator or oracle):
            // it is a finding too, written unreduced.
            let p = from_seed(seed, &c.cfg);
            return (
                0,
                Some(write_unreduced(c, i, &case_of(&p), &dir, &e.to_string(), "oracle")),
                p.forms,
            );
        }
    };
    let (p, stats) = (&ck.program, ck.stats);
    let forms = p.forms.clone();
    if !differential {
        return (stats.thread_instructions, None, forms);
    }
    let case = case_of(p);
    let diff = match compare::difference_from(&ck.expected, &case, backend) {
        Difference::Failure(Failure::Unavailable(m)) => return (stats.thread_instructions, Some(Err(m)), forms),
        d => d,
    };
    if diff.is_same() || stop.load(Ordering::Relaxed) {
        return (stats.thread_instructions, None, forms);
    }
    let finding = if c.reduce {
        let tight = match &c.reopen {
            Some((name, opts)) if name.starts_with("cmd:") => {
                let t = compare::tight_timeout(&case, backend, opts.timeout);
                let o = crate::backend::Options {
                    timeout: t,
                    ..opts.clone()
                };
                crate::backend::open(name, &o).ok()
            }
            _ => None,
        };
        let reducer = tight.as_deref().unwrap_or(backend);
        match reduce::reduce_against(case.clone(), reducer, &c.reduce_opts) {
            Ok(mut r) => {
                r.origin = Some(origin(c, i));
                r.write(&dir)
                    .map(|_| Finding {
                        program: i,
                        dir: dir.clone(),
                        summary: format!("{}", r.difference),
                        instructions: (r.stats.instructions_before, r.stats.instructions_after),
                        signature: r.signature(),
                    })
                    .map_err(|e| e.to_string())
            }
            // Flaky (the difference did not reproduce) or the backend vanished: keep the
            // original as it is.
            Err(e) => write_unreduced(
                c,
                i,
                &case,
                &dir,
                &format!("{diff} (not reduced: {e})"),
                &known::class_of(&diff),
            ),
        }
    } else {
        write_unreduced(c, i, &case, &dir, &format!("{diff}"), &known::class_of(&diff))
    };
    (stats.thread_instructions, Some(finding), forms)
}

fn case_of(p: &Program) -> Case {
    Case {
        ptx: p.ptx.clone(),
        launch: p.launch.clone(),
    }
}

/// Writes a finding as generated, into `dir`; `class` is its difference's
/// ([`known::class_of`]).
fn write_unreduced(
    c: &Campaign,
    i: u64,
    case: &Case,
    dir: &Path,
    summary: &str,
    class: &str,
) -> Result<Finding, String> {
    let mut launch = case.launch.clone();
    launch.ptx = PTX_FILE.into();
    let report = format!(
        "{}difference: {summary}\nsignature: {}\n",
        origin(c, i),
        known::signature(class, &case.ptx)
    );
    findings::write_dir(
        dir,
        &[
            (PTX_FILE, case.ptx.as_str()),
            ("launch.json", &launch.to_json()),
            ("report.txt", &report),
        ],
    )
    .map_err(|e| e.to_string())?;
    let n = reduce::count_instructions(&case.ptx);
    Ok(Finding {
        program: i,
        dir: dir.to_path_buf(),
        summary: summary.to_string(),
        instructions: (n, n),
        signature: known::signature(class, &case.ptx),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use generators::program::Features;
    use spec::catalog::{PtxVersion, Target};

    /// Every option that shapes programs is written, with the value the configuration holds.
    #[test]
    fn gen_args_write_every_program_option() {
        let d = Config::default();
        assert_eq!(
            gen_args(&d, None).unwrap(),
            ["--target", "sm_90", "--ptx", "8.7", "--size", "100", "--warps", "1", "--ctas", "1"]
        );
        let mut exclude = d.exclude.clone();
        exclude.insert("add.rn.f32".into());
        let c = Config {
            target: Target {
                sm: 90,
                suffix: Some('a'),
            },
            ptx: PtxVersion(8, 0),
            families: Some(vec!["9.7.1".into(), "9.7.3".into()]),
            exclude,
            allowed: Some(std::sync::Arc::new(Default::default())),
            size: 7,
            warps: 2,
            ctas: 3,
            features: Features {
                calls: true,
                loops: true,
                ..Features::NONE
            },
            swarm: false,
            ..d.clone()
        };
        let aim = Aim {
            report: "r e.json".into(),
            allow_failed_skeleton: true,
        };
        assert_eq!(
            gen_args(&c, Some(&aim)).unwrap().join(" "),
            "--target sm_90a --ptx 8.0 --family 9.7.1 --family 9.7.3 --exclude add.rn.f32 --size 7 \
             --warps 2 --ctas 3 --features loops,calls --no-swarm --forms-from r e.json --allow-failed-skeleton"
        );
        // Without the ptxas exclusions: `--ptxas-rejected`, and the rest listed.
        let only = Config {
            exclude: ["add.rn.f32".to_string()].into(),
            ..d.clone()
        };
        let a = gen_args(&only, None).unwrap().join(" ");
        assert!(a.contains("--ptxas-rejected --exclude add.rn.f32"), "{a}");
        // What the command line cannot say.
        assert!(gen_args(&c, None).is_err());
        assert!(gen_args(
            &Config {
                max_trips: 9,
                ..d.clone()
            },
            None
        )
        .is_err());
        assert!(gen_args(
            &Config {
                features: Features::NONE,
                ..d
            },
            None
        )
        .is_err());
        assert_eq!(shell_word("r e.json"), "'r e.json'");
        assert_eq!(shell_word("it's"), "'it'\\''s'");
        assert_eq!(shell_word("a/b-c.json"), "a/b-c.json");
    }
}
