//! `ptxconf coverage`: how much of the catalog each part of the suite covers.
//!
//! Counts per §9.7 family, per section and in total, and flags per form:
//! - `semantics`: the spec has the form's value-level function (`spec::eval::semantics`);
//! - `executed`: the oracle executes the form — asked of the oracle itself: an instance of the form
//!   (written as [`spec::catalog::write`] writes operands, addresses in brackets, labels, callees
//!   and variables where the form names them) is placed in a minimal kernel, which must parse,
//!   type-check and decode, at that instruction, to an operation of the interpreter (not
//!   `Op::Unsupported`, where a thread stops; for a value-level or warp form: that very form).
//!   Memory, atomics, barriers, collectives and control flow count, not only pure functions
//!   (`fence` and `membar` decode to no-ops: the oracle's memory is sequentially consistent and
//!   has no caches); a refused form carries the oracle's reason, with the stage that gave it
//!   (`parse: ...`, `type: ...`);
//! - `generated`: the random-program generator emits it — the value-level forms of its menu for the
//!   default configuration ([`generators::program::menu_forms`]) and the forms of the constructs
//!   (memory, atomics, collectives, barriers, calls, branches, tensor-core instructions) found
//!   in a fixed sample of its programs ([`SAMPLED_PROGRAMS`] seeds of the default configuration
//!   and of [`warpgroup_config`], where `wgmma` can be emitted);
//! - `vectors`: a golden-vector file exists for the form (in the corpus directory found as
//!   `conform` finds it, [`crate::corpus::vectors`]; `mov.u32 d, avar` shares `mov.u32`'s key but
//!   not its vectors, so only forms with semantics count);
//! - `kernels`: an operational form (no value semantics) has conformance scenarios
//!   ([`crate::kernel::operational`]: `cp.async` and its groups, the mbarrier forms,
//!   `elect.sync`), which `conform` runs with the vectors.

use generators::program::{self, Config};
use oracle::ast::{Expr, Instr, Item, Operand as AstOperand, Stmt};
use oracle::program::Op;
use serde::Serialize;
use spec::catalog::{catalog, write, Class, Exec, Form, FormId, Target};
use spec::types::Kind;
use std::collections::BTreeSet;
use std::fmt::{self, Write as _};
use std::path::PathBuf;

/// Form counts of a family, a section or the catalog.
#[derive(Serialize, Default, Clone, Debug, PartialEq, Eq)]
pub struct Counts {
    /// Forms counted.
    pub forms: usize,
    /// Forms whose value-level function the spec has.
    pub semantics: usize,
    /// Forms the oracle executes.
    pub executed: usize,
    /// Forms the program generator emits.
    pub generated: usize,
    /// Forms with golden vectors.
    pub vectors: usize,
    /// Operational forms with conformance scenarios.
    pub kernels: usize,
}

impl Counts {
    fn add(&mut self, f: &FormCoverage) {
        self.forms += 1;
        self.semantics += f.semantics as usize;
        self.executed += f.executed as usize;
        self.generated += f.generated as usize;
        self.vectors += f.vectors as usize;
        self.kernels += f.kernels as usize;
    }
}

/// One §9.7 family's coverage.
#[derive(Serialize)]
pub struct FamilyCoverage {
    /// The family's section number (`9.7.1`).
    pub id: &'static str,
    /// Its heading in the manual.
    pub title: &'static str,
    /// Instruction sections in the family.
    pub sections: usize,
    /// Its forms' counts.
    #[serde(flatten)]
    pub counts: Counts,
}

/// One instruction section's coverage.
#[derive(Serialize)]
pub struct SectionCoverage {
    /// The section number (`9.7.1.1`).
    pub id: &'static str,
    /// The heading after the number (`add`).
    pub title: &'static str,
    /// Its family's section number.
    pub family: &'static str,
    /// Line of the section heading in the PTX ISA 8.7 text.
    pub line: u32,
    /// Its forms' counts.
    #[serde(flatten)]
    pub counts: Counts,
}

