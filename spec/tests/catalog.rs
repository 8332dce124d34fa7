//! Catalog-wide properties: every §9.7 instruction section is in the table, every form of the
//! families the spec implements has semantics, and every such form evaluates without error;
//! the operational rows name the oracle executor that runs them (`@exec`).

use proptest::prelude::*;
use spec::catalog::{catalog, Class, Exec, Form};
use spec::eval::{eval, eval_line, semantics};
use spec::types::Kind;
use spec::value::{Args, Input};

/// The instruction sections of PTX ISA 8.7 §9.7 (the 196 leaf sections that define an
/// instruction, from the checklist `catalog.md` §1 and §8.1; the conceptual 9.7.9.1 cache
/// operators and 9.7.9.2 eviction priorities define no opcode).
const SECTIONS: &[&str] = &[
    "9.7.1.1",
    "9.7.1.2",
    "9.7.1.3",
    "9.7.1.4",
    "9.7.1.5",
    "9.7.1.6",
    "9.7.1.7",
    "9.7.1.8",
    "9.7.1.9",
    "9.7.1.10",
    "9.7.1.11",
    "9.7.1.12",
    "9.7.1.13",
    "9.7.1.14",
    "9.7.1.15",
    "9.7.1.16",
    "9.7.1.17",
    "9.7.1.18",
    "9.7.1.19",
    "9.7.1.20",
    "9.7.1.21",
    "9.7.1.22",
    "9.7.1.23",
    "9.7.1.24",
    "9.7.2.1",
    "9.7.2.2",
    "9.7.2.3",
    "9.7.2.4",
    "9.7.2.5",
    "9.7.2.6",
    "9.7.3.1",
    "9.7.3.2",
    "9.7.3.3",
    "9.7.3.4",
    "9.7.3.5",
    "9.7.3.6",
    "9.7.3.7",
    "9.7.3.8",
    "9.7.3.9",
    "9.7.3.10",
    "9.7.3.11",
    "9.7.3.12",
    "9.7.3.13",
    "9.7.3.14",
    "9.7.3.15",
    "9.7.3.16",
    "9.7.3.17",
    "9.7.3.18",
    "9.7.3.19",
    "9.7.3.20",
    "9.7.3.21",
    "9.7.3.22",
    "9.7.4.1",
    "9.7.4.2",
    "9.7.4.3",
    "9.7.4.4",
    "9.7.4.5",
    "9.7.4.6",
    "9.7.4.7",
    "9.7.4.8",
    "9.7.4.9",
    "9.7.4.10",
    "9.7.5.1",
    "9.7.5.2",
    "9.7.5.3",
    "9.7.6.1",
    "9.7.6.2",
    "9.7.6.3",
    "9.7.6.4",
    "9.7.7.1",
    "9.7.7.2",
    "9.7.8.1",
    "9.7.8.2",
    "9.7.8.3",
    "9.7.8.4",
    "9.7.8.5",
    "9.7.8.6",
    "9.7.8.7",
    "9.7.8.8",
    "9.7.8.9",
    "9.7.9.3",
    "9.7.9.4",
    "9.7.9.5",
    "9.7.9.6",
    "9.7.9.7",
    "9.7.9.8",
    "9.7.9.9",
    "9.7.9.10",
    "9.7.9.11",
    "9.7.9.12",
    "9.7.9.13",
    "9.7.9.14",
    "9.7.9.15",
    "9.7.9.16",
    "9.7.9.17",
    "9.7.9.18",
    "9.7.9.19",
    "9.7.9.20",
    "9.7.9.21",
    "9.7.9.22",
    "9.7.9.23",
    "9.7.9.24",
    "9.7.9.25.3.1",
    "9.7.9.25.3.2",
    "9.7.9.25.3.3",
    "9.7.9.25.4.1",
    "9.7.9.25.4.2",
    "9.7.9.25.4.3",
    "9.7.9.25.5.2",
    "9.7.9.25.5.3",
    "9.7.9.25.5.4",
    "9.7.9.25.6.1",
    "9.7.9.25.6.2",
    "9.7.9.26",
    "9.7.10.3",
    "9.7.10.4",
    "9.7.10.5",
    "9.7.10.6",
    "9.7.11.1",
    "9.7.11.2",
    "9.7.11.3",
    "9.7.11.4",
    "9.7.12.1",
    "9.7.12.2",
    "9.7.12.3",
    "9.7.12.4",
    "9.7.12.5",
    "9.7.12.6",
    "9.7.12.7",
    "9.7.13.1",
    "9.7.13.2",
    "9.7.13.3",
    "9.7.13.4",
    "9.7.13.5",
    "9.7.13.6",
    "9.7.13.7",
    "9.7.13.8",
    "9.7.13.9",
    "9.7.13.10",
    "9.7.13.11",
    "9.7.13.12",
    "9.7.13.13",
    "9.7.13.14",
    "9.7.13.15.9",
    "9.7.13.15.10",
    "9.7.13.15.11",
    "9.7.13.15.12",
    "9.7.13.15.13",
    "9.7.13.15.14",
    "9.7.13.15.15",
    "9.7.13.15.16",
    "9.7.13.15.17",
    "9.7.13.16",
    "9.7.13.17",
    "9.7.13.18",
    "9.7.14.4.3",
    "9.7.14.4.4",
    "9.7.14.4.5",
    "9.7.14.5.14",
    "9.7.14.5.15",
    "9.7.14.5.16",
    "9.7.14.5.17",
    "9.7.14.6.3",
    "9.7.15.5.2",
    "9.7.15.6.3",
    "9.7.15.7.1",
    "9.7.15.7.2",
    "9.7.15.7.3",
    "9.7.16.6.1",
    "9.7.16.7.3",
    "9.7.16.7.4",
    "9.7.16.7.5",
    "9.7.16.8.2",
    "9.7.16.8.3",
    "9.7.16.9.9.1",
    "9.7.16.9.9.2",
    "9.7.16.9.9.3",
    "9.7.16.9.9.4",
    "9.7.16.10.1",
    "9.7.16.11.1",
    "9.7.17.1",
    "9.7.17.2",
    "9.7.17.3",
    "9.7.18.1.1",
    "9.7.18.1.2",
    "9.7.18.1.3",
    "9.7.18.1.4",
    "9.7.18.2.1",
    "9.7.18.2.2",
    "9.7.18.2.3",
    "9.7.18.2.4",
    "9.7.19.1",
    "9.7.19.2",
    "9.7.19.3",
    "9.7.19.4",
    "9.7.19.5",
];

