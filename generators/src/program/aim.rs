//! What programs of a configuration may contain: the instruction forms of its PTX version and
//! target (and, for a campaign aimed at a partial implementation, only the forms it passed in a
//! conformance report), and the scaffolding outside §9.7 that every program needs (issue 17).
//!
//! Every instruction the builder writes goes through [`permits`]: a value form comes from a menu
//! built with [`permits_form`], and a construct (a loop, an exchange, a collective, ...) whose
//! instructions are not all permitted is rolled back as a whole (`Builder::attempt`). [`audit`]
//! checks a program's text against all of this independently of the builder, through the
//! oracle's parser and the catalog.
//!
//! # Aiming at the forms a backend passed
//! With an allowed set ([`Allowed`], from a conformance report), value forms and the subjects
//! of constructs (`shfl`, `atom`, `mma`, `cp.async`, ...) are used only if they passed. Two
//! lists of scaffolding are treated apart, because conformance cannot judge most of them (no
//! golden vectors exist for `bra`, `call`, plain `ld`/`st` — the conformance kernels themselves
//! run on them):
//! - the [`SKELETON`], which every program uses: always used (`ptxconf fuzz --forms-from`
//!   refuses a report where one of them failed, and names those it did not judge);
//! - the [`STRUCTURE`], the plumbing of control flow, calls, memory and the constructs' helpers:
//!   used unless the report judged it and it did not pass (then the constructs needing it are
//!   left out).
//!
//! The scaffolding outside §9.7 is decided by the manual's own version notes ([`Scaffold`]):
//! the `.target` string's PTX version from the catalog's table of §11.1.2 (`targets.forms`),
//! the rest from [`SCAFFOLDING`].

use super::Config;
use oracle::ast::{Item, Operand, Stmt};
use spec::catalog::{catalog, Form, PtxVersion, Target};
use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap};
use std::rc::Rc;
use std::sync::Arc;

/// The instructions of every program's skeleton, whatever its features: the entry's prologue
/// (the three buffer parameters made global addresses, `%tid.x`/`%ntid.x`/`%ctaid.x` and the
/// global thread index, the input record's address, one register of each width 8-64 loaded from
/// it, two predicates compared from it), the special-register reads that keep a block going
/// when no construct fits, and the signature: every live value stored to the thread's record
/// (predicates through `selp`), then `ret`. A campaign restricted to the forms a backend passed
/// (`Config::allowed`) still uses these; everything else — control flow, calls, memory, atomics,
/// collectives, the helpers inside constructs (`bra`, `setp`, `rem` of a loop, `or` making a
/// divisor odd, ...) — is used only when permitted.
pub const SKELETON: &[&str] = &[
    "ld.param.u64",
    "cvta.to.global.u64",
    "mov.u32",
    "mad.lo.u32",
    "mul.wide.u32",
    "add.u64",
    "ld.global.b8",
    "ld.global.b16",
    "ld.global.b32",
    "ld.global.b64",
    "setp.lt.s32",
    "selp.u32",
    "st.global.u32",
    "st.global.b8",
    "st.global.b16",
    "st.global.b32",
    "st.global.b64",
    "ret",
];