/// One form's coverage flags.
#[derive(Serialize)]
pub struct FormCoverage {
    /// The instruction as PTX writes it (`add.sat.s32`).
    pub name: String,
    /// Its one-line signature ([`Form::signature`]).
    pub signature: String,
    /// Its section number.
    pub section: &'static str,
    /// Its family's section number.
    pub family: &'static str,
    /// How precisely the manual determines its result.
    pub class: Class,
    /// Minimum PTX ISA version.
    pub ptx: String,
    /// Minimum target.
    pub target: String,
    /// The spec has its value-level function.
    pub semantics: bool,
    /// The oracle executes it.
    pub executed: bool,
    /// Why the oracle does not execute the form (its message), when it does not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refused: Option<String>,
    /// The program generator emits it.
    pub generated: bool,
    /// It has golden vectors.
    pub vectors: bool,
    /// It has operational conformance scenarios ([`crate::kernel::operational::covers`]).
    pub kernels: bool,
}

/// The generator configuration the `generated` column is for.
#[derive(Serialize)]
pub struct GeneratorSetting {
    /// The generator's target.
    pub target: String,
    /// The generator's PTX ISA version.
    pub ptx: String,
    /// Programs sampled for the constructs' forms.
    pub programs: u64,
}

/// The coverage of the whole catalog.
#[derive(Serialize)]
pub struct Report {
    /// Counts over every form.
    pub total: Counts,
    /// Per family, in section order.
    pub families: Vec<FamilyCoverage>,
    /// Per section, in catalog order.
    pub sections: Vec<SectionCoverage>,
    /// Per form, in catalog order.
    pub forms: Vec<FormCoverage>,
    /// The configuration behind the `generated` flags.
    pub generator: GeneratorSetting,
    /// The golden-vector directory counted (`null`: none found).
    pub vectors_dir: Option<PathBuf>,
}

/// Programs of each sampled configuration for the constructs' forms.
pub const SAMPLED_PROGRAMS: u64 = 200;

/// The configuration sampled besides the default: `wgmma` (§9.7.15) needs an `a` target
/// (sm_90a) and whole warpgroups, so the generator emits it only there.
pub fn warpgroup_config() -> Config {
    Config {
        target: Target::parse("sm_90a").expect("sm_90a is a target"),
        warps: 4,
        ..Config::default()
    }
}

impl Report {
    /// Computes every flag: asks the oracle about each form, samples [`SAMPLED_PROGRAMS`]
    /// programs and looks for the golden vectors (a note on stderr when none are found).
    pub fn compute() -> Report {
        let cat = catalog();
        let vectors_dir = match crate::corpus::vectors() {
            Ok(f) => Some(f.dir),
            Err(looked) => {
                eprintln!(
                    "no golden-vector corpus found (looked in {}); the vectors column counts none",
                    crate::corpus::looked_in(&looked)
                );
                None
            }
        };
        let cfg = Config::default();
        let mut generated = generated_forms(&cfg, SAMPLED_PROGRAMS);
        generated.extend(generated_forms(&warpgroup_config(), SAMPLED_PROGRAMS));
        let executed = executed_forms();
        let mut families: Vec<FamilyCoverage> = cat
            .families
            .iter()
            .map(|f| FamilyCoverage {
                id: f.id,
                title: f.title,
                sections: cat
                    .sections
                    .iter()
                    .filter(|s| cat.families[s.family].id == f.id)
                    .count(),
                counts: Counts::default(),
            })
            .collect();
        let mut sections: Vec<SectionCoverage> = cat
            .sections
            .iter()
            .map(|s| SectionCoverage {
                id: s.id,
                title: s.title,
                family: cat.families[s.family].id,
                line: s.line,
                counts: Counts::default(),
            })
            .collect();
        let mut total = Counts::default();
        let forms: Vec<FormCoverage> = cat
            .enumerate()
            .zip(executed)
            .map(|((i, f), exec)| {
                let sec = cat.section_of(f);
                let semantics = spec::eval::has_semantics(f);
                FormCoverage {
                    name: f.name.clone(),
                    signature: f.signature(),
                    section: f.section,
                    family: cat.families[sec.family].id,
                    class: f.class,
                    ptx: f.ptx.to_string(),
                    target: f.target.to_string(),
                    semantics,
                    executed: exec.is_ok(),
                    refused: exec.err().map(|e| e.to_string()),
                    generated: generated.contains(&i),
                    vectors: semantics
                        && vectors_dir
                            .as_deref()
                            .is_some_and(|d| crate::vectors::path_of(d, f).is_file()),
                    kernels: crate::kernel::operational::covers(f),
                }
            })
            .collect();
        for fc in &forms {
            total.add(fc);
            if let Some(fam) = families.iter_mut().find(|x| x.id == fc.family) {
                fam.counts.add(fc);
            }
            if let Some(sec) = sections.iter_mut().find(|x| x.id == fc.section) {
                sec.counts.add(fc);
            }
        }
        families.sort_by_key(|f| {
            f.id.split('.')
                .map(|n| n.parse::<u32>().unwrap_or(0))
                .collect::<Vec<_>>()
        });
        Report {
            total,
            families,
            sections,
            forms,
            generator: GeneratorSetting {
                target: format!("{} (and {}, 4 warps)", cfg.target, warpgroup_config().target),
                ptx: cfg.ptx.to_string(),
                programs: SAMPLED_PROGRAMS,
            },
            vectors_dir,
        }
    }