#[test]
fn catalog_holds_every_instruction_section() {
    let cat = catalog();
    assert_eq!(SECTIONS.len(), 196);
    let missing: Vec<&&str> = SECTIONS
        .iter()
        .filter(|s| !cat.sections.iter().any(|c| c.id == **s))
        .collect();
    assert!(missing.is_empty(), "sections missing from the catalog: {missing:?}");
    let extra: Vec<&str> = cat
        .sections
        .iter()
        .map(|s| s.id)
        .filter(|id| !SECTIONS.contains(id))
        .collect();
    assert!(extra.is_empty(), "sections not in §9.7's list: {extra:?}");
    for s in &cat.sections {
        let rows = cat.rows.iter().filter(|r| cat.sections[r.section].id == s.id).count();
        assert!(rows > 0, "section {} {} has no form rows", s.id, s.title);
    }
}

/// A value-level form (`exact`, `approx`, `approx-nobound`): a pure function of its operands,
/// which the spec must evaluate (`mov.u32 d, avar`, 9.7.9.3, is a memory form: the oracle's).
fn implemented(f: &Form) -> bool {
    matches!(f.class, Class::BitExact | Class::ApproxBounded | Class::ApproxUnbounded)
}

#[test]
fn every_value_form_has_semantics() {
    let cat = catalog();
    let forms: Vec<&Form> = cat.forms.iter().filter(|f| implemented(f)).collect();
    assert_eq!(forms.len(), 7801, "value-level forms");
    let missing: Vec<String> = forms
        .iter()
        .filter(|f| semantics(f).is_none())
        .map(|f| f.signature())
        .collect();
    assert!(
        missing.is_empty(),
        "{} forms without semantics, e.g. {:?}",
        missing.len(),
        &missing[..missing.len().min(10)]
    );
}

