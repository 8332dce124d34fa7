//! The kind of an evaluation error says who is at fault: the program (a rule the manual states),
//! the text given to `eval_line`, or the spec itself (a form its function does not handle).

mod common;

use common::form;
use spec::eval::{eval, eval_line, semantics};
use spec::value::{Args, EvalError, EvalErrorKind, Input};

fn line_err(line: &str) -> EvalError {
    eval_line(line).expect_err(line)
}

fn bits(v: &[u128]) -> Vec<Input> {
    v.iter().map(|&b| Input::bits(b)).collect()
}

#[test]
fn operands_breaking_a_rule_of_the_manual_are_the_programs_fault() {
    for (line, needle) in [
        // vmad: negating both the product and c (L31056, L31066-31077).
        ("vmad.s32.s32.s32 -1 2 -3", "either the product"),
        ("vmad.s32.s32.s32 1 -2 -3", "either the product"),
        // A merge destination without c (L30859), a SIMD mask the manual does not list.
        ("vadd.u32.u32.u32 d.b0 1 2", "merges into c"),
        ("vadd4.u32.u32.u32 d.b00 1 2 3", "mask"),
        // A scalar selector outside .b0-.b3, .h0, .h1 (L30863).
        ("vadd.u32.u32.u32 0x1.b4 0x2", "not a scalar video selector"),
    ] {
        let e = line_err(line);
        assert_eq!(e.kind, EvalErrorKind::Rule, "{line}: {e}");
        assert!(e.message.contains(needle), "{line}: {e}");
    }
    // Through `eval` directly: a negated source in `.po` mode (L31058).
    let mut neg = Input::bits(1);
    neg.negated = true;
    let ins = [neg, Input::bits(2), Input::bits(3)];
    let e = eval(form("vmad.u32.u32.u32.po"), &Args { ins: &ins, dsel: None }).unwrap_err();
    assert_eq!(e.kind, EvalErrorKind::Rule, "{e}");
    assert!(e.message.contains(".po"), "{e}");
}

#[test]
fn unreadable_eval_text_is_the_inputs_fault() {
    for (line, needle) in [
        ("", "empty line"),
        ("frobnicate.b32 1 2", "frobnicate"),
        ("add.u32 zz 0x1", "is not a number"),
        ("add.u32 0x1", "takes 2 source operands"),
        ("add.u32 0x1 0x100000000", "does not fit in 32 bits"),
        ("mov.b32 {0x1,0x2", "unclosed vector operand"),
        ("add.u32 d.b0 1 2", "takes no destination selector"),
        ("vadd.u32.u32.u32 d.x1 1 2 3", "bad destination selector"),
    ] {
        let e = line_err(line);
        assert_eq!(e.kind, EvalErrorKind::Input, "{line:?}: {e}");
        assert!(e.message.contains(needle), "{line:?}: {e}");
    }
}

#[test]
fn forms_a_function_does_not_handle_are_the_specs_fault() {
    // A form without semantics.
    let ld = form("ld.global.u32");
    let e = eval(
        ld,
        &Args {
            ins: &bits(&[0]),
            dsel: None,
        },
    )
    .unwrap_err();
    assert_eq!(e.kind, EvalErrorKind::Unhandled, "{e}");
    assert!(e.message.contains("has no semantics in the spec yet"), "{e}");
    // A semantics function given a form of another family: it finds no row variable or type it
    // knows.
    let add = form("add.u32");
    let ins = bits(&[1, 2]);
    for name in [
        "vmad.u32.u32.u32",
        "vadd.u32.u32.u32",
        "vset.u32.u32.eq",
        "cvt.rzi.s32.f32",
        "cvt.rn.f32.s32",
        "cvt.rn.f16.f32",
        "setp.eq.f32",
        "testp.finite.f32",
    ] {
        let f = semantics(form(name)).unwrap_or_else(|| panic!("{name} has semantics"));
        let e = f(add, &Args { ins: &ins, dsel: None }).unwrap_err();
        assert_eq!(e.kind, EvalErrorKind::Unhandled, "{name} on add.u32: {e}");
        assert!(e.message.contains("`add.u32`"), "{name} on add.u32: {e}");
    }
}

#[test]
fn display_is_the_message_alone() {
    let e = line_err("vmad.s32.s32.s32 -1 2 -3");
    assert_eq!(e.to_string(), e.message);
    assert_eq!(
        e.to_string(),
        "vmad: PTX allows negating either the product (a*b) or c, not both (L31056, L31066-31077)"
    );
    let e = EvalError::unhandled("x");
    assert_eq!((e.kind, e.to_string()), (EvalErrorKind::Unhandled, "x".to_string()));
    assert_eq!(EvalError::rule("r").kind, EvalErrorKind::Rule);
    assert_eq!(EvalError::input("i").kind, EvalErrorKind::Input);
}
