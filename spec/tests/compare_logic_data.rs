//! §9.7.6 comparison/selection, §9.7.8 logic/shift, §9.7.9.3-4 mov and §9.7.9.7 prmt: the
//! manual's worked examples, the catalog's form lists, and properties against independent
//! formulations (Rust's native integer and float comparisons, u64/u128/i128 shifts, byte arrays).

mod common;
use common::ev;
use proptest::prelude::*;
use spec::catalog::{catalog, Form};
use spec::compare::{self, BoolOp, CmpOp};
use spec::data::{self, PrmtMode};
use spec::eval::{eval, eval_line};
use spec::logic::{self, ShfDir, ShfMode};
use spec::value::{Accept, Args, Input};

/// The scalar-operand form named `name`.
fn form(name: &str) -> &'static Form {
    let cat = catalog();
    let ids = cat.by_name(name);
    assert!(!ids.is_empty(), "no form `{name}`");
    ids.iter()
        .map(|&i| &cat.forms[i])
        .find(|f| f.inputs.iter().chain(&f.outputs).all(|o| o.group.is_none()))
        .unwrap_or_else(|| panic!("no scalar form `{name}`"))
}

/// Evaluates `name` through the catalog dispatch; every result must be exact.
fn run_inputs(name: &str, ins: &[Input]) -> Vec<u128> {
    let f = form(name);
    let out = eval(f, &Args { ins, dsel: None }).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(out.len(), f.outputs.len(), "{name}");
    out.iter()
        .map(|o| {
            assert_eq!(o.accept, Accept::Exact, "{name}");
            o.model
        })
        .collect()
}

fn run(name: &str, ins: &[u128]) -> Vec<u128> {
    let ins: Vec<Input> = ins.iter().map(|&b| Input::bits(b)).collect();
    run_inputs(name, &ins)
}

fn pred(b: bool, negated: bool) -> Input {
    Input {
        bits: b as u128,
        negated,
        sel: None,
    }
}

fn section_count(id: &str) -> usize {
    catalog().forms.iter().filter(|f| f.section == id).count()
}

// ---------------------------------------------------------------------------------------------
// Catalog

#[test]
fn form_counts_per_section() {
    // set: 3 dtypes x (no BoolOp + 3 BoolOps) x (b: 2 ops x 3 + u: 10 x 3 + s: 6 x 3 +
    // f32: 14 x {ftz, -} + f64: 14) = 3 * 4 * 96.
    assert_eq!(section_count("9.7.6.1"), 3 * 4 * (6 + 30 + 18 + 28 + 14));
    assert_eq!(section_count("9.7.6.2"), 4 * (6 + 30 + 18 + 28 + 14));
    assert_eq!(section_count("9.7.6.3"), 11);
    // slct: 11 dtypes with .s32 c, 11 x {ftz, -} with .f32 c.
    assert_eq!(section_count("9.7.6.4"), 11 + 22);
    for (sec, n) in [
        ("9.7.8.1", 4),
        ("9.7.8.2", 4),
        ("9.7.8.3", 4),
        ("9.7.8.4", 4),
        ("9.7.8.5", 3),
    ] {
        assert_eq!(section_count(sec), n, "{sec}");
    }
    assert_eq!(section_count("9.7.8.6"), 3);
    assert_eq!(section_count("9.7.8.7"), 4);
    assert_eq!(section_count("9.7.8.8"), 3);
    assert_eq!(section_count("9.7.8.9"), 9);
    // 12 register moves + the address-taking u32/u64 forms of avar, fname, kernel (class memory).
    assert_eq!(section_count("9.7.9.3"), 12 + 6);
    assert_eq!(section_count("9.7.9.4"), 14);
    assert_eq!(section_count("9.7.9.7"), 7);
}

#[test]
fn every_form_has_semantics() {
    for f in &catalog().forms {
        let mine = f.section.starts_with("9.7.6.")
            || f.section.starts_with("9.7.8.")
            || matches!(f.section, "9.7.9.3" | "9.7.9.4" | "9.7.9.7");
        // Address-taking `mov` forms are memory forms, executed by the oracle.
        if mine && f.class == spec::catalog::Class::BitExact {
            assert!(spec::eval::semantics(f).is_some(), "{}", f.name);
        }
    }
}

/// Table 21 (L4303) and L10517-10529: which operator goes with which source type.
#[test]
fn cmp_ops_follow_the_type_tables() {
    let int_signed = ["eq", "ne", "lt", "le", "gt", "ge"];
    let unsigned_only = ["lo", "ls", "hi", "hs"];
    let float_only = ["equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"];
    let cat = catalog();
    for op in CmpOp::ALL {
        let o = op.name();
        for t in [
            "b16", "b32", "b64", "u16", "u32", "u64", "s16", "s32", "s64", "f32", "f64",
        ] {
            let legal = match &t[..1] {
                "b" => o == "eq" || o == "ne",
                "u" => int_signed.contains(&o) || unsigned_only.contains(&o),
                "s" => int_signed.contains(&o),
                _ => int_signed.contains(&o) || float_only.contains(&o),
            };
            for name in [
                format!("setp.{o}.{t}"),
                format!("setp.{o}.xor.{t}"),
                format!("set.{o}.f32.{t}"),
                format!("set.{o}.and.s32.{t}"),
            ] {
                assert_eq!(!cat.by_name(&name).is_empty(), legal, "{name}");
            }
        }
    }
    // `.ftz` only for .f32 sources (L10545), in the manual's position.
    assert!(!cat.by_name("setp.lt.ftz.f32").is_empty());
    assert!(!cat.by_name("set.gtu.or.ftz.u32.f32").is_empty());
    assert!(!cat.by_name("slct.ftz.u64.f32").is_empty());
    for bad in [
        "setp.lt.ftz.f64",
        "setp.lt.ftz.s32",
        "set.lt.ftz.f32.s32",
        "slct.ftz.u64.s32",
        "selp.b8",
        "selp.pred",
    ] {
        assert!(cat.lookup(bad).is_err(), "{bad}");
    }
    // Minimum versions and targets.
    assert_eq!(form("setp.lt.f64").target.sm, 13);
    assert_eq!(form("selp.f64").target.sm, 13);
    assert_eq!(form("slct.f64.f32").target.sm, 13);
    assert_eq!(form("mov.f64").target.sm, 13);
    assert_eq!(form("lop3.b32").target.sm, 50);
    assert_eq!(form("lop3.or.b32").target.sm, 70);
    assert_eq!((form("lop3.or.b32").ptx.0, form("lop3.or.b32").ptx.1), (8, 2));
    assert_eq!(form("shf.l.wrap.b32").target.sm, 32);
    assert_eq!(form("prmt.b32.rc16").target.sm, 20);
    assert!(
        cat.lookup("lop3.xor.b32").is_err(),
        "lop3 .BoolOp is only .or/.and (L11180)"
    );
    assert!(cat.lookup("cnot.pred").is_err());
    assert!(cat.lookup("shl.u32").is_err(), "shl types are .b16 .b32 .b64 only");
}

