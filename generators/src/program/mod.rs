//! Random well-typed PTX programs, valid by construction, whose results are deterministic on every
//! implementation the manual allows: the input of differential fuzzing (issue 6).
//!
//! A program is one module: a few non-inlined `.func`s and one `.entry`, run on `ctas` CTAs of
//! `32 × warps` threads. Every thread loads its own inputs (hard cases of several formats), runs
//! straight-line code over the catalog's value-level forms mixed with structured control flow,
//! calls, memory and collectives, and finally writes every live value to its record in the `sig`
//! buffer: the *signature*, which is what implementations are compared on.
//!
//! # What makes it valid (wasm-smith style)
//! The builder keeps a typed register environment — each register's width and *determinacy*
//! ([`facts::Det`]) — and the scopes of the control flow it is inside; every candidate instruction
//! is emitted only when its operands can be found in that environment:
//! - forms and operand shapes come from the catalog and the spec ([`facts`]): the operand types,
//!   which immediates the spec accepts, the carry flag (an `addc` only after a `.cc` writer in
//!   the same straight-line block);
//! - no register is read before it is written on every path: a register first written inside a
//!   branch, a loop body or a predicated instruction lives only until that scope ends;
//! - loops are counted (a counter private to the loop, from an immediate or from data, at most
//!   [`Config::max_trips`]); branches are structured if/else; calls go to earlier functions only;
//! - memory accesses are aligned and in bounds: `.local` and per-thread global scratch slots are
//!   read only after a write on every path; `.shared` exchanges write a thread's own slot, wait at
//!   `bar.sync`, then read a neighbour's; atomics touch the thread's own word, or are `red`
//!   reductions (commutative integer operations) to a counter read only after a barrier;
//! - asynchronous copies and mbarrier phases (`emit/asynccopy.rs`) stage data in a fresh
//!   shared region: a `cp.async` slot is read only after the group holding it completed
//!   (`cp.async.wait_group N` leaves the N most recent pending) and a `bar.sync`; an mbarrier
//!   phase's slots only after its wait saw the phase complete; thread 0 initializes the barrier
//!   before a `bar.sync` and invalidates it after one;
//! - bulk copies (`emit/bulk.rs`) are issued by one leader (thread 0 or warp 0's `elect.sync`
//!   choice) into fresh shared regions and global areas: global → shared is read only after a
//!   `.parity` wait saw the mbarrier phase whose tx-count the copy completes; shared → global
//!   reads stores that a `fence.proxy.async` ordered for the async proxy, and is read back only
//!   after the leader's `cp.async.bulk.wait_group 0` and a `bar.sync`;
//! - distributed shared memory (`emit/cluster.rs`): a program that maps a peer CTA's shared
//!   memory with `mapa` is launched in clusters (2 CTAs when the grid's CTAs pair up, else 1),
//!   and its `.shared::cluster` accesses sit between `barrier.cluster` arrive/wait pairs;
//! - barriers and warp collectives (full member mask) appear only in the entry's top-level code,
//!   where every thread of the CTA is active.
//!
//! # What makes the result deterministic
//! Nothing in a signature depends on what the manual leaves unspecified: integer divisors are
//! made odd; an instruction whose result is only an acceptance set (approximate, `rem` of negative
//! operands) is emitted at the top level only, its inputs and result are written to the signature
//! at once as a judged slot, and the result is never used again; a value that may be a NaN of
//! unspecified payload is marked NaN-loose and only flows into sources that do not see the
//! payload (arithmetic, comparisons), into memory and back, and into the signature as a NaN slot.
//! Forms that the compiler may contract (`add.f32` without rounding modifier, L7572) are not
//! used; `%warpid`, clocks and shared-memory atomics' return values are not read.
//!
//! The [`Program`]'s launch file carries the signature layout as its `check`
//! ([`oracle::launch::Check`]), which `ptxconf`'s judge applies.
//!
//! # Driving it
//! [`generate`] takes an `arbitrary::Unstructured` (libFuzzer's bytes; an exhausted stream gives
//! zeros, so every byte string makes a program), [`from_seed`] a seed (ChaCha8's stream, so a
//! seed gives the same program on every platform), and [`programs`] is a proptest strategy.
//! [`Config`] says what may appear; with `swarm` set, each program first draws its own subset of
//! features and families (swarm testing: a bug that one feature masks shows when it is off).

