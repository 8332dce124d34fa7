//! §9.7.1 and §9.7.2: the manual's worked examples, and properties against independent
//! wide-integer formulations (u128/i128 arithmetic, mask-and-shift bit fields).

use proptest::prelude::*;
use spec::eval::eval_line;
use spec::extended::{addc, madc, sub_cc, sub_cc_hw, subc, subc_hw};
use spec::int::*;
use spec::value::Accept;

fn ev(s: &str) -> String {
    eval_line(s).unwrap_or_else(|e| panic!("{s}: {e}"))
}

/// Runs a PTX-like sequence of `eval` lines where `rN` names refer to earlier results and `cf`
/// threads the carry flag, as the manual's multi-word examples are written.
struct Machine {
    regs: std::collections::HashMap<String, u64>,
    cf: u8,
}

impl Machine {
    fn new() -> Self {
        Machine {
            regs: Default::default(),
            cf: 0,
        }
    }
    fn set(&mut self, r: &str, v: u64) {
        self.regs.insert(r.into(), v);
    }
    /// `op d, a, b[, c]` with register or literal sources; carries in and out through `cf`.
    fn run(&mut self, op: &str, d: &str, srcs: &[&str]) {
        let mut line = op.to_string();
        for s in srcs {
            let v = self.regs.get(*s).copied().unwrap_or_else(|| s.parse().unwrap());
            line += &format!(" {v:#x}");
        }
        if op.starts_with("addc") || op.starts_with("subc") || op.starts_with("madc") {
            line += &format!(" cf={}", self.cf);
        }
        let out = ev(&line);
        let mut it = out.split_whitespace();
        let v = u64::from_str_radix(it.next().unwrap().trim_start_matches("0x"), 16).unwrap();
        if let Some(c) = it.next() {
            self.cf = c.strip_prefix("cf=").unwrap().parse().unwrap();
        }
        self.set(d, v);
    }
}

#[test]
fn manual_extended_precision_multiply_l7082() {
    // [r3,r2,r1,r0] = [r5,r4] * [r7,r6], exactly as L7082-7093 writes it.
    let mut rng_vals = [
        (0xffff_ffffu64, 0xffff_ffffu64, 0xffff_ffffu64, 0xffff_ffffu64),
        (0x1234_5678, 0x9abc_def0, 0x0fed_cba9, 0x8765_4321),
        (0, 1, 0xffff_ffff, 0x8000_0000),
    ]
    .to_vec();
    rng_vals.push((0xdead_beef, 0xcafe_babe, 0x0bad_f00d, 0x1357_9bdf));
    for (r4, r5, r6, r7) in rng_vals {
        let mut m = Machine::new();
        for (n, v) in [("r4", r4), ("r5", r5), ("r6", r6), ("r7", r7)] {
            m.set(n, v);
        }
        m.run("mul.lo.u32", "r0", &["r4", "r6"]);
        m.run("mul.hi.u32", "r1", &["r4", "r6"]);
        m.run("mad.lo.cc.u32", "r1", &["r5", "r6", "r1"]);
        m.run("madc.hi.u32", "r2", &["r5", "r6", "0"]);
        m.run("mad.lo.cc.u32", "r1", &["r4", "r7", "r1"]);
        m.run("madc.hi.cc.u32", "r2", &["r4", "r7", "r2"]);
        m.run("addc.u32", "r3", &["0", "0"]);
        m.run("mad.lo.cc.u32", "r2", &["r5", "r7", "r2"]);
        m.run("madc.hi.u32", "r3", &["r5", "r7", "r3"]);
        let got = (0..4).fold(0u128, |acc, i| acc | (m.regs[&format!("r{i}")] as u128) << (32 * i));
        let want = (((r5 as u128) << 32) | r4 as u128) * (((r7 as u128) << 32) | r6 as u128);
        assert_eq!(got, want, "{r4:#x} {r5:#x} {r6:#x} {r7:#x}");
    }
}