// ---------------------------------------------------------------------------------------------
// End to end through `ptxconf eval` text

#[test]
fn eval_lines_end_to_end() {
    for (line, want) in [
        ("setp.lt.and.s32 0x1 0x2 !0", "1 0"),
        ("setp.lt.and.s32 0x1 0x2 0", "0 0"),
        ("setp.lt.s32 -1 0x0", "1 0"),
        ("setp.lo.u32 0xffffffff 0x0", "0 1"),
        ("setp.lt.u32 0xffffffff 0x0", "0 1"),
        ("setp.ne.b16 0x1 0x2", "1 0"),
        ("setp.lt.or.f32 0x7fc00000 0x3f800000 1", "1 1"),
        ("setp.nan.f64 0x7ff8000000000000 0x0", "1 0"),
        ("setp.eq.f32 0x80000000 0x00000000", "1 0"),
        ("setp.eq.f32 0x00000001 0x00000000", "0 1"),
        ("setp.eq.ftz.f32 0x00000001 0x80000000", "1 0"),
        ("set.lt.f32.s32 -5 3", "0x3f800000"),
        // The manual's `@p set.lt.and.f32.s32 d,a,b,r` (L10557) and `set.eq.u32.u32 d,i,n`.
        ("set.lt.and.f32.s32 -1 0 1", "0x3f800000"),
        ("set.lt.and.f32.s32 -1 0 !1", "0x00000000"),
        ("set.eq.u32.u32 0x7 0x7", "0xffffffff"),
        ("set.lt.u32.s32 -5 3", "0xffffffff"),
        ("set.lt.s32.u32 0xfffffffb 3", "0x00000000"),
        ("set.eq.xor.u32.b64 0x5 0x5 1", "0x00000000"),
        ("set.gtu.or.ftz.f32.f32 0x7f800001 0x0 0", "0x3f800000"),
        ("selp.b16 0x1234 0x5678 1", "0x1234"),
        ("selp.f64 0x1 0x2 0", "0x0000000000000002"),
        ("slct.u32.s32 0x11 0x22 -1", "0x00000022"),
        ("slct.u32.f32 0x11 0x22 0x80000000", "0x00000011"),
        ("slct.b16.f32 0x11 0x22 0x7fc00000", "0x0022"),
        ("lop3.b32 0xf0f0f0f0 0xcccccccc 0xaaaaaaaa 0x80", "0x80808080"),
        ("lop3.b32 0xf0 0xcc 0xaa 0x1a", "0x0000001a"),
        ("lop3.or.b32 0x0 0x0 0x0 0xfe 0", "0x00000000 0"),
        ("lop3.or.b32 0x0 0x0 0x0 0xfe 1", "0x00000000 1"),
        ("lop3.or.b32 0x0 0x0 0x0 0x3f 0", "0xffffffff 1"),
        ("lop3.and.b32 0x0 0x0 0x0 0xfe 1", "0x00000000 0"),
        ("lop3.and.b32 0x1 0x0 0x0 0xf0 1", "0x00000001 1"),
        ("shf.l.clamp.b32 0x12345678 0x9abcdef0 16", "0xdef01234"),
        ("shf.r.wrap.b32 0x12345678 0x9abcdef0 36", "0x01234567"),
        ("shf.r.clamp.b32 0x12345678 0x9abcdef0 36", "0x9abcdef0"),
        ("shl.b32 0x1 40", "0x00000000"),
        ("shl.b16 0x8001 0x1", "0x0002"),
        ("shr.s32 0x80000000 40", "0xffffffff"),
        ("shr.u32 0x80000000 40", "0x00000000"),
        ("shr.s16 0x8000 0xffffffff", "0xffff"),
        ("shr.b64 0x8000000000000000 63", "0x0000000000000001"),
        ("and.pred 1 0", "0"),
        ("or.pred 1 0", "1"),
        ("xor.pred 1 1", "0"),
        ("not.pred 0", "1"),
        ("not.b16 0x00ff", "0xff00"),
        ("cnot.b32 0x0", "0x00000001"),
        ("cnot.b64 0x100000000", "0x0000000000000000"),
        ("mov.pred 1", "1"),
        ("mov.f32 0x3f800000", "0x3f800000"),
        ("mov.b32 {0x1,0x2}", "0x00020001"),
        ("mov.b32 {0x1,0x2,0x3,0x4}", "0x04030201"),
        ("mov.b16 {0xab,0xcd}", "0xcdab"),
        ("mov.b64 {0x1,0x2}", "0x0000000200000001"),
        ("mov.b64 {0x1,0x2,0x3,0x4}", "0x0004000300020001"),
        ("mov.b32 {_,_} 0x00020001", "0x0001 0x0002"),
        ("mov.b32 {_,_,_,_} 0x04030201", "0x01 0x02 0x03 0x04"),
        ("mov.b128 {0x1,0x2}", "0x00000000000000020000000000000001"),
        (
            "mov.b128 {_,_,_,_} 0x00000004000000030000000200000001",
            "0x00000001 0x00000002 0x00000003 0x00000004",
        ),
        ("prmt.b32 0x33221100 0x77665544 0x7531", "0x77553311"),
        ("prmt.b32 0x33221100 0x77665544 0x8080", "0x00000000"),
        ("prmt.b32 0x000000ff 0x0 0x8888", "0xffffffff"),
        ("prmt.b32.f4e 0x33221100 0x77665544 0x2", "0x55443322"),
        ("prmt.b32.b4e 0x33221100 0x77665544 0x0", "0x55667700"),
        ("prmt.b32.rc16 0x33221100 0x77665544 0x1", "0x33223322"),
    ] {
        assert_eq!(ev(line), want, "{line}");
    }
    // A vector with an element count the manual does not list (L11812-11846).
    assert!(eval_line("mov.b32 {0x1,0x2,0x3}").is_err());
    assert!(eval_line("mov.b16 {0x1,0x2,0x3,0x4}").is_err());
    assert!(eval_line("setp.lt.s32 0x1 0x2 0").is_err(), "no c without a BoolOp");
}