pub mod aim;
mod emit;
pub mod facts;

use arbitrary::{Arbitrary, Unstructured};
use oracle::launch::LaunchFile;
use spec::catalog::{catalog, FormId, PtxVersion, Target};
use std::collections::BTreeSet;

/// The constructs a program may contain (`Arbitrary`: a random subset, for swarm testing).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Arbitrary)]
pub struct Features {
    /// `@p` / `@!p` guards on value instructions.
    pub predication: bool,
    /// Structured if/else.
    pub branches: bool,
    /// Counted loops.
    pub loops: bool,
    /// Non-inlined `.func` calls with parameters and a return value.
    pub calls: bool,
    /// `.local` stores and loads.
    pub local: bool,
    /// Per-thread global scratch memory.
    pub global: bool,
    /// `.shared` exchanges between threads of a CTA (needs `barriers`).
    pub shared: bool,
    /// `bar.sync`, `bar.red`.
    pub barriers: bool,
    /// Warp collectives: `shfl.sync`, `vote.sync`, `match.sync`, `redux.sync`, `activemask`.
    pub collectives: bool,
    /// `atom` on a thread's own global word, `red` to shared counters.
    pub atomics: bool,
    /// Approximate forms and others judged by acceptance set.
    pub judged: bool,
}

impl Features {
    /// Every construct.
    pub const ALL: Features = Features {
        predication: true,
        branches: true,
        loops: true,
        calls: true,
        local: true,
        global: true,
        shared: true,
        barriers: true,
        collectives: true,
        atomics: true,
        judged: true,
    };

    /// None: straight-line value instructions only.
    pub const NONE: Features = Features {
        predication: false,
        branches: false,
        loops: false,
        calls: false,
        local: false,
        global: false,
        shared: false,
        barriers: false,
        collectives: false,
        atomics: false,
        judged: false,
    };

    /// The features' names, as `ptxconf gen --features` spells them, in that order.
    pub const NAMES: [&'static str; 11] = [
        "predication",
        "branches",
        "loops",
        "calls",
        "local",
        "global",
        "shared",
        "barriers",
        "collectives",
        "atomics",
        "judged",
    ];

    /// The switch of the feature named `name` ([`Features::NAMES`]), or `None`.
    pub fn named(&mut self, name: &str) -> Option<&mut bool> {
        Some(match name {
            "predication" => &mut self.predication,
            "branches" => &mut self.branches,
            "loops" => &mut self.loops,
            "calls" => &mut self.calls,
            "local" => &mut self.local,
            "global" => &mut self.global,
            "shared" => &mut self.shared,
            "barriers" => &mut self.barriers,
            "collectives" => &mut self.collectives,
            "atomics" => &mut self.atomics,
            "judged" => &mut self.judged,
            _ => return None,
        })
    }

    /// The names of the features on, in [`Features::NAMES`] order.
    pub fn on(mut self) -> Vec<&'static str> {
        Features::NAMES
            .into_iter()
            .filter(|n| self.named(n).is_some_and(|b| *b))
            .collect()
    }

    /// The features both allow.
    pub fn and(self, o: Features) -> Features {
        Features {
            predication: self.predication && o.predication,
            branches: self.branches && o.branches,
            loops: self.loops && o.loops,
            calls: self.calls && o.calls,
            local: self.local && o.local,
            global: self.global && o.global,
            shared: self.shared && o.shared,
            barriers: self.barriers && o.barriers,
            collectives: self.collectives && o.collectives,
            atomics: self.atomics && o.atomics,
            judged: self.judged && o.judged,
        }
    }
}