    /// The human-readable table.
    pub fn table(&self) -> String {
        let pct = |n: usize, d: usize| if d == 0 { 0.0 } else { 100.0 * n as f64 / d as f64 };
        let mut s = String::new();
        let _ = writeln!(
            s,
            "{:<8} {:<52} {:>4} {:>6} {:>15} {:>15} {:>15} {:>7} {:>7}",
            "family", "title", "secs", "forms", "semantics", "executed", "generated", "vectors", "kernels"
        );
        let mut line = |id: &str, title: &str, secs: String, c: &Counts| {
            let col = |n: usize| format!("{n:>6} ({:>5.1}%)", pct(n, c.forms));
            let _ = writeln!(
                s,
                "{:<8} {:<52.52} {:>4} {:>6} {:>15} {:>15} {:>15} {:>7} {:>7}",
                id,
                title,
                secs,
                c.forms,
                col(c.semantics),
                col(c.executed),
                col(c.generated),
                c.vectors,
                c.kernels
            );
        };
        for f in &self.families {
            line(f.id, f.title, f.sections.to_string(), &f.counts);
        }
        let secs: usize = self.families.iter().map(|f| f.sections).sum();
        line("total", "", secs.to_string(), &self.total);
        let _ = writeln!(
            s,
            "\nsemantics: the spec's value function; executed: the oracle runs it; generated: programs \
             for {} / PTX {} contain it; vectors: golden vectors in {}; kernels: operational forms with \
             conformance scenarios (src/kernel/operational/)",
            self.generator.target,
            self.generator.ptx,
            self.vectors_dir
                .as_ref()
                .map_or_else(|| "(no corpus found)".to_string(), |d| d.display().to_string())
        );
        s
    }
}

// ---- what the oracle executes ------------------------------------------------------------------

/// The names [`instance`] writes for operands that are not plain registers.
const ENTRY: &str = "probe";
const FUNC: &str = "callee";
const PROTO: &str = "proto";
const TARGETS: &str = "targets";
const LABEL: &str = "L_end";
const GLOBAL: &str = "gvar";
const SHARED: &str = "svar";

/// Operand names that are memory addresses (`[a]`) in forms without value semantics.
const ADDRESS_OPERANDS: &[&str] = &["addr", "dst", "src", "mbar"];

/// Register names of each class, handed out in order.
#[derive(Default)]
struct Regs {
    n: [u32; 6],
}

impl Regs {
    const CLASSES: [(&'static str, &'static str); 6] = [
        (".pred", "%p"),
        (".b8", "%c"),
        (".b16", "%h"),
        (".b32", "%r"),
        (".b64", "%rd"),
        (".b128", "%q"),
    ];

    fn take(&mut self, bits: u32, pred: bool) -> String {
        let k = match (pred, bits) {
            (true, _) => 0,
            (_, 0..=8) => 1,
            (_, 9..=16) => 2,
            (_, 17..=32) => 3,
            (_, 33..=64) => 4,
            _ => 5,
        };
        self.n[k] += 1;
        format!("{}{}", Regs::CLASSES[k].1, self.n[k] - 1)
    }

    fn decls(&self) -> String {
        let mut s = String::new();
        for (k, (ty, prefix)) in Regs::CLASSES.iter().enumerate() {
            if self.n[k] > 0 {
                let _ = writeln!(s, "\t.reg {ty} {prefix}<{}>;", self.n[k]);
            }
        }
        s
    }
}