// ---------------------------------------------------------------------------------------------
// §9.7.6 set / setp: integers against Rust's native comparisons

/// The reference: Rust's typed comparison for `op`, or `None` when `op` is not an integer one.
fn native<T: Ord>(op: CmpOp, a: T, b: T) -> Option<bool> {
    Some(match op {
        CmpOp::Eq => a == b,
        CmpOp::Ne => a != b,
        CmpOp::Lt | CmpOp::Lo => a < b,
        CmpOp::Le | CmpOp::Ls => a <= b,
        CmpOp::Gt | CmpOp::Hi => a > b,
        CmpOp::Ge | CmpOp::Hs => a >= b,
        _ => return None,
    })
}

fn bool_ref(bop: &str, x: bool, c: bool) -> bool {
    match bop {
        "and" => x && c,
        "or" => x || c,
        "xor" => x != c,
        _ => unreachable!(),
    }
}

/// Checks every legal set/setp form of source type `t` (with and without each BoolOp, each
/// dtype) on `(a, b)` against the native result `t_ref(op)`.
fn check_compare_forms(t: &str, a: u128, b: u128, c: bool, cneg: bool, t_ref: &dyn Fn(CmpOp) -> Option<bool>) {
    let cat = catalog();
    let cval = c ^ cneg;
    for op in CmpOp::ALL {
        let o = op.name();
        let ftzs: &[&str] = if t == "f32" { &["", ".ftz"] } else { &[""] };
        for ftz in ftzs {
            let name = format!("setp.{o}{ftz}.{t}");
            if cat.by_name(&name).is_empty() {
                continue;
            }
            let want = t_ref(op).unwrap_or_else(|| panic!("{name}: no reference"));
            assert_eq!(
                run(&name, &[a, b]),
                [want as u128, !want as u128],
                "{name} {a:#x} {b:#x}"
            );
            for bop in ["and", "or", "xor"] {
                let name = format!("setp.{o}.{bop}{ftz}.{t}");
                let got = run_inputs(&name, &[Input::bits(a), Input::bits(b), pred(c, cneg)]);
                let (p, q) = (bool_ref(bop, want, cval), bool_ref(bop, !want, cval));
                assert_eq!(got, [p as u128, q as u128], "{name}");
                for dt in ["u32", "s32", "f32"] {
                    let name = format!("set.{o}.{bop}{ftz}.{dt}.{t}");
                    let got = run_inputs(&name, &[Input::bits(a), Input::bits(b), pred(c, cneg)]);
                    let one = if dt == "f32" { 0x3f80_0000 } else { 0xffff_ffff };
                    assert_eq!(got, [if p { one } else { 0 }], "{name}");
                }
            }
            for dt in ["u32", "s32", "f32"] {
                let name = format!("set.{o}{ftz}.{dt}.{t}");
                let one = if dt == "f32" {
                    1.0f32.to_bits() as u128
                } else {
                    u32::MAX as u128
                };
                assert_eq!(run(&name, &[a, b]), [if want { one } else { 0 }], "{name}");
            }
        }
    }
}

macro_rules! int_compare_prop {
    ($name:ident, $t:ty, $bits:literal) => {
        proptest! {
            #[test]
            fn $name(a in any::<$t>(), b in any::<$t>(), same in any::<bool>(), c in any::<bool>(), cneg in any::<bool>()) {
                // Equal operands half the time, so eq/le/ge see both outcomes.
                let b = if same { a } else { b };
                let (ab, bb) = (a as u128 & ((1u128 << $bits) - 1), b as u128 & ((1u128 << $bits) - 1));
                let ty = stringify!($t);
                let ptx = format!("{}{}", if ty.starts_with('i') { "s" } else { "u" }, $bits);
                check_compare_forms(&ptx, ab, bb, c, cneg, &|op| native(op, a, b));
                if ty.starts_with('u') {
                    // The bit-size type compares the same bits (eq/ne only).
                    check_compare_forms(&format!("b{}", $bits), ab, bb, c, cneg, &|op| native(op, a, b));
                }
            }
        }
    };
}

int_compare_prop!(setp_set_u16_native, u16, 16);
int_compare_prop!(setp_set_u32_native, u32, 32);
int_compare_prop!(setp_set_u64_native, u64, 64);
int_compare_prop!(setp_set_s16_native, i16, 16);
int_compare_prop!(setp_set_s32_native, i32, 32);
int_compare_prop!(setp_set_s64_native, i64, 64);

// ---------------------------------------------------------------------------------------------
// §9.7.6 float comparisons against Rust's partial_cmp