/// The sections each oracle executor runs (`@exec` in the table): all their rows, and no other
/// row. The manual's sections as [`Exec`]'s documentation gives them.
const EXEC_SECTIONS: &[(Exec, &[&str])] = &[
    (Exec::Ld, &["9.7.9.8", "9.7.9.9", "9.7.9.10"]),
    (Exec::St, &["9.7.9.11"]),
    (Exec::Mov, &["9.7.9.3", "9.7.9.4"]),
    (Exec::Cvta, &["9.7.9.20"]),
    (Exec::Atom, &["9.7.13.5", "9.7.13.6"]),
    (Exec::Isspacep, &["9.7.9.19"]),
    (Exec::Bra, &["9.7.12.3"]),
    (Exec::Brx, &["9.7.12.4"]),
    (Exec::Call, &["9.7.12.5"]),
    (Exec::Ret, &["9.7.12.6"]),
    (Exec::Exit, &["9.7.12.7"]),
    (Exec::Trap, &["9.7.19.4"]),
    (Exec::Bar, &["9.7.13.1"]),
    (Exec::BarrierCluster, &["9.7.13.3"]),
    (Exec::Mapa, &["9.7.9.23"]),
    (Exec::Getctarank, &["9.7.9.24"]),
    (Exec::WarpSync, &["9.7.13.2"]),
    (Exec::Prefetch, &["9.7.9.15"]),
    (Exec::Nop, &["9.7.13.4", "9.7.19.2", "9.7.19.3", "9.7.13.13"]),
    (Exec::ProxyFence, &["9.7.13.4"]),
    (
        Exec::Mbarrier,
        &[
            "9.7.13.15.9",
            "9.7.13.15.10",
            "9.7.13.15.11",
            "9.7.13.15.12",
            "9.7.13.15.13",
            "9.7.13.15.14",
            "9.7.13.15.15",
            "9.7.13.15.16",
            "9.7.13.15.17",
        ],
    ),
    (Exec::CpAsync, &["9.7.9.25.3.1"]),
    (Exec::CpAsyncCommit, &["9.7.9.25.3.2"]),
    (Exec::CpAsyncWait, &["9.7.9.25.3.3"]),
    (Exec::BulkCopy, &["9.7.9.25.4.1", "9.7.9.25.4.2", "9.7.9.25.4.3"]),
    (Exec::BulkGroup, &["9.7.9.25.6.1", "9.7.9.25.6.2"]),
    (Exec::StAsync, &["9.7.9.12"]),
    (Exec::StBulk, &["9.7.9.13"]),
    (Exec::RedAsync, &["9.7.13.7"]),
    (Exec::Mma, &["9.7.14.5.14", "9.7.14.6.3"]),
    (Exec::Wmma, &["9.7.14.4.3", "9.7.14.4.4", "9.7.14.4.5"]),
    (Exec::Ldmatrix, &["9.7.14.5.15"]),
    (Exec::Stmatrix, &["9.7.14.5.16"]),
    (Exec::Movmatrix, &["9.7.14.5.17"]),
    (Exec::Wgmma, &["9.7.15.5.2", "9.7.15.6.3"]),
    (Exec::WgmmaSync, &["9.7.15.7.1", "9.7.15.7.2", "9.7.15.7.3"]),
    (Exec::Shfl, &["9.7.9.5", "9.7.9.6"]),
    (Exec::Vote, &["9.7.13.8", "9.7.13.9"]),
    (Exec::Match, &["9.7.13.10"]),
    (Exec::Activemask, &["9.7.13.11"]),
    (Exec::Redux, &["9.7.13.12"]),
    (Exec::Elect, &["9.7.13.14"]),
    (Exec::Setmaxnreg, &["9.7.19.5"]),
    (Exec::Brkpt, &["9.7.19.1"]),
    (Exec::Stacksave, &["9.7.17.1"]),
    (Exec::Stackrestore, &["9.7.17.2"]),
    (Exec::Alloca, &["9.7.17.3"]),
    (Exec::Discard, &["9.7.9.17"]),
    (Exec::Applypriority, &["9.7.9.16"]),
    (Exec::Createpolicy, &["9.7.9.18"]),
    (Exec::TensormapReplace, &["9.7.9.26"]),
    (Exec::TensormapCpFenceproxy, &["9.7.13.16"]),
    (Exec::TensorCopy, &["9.7.9.25.5.2", "9.7.9.25.5.3", "9.7.9.25.5.4"]),
    (Exec::TensormapFence, &["9.7.13.4"]),
];