/// The `.address_size` of `form`'s probe module: 32 for the `.u32` forms of `cvta`, whose size
/// is the module's address size (§9.7.9.20, L13544-13548; a 64-bit module refuses them:
/// corpus/findings/ptxas-12.9-32-bit-addresses.txt), 64 otherwise.
pub fn address_bits(form: &Form) -> u32 {
    if form.exec() == Some(Exec::Cvta) && form.outputs.first().is_some_and(|o| o.ty.bits() == 32) {
        32
    } else {
        64
    }
}

/// One instance of `form` as a whole module, and the line of the instruction under test.
fn instance(form: &Form) -> (String, u32) {
    let (ptx, target) = crate::kernel::header_for(form);
    let pure = spec::eval::semantics(form).is_some();
    let mut regs = Regs::default();
    let vec = match form.var("vec") {
        Some("v2") => 2,
        Some("v4") => 4,
        Some("v8") => 8,
        _ => 1,
    };
    let elem = form.ty("t");
    let mut operand = |o: &spec::catalog::Operand, input: bool| -> String {
        if o.flags.imm {
            // wgmma's imm-scale-a/b take 1 or -1 only (L25781); a constant with a range
            // (`in=`, `mul=`) is its largest valid value (`cp.async`'s cp-size 16, which `.cg`
            // requires; `setmaxnreg`'s 256; `discard`'s 128); others 0.
            let v = match (o.flags.range, o.flags.multiple) {
                _ if o.name.starts_with("imm_scale") => 1,
                (Some((_, hi)), Some(m)) => hi - hi.rem_euclid(m as i64),
                (Some((_, hi)), None) => hi,
                _ => 0,
            };
            return write::immediate(o.ty, v as u128);
        }
        if !pure {
            match o.name {
                "tgt" => return LABEL.into(),
                "tlist" => return TARGETS.into(),
                "func" | "fname" => return FUNC.into(),
                "targets" => return PROTO.into(),
                // A 32-bit address is a `.shared` variable's: ptxas 12.9 refuses a `.global`
                // one's in a 64-bit module ("32-Bit compilation is no longer supported") and
                // takes `mov.u32 %r, svar` (corpus/findings/ptxas-12.9-32-bit-addresses.txt).
                "avar" if o.ty.bits() < 64 => return SHARED.into(),
                "avar" => return GLOBAL.into(),
                "kernel" => return ENTRY.into(),
                n if input && o.ty.bits() == 64 && ADDRESS_OPERANDS.contains(&n) => {
                    return format!("[{}]", regs.take(64, false));
                }
                _ => {}
            }
        }
        let pred = o.ty.kind == Kind::Pred;
        if o.flags.sink {
            return "_".into();
        }
        // A fragment the catalog writes as one braced element: its registers, which the
        // operand list braces.
        if let Some(n) = spec::catalog::fragment::length(form, o) {
            let v: Vec<String> = (0..n).map(|_| regs.take(o.ty.bits(), false)).collect();
            return v.join(", ");
        }
        if vec > 1 && !pure && !pred && Some(o.ty) == elem {
            let v: Vec<String> = (0..vec).map(|_| regs.take(o.ty.bits(), false)).collect();
            return format!("{{{}}}", v.join(", "));
        }
        regs.take(o.ty.bits(), pred)
    };
    let outs: Vec<String> = form
        .outputs
        .iter()
        .take_while(|o| !o.optional)
        .map(|o| operand(o, false))
        .collect();
    let ins: Vec<Option<String>> = form
        .inputs
        .iter()
        .map(|o| (!o.optional).then(|| operand(o, true)))
        .collect();
    let text = match form.opcode {
        // The guard and the braces of §9.7.12.1-2 are not instructions of their own.
        "@" => format!("@{} bra {LABEL};", regs.take(1, true)),
        "{}" => format!("{{ bra {LABEL}; }}"),
        _ => {
            let ops = write::operand_list(form, &outs, &ins);
            if ops.is_empty() {
                format!("{};", form.name)
            } else {
                format!("{} {ops};", form.name)
            }
        }
    };
    let mut m = String::new();
    let _ = writeln!(
        m,
        ".version {ptx}\n.target {target}\n.address_size {}",
        address_bits(form)
    );
    let _ = writeln!(m, ".global .align 16 .b8 {GLOBAL}[64];");
    let _ = writeln!(m, ".shared .align 16 .b8 {SHARED}[64];");
    let _ = writeln!(m, ".func {FUNC}()\n{{\n\tret;\n}}");
    let _ = writeln!(m, ".visible .entry {ENTRY}()\n{{");
    m.push_str(&regs.decls());
    let _ = writeln!(m, "\t{PROTO}: .callprototype _ ();");
    let _ = writeln!(m, "\t{TARGETS}: .branchtargets {LABEL};");
    let line = m.lines().count() as u32 + 1;
    let _ = writeln!(m, "\t{text}");
    let _ = writeln!(m, "{LABEL}:\n\tret;\n}}");
    (m, line)
}