/// Tables 22-24 (L4365-4431) as `partial_cmp` reads them.
fn float_ref(op: CmpOp, ord: Option<std::cmp::Ordering>) -> bool {
    use std::cmp::Ordering::*;
    let rel = |o: std::cmp::Ordering| match op {
        CmpOp::Eq | CmpOp::Equ => o == Equal,
        CmpOp::Ne | CmpOp::Neu => o != Equal,
        CmpOp::Lt | CmpOp::Ltu => o == Less,
        CmpOp::Le | CmpOp::Leu => o != Greater,
        CmpOp::Gt | CmpOp::Gtu => o == Greater,
        CmpOp::Ge | CmpOp::Geu => o != Less,
        CmpOp::Num => true,
        CmpOp::Nan => false,
        _ => unreachable!("integer-only operator"),
    };
    match ord {
        Some(o) => rel(o),
        // Unordered: the ordered operators and num are false, the rest true.
        None => matches!(
            op,
            CmpOp::Equ | CmpOp::Neu | CmpOp::Ltu | CmpOp::Leu | CmpOp::Gtu | CmpOp::Geu | CmpOp::Nan
        ),
    }
}

/// ±0, subnormals (±smallest, ±largest), ±smallest normal, ±inf, quiet and signalling NaNs of
/// both signs, 1.0 and the largest finite value.
const F32_SPECIALS: [u32; 16] = [
    0x0000_0000,
    0x8000_0000,
    0x0000_0001,
    0x8000_0001,
    0x007f_ffff,
    0x807f_ffff,
    0x0080_0000,
    0x8080_0000,
    0x7f80_0000,
    0xff80_0000,
    0x7fc0_0000,
    0xffc0_0000,
    0x7f80_0001,
    0xffbf_ffff,
    0x3f80_0000,
    0x7f7f_ffff,
];

const F64_SPECIALS: [u64; 14] = [
    0,
    0x8000_0000_0000_0000,
    1,
    0x8000_0000_0000_0001,
    0x000f_ffff_ffff_ffff,
    0x0010_0000_0000_0000,
    0x7ff0_0000_0000_0000,
    0xfff0_0000_0000_0000,
    0x7ff8_0000_0000_0000,
    0x7ff0_0000_0000_0001,
    0xfff8_0000_0000_0001,
    0x3ff0_0000_0000_0000,
    0x7fef_ffff_ffff_ffff,
    0xbff0_0000_0000_0000,
];

fn f32_bits() -> impl Strategy<Value = u32> {
    prop_oneof![any::<u32>(), proptest::sample::select(F32_SPECIALS.to_vec())]
}

fn f64_bits() -> impl Strategy<Value = u64> {
    prop_oneof![any::<u64>(), proptest::sample::select(F64_SPECIALS.to_vec())]
}

/// `.ftz` reference: a subnormal becomes the zero of its sign.
fn flush(x: f32) -> f32 {
    if x.is_subnormal() {
        0.0f32.copysign(x)
    } else {
        x
    }
}

#[test]
fn float_compare_specials_exhaustive() {
    for &a in &F32_SPECIALS {
        for &b in &F32_SPECIALS {
            let (x, y) = (f32::from_bits(a), f32::from_bits(b));
            for op in CmpOp::ALL
                .into_iter()
                .filter(|o| !matches!(o, CmpOp::Lo | CmpOp::Ls | CmpOp::Hi | CmpOp::Hs))
            {
                assert_eq!(
                    compare::compare_f32(op, a, b, false),
                    Some(float_ref(op, x.partial_cmp(&y))),
                    "{op:?} {a:#x} {b:#x}"
                );
                let want = float_ref(op, flush(x).partial_cmp(&flush(y)));
                assert_eq!(
                    compare::compare_f32(op, a, b, true),
                    Some(want),
                    "ftz {op:?} {a:#x} {b:#x}"
                );
            }
            assert_eq!(compare::compare_f32(CmpOp::Lo, a, b, false), None);
        }
    }
    for &a in &F64_SPECIALS {
        for &b in &F64_SPECIALS {
            let (x, y) = (f64::from_bits(a), f64::from_bits(b));
            for op in CmpOp::ALL
                .into_iter()
                .filter(|o| !matches!(o, CmpOp::Lo | CmpOp::Ls | CmpOp::Hi | CmpOp::Hs))
            {
                assert_eq!(
                    compare::compare_f64(op, a, b),
                    Some(float_ref(op, x.partial_cmp(&y))),
                    "{op:?} {a:#x} {b:#x}"
                );
            }
        }
    }
    // The manual's statements, spelled out: -0 == +0; NaN is unordered even with itself.
    assert_eq!(compare::compare_f32(CmpOp::Eq, 0x8000_0000, 0, false), Some(true));
    assert_eq!(
        compare::compare_f32(CmpOp::Ne, 0x7fc0_0000, 0x7fc0_0000, false),
        Some(false)
    );
    assert_eq!(
        compare::compare_f32(CmpOp::Neu, 0x7fc0_0000, 0x7fc0_0000, false),
        Some(true)
    );
    // Subnormals are kept without .ftz (sm_20+, L10535) and flushed with it (L10537).
    assert_eq!(
        compare::compare_f32(CmpOp::Gt, 0x0000_0001, 0x8000_0000, false),
        Some(true)
    );
    assert_eq!(
        compare::compare_f32(CmpOp::Gt, 0x0000_0001, 0x8000_0000, true),
        Some(false)
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(600))]

    #[test]
    fn f32_compare_forms_match_partial_cmp(a in f32_bits(), b in f32_bits(), same in any::<bool>(), c in any::<bool>(), cneg in any::<bool>()) {
        let b = if same { a } else { b };
        let (x, y) = (f32::from_bits(a), f32::from_bits(b));
        // check_compare_forms runs the .ftz forms too; the reference must follow the name, so
        // check the two flavours separately through the pure function first.
        for op in CmpOp::ALL.into_iter().filter(|o| !matches!(o, CmpOp::Lo | CmpOp::Ls | CmpOp::Hi | CmpOp::Hs)) {
            prop_assert_eq!(compare::compare_f32(op, a, b, false), Some(float_ref(op, x.partial_cmp(&y))));
            prop_assert_eq!(compare::compare_f32(op, a, b, true), Some(float_ref(op, flush(x).partial_cmp(&flush(y)))));
        }
        // Through the forms: where flushing changes nothing the .ftz and plain references agree.
        if !x.is_subnormal() && !y.is_subnormal() {
            check_compare_forms("f32", a as u128, b as u128, c, cneg, &|op| Some(float_ref(op, x.partial_cmp(&y))));
        } else {
            for op in [CmpOp::Lt, CmpOp::Equ, CmpOp::Geu, CmpOp::Num] {
                let o = op.name();
                let plain = float_ref(op, x.partial_cmp(&y));
                let flushed = float_ref(op, flush(x).partial_cmp(&flush(y)));
                prop_assert_eq!(run(&format!("setp.{o}.f32"), &[a as u128, b as u128]), vec![plain as u128, !plain as u128]);
                prop_assert_eq!(run(&format!("setp.{o}.ftz.f32"), &[a as u128, b as u128]), vec![flushed as u128, !flushed as u128]);
            }
        }
    }

    #[test]
    fn f64_compare_forms_match_partial_cmp(a in f64_bits(), b in f64_bits(), same in any::<bool>(), c in any::<bool>(), cneg in any::<bool>()) {
        let b = if same { a } else { b };
        let (x, y) = (f64::from_bits(a), f64::from_bits(b));
        check_compare_forms("f64", a as u128, b as u128, c, cneg, &|op| Some(float_ref(op, x.partial_cmp(&y))));
    }
}