#[test]
fn manual_examples() {
    // §9.7.1.1 add.sat.s32 (the example) and the .sat rule of L5680.
    assert_eq!(ev("add.sat.s32 0x7fffffff 0x1"), "0x7fffffff");
    assert_eq!(ev("add.sat.s32 0x80000000 0xffffffff"), "0x80000000");
    assert_eq!(ev("add.s32 0x7fffffff 0x1"), "0x80000000");
    assert_eq!(ev("add.u16x2 0xffff0001 0x00010001"), "0x00000002");
    // §9.7.1.17 fns examples (L6427-6430).
    assert_eq!(ev("fns.b32 0xaaaaaaaa 3 1"), "0x00000003");
    assert_eq!(ev("fns.b32 0xaaaaaaaa 3 -1"), "0x00000003");
    assert_eq!(ev("fns.b32 0xaaaaaaaa 2 1"), "0x00000003");
    assert_eq!(ev("fns.b32 0xaaaaaaaa 2 -1"), "0x00000001");
    // §9.7.1.21 szext: `szext.wrap.u32 rd, 0xffffffff, 0; // Result is 0` (L6622).
    assert_eq!(ev("szext.wrap.u32 0xffffffff 0"), "0x00000000");
    // §9.7.1.22 bmsk: `bmsk.wrap.b32 rd, 1, 2; // Creates a bitmask of 0x00000006` (L6690).
    assert_eq!(ev("bmsk.wrap.b32 1 2"), "0x00000006");
    // §9.7.1.16 bfind: no non-sign bit gives 0xffffffff (L6346), also under .shiftamt.
    assert_eq!(ev("bfind.s32 0"), "0xffffffff");
    assert_eq!(ev("bfind.s32 0xffffffff"), "0xffffffff");
    assert_eq!(ev("bfind.shiftamt.u32 0"), "0xffffffff");
    assert_eq!(ev("bfind.u32 0x00010000"), "0x00000010");
    assert_eq!(ev("bfind.shiftamt.u32 0x00010000"), "0x0000000f");
    assert_eq!(ev("bfind.s64 0xfffffffffffffff0"), "0x00000003");
    // §9.7.1.15 clz of zero is the width (L6300); §9.7.1.14 popc.
    assert_eq!(ev("clz.b32 0"), "0x00000020");
    assert_eq!(ev("clz.b64 1"), "0x0000003f");
    assert_eq!(ev("popc.b64 0xffffffffffffffff"), "0x00000040");
    // §9.7.1.3 mul examples (L5784-5786): .wide.s16 yields 32 bits; .lo.s16 keeps 16.
    assert_eq!(ev("mul.wide.s16 0xffff 0xffff"), "0x00000001");
    assert_eq!(ev("mul.wide.s16 0x8000 0x7fff"), "0xc0008000");
    assert_eq!(ev("mul.lo.s16 0x1234 0x0100"), "0x3400");
    assert_eq!(
        ev("mul.hi.u64 0xffffffffffffffff 0xffffffffffffffff"),
        "0xfffffffffffffffe"
    );
    assert_eq!(
        ev("mul.hi.s64 0xffffffffffffffff 0xffffffffffffffff"),
        "0x0000000000000000"
    );
    // §9.7.1.4 mad.hi.sat.s32 clamps the addition.
    assert_eq!(ev("mad.hi.sat.s32 0x40000000 0x40000000 0x7fffffff"), "0x7fffffff");
    // §9.7.1.23 dp4a / §9.7.1.24 dp2a.
    assert_eq!(ev("dp4a.u32.u32 0x01020304 0x01010101 0x0"), "0x0000000a");
    assert_eq!(ev("dp4a.s32.s32 0xffffffff 0x01010101 0x0"), "0xfffffffc");
    // 2*3 + (-1)*4 + 16 = 18
    assert_eq!(ev("dp2a.hi.s32.u32 0xffff0002 0x04030000 0x10"), "0x00000012");
    // §9.7.2 carry flag in and out.
    assert_eq!(ev("add.cc.u32 0xffffffff 0x1"), "0x00000000 cf=1");
    assert_eq!(ev("addc.cc.u32 0xffffffff 0x0 cf=1"), "0x00000000 cf=1");
    assert_eq!(ev("addc.u32 0x1 0x2 cf=1"), "0x00000004");
    // sub.cc/subc: the model is the hardware's flag (the carry of a + ~b + 1, 1 = no borrow),
    // the manual's borrow is also accepted (INTERPRETATIONS.md). 0 - 1 borrows: manual CF = 1,
    // hardware CF = 0 (0 + 0xfffffffe + 1 does not carry out).
    assert_eq!(ev("sub.cc.u32 0x0 0x1"), "0xffffffff cf=0 oneof:0x0,0x1");
    assert_eq!(ev("sub.cc.u32 0x5 0x1"), "0x00000004 cf=1 oneof:0x1,0x0");
    // subc with CF = 1: the hardware adds it (5 + ~4 + 1 = 1, no borrow: CF = 1); the manual
    // subtracts it as a borrow (5 - (4 + 1) = 0, CF = 0).
    assert_eq!(
        ev("subc.cc.u64 0x5 0x4 cf=1"),
        "0x0000000000000001 oneof:0x0000000000000001,0x0000000000000000 cf=1 oneof:0x1,0x0"
    );
    assert_eq!(ev("subc.u32 0x5 0x4 cf=0"), "0x00000000 oneof:0x00000000,0x00000001");
}