/// Why the oracle does not execute a form: the stage of its probe module that stopped it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Declined {
    /// The probe did not parse (a defect of the probe writer): the parser's message.
    Parse(String),
    /// The type checker refused the probe: the error's kind and message.
    Check {
        /// The stage's name (`type`, `internal`, ...: `oracle::error::ErrorKind::name`).
        kind: &'static str,
        /// The checker's message.
        message: String,
    },
    /// Nothing was decoded at the probe's line of the instruction.
    NotDecoded {
        /// The line of the probe module.
        line: u32,
    },
    /// The instruction was decoded as another form (its signature).
    OtherForm(String),
    /// Valid and loaded, but a thread reaching it stops (the checker's message).
    Unsupported(String),
}

impl fmt::Display for Declined {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Declined::Parse(m) => write!(f, "parse: {m}"),
            Declined::Check { kind, message } => write!(f, "{kind}: {message}"),
            Declined::NotDecoded { line } => write!(f, "no instruction decoded at line {line} of the probe"),
            Declined::OtherForm(sig) => write!(f, "decoded as another form: {sig}"),
            Declined::Unsupported(m) => write!(f, "type: {m}"),
        }
    }
}

impl std::error::Error for Declined {}

/// Whether the oracle executes `form` (`Err`: why not).
pub fn oracle_executes(form: &'static Form) -> Result<(), Declined> {
    let (text, line) = instance(form);
    let module = oracle::parse::parse(&text).map_err(|e| Declined::Parse(e.message))?;
    // Whether the oracle executes a form is a question about the manual's grammar (the forms
    // ptxas refuses run under `"grammar": "manual"`).
    let opts = oracle::check::Options {
        generic: true,
        grammar: oracle::check::Grammar::Manual,
    };
    let prog = oracle::check::check_with(&module, opts).map_err(|e| Declined::Check {
        kind: e.kind.name(),
        message: e.message,
    })?;
    // The instruction under test (for `{}`, the `bra` inside the braces) is on `line`.
    let Some(inst) = prog.code.iter().find(|i| i.loc.line == line) else {
        return Err(Declined::NotDecoded { line });
    };
    match &inst.op {
        Op::Pure { form: f, .. } | Op::Warp { form: f, .. } if !std::ptr::eq(*f, form) => {
            Err(Declined::OtherForm(f.signature()))
        }
        // Valid, loaded, but a thread reaching it stops: not executed.
        Op::Unsupported { message } => Err(Declined::Unsupported(message.clone())),
        _ => Ok(()),
    }
}

/// [`oracle_executes`] for every catalog form, in catalog order (on all cores).
pub fn executed_forms() -> Vec<Result<(), Declined>> {
    let forms = &catalog().forms;
    let jobs = std::thread::available_parallelism().map_or(1, |n| n.get());
    let chunk = forms.len().div_ceil(jobs).max(1);
    std::thread::scope(|s| {
        let parts: Vec<_> = forms
            .chunks(chunk)
            .map(|c| s.spawn(move || c.iter().map(oracle_executes).collect::<Vec<_>>()))
            .collect();
        parts
            .into_iter()
            .flat_map(|h| h.join().expect("the oracle probe does not panic"))
            .collect()
    })
}

// ---- what the generator emits ------------------------------------------------------------------

/// The forms programs of `cfg` contain: the generator's menu of value-level forms, and every form
/// found in the programs of seeds `0..programs` (with the default swarm testing, each program
/// draws its own features, which reaches constructs that exclude each other, such as `bar.red`
/// and the warp collectives; 200 programs find all 80 of the constructs' forms).
pub fn generated_forms(cfg: &Config, programs: u64) -> BTreeSet<FormId> {
    let mut set: BTreeSet<FormId> = program::menu_forms(cfg).into_iter().collect();
    for seed in 0..programs {
        let p = program::from_seed(seed, cfg);
        set.extend(&p.forms);
        if let Ok(m) = oracle::parse::parse(&p.ptx) {
            for item in &m.items {
                if let Item::Function(f) = item {
                    forms_in(f.body.as_deref().unwrap_or(&[]), cfg, &mut set);
                }
            }
        }
    }
    set
}

