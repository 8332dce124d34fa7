//! The catalog names how every form the oracle executes is run: its semantics (`@sem`, value
//! forms) or the oracle executor of its row (`@exec`, operational forms: `spec::catalog::Exec`,
//! on which the type checker dispatches). Every catalog form written plainly (the ptxas agreement
//! test's writer, `ptxas_agreement/variants.rs`) is checked under the manual's grammar: a form the
//! oracle takes and executes (no `Op::Unsupported` for it) whose row names neither fails the test,
//! as a row without semantics whose executor was keyed on something else would.

#[path = "ptxas_agreement/variants.rs"]
#[allow(dead_code)]
mod variants;

use oracle::check::{check_with, Grammar, Options};
use spec::catalog::catalog;
use variants::Variant;

#[test]
fn every_executed_form_names_its_semantics_or_executor() {
    let cat = catalog();
    let (mut executed, mut declined, mut refused) = (0, 0, 0);
    let mut unnamed = Vec::new();
    for fi in cat.ids() {
        // `{ instructionList }` and the guard `@p` (§9.7.12.1-2) are listed in the catalog but are
        // syntax, which the checker reads as a block and a guard, not as instructions.
        if matches!(cat.forms[fi].section, "9.7.12.1" | "9.7.12.2") {
            continue;
        }
        let Some(v) = Variant::plain(fi) else {
            continue;
        };
        let r = v.render(&v.all());
        let Ok(m) = oracle::parse::parse(&r.text) else {
            refused += 1;
            continue;
        };
        let o = Options {
            grammar: Grammar::Manual,
            ..Options::default()
        };
        let Ok(p) = check_with(&m, o) else {
            refused += 1;
            continue;
        };
        if p.unsupported.iter().any(|(loc, _)| r.lines.contains(&loc.line)) {
            declined += 1;
            continue;
        }
        executed += 1;
        let f = &cat.forms[fi];
        if spec::eval::semantics(f).is_none() && f.exec().is_none() {
            unnamed.push(f.signature());
        }
    }
    assert!(
        unnamed.is_empty(),
        "{} forms the oracle executes have neither semantics (@sem) nor an executor (@exec), e.g. {:?}",
        unnamed.len(),
        &unnamed[..unnamed.len().min(10)]
    );
    println!("{executed} forms executed, {declined} declined as not executed yet, {refused} refused");
    // The value forms (7,801) and the operational forms with an executor, less what the writer
    // cannot form plainly or the checker refuses.
    assert!(executed > 15_000, "{executed} forms executed");
}
