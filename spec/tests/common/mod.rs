//! Helpers shared by the spec's test files (each includes this with `mod common;`).
#![allow(dead_code)] // each test file uses the helpers it needs

/// One step of SplitMix64: the small deterministic generator the test sweeps draw operands from
/// (a seed gives the same operands on every machine).
pub fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

use spec::catalog::{catalog, Form};
use spec::eval::{eval, eval_line};
use spec::value::{Args, Input, Outcome};

/// `ptxconf eval` on one line, which must succeed.
pub fn ev(s: &str) -> String {
    eval_line(s).unwrap_or_else(|e| panic!("{s}: {e}"))
}

/// The first catalog form named `name`.
pub fn form(name: &str) -> &'static Form {
    let cat = catalog();
    let ids = cat.by_name(name);
    assert!(!ids.is_empty(), "no form `{name}`");
    &cat.forms[ids[0]]
}

/// Evaluates `f` on bit-pattern operands through the catalog dispatch, which must succeed.
pub fn eval_bits(f: &Form, ins: &[u128]) -> Vec<Outcome> {
    let ins: Vec<Input> = ins.iter().map(|&b| Input::bits(b)).collect();
    eval(f, &Args { ins: &ins, dsel: None }).unwrap_or_else(|e| panic!("{}: {e}", f.name))
}

/// Evaluates `name` on bit-pattern operands; its one destination.
pub fn run1(name: &str, ins: &[u128]) -> Outcome {
    let mut out = eval_bits(form(name), ins);
    assert_eq!(out.len(), 1, "{name}");
    out.remove(0)
}