fn forms_in(body: &[Stmt], cfg: &Config, set: &mut BTreeSet<FormId>) {
    let cat = catalog();
    let by_opcode = |op: &str| cat.enumerate().find(|(_, f)| f.opcode == op).map(|(i, _)| i);
    for s in body {
        match s {
            Stmt::Instr(i) => {
                if i.guard.is_some() {
                    set.extend(by_opcode("@"));
                }
                set.extend(form_of(i, cfg));
            }
            Stmt::Block { body, .. } => {
                set.extend(by_opcode("{}"));
                forms_in(body, cfg, set);
            }
            _ => {}
        }
    }
}

/// The catalog form of a generated instruction: the forms of its name available to `cfg` whose
/// operand count fits; among several, a bare name as a source (`mov.u64 %rd, sh`) picks a form
/// without value semantics (`d, avar`), registers one with.
fn form_of(i: &Instr, cfg: &Config) -> Option<FormId> {
    let cat = catalog();
    let name = std::iter::once(i.opcode.as_str())
        .chain(i.mods.iter().map(String::as_str))
        .collect::<Vec<_>>()
        .join(".");
    let found = cat.lookup(&name).ok()?;
    let count = |o: &AstOperand| match o {
        AstOperand::Vector(v) | AstOperand::List(v) => v.len(),
        AstOperand::Pair(..) => 2,
        _ => 1,
    };
    // A call's return and argument lists are the callee's business, not operands of the form.
    let written: usize = if cat.effects(&i.opcode).call {
        i.operands.iter().filter(|o| !matches!(o, AstOperand::List(_))).count()
    } else {
        i.operands.iter().map(count).sum()
    };
    // A matrix fragment (`mma`'s `{d0, ..., d3}`, `ldmatrix`'s `{d0, d1}`) is one operand of
    // the form, whatever its length.
    let fragments = i.operands.len();
    let named = i
        .operands
        .iter()
        .skip(1)
        .any(|o| matches!(o, AstOperand::Expr(Expr::Name(n)) if !n.starts_with('%')));
    let fits: Vec<FormId> = found
        .forms
        .iter()
        .copied()
        .filter(|&k| {
            let f = &cat.forms[k];
            let ops: Vec<_> = f.outputs.iter().chain(&f.inputs).filter(|o| !o.flags.cc).collect();
            let required = ops.iter().filter(|o| !o.optional).count();
            let fits = |n: usize| (required..=ops.len()).contains(&n);
            let matrix = f.section.starts_with("9.7.14") || f.section.starts_with("9.7.15");
            f.available(cfg.ptx, cfg.target) && (fits(written) || (matrix && fits(fragments)))
        })
        .collect();
    let pure = |k: &FormId| spec::eval::semantics(&cat.forms[*k]).is_some();
    fits.iter().find(|k| pure(k) != named).or(fits.first()).copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first form of a name.
    fn form(name: &str) -> &'static Form {
        let cat = catalog();
        &cat.forms[*cat.by_name(name).first().unwrap_or_else(|| panic!("{name}"))]
    }

    /// The probe kernel of a memory form is what PTX writes, and the oracle runs it.
    #[test]
    fn probes_of_operational_forms() {
        let (text, line) = instance(form("ld.global.v2.u32"));
        let probe = text.lines().nth(line as usize - 1).unwrap();
        assert!(probe.contains("ld.global.v2.u32 {%r0, %r1}, [%rd0];"), "{text}");
        for key in [
            "ld.global.u32",
            "st.shared.b64",
            "atom.global.add.u32",
            "bar.sync",
            "shfl.sync.bfly.b32",
        ] {
            assert_eq!(oracle_executes(form(key)), Ok(()), "{key}: {}", instance(form(key)).0);
        }
        assert!(oracle_executes(form("add.s32")).is_ok());
        let why = oracle_executes(form("tex.1d.v4.f32.s32")).unwrap_err();
        assert!(
            matches!(why, Declined::Unsupported(_) | Declined::Check { .. }),
            "{why}"
        );
        assert!(!why.to_string().is_empty());
    }
}