#[test]
fn unspecified_results_are_acceptance_sets() {
    // Division by zero: "unspecified, machine-specific value" (L6000).
    assert_eq!(ev("div.u32 0x5 0x0"), "0xffffffff any");
    assert_eq!(ev("rem.u16 0x5 0x0"), "0x0005 any");
    // Negative operands: truncating or flooring (L6037); the model truncates.
    assert_eq!(ev("rem.s32 -7 2"), "0xffffffff oneof:0xffffffff,0x00000001");
    assert_eq!(ev("div.s32 -7 2"), "0xfffffffd oneof:0xfffffffd,0xfffffffc");
    assert_eq!(ev("div.s32 -8 2"), "0xfffffffc");
    assert_eq!(ev("div.s32 0x80000000 0xffffffff"), "0x80000000");
    // fns with base > 31 is undefined (L6390).
    assert_eq!(ev("fns.b32 0xffffffff 32 1"), "0xffffffff any");
    // mul24 of sources that are not 24-bit values (L5857).
    assert_eq!(ev("mul24.lo.u32 0x01000001 0x2"), "0x00000002 any");
    assert_eq!(ev("mul24.lo.s32 0xffffffff 0x2"), "0xfffffffe");
}

#[test]
fn invalid_forms_and_operands_are_errors() {
    for (line, needle) in [
        ("add.sat.u32 0x1 0x2", "`.u32` cannot follow `add.sat`"),
        ("bfe.b16 0x1 0 1", "`.b16` cannot follow `bfe`"),
        ("add.s32 0x1", "takes 2 source operands"),
        ("add.s32 0x1 0x2 0x3", "takes 2 source operands"),
        ("add.u16 0x10000 0x1", "does not fit in 16 bits"),
        ("add.u32 zz 0x1", "is not a number"),
        ("addc.u32 0x1 0x2 1", "cf=0 or cf=1"),
        ("mul.s32 1 2", "`.s32` cannot follow `mul`"),
        ("mul.lo", "must be followed by one of"),
        ("", "empty line"),
    ] {
        let e = eval_line(line)
            .err()
            .unwrap_or_else(|| panic!("{line} should fail"))
            .message;
        assert!(e.contains(needle), "{line}: {e}");
    }
}