/// What programs may contain and how big they are.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// The `.target` programs declare; forms needing a newer target are not used (`a`/`f`
    /// forms only with the same suffix and number).
    pub target: Target,
    /// The `.version` programs declare; forms of newer PTX are not used.
    pub ptx: PtxVersion,
    /// §9.7 family ids (`9.7.3`) whose value-level forms may appear; `None`: all.
    pub families: Option<Vec<String>>,
    /// Form keys never used (by default the forms ptxas 12.9 rejects although the manual's
    /// grammar has them: `oracle::ptxas::rejected_forms`), by value instructions and constructs
    /// alike.
    pub exclude: BTreeSet<String>,
    /// When set, the forms a backend passed in a conformance report (`ptxconf fuzz
    /// --forms-from`): value forms and the subjects of constructs are those only; the skeleton
    /// every program uses ([`aim::SKELETON`]) and the plumbing of constructs
    /// ([`aim::STRUCTURE`]) are used unless the report shows them failing (see [`aim`]).
    /// `None`: every form of the version and target.
    pub allowed: Option<std::sync::Arc<aim::Allowed>>,
    /// Instructions the builder aims at (value instructions and constructs, before loops
    /// repeat them); programs come out around this size.
    pub size: usize,
    /// Functions besides the entry, at most.
    pub max_funcs: usize,
    /// Nesting depth of branches and loops, at most.
    pub max_depth: usize,
    /// Iterations of a loop, at most.
    pub max_trips: u32,
    /// Warps per CTA (1-32).
    pub warps: u32,
    /// CTAs (1-65535).
    pub ctas: u32,
    /// The constructs programs may contain (with `swarm`, each program draws a subset).
    pub features: Features,
    /// Each program draws its own subset of features and families.
    pub swarm: bool,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            target: Target { sm: 90, suffix: None },
            ptx: PtxVersion(8, 7),
            families: None,
            exclude: oracle::ptxas::rejected_forms().clone(),
            allowed: None,
            size: 100,
            max_funcs: 3,
            max_depth: 2,
            max_trips: 4,
            warps: 1,
            ctas: 1,
            features: Features::ALL,
            swarm: true,
        }
    }
}

impl Config {
    /// Why programs of this configuration cannot be written (a `.target` newer than the
    /// `.version`, a version without the skeleton): see [`aim::validate`].
    pub fn validate(&self) -> Result<(), String> {
        aim::validate(self)
    }
}

/// A random configuration for the default target: features, families, sizes and geometry
/// (what swarm testing varies; used by fuzz targets that explore configurations too).
impl<'a> Arbitrary<'a> for Config {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Config> {
        let d = Config::default();
        Ok(Config {
            families: swarm_families(u)?,
            size: u.int_in_range(1..=200)?,
            max_funcs: u.int_in_range(0..=4)?,
            max_depth: u.int_in_range(0..=3)?,
            max_trips: u.int_in_range(1..=6)?,
            warps: u.int_in_range(1..=4)?,
            ctas: u.int_in_range(1..=2)?,
            features: u.arbitrary()?,
            swarm: false,
            ..d
        })
    }
}

/// The §9.7 families that have value-level forms.
pub fn value_families() -> &'static [&'static str] {
    static FAMILIES: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
    FAMILIES.get_or_init(|| {
        let cat = catalog();
        let mut v: Vec<&'static str> = cat
            .forms
            .iter()
            .filter(|f| spec::eval::semantics(f).is_some())
            .map(|f| cat.family_of(f).id)
            .collect();
        v.sort();
        v.dedup();
        v
    })
}