/// Executors that run only some rows of their section, by the rows' patterns: the proxy fences
/// toward the async proxy, among §9.7.13.4's other (no-op) fences. (The tensor copies run every
/// row of their sections, the sm_100 modes included.)
const EXEC_PATTERNS: &[(Exec, &str)] = &[
    (Exec::ProxyFence, "fence.proxy.<proxy:async|"),
    (Exec::ProxyFence, "membar.proxy.<proxy:async|"),
    (Exec::TensormapFence, "fence.proxy.tensormap::generic."),
];

/// A value row names its semantics (`@sem`) and no executor but `mov`'s (which decides by the
/// operand); an operational row names no semantics, and its executor or none (not executed
/// yet). Every executor runs some row, each exactly the sections [`EXEC_SECTIONS`] lists, and the
/// forms of one name share their executor (the type checker dispatches on the first form of the
/// name the module may use).
#[test]
fn operational_rows_name_their_executor() {
    let cat = catalog();
    assert_eq!(EXEC_SECTIONS.len(), Exec::ALL.len());
    for r in &cat.rows {
        let at = format!("{}:{} `{}`", r.file, r.line, r.pattern);
        if implemented_class(r.class) {
            assert!(r.sem.is_some(), "{at}: a value row without @sem");
            assert!(
                r.exec.is_none() || r.exec == Some(Exec::Mov),
                "{at}: a value row with {:?}",
                r.exec
            );
        } else {
            assert!(r.sem.is_none(), "{at}: an operational row with {:?}", r.sem);
        }
        let section = cat.sections[r.section].id;
        let listed = EXEC_PATTERNS
            .iter()
            .find(|(_, p)| r.pattern.starts_with(p))
            .map(|(e, _)| *e)
            .or_else(|| {
                EXEC_SECTIONS
                    .iter()
                    .filter(|(e, _)| EXEC_PATTERNS.iter().all(|(x, _)| x != e))
                    .find(|(_, secs)| secs.contains(&section))
                    .map(|(e, _)| *e)
            });
        assert_eq!(r.exec, listed, "{at}: §{section}");
    }
    let mut summary = Vec::new();
    for &e in Exec::ALL {
        let (_, secs) = EXEC_SECTIONS.iter().find(|(x, _)| *x == e).unwrap();
        let rows = cat.rows.iter().filter(|r| r.exec == Some(e)).count();
        let forms = cat.forms.iter().filter(|f| f.exec() == Some(e)).count();
        assert!(rows > 0, "no row is run by {e:?}");
        for s in *secs {
            assert!(cat.sections.iter().any(|x| x.id == *s), "{e:?}: no section {s}");
        }
        summary.push(format!("{}: {rows} rows, {forms} forms", e.name()));
    }
    for f in &cat.forms {
        for &g in cat.by_name(&f.name) {
            assert_eq!(cat.forms[g].exec(), f.exec(), "the forms of `{}` disagree", f.name);
        }
    }
    let operational = cat.rows.iter().filter(|r| !implemented_class(r.class)).count();
    let executed = cat
        .rows
        .iter()
        .filter(|r| !implemented_class(r.class) && r.exec.is_some())
        .count();
    println!(
        "{operational} operational rows, {executed} with an executor; {}",
        summary.join("; ")
    );
}

fn implemented_class(c: Class) -> bool {
    matches!(c, Class::BitExact | Class::ApproxBounded | Class::ApproxUnbounded)
}