/// bfe as mask-and-shift: the field is (a >> pos) & ((1 << len) - 1), clipped at the msb, then
/// sign-extended from its top bit for signed types.
fn bfe_ref(bits: u32, signed: bool, a: u64, pos: u32, len: u32) -> u64 {
    let m = if bits == 64 { u64::MAX } else { (1u64 << bits) - 1 };
    let a = a & m;
    let (pos, len) = (pos & 0xff, len & 0xff);
    if len == 0 {
        return 0;
    }
    if pos >= bits {
        // Beyond the msb: the replicated sign bit of the field, which is a[msb] (L6497, L6493).
        return if signed && (a >> (bits - 1)) & 1 == 1 { m } else { 0 };
    }
    let avail = (bits - pos).min(len);
    let field = (a >> pos) & if avail == 64 { u64::MAX } else { (1u64 << avail) - 1 };
    if signed && avail < 64 && (field >> (avail - 1)) & 1 == 1 {
        (field | (u64::MAX << avail)) & m
    } else {
        field
    }
}

fn bfi_ref(bits: u32, a: u64, b: u64, pos: u32, len: u32) -> u64 {
    let m = if bits == 64 { u64::MAX } else { (1u64 << bits) - 1 };
    let (pos, len) = (pos & 0xff, len & 0xff);
    if len == 0 || pos >= bits {
        return b & m;
    }
    let n = (bits - pos).min(len);
    let fm = (if n == 64 { u64::MAX } else { (1u64 << n) - 1 }) << pos;
    ((b & !fm) | ((a << pos) & fm)) & m
}