/// A random non-empty subset of the value families, or all of them (half the time).
fn swarm_families(u: &mut Unstructured) -> arbitrary::Result<Option<Vec<String>>> {
    if u.arbitrary()? {
        return Ok(None);
    }
    let all = value_families();
    let mut v: Vec<String> = Vec::new();
    for f in all {
        if u.ratio(1, 2)? {
            v.push(f.to_string());
        }
    }
    if v.is_empty() {
        v.push(all[u.choose_index(all.len())?].to_string());
    }
    Ok(Some(v))
}

/// How many value-level forms programs of `cfg` may use.
pub fn eligible_forms(cfg: &Config) -> usize {
    emit::eligible_count(cfg)
}

/// The value-level forms programs of `cfg` pick their instructions from (in catalog order): the
/// menu for its target, version, exclusions and families. The constructs (memory, atomics,
/// collectives, barriers, control flow) come on top of these.
pub fn menu_forms(cfg: &Config) -> Vec<FormId> {
    emit::menu_forms(cfg)
}

/// A generated program: its PTX text and the launch that runs it (`launch.ptx` names
/// `program.ptx`; `launch.check` is its signature layout).
#[derive(Clone, Debug)]
pub struct Program {
    /// The module's PTX text.
    pub ptx: String,
    /// The launch that runs it.
    pub launch: LaunchFile,
    /// Instructions in the text (labels and declarations not counted).
    pub instructions: usize,
    /// The value-level forms it uses (in catalog order, each once).
    pub forms: Vec<FormId>,
    /// The line of each value instruction and how loosely the generator assumed its results
    /// determined: 0 exactly, 1 up to a NaN's payload, 2 only as a set (see [`checked`]).
    pub assumed: Vec<(u32, u8)>,
}

/// A program whose oracle run confirmed the generator's assumptions, with that run's results.
#[derive(Clone, Debug)]
pub struct Checked {
    /// The program.
    pub program: Program,
    /// The oracle's buffers after the run.
    pub expected: oracle::launch::Buffers,
    /// What the run did.
    pub stats: oracle::exec::Stats,
    /// Programs built before this one was accepted (see [`checked`]).
    pub attempts: u32,
}

/// Attempts [`checked`] makes before giving up.
pub const ATTEMPTS: u32 = 8;

/// The program of `seed`, audited on the oracle: the generator learns which results the manual
/// leaves open by probing each form on hard operands ([`facts`]), and a probe can miss a corner
/// (`fma.rn.relu.f16x2` of two tiny numbers of opposite sign rounds to a zero of either sign).
/// The oracle reports how loosely each instruction's results were determined in the run; a
/// program where that is looser than assumed is replaced by the next of the seed's sequence
/// (`program_seed(seed, 1)`, ...), so the program of a seed is still one fixed program. Errors
/// when the oracle fails on a program (a bug of ours) or every attempt is refused.
pub fn checked(seed: u64, cfg: &Config) -> Result<Checked, CheckedError> {
    let mut refused = (0, seed);
    for attempt in 0..ATTEMPTS {
        let s = if attempt == 0 {
            seed
        } else {
            program_seed(seed, attempt as u64)
        };
        let p = from_seed(s, cfg);
        // Aimed at a partial implementation, a program is also audited (a parse, about a fifth
        // of an oracle run: nothing beside a backend's launch); the builder permits every
        // instruction it writes either way, and the tests audit every configuration.
        if cfg.allowed.is_some() {
            aim::audit(cfg, &p.ptx).map_err(|beyond| CheckedError::Beyond { seed: s, beyond })?;
        }
        let (expected, stats, lines) =
            oracle::launch::run_audited(&p.launch, &p.ptx).map_err(|error| CheckedError::Oracle { seed: s, error })?;
        match looser_than_assumed(&p, &lines) {
            None => {
                return Ok(Checked {
                    program: p,
                    expected,
                    stats,
                    attempts: attempt,
                })
            }
            Some(line) => refused = (line, s),
        }
    }
    Err(CheckedError::Looser {
        line: refused.0,
        seed: refused.1,
    })
}