/// The plumbing of constructs, used with an allowed set unless the report judged it and it did
/// not pass (see the module doc): branches and loops (`bra`, the loop counter's `rem`/`add`/
/// `sub`/`setp`), calls (`call`, the `.param` loads and stores, the first parameter's test),
/// `.local`, global and `.shared` slots and the barrier ordering them, the shared counters'
/// zeroing, the `or` making a divisor odd, the address arithmetic of staged regions, and the
/// conversions that build exact `mma` fragments. The subjects of the constructs — atomics,
/// reductions, warp collectives, matrix instructions, asynchronous copies, mbarriers, cluster
/// instructions — are not here: they must have passed.
pub const STRUCTURE: &[&str] = &[
    "bra",
    "call",
    "rem.u32",
    "add.u32",
    "sub.u32",
    "mul.lo.u32",
    "setp.ne.u32",
    "setp.eq.u32",
    "setp.lt.u32",
    "setp.ne.b16",
    "setp.ne.b32",
    "setp.ne.b64",
    "ld.param.b16",
    "ld.param.b32",
    "ld.param.b64",
    "st.param.b16",
    "st.param.b32",
    "st.param.b64",
    "ld.local.b8",
    "ld.local.b16",
    "ld.local.b32",
    "ld.local.b64",
    "st.local.b8",
    "st.local.b16",
    "st.local.b32",
    "st.local.b64",
    "ld.shared.b8",
    "ld.shared.b16",
    "ld.shared.b32",
    "ld.shared.b64",
    "ld.shared.u32",
    "ld.shared.v2.b64",
    "ld.shared.v4.b32",
    "st.shared.b8",
    "st.shared.b16",
    "st.shared.b32",
    "st.shared.b64",
    "st.shared.u32",
    "st.shared.v2.b64",
    "st.shared.v4.b32",
    "ld.global.v2.b64",
    "ld.b64",
    "st.b64",
    "bar.sync",
    "mov.u64",
    "mov.b32",
    "sub.u64",
    "shr.u64",
    "shl.b32",
    "and.b32",
    "and.b64",
    "and.pred",
    "or.b8",
    "or.b16",
    "or.b32",
    "or.b64",
    "bfe.s32",
    "cvt.u64.u32",
    "cvt.rn.f32.s32",
    "cvt.rn.f64.s32",
    "cvt.rn.f16.f32",
    "cvt.rn.f16x2.f32",
    "cvt.rn.bf16x2.f32",
    "cvt.rn.satfinite.e4m3x2.f32",
    "cvt.rn.satfinite.e5m2x2.f32",
    "cvta.shared.u64",
    "cvta.param.u64",
];

/// The forms a backend passed in a conformance report, and every form the report judged
/// (passed, failed or skipped): see the module doc for how programs use them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Allowed {
    /// Form keys ([`spec::vector::form_key`]) that passed.
    pub passed: BTreeSet<String>,
    /// Form keys the report has, whatever their status.
    pub judged: BTreeSet<String>,
}

impl Allowed {
    /// Exactly these forms passed, and nothing else was judged.
    pub fn passed(keys: impl IntoIterator<Item = String>) -> Allowed {
        let passed: BTreeSet<String> = keys.into_iter().collect();
        Allowed {
            judged: passed.clone(),
            passed,
        }
    }
}

/// A piece of scaffolding outside §9.7 and what it needs, from the manual's notes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scaffold {
    /// What it is, as written in programs.
    pub what: &'static str,
    /// The PTX ISA version that introduced it (in the form programs use it).
    pub ptx: PtxVersion,
    /// The oldest architecture that has it (0: every target).
    pub sm: u32,
    /// The manual's lines saying so.
    pub lines: &'static str,
}

/// The scaffolding outside §9.7 programs use, each with the manual's version note: the
/// `.address_size` directive (§11.1.3), the special registers read as `.u32` components
/// (§10: `%tid`, `%ntid`, `%ctaid`, `%nctaid` are `.v4.u32` since PTX 2.0; `%laneid` since 1.3;
/// `%cluster_ctarank` and `%cluster_nctarank`, which the cluster exchange reads, PTX 7.8 and
/// sm_90),
/// `.param` parameters and a `.param` return of device functions (§5.1.6: PTX 2.0), and
/// `.b128` registers (the `.b128` type: PTX 8.3, sm_70, in the notes of `mov` and `ld`; §5.2.2
/// lists the type without a note of its own).
pub const SCAFFOLDING: &[Scaffold] = &[
    Scaffold {
        what: ".address_size 64",
        ptx: PtxVersion(2, 3),
        sm: 0,
        lines: "L33337",
    },
    Scaffold {
        what: "%tid.x",
        ptx: PtxVersion(2, 0),
        sm: 0,
        lines: "L31875",
    },
    Scaffold {
        what: "%ntid.x",
        ptx: PtxVersion(2, 0),
        sm: 0,
        lines: "L31937",
    },
    Scaffold {
        what: "%ctaid.x",
        ptx: PtxVersion(2, 0),
        sm: 0,
        lines: "L32058",
    },
    Scaffold {
        what: "%nctaid.x",
        ptx: PtxVersion(2, 0),
        sm: 0,
        lines: "L32114",
    },
    Scaffold {
        what: "%laneid",
        ptx: PtxVersion(1, 3),
        sm: 0,
        lines: "L31969",
    },
    Scaffold {
        what: "%cluster_ctarank",
        ptx: PtxVersion(7, 8),
        sm: 90,
        lines: "L32418, L32422",
    },
    Scaffold {
        what: "%cluster_nctarank",
        ptx: PtxVersion(7, 8),
        sm: 90,
        lines: "L32446, L32450",
    },
    Scaffold {
        what: ".func .param",
        ptx: PtxVersion(2, 0),
        sm: 20,
        lines: "L1230, L3677",
    },
    Scaffold {
        what: ".b128",
        ptx: PtxVersion(8, 3),
        sm: 70,
        lines: "L11852, L11858, L12555, L12585",
    },
];

