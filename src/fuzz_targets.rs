//! The bodies of the cargo-fuzz targets in `fuzz/` (see `fuzz/README.md`), as plain functions so
//! that `tests/fuzz_seeds.rs` runs each over its seed corpus (`corpus/fuzz/<target>/`) in
//! `cargo test` too.
//!
//! Every body takes the fuzzer's bytes and returns `Ok(Reach)` when the property holds (saying
//! whether the input reached it) or `Err(report)` when it does not: the fuzz target panics with the
//! report, so libFuzzer saves the input; a test prints it.
//!
//! `spec_vs_softfloat` lives in `fuzz/bodies/spec_vs_softfloat.rs` instead, included by the fuzz
//! target and the test: its reference, Berkeley SoftFloat, is a dev-dependency (a C library), not
//! one of this crate's.

use oracle::ast::Module;
use oracle::{check, parse, print};

/// How far an input got: the seed tests require the meaningful seeds to reach the property.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reach {
    /// The input is outside the property's domain (text that does not parse): nothing to check
    /// beyond the absence of a panic.
    Rejected,
    /// The property was checked on it.
    Checked,
}

/// A property violation, with everything needed to reproduce it.
pub type Finding = String;

/// The fuzzer's bytes as text: invalid UTF-8 becomes U+FFFD, so every input reaches the lexer.
fn text(data: &[u8]) -> std::borrow::Cow<'_, str> {
    String::from_utf8_lossy(data)
}

/// `parse`: any bytes through the front end — `oracle::parse::parse`, then `oracle::check::check`
/// on what parses — end in a module or a located error, never a panic. `Checked` when the text
/// parses and type-checks.
pub fn parse(data: &[u8]) -> Result<Reach, Finding> {
    let src = text(data);
    let Ok(m) = parse::parse(&src) else {
        return Ok(Reach::Rejected);
    };
    Ok(match check::check(&m) {
        Ok(_) => Reach::Checked,
        Err(_) => Reach::Rejected,
    })
}

/// `roundtrip`: for text that parses, the printed module parses again to the same module
/// (positions aside: `ast::Loc` takes no part in equality), printing is a fixed point
/// (`print(parse(print(m))) == print(m)`), and the type checker accepts the printed module exactly
/// when it accepts the original (an error may move, not appear or vanish).
pub fn roundtrip(data: &[u8]) -> Result<Reach, Finding> {
    let src = text(data);
    let Ok(m) = parse::parse(&src) else {
        return Ok(Reach::Rejected);
    };
    let printed = print::print(&m);
    let again = match parse::parse(&printed) {
        Ok(a) => a,
        Err(e) => {
            return Err(report(
                &src,
                &printed,
                &format!("the printed module does not parse: {e}"),
            ))
        }
    };
    if again != m {
        return Err(report(
            &src,
            &printed,
            &format!(
                "the printed module parses to another module: {}",
                first_difference(&m, &again)
            ),
        ));
    }
    let twice = print::print(&again);
    if twice != printed {
        return Err(report(
            &src,
            &printed,
            &format!("printing is not a fixed point; printed again:\n{twice}"),
        ));
    }
    let (c1, c2) = (check::check(&m), check::check(&again));
    if c1.is_ok() != c2.is_ok() {
        let say = |r: &oracle::error::Result<oracle::program::Program>| match r {
            Ok(_) => "accepted".to_string(),
            Err(e) => format!("rejected: {e}"),
        };
        return Err(report(
            &src,
            &printed,
            &format!(
                "the type checker disagrees: original {}, printed {}",
                say(&c1),
                say(&c2)
            ),
        ));
    }
    Ok(Reach::Checked)
}

fn report(src: &str, printed: &str, what: &str) -> Finding {
    format!("roundtrip: {what}\n--- input ---\n{src}\n--- printed ---\n{printed}")
}

/// The first item that differs, as the first line where the two items print differently, with
/// both lines in Debug form (a string's escapes show there).
fn first_difference(a: &Module, b: &Module) -> String {
    if a.items.len() != b.items.len() {
        return format!("{} items, then {}", a.items.len(), b.items.len());
    }
    let Some(i) = a.items.iter().zip(&b.items).position(|(x, y)| x != y) else {
        return "no item differs".to_string();
    };
    let one = |m: &Module| {
        print::print(&Module {
            items: vec![m.items[i].clone()],
        })
    };
    let (pa, pb) = (one(a), one(b));
    let (la, lb): (Vec<&str>, Vec<&str>) = (pa.lines().collect(), pb.lines().collect());
    match (0..la.len().max(lb.len())).find(|&k| la.get(k) != lb.get(k)) {
        Some(k) => format!(
            "item {i}, printed line {}: {:?} then {:?}",
            k + 1,
            la.get(k).unwrap_or(&""),
            lb.get(k).unwrap_or(&"")
        ),
        None => {
            let mut d = format!("item {i} (prints alike): {:?} then {:?}", a.items[i], b.items[i]);
            d.truncate(2000);
            d
        }
    }
}