/// Why [`checked`] gives no program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CheckedError {
    /// The oracle fails on a generated program: a bug of ours (generator or oracle).
    Oracle {
        /// The program's seed.
        seed: u64,
        /// The oracle's error.
        error: oracle::error::Error,
    },
    /// A generated program contains a form or construct beyond its configuration's version,
    /// target or allowed set ([`aim::audit`], run when the configuration has an allowed set):
    /// a bug of the generator.
    Beyond {
        /// The program's seed.
        seed: u64,
        /// What is beyond, one line each.
        beyond: Vec<String>,
    },
    /// Every attempt was less determined than the generator assumed.
    Looser {
        /// The line of the last attempt's first such instruction.
        line: u32,
        /// The last attempt's seed.
        seed: u64,
    },
}

impl std::fmt::Display for CheckedError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CheckedError::Oracle { seed, error } => {
                write!(f, "the oracle fails on a generated program (seed {seed}): {error}")
            }
            CheckedError::Beyond { seed, beyond } => write!(
                f,
                "a generated program (seed {seed}) goes beyond its configuration: {}",
                beyond.join("; ")
            ),
            CheckedError::Looser { line, seed } => write!(
                f,
                "{ATTEMPTS} programs in a row were less determined than assumed (last: line {line} of seed {seed}'s program)"
            ),
        }
    }
}

impl std::error::Error for CheckedError {}

/// The first line whose results the oracle found less determined than the generator assumed.
pub fn looser_than_assumed(p: &Program, audit: &[(u32, u8)]) -> Option<u32> {
    let seen: std::collections::BTreeMap<u32, u8> = audit.iter().copied().collect();
    p.assumed
        .iter()
        .find(|(line, level)| seen.get(line).is_some_and(|s| s > level))
        .map(|(line, _)| *line)
}

/// The seed of program `index` of a run seeded `seed` (SplitMix64 of both), so that program
/// `i` of a campaign is the same whatever ran before it.
pub fn program_seed(seed: u64, index: u64) -> u64 {
    crate::vectors::mix(seed ^ index.wrapping_mul(0x9e37_79b9_7f4a_7c15))
}

/// The PTX file name the launch refers to.
pub const PTX_FILE: &str = "program.ptx";

/// Builds a program from `u`'s bytes.
pub fn generate(u: &mut Unstructured, cfg: &Config) -> arbitrary::Result<Program> {
    let mut features = cfg.features;
    let mut families = None;
    if cfg.swarm {
        features = cfg.features.and(u.arbitrary()?);
        if let Some(fams) = swarm_families(u)? {
            families = Some(match &cfg.families {
                None => fams,
                Some(allowed) => {
                    let both: Vec<String> = fams.into_iter().filter(|f| allowed.contains(f)).collect();
                    if both.is_empty() {
                        allowed.clone()
                    } else {
                        both
                    }
                }
            });
        }
    }
    emit::build(u, cfg, features, families.as_ref().or(cfg.families.as_ref()))
}

/// The program of `seed`: [`generate`] over ChaCha8's stream for that seed.
pub fn from_seed(seed: u64, cfg: &Config) -> Program {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut bytes = vec![0u8; 1 << 16];
    rng.fill_bytes(&mut bytes);
    let mut u = Unstructured::new(&bytes);
    generate(&mut u, cfg).expect("generation from a byte stream cannot fail")
}

/// A proptest strategy for programs of `cfg` (shrinking shrinks the bytes they are built from).
pub fn programs(cfg: Config) -> impl proptest::strategy::Strategy<Value = Program> {
    use proptest::prelude::*;
    proptest::collection::vec(any::<u8>(), 256..8192).prop_map(move |bytes| {
        let mut u = Unstructured::new(&bytes);
        generate(&mut u, &cfg).expect("generation from a byte stream cannot fail")
    })
}