/// The scaffolding entry `what` ([`SCAFFOLDING`]).
fn scaffold(what: &str) -> &'static Scaffold {
    SCAFFOLDING
        .iter()
        .find(|s| s.what == what)
        .expect("a SCAFFOLDING entry")
}

/// Whether programs of `cfg` may use scaffolding `what` ([`SCAFFOLDING`]).
pub fn scaffold_ok(cfg: &Config, what: &str) -> bool {
    let s = scaffold(what);
    cfg.ptx >= s.ptx && cfg.target.sm >= s.sm
}

/// Why programs of `cfg` cannot be written at all: its `.target` needs a newer `.version`
/// (§11.1.2, the catalog's `targets.forms`), the version lacks the scaffolding every program
/// uses, or a skeleton instruction is not available.
pub fn validate(cfg: &Config) -> Result<(), String> {
    if let Some(v) = catalog().target_version(cfg.target) {
        if v > cfg.ptx {
            return Err(format!(
                "`.target {}` needs PTX ISA {v} or later (§11.1.2), programs declare {}",
                cfg.target, cfg.ptx
            ));
        }
    } else {
        return Err(format!("the catalog knows no target {}", cfg.target));
    }
    // What every program uses (the rest is used only where [`scaffold_ok`] says so).
    let always = [
        "%tid.x",
        "%ntid.x",
        "%ctaid.x",
        "%nctaid.x",
        "%laneid",
        ".address_size 64",
    ];
    for s in SCAFFOLDING.iter().filter(|s| always.contains(&s.what)) {
        if cfg.ptx < s.ptx || cfg.target.sm < s.sm {
            return Err(format!(
                "every program uses `{}`, which needs PTX ISA {} ({}); programs declare {}",
                s.what, s.ptx, s.lines, cfg.ptx
            ));
        }
    }
    for name in SKELETON {
        if !available_name(cfg, name) {
            return Err(format!(
                "every program uses `{name}`, which PTX ISA {} on {} does not have",
                cfg.ptx, cfg.target
            ));
        }
    }
    Ok(())
}

/// Whether some form named `name` exists at `cfg`'s version and target.
fn available_name(cfg: &Config, name: &str) -> bool {
    let cat = catalog();
    cat.lookup(name)
        .is_ok_and(|f| f.forms.iter().any(|&i| cat.forms[i].available(cfg.ptx, cfg.target)))
}

/// Whether programs of `cfg` may contain catalog form `form` as a value instruction or the
/// subject of a construct: available at its version and target, not excluded, and passed when
/// there is an allowed set.
pub fn permits_form(cfg: &Config, form: &Form) -> bool {
    form_ok(cfg.ptx, cfg.target, &cfg.exclude, cfg.allowed.as_deref(), form)
}

fn form_ok(
    ptx: PtxVersion,
    target: Target,
    exclude: &BTreeSet<String>,
    allowed: Option<&Allowed>,
    form: &Form,
) -> bool {
    if !form.available(ptx, target) {
        return false;
    }
    let key = spec::vector::form_key(form);
    !exclude.contains(&key) && allowed.is_none_or(|a| a.passed.contains(&key))
}