/// L10587-10589: the p|q pair over every combination of t, BoolOp, c and `!c`.
#[test]
fn setp_p_q_pairs() {
    for (a, b, t) in [(1u128, 2u128, true), (2, 1, false)] {
        assert_eq!(run("setp.lt.u32", &[a, b]), [t as u128, !t as u128]);
        for bop in ["and", "or", "xor"] {
            for c in [false, true] {
                for neg in [false, true] {
                    let cv = c != neg;
                    let got = run_inputs(
                        &format!("setp.lt.{bop}.u32"),
                        &[Input::bits(a), Input::bits(b), pred(c, neg)],
                    );
                    let (p, q) = match bop {
                        "and" => (t & cv, !t & cv),
                        "or" => (t | cv, !t | cv),
                        _ => (t ^ cv, !t ^ cv),
                    };
                    assert_eq!(got, [p as u128, q as u128], "{bop} t={t} c={c} neg={neg}");
                }
            }
        }
    }
    // The pure functions agree with the manual's formula directly.
    assert_eq!(compare::setp(true, Some((BoolOp::And, false))), (false, false));
    assert_eq!(compare::setp(true, Some((BoolOp::Or, false))), (true, false));
    assert_eq!(compare::setp(false, Some((BoolOp::Xor, true))), (true, false));
    assert_eq!(compare::set(true, None, true), 0x3f80_0000);
    assert_eq!(compare::set(true, Some((BoolOp::Xor, true)), false), 0);
}

// ---------------------------------------------------------------------------------------------
// §9.7.6.3 selp, §9.7.6.4 slct

#[test]
fn slct_f32_edge_cases() {
    let (a, b) = (0xaaaa_u128, 0xbbbb_u128);
    // (c, plain, ftz): what each flavour selects.
    for (c, plain, ftz) in [
        (0x0000_0000u32, a, a), // +0 >= 0
        (0x8000_0000, a, a),    // -0 equals zero (L10698)
        (0x3f80_0000, a, a),
        (0xbf80_0000, b, b),
        (0x0000_0001, a, a), // positive subnormal
        (0x8000_0001, b, a), // negative subnormal: < 0 unless flushed (L10706)
        (0x807f_ffff, b, a),
        (0x7f80_0000, a, a), // +inf
        (0xff80_0000, b, b), // -inf
        (0x7fc0_0000, b, b), // NaN selects b (L10714)
        (0xffc0_0000, b, b),
        (0x7f80_0001, b, b),
    ] {
        assert_eq!(compare::slct_f32(a, b, c, false), plain, "{c:#x}");
        assert_eq!(compare::slct_f32(a, b, c, true), ftz, "ftz {c:#x}");
        assert_eq!(run("slct.b16.f32", &[a, b, c as u128]), [plain], "{c:#x}");
        assert_eq!(run("slct.ftz.b16.f32", &[a, b, c as u128]), [ftz], "ftz {c:#x}");
    }
}