fn edge_u32() -> impl Strategy<Value = u32> {
    prop_oneof![any::<u32>(), 0u32..70, 240u32..300, Just(u32::MAX)]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    #[test]
    fn bfe_matches_mask_and_shift(a in any::<u64>(), pos in edge_u32(), len in edge_u32(), ti in 0usize..4) {
        let t = [IntTy::U32, IntTy::S32, IntTy::U64, IntTy::S64][ti];
        let a = if t.bits == 32 { a & 0xffff_ffff } else { a };
        prop_assert_eq!(bfe(t, a, pos, len), bfe_ref(t.bits, t.signed, a, pos, len));
    }

    #[test]
    fn bfi_matches_mask_and_shift(a in any::<u64>(), b in any::<u64>(), pos in edge_u32(), len in edge_u32(), wide in any::<bool>()) {
        let bits = if wide { 64 } else { 32 };
        let m = if wide { u64::MAX } else { 0xffff_ffff };
        prop_assert_eq!(bfi(bits, a & m, b & m, pos, len), bfi_ref(bits, a & m, b & m, pos, len));
    }

    #[test]
    fn add_cc_chain_is_u128_addition(x in any::<u128>(), y in any::<u128>()) {
        // Four 32-bit limbs: add.cc, addc.cc, addc.cc, addc.cc — via the eval front end.
        let mut cf = 0;
        let mut sum = 0u128;
        for i in 0..4 {
            let (a, b) = ((x >> (32 * i)) as u32, (y >> (32 * i)) as u32);
            let line = if i == 0 { format!("add.cc.u32 {a:#x} {b:#x}") } else { format!("addc.cc.u32 {a:#x} {b:#x} cf={cf}") };
            let out = ev(&line);
            let (d, c) = out.split_once(" cf=").unwrap();
            sum |= (u32::from_str_radix(&d[2..], 16).unwrap() as u128) << (32 * i);
            cf = c.parse::<u8>().unwrap();
        }
        let (want, carry) = x.overflowing_add(y);
        prop_assert_eq!(sum, want);
        prop_assert_eq!(cf == 1, carry);
        // Two 64-bit limbs through the functions.
        let (lo, c) = addc(64, x as u64, y as u64, false);
        let (hi, c2) = addc(64, (x >> 64) as u64, (y >> 64) as u64, c);
        prop_assert_eq!(((hi as u128) << 64) | lo as u128, want);
        prop_assert_eq!(c2, carry);
    }

    #[test]
    fn sub_cc_chain_is_u128_subtraction(x in any::<u128>(), y in any::<u128>()) {
        let (lo, b) = sub_cc(64, x as u64, y as u64);
        let (hi, b2) = subc(64, (x >> 64) as u64, (y >> 64) as u64, b);
        let (want, borrow) = x.overflowing_sub(y);
        prop_assert_eq!(((hi as u128) << 64) | lo as u128, want);
        prop_assert_eq!(b2, borrow);
    }

    /// The hardware's reading (carry = no borrow, subc adds it) subtracts multi-word integers
    /// too, and its final flag is the inverse of the borrow.
    #[test]
    fn hardware_sub_cc_chain_is_u128_subtraction(x in any::<u128>(), y in any::<u128>()) {
        let (lo, c) = sub_cc_hw(64, x as u64, y as u64);
        let (hi, c2) = subc_hw(64, (x >> 64) as u64, (y >> 64) as u64, c);
        let (want, borrow) = x.overflowing_sub(y);
        prop_assert_eq!(((hi as u128) << 64) | lo as u128, want);
        prop_assert_eq!(c2, !borrow);
        // `addc 0, 0` after sub.cc reads the flag: the hardware's is 1 exactly when a >= b.
        let (_, f) = sub_cc_hw(32, x as u32 as u64, y as u32 as u64);
        prop_assert_eq!(addc(32, 0, 0, f).0, (x as u32 >= y as u32) as u64);
    }

    #[test]
    fn mul_hi_lo_wide_match_wide_arithmetic(a in any::<u64>(), b in any::<u64>(), ti in 0usize..6) {
        let t = [IntTy::U16, IntTy::S16, IntTy::U32, IntTy::S32, IntTy::U64, IntTy::S64][ti];
        let m = if t.bits == 64 { u64::MAX } else { (1u64 << t.bits) - 1 };
        let (a, b) = (a & m, b & m);
        // u64*u64 overflows i128; wrapping keeps the low 128 bits, which is all the u64 case reads.
        let p: i128 = t.value(a).wrapping_mul(t.value(b));
        let lo = (p as u128 & m as u128) as u64;
        let hi = ((p as u128 >> t.bits) & m as u128) as u64;
        prop_assert_eq!(mul(t, MulMode::Lo, a, b), lo);
        if t.bits == 64 && !t.signed {
            // u64 * u64 can exceed i128: check against u128 directly.
            prop_assert_eq!(mul(t, MulMode::Hi, a, b), ((a as u128 * b as u128) >> 64) as u64);
        } else {
            prop_assert_eq!(mul(t, MulMode::Hi, a, b), hi);
        }
        if t.bits < 64 {
            let w = (p as u128 & ((1u128 << (2 * t.bits)) - 1)) as u64;
            prop_assert_eq!(mul(t, MulMode::Wide, a, b), w);
        }
    }

    #[test]
    fn mad_cc_madc_chain_is_u128_product(x in any::<u64>(), y in any::<u64>()) {
        // 64x64 -> 128 from 32-bit limbs as in L7082-7093, using the functions directly.
        let (r4, r5, r6, r7) = (x as u32 as u64, x >> 32, y as u32 as u64, y >> 32);
        let u = IntTy::U32;
        let r0 = mul(u, MulMode::Lo, r4, r6);
        let r1 = mul(u, MulMode::Hi, r4, r6);
        let (r1, c) = madc(u, false, r5, r6, r1, false);
        let (r2, _) = madc(u, true, r5, r6, 0, c);
        let (r1, c) = madc(u, false, r4, r7, r1, false);
        let (r2, c) = madc(u, true, r4, r7, r2, c);
        let (r3, _) = addc(32, 0, 0, c);
        let (r2, c) = madc(u, false, r5, r7, r2, false);
        let (r3, _) = madc(u, true, r5, r7, r3, c);
        let got = r0 as u128 | (r1 as u128) << 32 | (r2 as u128) << 64 | (r3 as u128) << 96;
        prop_assert_eq!(got, x as u128 * y as u128);
    }

    #[test]
    fn mad_hi_lo_wide_against_i128(a in any::<u32>(), b in any::<u32>(), c in any::<u64>(), signed in any::<bool>()) {
        let t = if signed { IntTy::S32 } else { IntTy::U32 };
        let p = t.value(a as u64) * t.value(b as u64);
        let wide = (p + IntTy { bits: 64, signed }.value(c)) as u64;
        prop_assert_eq!(mad(t, MulMode::Wide, false, a as u64, b as u64, c), wide);
        let lo = (p as u128 as u64 as u32).wrapping_add(c as u32);
        prop_assert_eq!(mad(t, MulMode::Lo, false, a as u64, b as u64, c & 0xffff_ffff), lo as u64);
        let hi = ((p >> 32) as u32).wrapping_add(c as u32);
        prop_assert_eq!(mad(t, MulMode::Hi, false, a as u64, b as u64, c & 0xffff_ffff), hi as u64);
    }

    #[test]
    fn add_sub_sat_and_minmax_against_i128(a in any::<u64>(), b in any::<u64>(), ti in 0usize..6) {
        let t = [IntTy::U16, IntTy::S16, IntTy::U32, IntTy::S32, IntTy::U64, IntTy::S64][ti];
        let m = if t.bits == 64 { u64::MAX } else { (1u64 << t.bits) - 1 };
        let (a, b) = (a & m, b & m);
        let (x, y) = (t.value(a), t.value(b));
        prop_assert_eq!(add(t, false, a, b), ((x + y) as u128 as u64) & m);
        prop_assert_eq!(sub(t, false, a, b), ((x - y) as u128 as u64) & m);
        if t == IntTy::S32 {
            prop_assert_eq!(add(t, true, a, b), ((x + y).clamp(i32::MIN as i128, i32::MAX as i128) as u64) & m);
            prop_assert_eq!(sub(t, true, a, b), ((x - y).clamp(i32::MIN as i128, i32::MAX as i128) as u64) & m);
            prop_assert_eq!(minmax(t, 1, true, true, a, b), (x.max(y).max(0) as u64) & m);
        }
        prop_assert_eq!(minmax(t, 1, false, false, a, b), (x.min(y) as u128 as u64) & m);
        prop_assert_eq!(minmax(t, 1, true, false, a, b), (x.max(y) as u128 as u64) & m);
        prop_assert_eq!(sad(t, a, b, a), ((x + (x - y).abs()) as u128 as u64) & m);
    }

    #[test]
    fn div_rem_against_native(a in any::<i32>(), b in any::<i32>()) {
        let (ua, ub) = (a as u32 as u64, b as u32 as u64);
        let d = div(IntTy::S32, ua, ub);
        let r = rem(IntTy::S32, ua, ub);
        if b == 0 {
            prop_assert_eq!(d.accept, Accept::Any);
            prop_assert_eq!(r.accept, Accept::Any);
        } else {
            prop_assert_eq!(d.model as u32, a.wrapping_div(b) as u32);
            prop_assert_eq!(r.model as u32, a.wrapping_rem(b) as u32);
            // The flooring alternatives are in the set.
            prop_assert!(d.accepts(a.wrapping_div_euclid(b) as u32 as u128) || b < 0);
            prop_assert!(r.accepts((a as i64 - (a as i64).div_euclid(b as i64) * b as i64) as u32 as u128) || b < 0);
            if a >= 0 && b > 0 {
                prop_assert_eq!(d.accept.clone(), Accept::Exact);
                prop_assert_eq!(r.accept.clone(), Accept::Exact);
            }
            let (ud, ur) = (div(IntTy::U32, ua, ub), rem(IntTy::U32, ua, ub));
            prop_assert_eq!((ud.model as u32, ud.accept), (a as u32 / b as u32, Accept::Exact));
            prop_assert_eq!((ur.model as u32, ur.accept), (a as u32 % b as u32, Accept::Exact));
        }
    }

    #[test]
    fn bit_scans_against_native(a in any::<u64>()) {
        prop_assert_eq!(popc(64, a), a.count_ones());
        prop_assert_eq!(popc(32, a), (a as u32).count_ones());
        prop_assert_eq!(clz(32, a), (a as u32).leading_zeros());
        prop_assert_eq!(brev(64, a), a.reverse_bits());
        prop_assert_eq!(brev(32, a), (a as u32).reverse_bits() as u64);
        let s = a as i64;
        let want = if s < 0 { (!a).checked_ilog2() } else { a.checked_ilog2() };
        prop_assert_eq!(bfind(IntTy::S64, false, a), want.unwrap_or(u32::MAX));
        prop_assert_eq!(bfind(IntTy::U64, true, a), a.checked_ilog2().map(|p| 63 - p).unwrap_or(u32::MAX));
    }

    #[test]
    fn szext_bmsk_against_shift_formulation(a in any::<u32>(), n in prop_oneof![0u32..40, any::<u32>()], clamp in any::<bool>()) {
        // szext: keep the low N bits (N clamped to 32 or wrapped mod 32), extend from bit N-1.
        let eff = if clamp { n.min(32) } else { n & 31 };
        let zx = if eff == 0 { 0 } else if eff == 32 { a } else { a & ((1 << eff) - 1) };
        let sx = if eff == 0 { 0 } else { (((a as i64) << (64 - eff)) >> (64 - eff)) as u32 };
        prop_assert_eq!(szext(false, clamp, a, n), zx);
        prop_assert_eq!(szext(true, clamp, a, n), sx);
        // bmsk: ones in [a, a+b) within 32 bits; zero when a ≥ 32 (.clamp), b counts mod 32 (.wrap).
        let pos = if clamp { a.min(32) } else { a & 31 };
        let w = if clamp { n.min(32) } else { n & 31 };
        let want = (pos..(pos + w).min(32)).fold(0u32, |m, i| m | 1 << i);
        prop_assert_eq!(bmsk(clamp, a, n), want);
    }

    #[test]
    fn dp4a_dp2a_against_byte_sums(a in any::<u32>(), b in any::<u32>(), c in any::<u32>(), sa in any::<bool>(), sb in any::<bool>()) {
        let byte = |x: u32, i: u32, s: bool| if s { (x >> (8 * i)) as u8 as i8 as i64 } else { (x >> (8 * i)) as u8 as i64 };
        let half = |x: u32, i: u32, s: bool| if s { (x >> (16 * i)) as u16 as i16 as i64 } else { (x >> (16 * i)) as u16 as i64 };
        let d4 = (0..4).fold(c as i64, |acc, i| acc + byte(a, i, sa) * byte(b, i, sb));
        prop_assert_eq!(dp4a(sa, sb, a, b, c), d4 as u32);
        for hi in [false, true] {
            let o = if hi { 2 } else { 0 };
            let d2 = (0..2).fold(c as i64, |acc, i| acc + half(a, i, sa) * byte(b, o + i, sb));
            prop_assert_eq!(dp2a(hi, sa, sb, a, b, c), d2 as u32);
        }
    }

    #[test]
    fn fns_matches_nth_set_bit_scan(m in any::<u32>(), base in 0u32..32, off in -40i32..40) {
        let bits: Vec<u32> = (0..32).filter(|i| (m >> i) & 1 == 1).collect();
        let want = if off == 0 {
            if (m >> base) & 1 == 1 { base } else { u32::MAX }
        } else if off > 0 {
            bits.iter().filter(|&&i| i >= base).nth(off as usize - 1).copied().unwrap_or(u32::MAX)
        } else {
            bits.iter().rev().filter(|&&i| i <= base).nth((-off) as usize - 1).copied().unwrap_or(u32::MAX)
        };
        prop_assert_eq!(fns(m, base, off).model as u32, want);
    }
}