/// Whether programs of `cfg` may contain an instruction written `name` (opcode and modifiers,
/// `ld.global.b32`): some catalog form of that name is permitted ([`permits_form`]); or it is
/// a [`SKELETON`] instruction the version and target have; or, with an allowed set, a
/// [`STRUCTURE`] instruction none of whose forms the report judged (one it judged is permitted
/// only if it passed). See [`Permits`] to ask many times.
pub fn permits(cfg: &Config, name: &str) -> bool {
    Permits::of(cfg).get(name)
}

/// The answers of [`permits`] for one configuration, each computed once.
#[derive(Debug)]
pub struct Permits {
    policy: Policy,
    answers: RefCell<HashMap<String, bool>>,
}

impl Permits {
    /// The answers for `cfg`: one per thread, kept for the configuration last asked about
    /// (comparing configurations costs more than a lookup, so a builder asks once).
    pub fn of(cfg: &Config) -> Rc<Permits> {
        thread_local! {
            static LAST: RefCell<Option<Rc<Permits>>> = const { RefCell::new(None) };
        }
        LAST.with(|c| {
            let mut c = c.borrow_mut();
            match &*c {
                Some(p) if p.policy.is(cfg) => p.clone(),
                _ => {
                    let p = Rc::new(Permits {
                        policy: Policy::of(cfg),
                        answers: RefCell::new(HashMap::new()),
                    });
                    *c = Some(p.clone());
                    p
                }
            }
        })
    }

    /// Whether an instruction written `name` is permitted ([`permits`]).
    pub fn get(&self, name: &str) -> bool {
        if let Some(&b) = self.answers.borrow().get(name) {
            return b;
        }
        let ok = self.decide(name);
        self.answers.borrow_mut().insert(name.to_string(), ok);
        ok
    }

    fn decide(&self, name: &str) -> bool {
        let p = &self.policy;
        let cat = catalog();
        let forms = cat.lookup(name).map(|f| f.forms).unwrap_or_default();
        let available = || forms.iter().any(|&i| cat.forms[i].available(p.ptx, p.target));
        let unjudged = |a: &Allowed| {
            forms.iter().all(|&i| {
                let f = &cat.forms[i];
                !f.available(p.ptx, p.target) || !a.judged.contains(&spec::vector::form_key(f))
            })
        };
        forms
            .iter()
            .any(|&i| form_ok(p.ptx, p.target, &p.exclude, p.allowed.as_deref(), &cat.forms[i]))
            || (SKELETON.contains(&name) && available())
            || (STRUCTURE.contains(&name) && available() && p.allowed.as_deref().is_some_and(unjudged))
    }
}

/// What decides the answers of [`permits`] and the builder's menus: the version, target,
/// exclusions and allowed set of a configuration.
#[derive(Clone, Debug)]
pub(super) struct Policy {
    target: Target,
    ptx: PtxVersion,
    exclude: BTreeSet<String>,
    allowed: Option<Arc<Allowed>>,
}

impl Policy {
    pub(super) fn of(cfg: &Config) -> Policy {
        Policy {
            target: cfg.target,
            ptx: cfg.ptx,
            exclude: cfg.exclude.clone(),
            allowed: cfg.allowed.clone(),
        }
    }
    /// Whether `cfg` has this policy (the allowed sets compared by pointer first: a campaign
    /// shares one).
    pub(super) fn is(&self, cfg: &Config) -> bool {
        self.target == cfg.target
            && self.ptx == cfg.ptx
            && self.exclude == cfg.exclude
            && match (&self.allowed, &cfg.allowed) {
                (None, None) => true,
                (Some(a), Some(b)) => Arc::ptr_eq(a, b) || a == b,
                _ => false,
            }
    }
}

/// The instruction name (`ld.global.b32`) of one line the builder wrote (`\t@%p1 ld.global.b32
/// %r1, [%rd2];`), or `None` for a label.
pub(super) fn name_of_line(line: &str) -> Option<&str> {
    let s = line.strip_prefix('\t')?;
    let s = if s.starts_with('@') { s.split_once(' ')?.1 } else { s };
    let end = s.find([' ', ';']).unwrap_or(s.len());
    Some(&s[..end])
}

/// What [`audit`] found beyond a configuration, one line each (`line N: ...`).
pub type Beyond = Vec<String>;