/// The operand roles the generators draw values for: shift amounts and bit positions (the
/// manual's descriptions: `shl`/`shr` L11483/L11523 "shifted by the amount in b", `bfe` L6482
/// "b gives the start bit position, c the field length", …), integer divisors (`div`/`rem`,
/// L6000), `lop3`'s truth table (L11196) and `prmt`'s byte selector (L12103). Every form of these opcodes has
/// exactly these operands flagged, and no other form has a role.
#[test]
fn operand_roles_are_flagged_where_the_manual_gives_them() {
    let amounts = |op: &str| -> &[&str] {
        match op {
            "shl" | "shr" | "szext" | "vshl" | "vshr" => &["b"],
            "bfe" => &["b", "c"],
            "bfi" => &["c", "d"],
            "shf" => &["c"],
            "bmsk" => &["a", "b"],
            "fns" => &["base", "offset"],
            _ => &[],
        }
    };
    let (mut n_amount, mut n_divisor) = (0, 0);
    for f in &catalog().forms {
        for o in &f.inputs {
            assert_eq!(
                o.flags.amount,
                amounts(f.opcode).contains(&o.name),
                "{} {}",
                f.name,
                o.name
            );
            let divisor = matches!(f.opcode, "div" | "rem") && o.name == "b" && !matches!(o.ty.kind, Kind::Float(_));
            assert_eq!(o.flags.divisor, divisor, "{} {}", f.name, o.name);
            n_amount += o.flags.amount as usize;
            n_divisor += o.flags.divisor as usize;
        }
        for o in &f.inputs {
            assert_eq!(
                o.flags.lut,
                f.opcode == "lop3" && o.name == "immLut",
                "{} {}",
                f.name,
                o.name
            );
            assert_eq!(
                o.flags.perm,
                f.opcode == "prmt" && o.name == "c",
                "{} {}",
                f.name,
                o.name
            );
        }
        assert!(
            f.outputs.iter().all(|o| !o.flags.amount && !o.flags.divisor),
            "{}",
            f.name
        );
    }
    assert!(
        n_amount > 100 && n_divisor == 12,
        "{n_amount} amounts, {n_divisor} divisors"
    );
}

/// Random source operands of the right widths (carry and predicates 0/1, no selectors).
fn inputs(f: &Form, seed: &mut u64) -> Vec<Input> {
    f.inputs
        .iter()
        .filter(|o| !o.optional)
        .map(|o| {
            *seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let r = (*seed as u128) << 64 | seed.rotate_left(29) as u128;
            let bits = if o.ty.kind == Kind::Pred {
                r & 1
            } else {
                r & o.ty.mask()
            };
            Input::bits(bits)
        })
        .collect()
}

#[test]
fn every_implemented_form_evaluates_on_random_operands() {
    let cat = catalog();
    let mut seed = 0x9e3779b97f4a7c15u64;
    for f in cat.forms.iter().filter(|f| implemented(f)) {
        for _ in 0..64 {
            let ins = inputs(f, &mut seed);
            let out = eval(f, &Args { ins: &ins, dsel: None }).unwrap_or_else(|e| panic!("{}: {e}", f.signature()));
            assert_eq!(out.len(), f.outputs.len(), "{}", f.name);
            for (o, r) in f.outputs.iter().zip(&out) {
                assert_eq!(r.model & !o.ty.mask(), 0, "{}: {} wider than {}", f.name, r.model, o.ty);
            }
        }
    }
}

fn junk() -> impl Strategy<Value = String> {
    let word = prop_oneof![
        Just("add".to_string()),
        Just(".s32".to_string()),
        Just(".sat".to_string()),
        Just(" ".to_string()),
        Just("0x".to_string()),
        Just("{".to_string()),
        Just("}".to_string()),
        Just(",".to_string()),
        Just("d.".to_string()),
        Just("cf=".to_string()),
        Just("!".to_string()),
        Just("-".to_string()),
        "[0-9a-fA-Fx]{1,40}",
        "[a-z0-9._]{1,12}",
        "\\PC{0,4}",
    ];
    prop::collection::vec(word, 0..12).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    /// Malformed input gets an error, never a panic.
    #[test]
    fn eval_line_never_panics_on_junk(s in junk()) {
        let _ = eval_line(&s);
    }

    /// Real form names with junk operands: an answer or an error, never a panic.
    #[test]
    fn eval_line_never_panics_on_real_forms(i in 0usize..100_000, ops in junk()) {
        let cat = catalog();
        let f = &cat.forms[i % cat.forms.len()];
        let _ = eval_line(&format!("{} {}", f.name, ops));
    }
}