proptest! {
    #[test]
    fn selp_and_slct_select_unchanged_bits(a in any::<u64>(), b in any::<u64>(), c in any::<i32>(), cf in f32_bits(), p in any::<bool>()) {
        for t in ["b16", "b32", "b64", "u16", "u32", "u64", "s16", "s32", "s64", "f32", "f64"] {
            let bits: u32 = t[1..].parse().unwrap();
            let m = if bits == 64 { u64::MAX } else { (1u64 << bits) - 1 };
            let (a, b) = ((a & m) as u128, (b & m) as u128);
            prop_assert_eq!(run(&format!("selp.{t}"), &[a, b, p as u128]), vec![if p { a } else { b }]);
            let want = if c >= 0 { a } else { b };
            prop_assert_eq!(run(&format!("slct.{t}.s32"), &[a, b, c as u32 as u128]), vec![want]);
            let x = f32::from_bits(cf);
            // `c >= 0.0` is false for NaN and true for -0.0, as L10698 and L10714 require.
            let want = if x >= 0.0 { a } else { b };
            prop_assert_eq!(run(&format!("slct.{t}.f32"), &[a, b, cf as u128]), vec![want]);
            let want = if flush(x) >= 0.0 { a } else { b };
            prop_assert_eq!(run(&format!("slct.ftz.{t}.f32"), &[a, b, cf as u128]), vec![want]);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// §9.7.8 logic

/// A three-input boolean function, as the lop3 examples write them.
type Lop3Fn = fn(u32, u32, u32) -> u32;

/// L11196-11214: immLut = F(0xF0, 0xCC, 0xAA), and the four worked examples.
#[test]
fn lop3_manual_examples() {
    let (ta, tb, tc) = (0xF0u32, 0xCCu32, 0xAAu32);
    let examples: [(u8, Lop3Fn); 6] = [
        (0x80, |a, b, c| a & b & c),
        (0xFE, |a, b, c| a | b | c),
        (0x40, |a, b, c| a & b & !c),
        (0x1A, |a, b, c| (a & b | c) ^ a),
        (0x00, |_, _, _| 0),
        (0xFF, |_, _, _| !0),
    ];
    let samples = [
        (0x1234_5678u32, 0x9abc_def0u32, 0x0f0f_f0f0u32),
        (0xffff_ffff, 0, 0xaaaa_aaaa),
        (ta, tb, tc),
    ];
    for (lut, f) in examples {
        assert_eq!(f(ta, tb, tc) as u8, lut, "{lut:#x}");
        for (a, b, c) in samples {
            assert_eq!(logic::lop3(a, b, c, lut), f(a, b, c), "{lut:#x}");
        }
    }
    // The LUT is the function's value on the canonical operands, for every LUT (in the low
    // byte; above it all three inputs are 0, so every bit there is LUT bit 0).
    for lut in 0..=255u8 {
        let high = if lut & 1 != 0 { 0xffff_ff00 } else { 0 };
        assert_eq!(logic::lop3(ta, tb, tc, lut), high | lut as u32);
    }
}

proptest! {
    #[test]
    fn lop3_is_its_truth_table(a in any::<u32>(), b in any::<u32>(), c in any::<u32>(), q in any::<bool>()) {
        for lut in 0..=255u8 {
            let mut want = 0u32;
            for i in 0..32 {
                let idx = ((a >> i & 1) << 2) | ((b >> i & 1) << 1) | (c >> i & 1);
                want |= ((lut >> idx) as u32 & 1) << i;
            }
            prop_assert_eq!(logic::lop3(a, b, c, lut), want);
            // The .BoolOp form: p = (d != 0) BoolOp q (L11188), through the catalog.
            let ins = [Input::bits(a as u128), Input::bits(b as u128), Input::bits(c as u128), Input::bits(lut as u128), pred(q, false)];
            prop_assert_eq!(run_inputs("lop3.or.b32", &ins), vec![want as u128, ((want != 0) || q) as u128]);
            prop_assert_eq!(run_inputs("lop3.and.b32", &ins), vec![want as u128, ((want != 0) && q) as u128]);
            prop_assert_eq!(run_inputs("lop3.b32", &ins[..4]), vec![want as u128]);
        }
    }

    #[test]
    fn bitwise_ops_on_every_width(a in any::<u64>(), b in any::<u64>()) {
        for (t, bits) in [("pred", 1u32), ("b16", 16), ("b32", 32), ("b64", 64)] {
            let m = if bits == 64 { u64::MAX } else { (1u64 << bits) - 1 };
            let (x, y) = (a & m, b & m);
            prop_assert_eq!(run(&format!("and.{t}"), &[x as u128, y as u128]), vec![(x & y) as u128]);
            prop_assert_eq!(run(&format!("or.{t}"), &[x as u128, y as u128]), vec![(x | y) as u128]);
            prop_assert_eq!(run(&format!("xor.{t}"), &[x as u128, y as u128]), vec![(x ^ y) as u128]);
            prop_assert_eq!(run(&format!("not.{t}"), &[x as u128]), vec![(!x & m) as u128]);
            if t != "pred" {
                prop_assert_eq!(run(&format!("cnot.{t}"), &[x as u128]), vec![(x == 0) as u128]);
                prop_assert_eq!(run(&format!("cnot.{t}"), &[0]), vec![1]);
            }
        }
    }
}

#[test]
fn pred_logic_is_boolean() {
    for a in [false, true] {
        assert_eq!(run("not.pred", &[a as u128]), [!a as u128]);
        for b in [false, true] {
            assert_eq!(run("and.pred", &[a as u128, b as u128]), [(a && b) as u128]);
            assert_eq!(run("or.pred", &[a as u128, b as u128]), [(a || b) as u128]);
            assert_eq!(run("xor.pred", &[a as u128, b as u128]), [(a != b) as u128]);
        }
    }
}

// §9.7.8.7 shf

#[test]
fn shf_edges_and_manual_idioms() {
    let (a, b) = (0x89ab_cdefu32, 0x0123_4567u32);
    // n = 0 and n = 32: the funnel reading of the pseudocode (catalog §3.15).
    assert_eq!(logic::shf(a, b, 0, ShfDir::L, ShfMode::Clamp), b);
    assert_eq!(logic::shf(a, b, 32, ShfDir::L, ShfMode::Clamp), a);
    assert_eq!(logic::shf(a, b, 0, ShfDir::R, ShfMode::Clamp), a);
    assert_eq!(logic::shf(a, b, 32, ShfDir::R, ShfMode::Clamp), b);
    // Clamp saturates at 32, wrap masks to 0..31 (L11419, L11429).
    assert_eq!(logic::shf(a, b, 1000, ShfDir::L, ShfMode::Clamp), a);
    assert_eq!(logic::shf(a, b, 32, ShfDir::L, ShfMode::Wrap), b);
    assert_eq!(
        logic::shf(a, b, 33, ShfDir::R, ShfMode::Wrap),
        logic::shf(a, b, 1, ShfDir::R, ShfMode::Wrap)
    );
    // `shf.l.clamp.b32 r3,r1,r0,16` (L11447).
    assert_eq!(
        logic::shf(0x1111_2222, 0x3333_4444, 16, ShfDir::L, ShfMode::Clamp),
        0x4444_1111
    );
    // Rotate: the same value as a and b (L11435, L11463-11464).
    for n in 0..32 {
        assert_eq!(logic::shf(a, a, n, ShfDir::R, ShfMode::Clamp), a.rotate_right(n));
        assert_eq!(logic::shf(a, a, n, ShfDir::L, ShfMode::Clamp), a.rotate_left(n));
    }
}

/// The manual's 128-bit shift sequences (L11449-11461), run word by word through the catalog
/// forms and compared with u128/i128 shifts.
#[test]
fn shf_multiword_shifts_l11449() {
    let x: u128 = 0x8123_4567_89ab_cdef_0f1e_2d3c_4b5a_6978;
    let r = |i: u32| (x >> (32 * i)) as u32 as u128;
    let w = |v: Vec<u128>| v[0];
    for n in 0..32u128 {
        // [r7,r6,r5,r4] = [r3,r2,r1,r0] << n
        let r7 = w(run("shf.l.clamp.b32", &[r(2), r(3), n]));
        let r6 = w(run("shf.l.clamp.b32", &[r(1), r(2), n]));
        let r5 = w(run("shf.l.clamp.b32", &[r(0), r(1), n]));
        let r4 = w(run("shl.b32", &[r(0), n]));
        assert_eq!(r4 | r5 << 32 | r6 << 64 | r7 << 96, x << n, "<< {n}");
        // arithmetic [r7,r6,r5,r4] = [r3,r2,r1,r0] >> n
        let r4 = w(run("shf.r.clamp.b32", &[r(0), r(1), n]));
        let r5 = w(run("shf.r.clamp.b32", &[r(1), r(2), n]));
        let r6 = w(run("shf.r.clamp.b32", &[r(2), r(3), n]));
        let r7 = w(run("shr.s32", &[r(3), n]));
        assert_eq!(
            r4 | r5 << 32 | r6 << 64 | r7 << 96,
            ((x as i128) >> n) as u128,
            ">> {n}"
        );
        // extract 32 bits from [r1,r0] starting at n (L11467)
        assert_eq!(w(run("shf.r.clamp.b32", &[r(0), r(1), n])), (x >> n) as u32 as u128);
    }
}

proptest! {
    #[test]
    fn shf_is_a_u64_funnel(a in any::<u32>(), b in any::<u32>(), c in prop_oneof![0u32..=40, any::<u32>()]) {
        let wide = (b as u64) << 32 | a as u64;
        let clamp = c.min(32);
        let wrap = c % 32;
        let l = |n: u32| (wide << n >> 32) as u32;
        let r = |n: u32| (wide >> n) as u32;
        prop_assert_eq!(run("shf.l.clamp.b32", &[a as u128, b as u128, c as u128]), vec![l(clamp) as u128]);
        prop_assert_eq!(run("shf.l.wrap.b32", &[a as u128, b as u128, c as u128]), vec![l(wrap) as u128]);
        prop_assert_eq!(run("shf.r.clamp.b32", &[a as u128, b as u128, c as u128]), vec![r(clamp) as u128]);
        prop_assert_eq!(run("shf.r.wrap.b32", &[a as u128, b as u128, c as u128]), vec![r(wrap) as u128]);
    }

    #[test]
    fn shl_shr_clamp_like_wide_shifts(a in any::<u64>(), b in prop_oneof![0u32..=70, any::<u32>()]) {
        for bits in [16u32, 32, 64] {
            let m = (1u128 << bits) - 1;
            let x = a as u128 & m;
            // u128/i128 hold a shift by up to 127; amounts above the width clamp to it (L11491).
            let n = b.min(bits);
            let shl_ref = (x << n) & m;
            let lshr_ref = x >> n;
            let sx = ((x << (128 - bits)) as i128) >> (128 - bits);
            let ashr_ref = (sx >> n) as u128 & m;
            prop_assert_eq!(run(&format!("shl.b{bits}"), &[x, b as u128]), vec![shl_ref]);
            for k in ["b", "u"] {
                prop_assert_eq!(run(&format!("shr.{k}{bits}"), &[x, b as u128]), vec![lshr_ref]);
            }
            prop_assert_eq!(run(&format!("shr.s{bits}"), &[x, b as u128]), vec![ashr_ref]);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// §9.7.9.3-4 mov

proptest! {
    #[test]
    fn mov_pack_unpack_round_trip(x in any::<u128>()) {
        let cat = catalog();
        for (t, k, n) in [("b16", 8u32, 2usize), ("b32", 16, 2), ("b32", 8, 4), ("b64", 32, 2), ("b64", 16, 4), ("b128", 64, 2), ("b128", 32, 4)] {
            let width = k * n as u32;
            let v = if width == 128 { x } else { x & ((1u128 << width) - 1) };
            // Independent reference: little-endian bytes, chopped into k-bit elements.
            let bytes = v.to_le_bytes();
            let elems: Vec<u128> = (0..n)
                .map(|i| {
                    let lo = i * k as usize / 8;
                    let mut e = [0u8; 16];
                    e[..k as usize / 8].copy_from_slice(&bytes[lo..lo + k as usize / 8]);
                    u128::from_le_bytes(e)
                })
                .collect();
            prop_assert_eq!(data::unpack(v, k, n), elems.clone());
            prop_assert_eq!(data::pack(&elems, k), v);
            // Through the catalog forms of mov.<t>: find the pack and unpack forms by shape.
            let forms: Vec<&Form> = cat.by_name(&format!("mov.{t}")).iter().map(|&i| &cat.forms[i]).collect();
            let packf = forms.iter().find(|f| f.inputs.len() == n && f.inputs[0].group.is_some()).unwrap();
            let unpackf = forms.iter().find(|f| f.outputs.len() == n && f.outputs[0].group.is_some()).unwrap();
            let ins: Vec<Input> = elems.iter().map(|&e| Input::bits(e)).collect();
            let packed = eval(packf, &Args { ins: &ins, dsel: None }).unwrap();
            prop_assert_eq!(packed.iter().map(|o| o.model).collect::<Vec<_>>(), vec![v]);
            let unpacked = eval(unpackf, &Args { ins: &[Input::bits(v)], dsel: None }).unwrap();
            prop_assert_eq!(unpacked.iter().map(|o| o.model).collect::<Vec<_>>(), elems);
        }
        // Scalar mov copies bits unchanged, whatever the type.
        for (t, bits) in [("b16", 16u32), ("u32", 32), ("s64", 64), ("f32", 32), ("f64", 64), ("pred", 1)] {
            let v = x & ((1u128 << bits) - 1);
            prop_assert_eq!(run(&format!("mov.{t}"), &[v]), vec![v]);
        }
    }
}

#[test]
fn mov_manual_examples() {
    // `mov.b32 %r1,{a,b}` with .u16 a, b (L11862): a in the low half.
    assert_eq!(ev("mov.b32 {0xbeef,0xdead}"), "0xdeadbeef");
    // `mov.b64 {lo,hi}, %x` (L11863): lo is the low word of the double 1.0.
    assert_eq!(ev("mov.b64 {_,_} 0x3ff0000000000000"), "0x00000000 0x3ff00000");
    // `mov.b32 {r,g,b,a},%r1` (L11865).
    assert_eq!(ev("mov.b32 {r,g,b,a} 0x44332211"), "0x11 0x22 0x33 0x44");
}

// ---------------------------------------------------------------------------------------------
// §9.7.9.7 prmt

/// Independent reference: the 8 bytes of `{b, a}` via `to_le_bytes`, selected per the manual's
/// description (L12101-12137) and the per-mode definitions their names give (forward/backward
/// extract, replicate, edge clamp), checked against the printed table below.
fn prmt_ref(a: u32, b: u32, c: u32, mode: &str) -> u32 {
    let mut src = [0u8; 8];
    src[..4].copy_from_slice(&a.to_le_bytes());
    src[4..].copy_from_slice(&b.to_le_bytes());
    let s = (c & 3) as usize;
    let mut d = [0u8; 4];
    for (i, out) in d.iter_mut().enumerate() {
        *out = match mode {
            "" => {
                let sel = (c >> (4 * i)) & 0xf;
                let v = src[(sel & 7) as usize];
                if sel & 8 != 0 {
                    ((v as i8) >> 7) as u8
                } else {
                    v
                }
            }
            "f4e" => src[(s + i) % 8],
            "b4e" => src[(s + 8 - i) % 8],
            "rc8" => src[s],
            "ecl" => src[s.max(i)],
            "ecr" => src[s.min(i)],
            "rc16" => src[(s & 1) * 2 + (i & 1)],
            _ => unreachable!(),
        };
    }
    u32::from_le_bytes(d)
}

/// The table of L12139-12403 as printed (d.b3 d.b2 d.b1 d.b0 for c[1:0] = 0..3).
#[test]
fn prmt_special_modes_match_the_printed_table() {
    let table: [(&str, [[u8; 4]; 4]); 6] = [
        ("f4e", [[3, 2, 1, 0], [4, 3, 2, 1], [5, 4, 3, 2], [6, 5, 4, 3]]),
        ("b4e", [[5, 6, 7, 0], [6, 7, 0, 1], [7, 0, 1, 2], [0, 1, 2, 3]]),
        ("rc8", [[0, 0, 0, 0], [1, 1, 1, 1], [2, 2, 2, 2], [3, 3, 3, 3]]),
        ("ecl", [[3, 2, 1, 0], [3, 2, 1, 1], [3, 2, 2, 2], [3, 3, 3, 3]]),
        ("ecr", [[0, 0, 0, 0], [1, 1, 1, 0], [2, 2, 1, 0], [3, 2, 1, 0]]),
        ("rc16", [[1, 0, 1, 0], [3, 2, 3, 2], [1, 0, 1, 0], [3, 2, 3, 2]]),
    ];
    // Byte i of {b, a} holds the value 0x80 + i, so each output byte names its source (and the
    // msb set checks that special modes never sign-replicate).
    let (a, b) = (0x8382_8180u32, 0x8786_8584u32);
    for (mode, rows) in table {
        for (s, row) in rows.iter().enumerate() {
            let want = u32::from_be_bytes(row.map(|i| 0x80 + i));
            let m = PrmtMode::parse(mode).unwrap();
            // High bits of c are ignored by the special modes (only c[1:0], L12137).
            assert_eq!(data::prmt(a, b, 0xffff_fff0 | s as u32, m), want, "{mode} {s}");
            assert_eq!(prmt_ref(a, b, s as u32, mode), want, "reference {mode} {s}");
        }
    }
}

proptest! {
    #[test]
    fn prmt_is_byte_selection(a in any::<u32>(), b in any::<u32>(), c in any::<u32>()) {
        for mode in ["", "f4e", "b4e", "rc8", "ecl", "ecr", "rc16"] {
            let name = if mode.is_empty() { "prmt.b32".to_string() } else { format!("prmt.b32.{mode}") };
            prop_assert_eq!(run(&name, &[a as u128, b as u128, c as u128]), vec![prmt_ref(a, b, c, mode) as u128], "{}", name);
        }
    }
}

#[test]
fn prmt_default_mode_idioms() {
    let (a, b) = (0x4433_2211u32, 0x8877_6655u32);
    assert_eq!(data::prmt(a, b, 0x3210, PrmtMode::Default), a);
    assert_eq!(data::prmt(a, b, 0x7654, PrmtMode::Default), b);
    assert_eq!(data::prmt(a, b, 0x0123, PrmtMode::Default), a.swap_bytes());
    // Sign replication only where the selector's msb is set: byte 4 (0x55) is positive, byte 7
    // (0x88) negative.
    assert_eq!(data::prmt(a, b, 0xc4f7, PrmtMode::Default), 0x00_55_ff_88);
    assert_eq!(data::prmt(a, b, 0x4c7f, PrmtMode::Default), 0x55_00_88_ff);
    // Selector bits above c[15:0] are ignored.
    assert_eq!(data::prmt(a, b, 0xffff_3210, PrmtMode::Default), a);
}