/// Checks a program's text against `cfg`, independently of the builder: `.version` and
/// `.target` are `cfg`'s and valid together ([`validate`]); every instruction is
/// [`permits`]-ted (an available, non-excluded form, in the allowed set unless it is a
/// [`SKELETON`] instruction); every `.b128` declaration, special register and `.func` parameter
/// is scaffolding the version and target have ([`SCAFFOLDING`]). Returns what is beyond.
pub fn audit(cfg: &Config, ptx: &str) -> Result<(), Beyond> {
    let mut beyond = Vec::new();
    if let Err(e) = validate(cfg) {
        beyond.push(e);
    }
    let permits = Permits::of(cfg);
    let module = match oracle::parse::parse(ptx) {
        Ok(m) => m,
        Err(e) => return Err(vec![format!("does not parse: {e}")]),
    };
    let scaff = |what: &str, line: u32, beyond: &mut Beyond| {
        if !scaffold_ok(cfg, what) {
            let s = scaffold(what);
            beyond.push(format!(
                "line {line}: `{what}` needs PTX ISA {} and sm_{} ({}), programs declare {} and {}",
                s.ptx, s.sm, s.lines, cfg.ptx, cfg.target
            ));
        }
    };
    for item in &module.items {
        match item {
            Item::Version { major, minor, loc } => {
                if (*major, *minor) != (cfg.ptx.0 as u32, cfg.ptx.1 as u32) {
                    beyond.push(format!(
                        "line {}: `.version {major}.{minor}`, not {}",
                        loc.line, cfg.ptx
                    ));
                }
            }
            Item::Target { targets, loc } => {
                if targets != &[cfg.target.to_string()] {
                    beyond.push(format!(
                        "line {}: `.target {}`, not {}",
                        loc.line,
                        targets.join(", "),
                        cfg.target
                    ));
                }
            }
            Item::AddressSize { bits, loc } => {
                if *bits != 64 {
                    beyond.push(format!("line {}: `.address_size {bits}`", loc.line));
                }
                scaff(".address_size 64", loc.line, &mut beyond);
            }
            Item::Var(v) => {
                if v.ty == "b128" {
                    scaff(".b128", v.loc.line, &mut beyond);
                }
            }
            Item::Directive(d) => beyond.push(format!("line {}: directive `.{}`", d.loc.line, d.name)),
            Item::Function(f) => {
                let has_params = !f.params.is_empty() || !f.rets.is_empty();
                if !f.entry && has_params {
                    scaff(".func .param", f.loc.line, &mut beyond);
                }
                for p in f.params.iter().chain(&f.rets) {
                    if p.ty == "b128" {
                        scaff(".b128", p.loc.line, &mut beyond);
                    }
                }
                let mut stack: Vec<&Stmt> = f.body.iter().flatten().collect();
                while let Some(s) = stack.pop() {
                    match s {
                        Stmt::Block { body, .. } => stack.extend(body.iter()),
                        Stmt::Decl(v) if v.ty == "b128" => scaff(".b128", v.loc.line, &mut beyond),
                        Stmt::Decl(_) | Stmt::Label { .. } => {}
                        Stmt::Directive(d) => beyond.push(format!("line {}: directive `.{}`", d.loc.line, d.name)),
                        Stmt::Instr(i) => {
                            let name = std::iter::once(i.opcode.as_str())
                                .chain(i.mods.iter().map(String::as_str))
                                .collect::<Vec<_>>()
                                .join(".");
                            if !permits.get(&name) {
                                beyond.push(format!("line {}: `{name}` is not permitted", i.loc.line));
                            }
                            for o in &i.operands {
                                special_registers(o, &mut |r| {
                                    if SCAFFOLDING.iter().any(|s| s.what == r) {
                                        scaff(r, i.loc.line, &mut beyond);
                                    } else {
                                        beyond.push(format!("line {}: special register `{r}`", i.loc.line));
                                    }
                                });
                            }
                        }
                    }
                }
            }
        }
    }
    if beyond.is_empty() {
        Ok(())
    } else {
        Err(beyond)
    }
}

/// Calls `f` on every special register an operand names: a `%` name that is not one of the
/// builder's registers (`%r3`, `%p0`, ... : a class letter and a number).
fn special_registers(o: &Operand, f: &mut dyn FnMut(&str)) {
    let reg = |n: &str| {
        n.strip_prefix('%').is_some_and(|r| {
            let mut c = r.chars();
            matches!(c.next(), Some('p' | 'c' | 'h' | 'r' | 'd' | 'q'))
                && !c.as_str().is_empty()
                && c.all(|x| x.is_ascii_digit())
        })
    };
    let mut names: Vec<&str> = Vec::new();
    match o {
        Operand::Expr(e) | Operand::Address(e) => e.names(&mut names),
        Operand::Not(n) => names.push(n),
        Operand::Pair(a, b) => names.extend([a.as_str(), b.as_str()]),
        Operand::Vector(v) | Operand::AddressTuple(v) | Operand::List(v) => {
            for o in v {
                special_registers(o, f);
            }
        }
        Operand::Sink => {}
    }
    for n in names {
        if n.starts_with('%') && !reg(n) {
            f(n);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_of_lines() {
        assert_eq!(name_of_line("\tld.global.b32 %r1, [%rd2+4];"), Some("ld.global.b32"));
        assert_eq!(name_of_line("\t@!%p1 bra $L3;"), Some("bra"));
        assert_eq!(name_of_line("\tret;"), Some("ret"));
        assert_eq!(name_of_line("$LOOP1:"), None);
    }

    /// The skeleton and scaffolding are what the manual says: `.b128` from PTX 8.3 on sm_70,
    /// `sm_86` from PTX 7.1 (§11.1.2), and the skeleton's forms in the catalog from PTX 2.0.
    #[test]
    fn versions_of_scaffolding() {
        let cfg = |ptx, t: &str| Config {
            ptx,
            target: Target::parse(t).unwrap(),
            ..Config::default()
        };
        assert!(scaffold_ok(&cfg(PtxVersion(8, 3), "sm_70"), ".b128"));
        assert!(!scaffold_ok(&cfg(PtxVersion(8, 2), "sm_90"), ".b128"));
        assert!(!scaffold_ok(&cfg(PtxVersion(8, 7), "sm_60"), ".b128"));
        assert!(validate(&cfg(PtxVersion(7, 1), "sm_86")).is_ok());
        let e = validate(&cfg(PtxVersion(7, 0), "sm_86")).unwrap_err();
        assert!(e.contains("needs PTX ISA 7.1"), "{e}");
        for name in SKELETON {
            assert!(available_name(&cfg(PtxVersion(6, 0), "sm_60"), name), "{name}");
        }
    }

    /// An allowed set narrows everything but the skeleton, and the structure it did not judge.
    #[test]
    fn allowed_sets_narrow_all_but_the_skeleton() {
        let cfg = Config {
            allowed: Some(Arc::new(Allowed {
                passed: ["add.s32".to_string()].into_iter().collect(),
                judged: ["add.s32", "add.u32", "rem.u32"]
                    .iter()
                    .map(|s| s.to_string())
                    .collect(),
            })),
            ..Config::default()
        };
        assert!(permits(&cfg, "add.s32"));
        // Judged and failed, and a value form never judged.
        assert!(!permits(&cfg, "add.u32"));
        assert!(!permits(&cfg, "sub.s32"));
        // Structure: unjudged `bra`, but not the judged `rem.u32` that did not pass.
        assert!(permits(&cfg, "bra"));
        assert!(!permits(&cfg, "rem.u32"));
        // The subject of a construct must have passed.
        assert!(!permits(&cfg, "shfl.sync.idx.b32"));
        assert!(permits(&cfg, "ld.global.b32"));
        assert!(permits(&Config::default(), "bra"));
        // Not available at PTX 6.0: `redux.sync` is PTX 7.0 (sm_80).
        let old = Config {
            ptx: PtxVersion(6, 0),
            target: Target::parse("sm_70").unwrap(),
            ..Config::default()
        };
        assert!(!permits(&old, "redux.sync.add.u32"));
        assert!(permits(&old, "match.any.sync.b32"));
    }
}
