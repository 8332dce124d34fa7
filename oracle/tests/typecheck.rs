//! The type checker against NVIDIA's `ptxas`: a table of short snippets, each placed into one
//! kernel template, must be accepted by the oracle (`parse` then `check`) exactly when `ptxas`
//! accepts it.
//!
//! The table records what each snippet is (valid, invalid, or valid but deliberately not
//! executed by the oracle), so the oracle half runs everywhere; with `ptxas` present the table
//! itself is checked against it. `ptxas` is found through `$PTXAS`, then `PATH`, then the
//! `nvidia-cuda-nvcc-cu12` pip wheel, else the pinned wheel is installed into a cache
//! (`oracle::ptxas::required`); `PTXCONF_NO_PTXAS=1` skips the ptxas half instead.
//!
//! A snippet `ptxas` accepts but the oracle declines counts as agreement only when the table marks
//! it `unsup` and the oracle's message says it does not execute it. Every oracle rejection must be
//! located on one of the snippet's own lines, with a real message.
//!
//! Manual lines (`L4480`) are those of `ptx-isa-8.7.zh.txt`, whose numbering of §9.4's tables is
//! two ahead of the English manual's (its Table 25 is the English Table 23).

use std::path::PathBuf;

/// What a snippet is, as `ptxas` judges it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Expect {
    /// `ptxas` accepts it and the oracle must too.
    Valid,
    /// `ptxas` rejects it and the oracle must too.
    Invalid,
    /// `ptxas` accepts it; the oracle rejects it by design because it does not execute it (its
    /// message says so).
    Unsupported,
}

#[derive(Clone, Debug)]
struct Case {
    /// A short name for reports.
    name: &'static str,
    /// Lines placed in the kernel body, before the final `L_end: ret;`.
    body: &'static str,
    /// Lines placed at module scope, after the template's declarations and before the kernel.
    module: &'static str,
    expect: Expect,
    sm: u32,
    version: &'static str,
}

fn case(name: &'static str, expect: Expect, body: &'static str) -> Case {
    Case {
        name,
        body,
        module: "",
        expect,
        sm: 80,
        version: "8.7",
    }
}
fn ok(name: &'static str, body: &'static str) -> Case {
    case(name, Expect::Valid, body)
}
fn bad(name: &'static str, body: &'static str) -> Case {
    case(name, Expect::Invalid, body)
}
fn unsup(name: &'static str, body: &'static str) -> Case {
    case(name, Expect::Unsupported, body)
}

impl Case {
    fn sm(mut self, sm: u32) -> Case {
        self.sm = sm;
        self
    }
    fn version(mut self, v: &'static str) -> Case {
        self.version = v;
        self
    }
    fn module(mut self, m: &'static str) -> Case {
        self.module = m;
        self
    }
}

/// Messages with which the oracle declines valid PTX it does not execute.
const BY_DESIGN: &[&str] = &["not supported by the oracle", "does not execute it yet"];

/// The generated file and the line numbers of the case's own text (module and body lines) in it.
fn render(c: &Case) -> (String, Vec<u32>) {
    let mut s = String::new();
    let mut own = Vec::new();
    let mut line = 1u32;
    let mut push = |s: &mut String, text: &str, mine: bool| {
        for l in text.lines() {
            s.push_str(l);
            s.push('\n');
            if mine {
                own.push(line);
            }
            line += 1;
        }
    };
    push(
        &mut s,
        &format!(
            ".version {}\n.target sm_{}\n.address_size 64\n\n\
             .global .align 8 .b32 gbuf[64];\n\
             .const .align 8 .b32 cbuf[16] = {{1, 2, 3}};\n\
             .shared .align 8 .b32 sbuf[64];\n\n\
             .func (.param .b32 fret) fadd(.param .b32 fa, .param .b32 fb)\n{{\n\
             \t.reg .b32 %t<3>;\n\
             \tld.param.b32 %t0, [fa];\n\
             \tld.param.b32 %t1, [fb];\n\
             \tadd.s32 %t2, %t0, %t1;\n\
             \tst.param.b32 [fret], %t2;\n\
             \tret;\n\
             L_f:\n\
             \tret;\n}}\n\n\
             .func fvoid()\n{{\n\tret;\n}}",
            c.version, c.sm
        ),
        false,
    );
    push(&mut s, c.module, true);
    push(
        &mut s,
        ".visible .entry k(.param .u64 kp)\n{\n\
         \t.reg .b32 %r<8>;\n\
         \t.reg .b64 %rd<8>;\n\
         \t.reg .f32 %f<8>;\n\
         \t.reg .f64 %fd<8>;\n\
         \t.reg .b16 %h<4>;\n\
         \t.reg .u16 %rs<4>;\n\
         \t.reg .s16 %ss<4>;\n\
         \t.reg .u32 %u<4>;\n\
         \t.reg .s32 %s<4>;\n\
         \t.reg .u64 %ud<4>;\n\
         \t.reg .s64 %sd<4>;\n\
         \t.reg .f16 %hf<4>;\n\
         \t.reg .pred %p<4>;\n\
         \t.local .align 8 .b32 lbuf[4];",
        false,
    );
    push(&mut s, c.body, true);
    push(&mut s, "L_end:\n\tret;\n}", false);
    (s, own)
}

/// The oracle's verdict: `Ok(())` or the error, located and described.
fn oracle(text: &str) -> Result<(), oracle::error::Error> {
    let m = oracle::parse::parse(text)?;
    // An instruction the oracle does not execute loads (it stops a thread that reaches it):
    // the checker's verdict on it is the program's first such instruction.
    match oracle::check::check(&m)?.first_unsupported() {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Runs the oracle on a case, catching panics (a panic is a finding of its own).
fn oracle_verdict(text: &str) -> Result<Result<(), oracle::error::Error>, String> {
    let t = text.to_string();
    std::panic::catch_unwind(move || oracle(&t)).map_err(|p| {
        p.downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default()
    })
}

fn cases() -> Vec<Case> {
    vec![
        ok("template alone", ""),
        // ---- §9.4 Table 23 (L4480): instruction type vs register type (bit types agree with any)
        ok("int add", "add.s32 %r1, %r2, %r3;"),
        ok("u32 and s32 registers mix", "add.u32 %u1, %s2, %r3;"),
        ok("s16 add on u16/s16/b16", "add.s16 %rs1, %ss2, %h3;"),
        ok("u64 add on s64/b64", "add.u64 %ud1, %sd1, %rd2;"),
        bad("setp's q without |", "setp.eq.s32 %p1, %p2, %r1, %r2;"),
        bad("lop3's p without |", "lop3.and.b32 %r1, %p1, %r2, %r3, %r4, 0x3f, %p2;"),
        bad("| on a single destination", "add.s32 %r1|%r2, %r3, %r4;"),
        ok("lop3 with d|p", "lop3.and.b32 %r1|%p1, %r2, %r3, %r4, 0x3f, %p2;"),
        bad("f32 register in int add", "add.s32 %r1, %f2, %r3;"),
        bad("f32 destination of int add", "add.s32 %f1, %r2, %r3;"),
        bad("64-bit register in 32-bit add", "add.s32 %r1, %rd2, %r3;"),
        bad("16-bit register in 32-bit add", "add.s32 %r1, %rs2, %r3;"),
        bad("32-bit register in 16-bit add", "add.u16 %rs1, %r2, %rs3;"),
        bad("64-bit destination of 32-bit add", "add.u32 %rd1, %r2, %r3;"),
        ok("b32 register in f32 add", "add.f32 %f1, %r2, %f3;"),
        bad("u32 register in f32 add", "add.f32 %f1, %u2, %f3;"),
        bad("s32 destination of f32 add", "add.f32 %s1, %f2, %f3;"),
        bad("f64 register in f32 add", "add.f32 %f1, %fd2, %f3;"),
        bad("f32 register in f64 fma", "fma.rn.f64 %fd1, %fd2, %fd3, %f4;"),
        ok("b64 register in f64 mul", "mul.rn.f64 %fd1, %rd2, %fd3;"),
        ok("mov f32 to b32", "mov.b32 %r1, %f1;"),
        ok("mov b32 into f32 register", "mov.f32 %f1, %r1;"),
        bad("mov f32 from u32 register", "mov.f32 %f1, %u1;"),
        ok("mov b16 from f16 register", "mov.b16 %h1, %hf1;"),
        bad("mov b64 from b32 register", "mov.b64 %rd1, %r1;"),
        ok("and on f32 and u32 registers", "and.b32 %r1, %f1, %u2;"),
        bad("and b32 on a 64-bit register", "and.b32 %r1, %fd1, %r2;"),
        ok("setp s32", "setp.lt.s32 %p1, %r1, %r2;"),
        bad("setp destination not a predicate", "setp.lt.s32 %r1, %r1, %r2;"),
        ok("setp f32 on b32 register", "setp.lt.f32 %p1, %f1, %r2;"),
        bad("setp f32 on s32 register", "setp.lt.f32 %p1, %f1, %s2;"),
        ok("selp", "selp.b32 %r1, %r2, %r3, %p1;"),
        bad("selp selector not a predicate", "selp.b32 %r1, %r2, %r3, %r4;"),
        ok("and.pred", "and.pred %p1, %p2, %p3;"),
        bad("and.pred on a b32 register", "and.pred %p1, %r1, %p2;"),
        bad("and.b32 into a predicate", "and.b32 %p1, %r1, %r2;"),
        ok("mul.wide.s32", "mul.wide.s32 %rd1, %r1, %r2;"),
        bad("mul.wide.s32 narrow destination", "mul.wide.s32 %r1, %r1, %r2;"),
        bad("mul.wide.s32 wide source", "mul.wide.s32 %rd1, %rd1, %r2;"),
        ok("mad.lo.s32", "mad.lo.s32 %r1, %r2, %r3, %r4;"),
        ok("mad.wide.u32", "mad.wide.u32 %rd1, %r1, %r2, %rd3;"),
        bad("mad.wide.u32 narrow addend", "mad.wide.u32 %rd1, %r1, %r2, %r3;"),
        ok("shl.b64 with u32 amount", "shl.b64 %rd1, %rd2, %r3;"),
        bad("shl.b64 with a 64-bit amount", "shl.b64 %rd1, %rd2, %rd3;"),
        ok("shr.s32 immediate amount", "shr.s32 %r1, %r2, 3;"),
        ok("clz.b64 gives u32", "clz.b64 %r1, %rd1;"),
        bad("clz.b64 into a 64-bit register", "clz.b64 %rd1, %rd1;"),
        ok("popc.b64 gives u32", "popc.b64 %r1, %rd1;"),
        ok("bfe.u32", "bfe.u32 %r1, %r2, %r3, %r4;"),
        ok("bfi.b64", "bfi.b64 %rd1, %rd2, %rd3, %r1, %r2;"),
        ok("prmt", "prmt.b32 %r1, %r2, %r3, %r4;"),
        ok("lop3 with immediate LUT", "lop3.b32 %r1, %r2, %r3, %r4, 0x80;"),
        bad("lop3 with a register LUT", "lop3.b32 %r1, %r2, %r3, %r4, %r5;"),
        ok("add.sat.s32", "add.sat.s32 %r1, %r2, %r3;"),
        bad("add.sat.u32 (sat is s32 only)", "add.sat.u32 %r1, %r2, %r3;"),
        ok("mul.hi.u64", "mul.hi.u64 %rd1, %rd2, %rd3;"),
        bad("integer mul without .lo/.hi/.wide", "mul.u32 %r1, %r2, %r3;"),
        ok("div.rn.f32", "div.rn.f32 %f1, %f2, %f3;"),
        bad("div.f32 without rounding (sm_20+)", "div.f32 %f1, %f2, %f3;"),
        bad("sqrt.f32 without rounding (sm_20+)", "sqrt.f32 %f1, %f2;"),
        ok("rem.s32", "rem.s32 %r1, %r2, %r3;"),
        ok("testp.finite", "testp.finite.f32 %p1, %f1;"),
        ok("copysign.f64", "copysign.f64 %fd1, %fd2, %fd3;"),
        ok("abs and neg", "abs.s32 %r1, %r2;\nneg.f32 %f1, %f2;"),
        ok("min.u16", "min.u16 %rs1, %rs2, %rs3;"),
        ok("add.f16 on f16 registers", "add.f16 %hf1, %hf2, %hf3;"),
        ok("add.f16 on b16 registers", "add.f16 %h1, %h2, %h3;"),
        bad("add.f16 on u16 registers", "add.f16 %rs1, %rs2, %rs3;"),
        ok("add.f16x2 on b32 registers", "add.f16x2 %r1, %r2, %r3;"),
        ok("fma.rn.bf16 on b16 registers", "fma.rn.bf16 %h1, %h2, %h3, %h0;"),
        // ---- §9.4.1 Tables 24/25 (L4545, L4551, L5059): ld, st and cvt take wider registers
        ok("ld.u8 into a 32-bit register", "ld.global.u8 %r1, [%rd1];"),
        ok("ld.u8 into a 16-bit register", "ld.global.u8 %rs1, [%rd1];"),
        ok("ld.s8 into a 64-bit register", "ld.global.s8 %rd1, [%rd2];"),
        ok("ld.u32 into a 64-bit register", "ld.global.u32 %rd1, [%rd2];"),
        bad("ld.u32 into a 16-bit register", "ld.global.u32 %rs1, [%rd1];"),
        bad("ld.f32 into an f64 register", "ld.global.f32 %fd1, [%rd1];"),
        ok("ld.f32 into a b32 register", "ld.global.f32 %r1, [%rd1];"),
        ok("ld.b32 into an f32 register", "ld.global.b32 %f1, [%rd1];"),
        bad("ld.u32 into an f32 register", "ld.global.u32 %f1, [%rd1];"),
        ok("st.u8 from a 32-bit register", "st.global.u8 [%rd1], %r1;"),
        bad("st.u32 from a 16-bit register", "st.global.u32 [%rd1], %rs1;"),
        bad("st.f32 from an f64 register", "st.global.f32 [%rd1], %fd1;"),
        ok("st immediate", "st.global.u32 [%rd1], 5;"),
        ok("st f32 immediate", "st.global.f32 [%rd1], 0f3f800000;"),
        ok("cvt.u32.u16", "cvt.u32.u16 %r1, %rs1;"),
        ok("cvt.u32.u16 from a 32-bit register", "cvt.u32.u16 %r1, %r2;"),
        ok("cvt.u64.u32 from a 64-bit register", "cvt.u64.u32 %rd1, %rd2;"),
        bad("cvt.u32.u64 from a 32-bit register", "cvt.u32.u64 %r1, %r2;"),
        ok("cvt.s32.s8", "cvt.s32.s8 %r1, %r2;"),
        ok("cvt.u8.u32 into a 32-bit register", "cvt.u8.u32 %r1, %r2;"),
        ok("cvt.u16.u32 into a 64-bit register", "cvt.u16.u32 %rd1, %r2;"),
        ok("cvt.rn.f32.f64", "cvt.rn.f32.f64 %f1, %fd1;"),
        bad("cvt.f32.f64 without rounding", "cvt.f32.f64 %f1, %fd1;"),
        ok("cvt.f64.f32", "cvt.f64.f32 %fd1, %f1;"),
        ok("cvt.rzi.s32.f32", "cvt.rzi.s32.f32 %r1, %f1;"),
        bad("cvt.s32.f32 without rounding", "cvt.s32.f32 %r1, %f1;"),
        ok("cvt.rn.f32.s32", "cvt.rn.f32.s32 %f1, %r1;"),
        bad("cvt.rn.f32.s32 from an f32 register", "cvt.rn.f32.s32 %f1, %f2;"),
        ok("cvt.rn.f16.f32", "cvt.rn.f16.f32 %hf1, %f1;"),
        ok("cvt.f32.f16", "cvt.f32.f16 %f1, %hf1;"),
        // ---- immediates
        ok("int immediate", "add.s32 %r1, %r2, 5;"),
        ok("negative int immediate", "add.s32 %r1, %r2, -5;"),
        bad("division by zero in a constant", "add.s32 %r1, %r2, 1/0;"),
        bad("float immediate in int add", "add.s32 %r1, %r2, 1.5;"),
        bad("0f literal in int add", "add.s32 %r1, %r2, 0f3f800000;"),
        ok("float immediate in f32 add", "add.f32 %f1, %f2, 1.5;"),
        ok("0f literal in f32 add", "add.f32 %f1, %f2, 0f3f800000;"),
        bad("int immediate in f32 add", "add.f32 %f1, %f2, 1;"),
        ok("0d literal in f64 add", "add.f64 %fd1, %fd2, 0d3ff0000000000000;"),
        ok("0f literal in f64 add", "add.f64 %fd1, %fd2, 0f3f800000;"),
        ok("0d literal in f32 add", "add.f32 %f1, %f2, 0d3ff0000000000000;"),
        ok("NaN literal", "mov.f32 %f1, 0f7fc00000;"),
        ok("mov.f64 decimal", "mov.f64 %fd1, 1.0;"),
        ok("mov.u32 all ones", "mov.u32 %r1, 0xffffffff;"),
        ok("mov.u16 immediate", "mov.u16 %rs1, 65535;"),
        ok("mov.pred immediate", "mov.pred %p1, 1;"),
        ok("WARP_SZ", "mov.u32 %r1, WARP_SZ;"),
        ok("shift by 33", "shl.b32 %r1, %r2, 33;"),
        bad("f16 immediate", "add.f16 %hf1, %hf2, 0f3f800000;"),
        // ---- vectors
        ok("ld.v2", "ld.global.v2.u32 {%r1, %r2}, [%rd1];"),
        bad("ld.v2 with three elements", "ld.global.v2.u32 {%r1, %r2, %r3}, [%rd1];"),
        bad("ld.v4 with two elements", "ld.global.v4.u32 {%r1, %r2}, [%rd1];"),
        bad("ld.v2 into a scalar", "ld.global.v2.u32 %r1, [%rd1];"),
        bad("scalar ld into a vector", "ld.global.u32 {%r1, %r2}, [%rd1];"),
        ok("st.v4.f32", "st.global.v4.f32 [%rd1], {%f1, %f2, %f3, %f4};"),
        bad("st.v4 with three elements", "st.global.v4.f32 [%rd1], {%f1, %f2, %f3};"),
        bad("ld.v2.f64 element type", "ld.global.v2.f64 {%fd1, %f2}, [%rd1];"),
        ok("ld.v2.f64", "ld.global.v2.f64 {%fd1, %fd2}, [%rd1];"),
        ok("mov.b64 pack", "mov.b64 %rd1, {%r1, %r2};"),
        ok("mov.b64 unpack", "mov.b64 {%r1, %r2}, %rd1;"),
        bad("mov.b64 pack of three", "mov.b64 %rd1, {%r1, %r2, %r3};"),
        ok("mov.b32 pack of b16", "mov.b32 %r1, {%h1, %h2};"),
        ok("mov.b64 pack of four b16", "mov.b64 %rd1, {%h0, %h1, %h2, %h3};"),
        bad("mov.b32 pack of b32", "mov.b32 %r1, {%r2, %r3};"),
        // ---- p|q and !p
        ok("setp with p|q written", "setp.lt.s32 %p1|%p2, %r1, %r2;"),
        ok("setp.and with !p", "setp.lt.and.s32 %p1|%p2, %r1, %r2, !%p3;"),
        bad("setp p|q with a b32 register", "setp.lt.s32 %p1|%r2, %r1, %r2;"),
        bad("add with p|q", "add.s32 %p1|%p2, %r3, %r4;"),
        bad("!p on a setp comparand", "setp.eq.s32 %p1, !%r1, %r2;"),
        ok("negated guard", "@!%p1 add.s32 %r1, %r2, %r3;"),
        bad("guard on a b32 register", "@%r1 add.s32 %r1, %r2, %r3;"),
        ok("vote with !p", "vote.sync.any.pred %p1, !%p2, 0xffffffff;"),
        // ---- unknown opcodes and modifiers, operand counts
        bad("unknown opcode", "frob.s32 %r1, %r2;"),
        bad("unknown type", "add.s33 %r1, %r2, %r3;"),
        bad("rounding on integer add", "add.rn.s32 %r1, %r2, %r3;"),
        bad("unknown modifier", "add.xyz.f32 %f1, %f2, %f3;"),
        bad("missing type", "mov %r1, %r2;"),
        bad("type twice", "add.s32.s32 %r1, %r2, %r3;"),
        bad("too few operands", "add.s32 %r1, %r2;"),
        bad("too many operands", "add.s32 %r1, %r2, %r3, %r4;"),
        bad("mad with two sources", "mad.lo.s32 %r1, %r2, %r3;"),
        bad("not with no source", "not.b32 %r1;"),
        bad("missing semicolon", "add.s32 %r1, %r2, %r3\nadd.s32 %r1, %r2, %r3;"),
        // ---- names and scopes
        bad("register past the declared range", "add.s32 %r1, %r9, %r2;"),
        bad("undeclared register", "add.s32 %r1, %zz, %r2;"),
        bad("register declared twice", ".reg .b32 %r1;"),
        ok(
            "register shadowed in a block",
            "{\n.reg .b32 %r1;\nadd.s32 %r1, %r2, %r3;\n}",
        ),
        bad(
            "block register out of scope",
            "{\n.reg .b32 %q;\n}\nadd.s32 %q, %r2, %r3;",
        ),
        ok(
            "function-scope shared variable",
            ".shared .align 4 .b32 s2[4];\nst.shared.u32 [s2], %r1;",
        ),
        // ---- labels and branches
        ok("bra", "bra L_end;"),
        ok("bra.uni", "bra.uni L_end;"),
        ok("guarded bra", "@%p1 bra L_end;"),
        ok("backward bra", "L_x:\n@%p1 bra L_x;"),
        bad("bra to an undefined label", "bra L_nowhere;"),
        bad("bra to another function's label", "bra L_f;"),
        bad("bra to a register", "bra %r1;"),
        ok(
            "brx.idx",
            "ts: .branchtargets L_a, L_b;\nbrx.idx %r1, ts;\nL_a:\nadd.s32 %r1, %r2, %r3;\nL_b:",
        ),
        bad(
            "brx.idx with a 64-bit index",
            "ts: .branchtargets L_a, L_b;\nbrx.idx %rd1, ts;\nL_a:\nL_b:",
        ),
        bad("brx.idx on a label", "brx.idx %r1, L_end;"),
        bad(
            "branchtargets with an undefined label",
            "ts: .branchtargets L_a, L_zz;\nbrx.idx %r1, ts;\nL_a:",
        ),
        // ---- state spaces and variables
        ok("ld.global of a global variable", "ld.global.u32 %r1, [gbuf];"),
        ok("ld.global with an offset", "ld.global.u32 %r1, [gbuf+8];"),
        bad("ld.shared of a global variable", "ld.shared.u32 %r1, [gbuf];"),
        ok("ld.const", "ld.const.u32 %r1, [cbuf+4];"),
        bad("ld.global of a const variable", "ld.global.u32 %r1, [cbuf];"),
        bad("st.const", "st.const.u32 [cbuf], %r1;"),
        ok("st.shared", "st.shared.u32 [sbuf+8], %r1;"),
        ok("ld.local", "ld.local.u32 %r1, [lbuf];"),
        ok("ld.param of a kernel parameter", "ld.param.u64 %rd1, [kp];"),
        bad("ld.global of a kernel parameter", "ld.global.u64 %rd1, [kp];"),
        ok("ld with register and offset", "ld.global.u32 %r1, [%rd1+4];"),
        bad("ld address in a predicate", "ld.global.u32 %r1, [%p1];"),
        bad("ld without brackets", "ld.global.u32 %r1, %rd1;"),
        bad("ld from an undeclared variable", "ld.global.u32 %r1, [nosuch];"),
        ok("ld.shared::cta", "ld.shared::cta.u32 %r1, [sbuf];"),
        ok("ld.global.nc", "ld.global.nc.u32 %r1, [%rd1];"),
        ok("ld.volatile", "ld.volatile.global.u32 %r1, [%rd1];"),
        ok("ld.relaxed.gpu", "ld.relaxed.gpu.global.u32 %r1, [%rd1];"),
        ok("ld.global.ca", "ld.global.ca.u32 %r1, [%rd1];"),
        ok("mov.u64 of a variable's address", "mov.u64 %rd1, gbuf;"),
        ok("mov.u64 of a function's address", "mov.u64 %rd1, fadd;"),
        ok("cvta.global", "cvta.global.u64 %rd1, %rd2;"),
        ok("cvta.to.global", "cvta.to.global.u64 %rd1, %rd2;"),
        ok("cvta.shared of a variable", "cvta.shared.u64 %rd1, sbuf;"),
        ok("atom.add", "atom.global.add.u32 %r1, [%rd1], %r2;"),
        bad("atom.add without the operand", "atom.global.add.u32 %r1, [%rd1];"),
        ok("atom.cas", "atom.global.cas.b32 %r1, [%rd1], %r2, %r3;"),
        ok("atom.add.f32", "atom.global.add.f32 %f1, [%rd1], %f2;"),
        ok("red.add", "red.global.add.u32 [%rd1], %r2;"),
        bad(
            "atom.add.u32 into a 64-bit register",
            "atom.global.add.u32 %rd1, [%rd1], %r2;",
        ),
        ok("isspacep", "isspacep.global %p1, %rd1;"),
        // ---- calls
        ok(
            "call with .param arguments",
            "{\n.param .b32 a0;\n.param .b32 a1;\n.param .b32 r0;\nst.param.b32 [a0], %r1;\n\
             st.param.b32 [a1], %r2;\ncall (r0), fadd, (a0, a1);\nld.param.b32 %r3, [r0];\n}",
        ),
        bad(
            "call with too few arguments",
            "{\n.param .b32 a0;\n.param .b32 r0;\ncall (r0), fadd, (a0);\n}",
        ),
        bad(
            "call with too many arguments",
            "{\n.param .b32 a0;\n.param .b32 a1;\n.param .b32 a2;\n.param .b32 r0;\n\
             call (r0), fadd, (a0, a1, a2);\n}",
        ),
        bad(
            "call without the return",
            "{\n.param .b32 a0;\n.param .b32 a1;\ncall fadd, (a0, a1);\n}",
        ),
        ok("call of a void function", "call fvoid;"),
        ok("call.uni", "call.uni fvoid;"),
        bad(
            "call of a void function with an argument",
            "{\n.param .b32 a0;\ncall fvoid, (a0);\n}",
        ),
        bad(
            "call of a void function for a value",
            "{\n.param .b32 r0;\ncall (r0), fvoid;\n}",
        ),
        bad("call of a kernel", "call k;"),
        bad("call of an undeclared function", "call nosuch;"),
        ok(
            "indirect call through a prototype",
            "{\n.reg .b64 %fp;\nmov.u64 %fp, fadd;\n.param .b32 a0;\n.param .b32 a1;\n.param .b32 r0;\n\
             proto: .callprototype (.param .b32 _) _ (.param .b32 _, .param .b32 _);\n\
             call (r0), %fp, (a0, a1), proto;\n}",
        ),
        // ---- target and version
        ok("redux.sync on sm_80", "redux.sync.add.u32 %r1, %r2, 0xffffffff;"),
        bad("redux.sync on sm_70", "redux.sync.add.u32 %r1, %r2, 0xffffffff;").sm(70),
        bad("redux.sync in PTX 6.4", "redux.sync.add.u32 %r1, %r2, 0xffffffff;")
            .sm(70)
            .version("6.4"),
        bad("fma.rn.bf16 on sm_70", "fma.rn.bf16 %h1, %h2, %h3, %h0;").sm(70),
        bad("elect.sync on sm_80", "elect.sync %r1|%p1, 0xffffffff;"),
        ok("match.any on sm_70", "match.any.sync.b32 %r1, %r2, 0xffffffff;").sm(70),
        ok("activemask", "activemask.b32 %r1;"),
        ok("nanosleep on sm_70", "nanosleep.u32 100;").sm(70),
        ok("shfl.sync", "shfl.sync.bfly.b32 %r1, %r2, 1, 31, 0xffffffff;"),
        ok(
            "shfl.sync with p",
            "shfl.sync.bfly.b32 %r1|%p1, %r2, 1, 31, 0xffffffff;",
        ),
        ok("vote.sync.ballot", "vote.sync.ballot.b32 %r1, %p1, 0xffffffff;"),
        // ---- barriers, special registers, misc
        ok("bar.sync", "bar.sync 0;"),
        ok("bar.sync with a count", "bar.sync 1, 64;"),
        ok("barrier.sync.aligned", "barrier.sync.aligned 0;"),
        ok("bar.red.popc", "bar.red.popc.u32 %r1, 0, !%p1;"),
        ok("membar and fence", "membar.gl;\nfence.acq_rel.gpu;"),
        ok("tid.x", "mov.u32 %r1, %tid.x;"),
        ok("laneid", "mov.u32 %r1, %laneid;"),
        ok("clock64", "mov.u64 %rd1, %clock64;"),
        ok("cvt of tid.x", "cvt.u64.u32 %rd1, %tid.x;"),
        ok("trap and exit", "@%p1 trap;\n@%p2 exit;"),
        ok("guarded ret", "@%p1 ret;"),
        // ---- more Table 23 agreement and §9.7 modifiers
        ok("mov.b64 unpack of an f64 register", "mov.b64 {%r1, %r2}, %fd1;"),
        ok("mov.b64 pack of f32 registers", "mov.b64 %fd1, {%f1, %f2};"),
        ok("f16x2 registers", ".reg .f16x2 %x<3>;\nadd.f16x2 %x0, %x1, %x2;"),
        bad(
            "f16x2 add on an f32 register",
            ".reg .f16x2 %x<3>;\nadd.f16x2 %x0, %r1, %f2;",
        ),
        ok("mul.wide.u16", "mul.wide.u16 %r1, %rs1, %rs2;"),
        ok("neg.s16 and not.b16", "neg.s16 %ss1, %ss2;\nnot.b16 %h1, %h2;"),
        ok("cnot and brev", "cnot.b32 %r1, %r2;\nbrev.b64 %rd1, %rd2;"),
        ok(
            "mul24 and sad",
            "mul24.lo.s32 %r1, %r2, %r3;\nsad.u32 %r1, %r2, %r3, %r4;",
        ),
        ok("dp4a", "dp4a.u32.u32 %r1, %r2, %r3, %r4;"),
        ok("bfind and fns", "bfind.u32 %r1, %r2;\nfns.b32 %r1, %r2, %r3, %r4;"),
        ok(
            "bmsk and szext",
            "bmsk.clamp.b32 %r1, %r2, %r3;\nszext.wrap.s32 %r1, %r2, %r3;",
        ),
        ok("shf.l.wrap", "shf.l.wrap.b32 %r1, %r2, %r3, %r4;"),
        ok("min.NaN.f32", "min.NaN.f32 %f1, %f2, %f3;"),
        bad("min.NaN.f32 on sm_75", "min.NaN.f32 %f1, %f2, %f3;").sm(75),
        bad("fma.f32 without rounding", "fma.f32 %f1, %f2, %f3, %f4;"),
        bad("mad.f32 without rounding (sm_20+)", "mad.f32 %f1, %f2, %f3, %f4;"),
        ok("mad.rn.f32", "mad.rn.f32 %f1, %f2, %f3, %f4;"),
        bad("rcp.f32 without a modifier", "rcp.f32 %f1, %f2;"),
        ok("rcp.rn.f32", "rcp.rn.f32 %f1, %f2;"),
        bad("sin.f32 without .approx", "sin.f32 %f1, %f2;"),
        ok("sin.approx.f32", "sin.approx.f32 %f1, %f2;"),
        ok("tanh.approx.f32 on sm_80", "tanh.approx.f32 %f1, %f2;"),
        bad("tanh.approx.f32 on sm_70", "tanh.approx.f32 %f1, %f2;").sm(70),
        ok("setp.lo.u32", "setp.lo.u32 %p1, %r1, %r2;"),
        bad("setp.lo.s32", "setp.lo.s32 %p1, %r1, %r2;"),
        ok("set.lt.u32.s32", "set.lt.u32.s32 %r1, %r2, %r3;"),
        ok("slct.s32.f32", "slct.s32.f32 %r1, %r2, %r3, %f1;"),
        ok("vadd", "vadd.u32.u32.u32 %r1, %r2, %r3;"),
        ok("abs.bf16", "abs.bf16 %h1, %h2;"),
        bad("ex2.approx.ftz.bf16 on sm_80", "ex2.approx.ftz.bf16 %h1, %h2;"),
        ok("cvt.rn.bf16.f32", "cvt.rn.bf16.f32 %h1, %f1;"),
        bad("cvt.rn.bf16.f32 on sm_70", "cvt.rn.bf16.f32 %h1, %f1;").sm(70),
        ok("cvt.rni.f32.f32", "cvt.rni.f32.f32 %f1, %f2;"),
        ok("cvt.f32.f32", "cvt.f32.f32 %f1, %f2;"),
        bad("cvt.rn.f32.f32", "cvt.rn.f32.f32 %f1, %f2;"),
        ok("cvt.sat.u8.s32", "cvt.sat.u8.s32 %r1, %r2;"),
        ok("cvt.rn.f16x2.f32", "cvt.rn.f16x2.f32 %r1, %f1, %f2;"),
        ok("cvt.rn.f32.u32 from a 64-bit register", "cvt.rn.f32.u32 %f1, %rd1;"),
        ok("ld.f32 into a b64 register", "ld.global.f32 %rd1, [%rd1];"),
        bad(
            "ld.v2 with mixed element widths",
            "ld.global.v2.u32 {%r1, %rd1}, [%rd1];",
        ),
        bad(
            "ld.v2.u16 with mixed element widths",
            "ld.global.v2.u16 {%rs1, %r1}, [%rd1];",
        ),
        ok("ld.v2 with a sink", "ld.global.v2.u32 {%r1, _}, [%rd1];"),
        bad("st of a predicate", "st.global.u32 [%rd1], %p1;"),
        // ---- immediates (more)
        ok("mov.u32 of a too-wide constant", "mov.u32 %r1, 0x1ffffffff;"),
        ok("lop3 LUT 256", "lop3.b32 %r1, %r2, %r3, %r4, 256;"),
        ok("mov.b16 immediate", "mov.b16 %h1, 0x3c00;"),
        bad("int immediate in setp.f32", "setp.lt.f32 %p1, %f1, 0;"),
        bad("int immediate in mov.f32", "mov.f32 %f1, 0;"),
        bad("int immediate in max.f32", "max.f32 %f1, %f2, 1;"),
        bad("0f literal into mov.u32", "mov.u32 %r1, 0f3f800000;"),
        ok("0f literal into mov.f64", "mov.f64 %fd1, 0f3f800000;"),
        ok("0d literal into mov.f32", "mov.f32 %f1, 0d3ff0000000000000;"),
        // ptxas 12.9 refuses every f64 constant as the source of `cvt.rna{.satfinite}.tf32.f32`
        // ("Arguments mismatch for instruction 'mov'"), although L645 converts f64 constants to
        // the operand's size, and takes `0f` bits; the .rn/.rz forms (sm_90) take both. The
        // checker follows (catalog `+f32lit`, INTERPRETATIONS.md).
        bad("0d literal in cvt.rna.tf32.f32", "cvt.rna.tf32.f32 %r1, 0d3ff8000000000000;"),
        bad("decimal float in cvt.rna.tf32.f32", "cvt.rna.tf32.f32 %r1, 1.5;"),
        bad("decimal zero in cvt.rna.satfinite.tf32.f32", "cvt.rna.satfinite.tf32.f32 %r1, 0e0;"),
        bad("negated 0d literal in cvt.rna.tf32.f32", "cvt.rna.tf32.f32 %r1, -0d3ff8000000000000;"),
        ok("0f literal in cvt.rna.tf32.f32", "cvt.rna.tf32.f32 %r1, 0f3fc00000;"),
        ok("0d literal in cvt.rn.tf32.f32", "cvt.rn.tf32.f32 %r1, 0d3ff8000000000000;").sm(90),
        ok("decimal float in cvt.rz.relu.tf32.f32", "cvt.rz.relu.tf32.f32 %r1, 1.5;").sm(90),
        bad("predicate operand in add", "add.s32 %r1, %r2, %p1;"),
        bad("b32 register into mov.pred", "mov.pred %p1, %r1;"),
        bad("setp with one comparand", "setp.lt.s32 %p1, %r1;"),
        bad("mov with three operands", "mov.u32 %r1, %r2, %r3;"),
        bad("! on an int operand", "add.s32 %r1, !%r2, %r3;"),
        ok("$-label", "$L__BB0_1:\n@%p1 bra $L__BB0_1;"),
        ok(
            "pragma and comments",
            ".pragma \"nounroll\";\n// a comment\nadd.s32 %r1, %r2, %r3; /* another */",
        ),
        // ---- control (more)
        bad("bra with two labels", "bra.uni L_end, L_end;"),
        ok("guarded bra.uni", "@%p1 bra.uni L_end;"),
        ok("ret.uni", "ret.uni;"),
        bad(
            "label defined twice in the snippet",
            "L_x:\nadd.s32 %r1, %r2, %r3;\nL_x:\nadd.s32 %r1, %r2, %r3;",
        ),
        bad("mov of a label", "mov.u32 %r1, L_end;"),
        // Labels are scoped by `{ }` blocks like variables (L16647), as ptxas 12.9 reads them:
        // Triton 3.9's inline-asm wait loops each declare `waitLoop:` in their own block.
        ok(
            "the same label in two sibling blocks",
            "{\nL_w:\nadd.s32 %r1, %r1, 1;\n@%p1 bra L_w;\n}\n{\nL_w:\nadd.s32 %r1, %r1, 2;\n@%p1 bra L_w;\n}",
        ),
        ok(
            "a block's label shadows the body's",
            "L_s:\nadd.s32 %r1, %r1, 1;\n{\nL_s:\nadd.s32 %r1, %r1, 2;\n@%p1 bra L_s;\n}\n@%p1 bra L_s;",
        ),
        ok("bra from a block to a later label around it", "{\n@%p1 bra L_end;\n}"),
        bad("bra into a block from outside it", "@%p1 bra L_in;\n{\nL_in:\nadd.s32 %r1, %r1, 1;\n}"),
        bad(
            "bra to a label of a sibling block",
            "{\nL_in:\nadd.s32 %r1, %r1, 1;\n}\n{\n@%p1 bra L_in;\n}",
        ),
        bad(
            "label defined twice in one block",
            "{\nL_d:\nadd.s32 %r1, %r1, 1;\nL_d:\nadd.s32 %r1, %r1, 2;\n}",
        ),
        // ---- special registers (more)
        ok("dynamic_smem_size", "mov.u32 %r1, %dynamic_smem_size;"),
        ok("envreg", "mov.u32 %r1, %envreg3;"),
        bad("unknown special register", "mov.u32 %r1, %nosuchreg;"),
        bad("whole %tid vector into a scalar", "mov.u32 %r1, %tid;"),
        bad("mov.u32 of clock64", "mov.u32 %r1, %clock64;"),
        ok("cvt.u32.u64 of clock64", "cvt.u32.u64 %r1, %clock64;"),
        ok("cvt.u64.u32 of laneid", "cvt.u64.u32 %rd1, %laneid;"),
        // ---- memory (more)
        ok("ld.param of half a u64 parameter", "ld.param.u32 %r1, [kp];"),
        ok("ld.param past the parameter", "ld.param.u64 %rd1, [kp+8];"),
        ok("ld.global far past a variable", "ld.global.u32 %r1, [gbuf+1000000];"),
        bad("ld with two address registers", "ld.global.u32 %r1, [%rd1+%rd2];"),
        ok("mov.u64 of a local variable", "mov.u64 %rd1, lbuf;"),
        ok("cvta.local of a variable", "cvta.local.u64 %rd1, lbuf;"),
        ok("cvta.const of a variable", "cvta.const.u64 %rd1, cbuf;"),
        ok("isspacep.shared", "isspacep.shared %p1, %rd1;"),
        ok("prefetch", "prefetch.global.L2 [%rd1];"),
        ok(
            "atom.shared on a shared variable",
            "atom.shared.add.u32 %r1, [sbuf], 1;",
        ),
        ok(
            "atom.global on a global variable",
            "atom.global.add.u32 %r1, [gbuf], 1;",
        ),
        bad(
            "atom.shared on a global variable",
            "atom.shared.add.u32 %r1, [gbuf], 1;",
        ),
        ok("atom.exch.b64", "atom.global.exch.b64 %rd1, [%rd2], %rd3;"),
        bad("atom.add.s64", "atom.global.add.s64 %rd1, [%rd2], %rd3;"),
        ok("red.add.f64", "red.global.add.f64 [%rd1], %fd1;"),
        bad("atom.max.f32 on sm_80", "atom.global.max.f32 %f1, [%rd1], %f2;"),
        ok("call with register arguments", "call (%r3), fadd, (%r1, %r2);"),
        // ---- target and version (more)
        ok("shfl without .sync, PTX 6.3 on sm_70", "shfl.bfly.b32 %r1, %r2, 1, 31;")
            .sm(70)
            .version("6.3"),
        ok("shfl without .sync on sm_60", "shfl.bfly.b32 %r1, %r2, 1, 31;")
            .sm(60)
            .version("6.4"),
        bad("shfl without .sync, PTX 6.4 on sm_70", "shfl.bfly.b32 %r1, %r2, 1, 31;")
            .sm(70)
            .version("6.4"),
        ok("vote without .sync, PTX 6.3 on sm_70", "vote.ballot.b32 %r1, %p1;")
            .sm(70)
            .version("6.3"),
        bad("ld.shared::cta in PTX 7.0", "ld.shared::cta.u32 %r1, [sbuf];").version("7.0"),
        bad("match.any on sm_60", "match.any.sync.b32 %r1, %r2, 0xffffffff;").sm(60),
        bad("nanosleep on sm_60", "nanosleep.u32 100;").sm(60),
        ok("activemask on sm_60", "activemask.b32 %r1;").sm(60),
        bad("activemask in PTX 5.0", "activemask.b32 %r1;")
            .sm(60)
            .version("5.0"),
        bad("brx.idx in PTX 5.0", "ts: .branchtargets L_a;\nbrx.idx %r1, ts;\nL_a:")
            .sm(60)
            .version("5.0"),
        ok("brx.idx in PTX 6.0", "ts: .branchtargets L_a;\nbrx.idx %r1, ts;\nL_a:")
            .sm(60)
            .version("6.0"),
        bad("dp4a on sm_60", "dp4a.u32.u32 %r1, %r2, %r3, %r4;").sm(60),
        bad("bmsk on sm_60", "bmsk.clamp.b32 %r1, %r2, %r3;").sm(60),
        ok("elect.sync on sm_90", "elect.sync %r1|%p1, 0xffffffff;").sm(90),
        // ---- module scope (the case's own lines are module lines here)
        bad("variable declared twice", "").module(".global .b32 gbuf;"),
        bad("function defined twice", "").module(".func fvoid()\n{\nret;\n}"),
        ok("extern function declaration", "").module(".extern .func (.param .b32 r) ext(.param .b32 a);"),
        ok("f32 global with an initializer", "").module(".global .f32 gf = 1.5;"),
        bad("too many initializers", "").module(".global .u32 gi[2] = {1, 2, 3};"),
        bad("initialized shared variable", "").module(".shared .b32 sinit = 1;"),
        bad("alignment not a power of two", "").module(".global .align 3 .b32 gbad;"),
        bad("module-scope register", "").module(".reg .b32 %glob;"),
        ok("global initialized with an address", "").module(".global .u64 gp = gbuf;"),
        bad("global initialized with a register", "").module(".global .u32 gi2 = %r1;"),
        ok(
            "call of a b64-returning function",
            "{\n.param .b64 r0;\ncall (r0), f64ret;\n}",
        )
        .module(".func (.param .b64 r) f64ret()\n{\nst.param.b64 [r], 1;\nret;\n}"),
        bad(
            "b32 return variable for a b64 return",
            "{\n.param .b32 r0;\ncall (r0), f64ret;\n}",
        )
        .module(".func (.param .b64 r) f64ret()\n{\nst.param.b64 [r], 1;\nret;\n}"),
        bad(
            "b16 argument for a b32 parameter",
            "{\n.param .b16 a0;\n.param .b32 a1;\n.param .b32 r0;\ncall (r0), fadd, (a0, a1);\n}",
        ),
        bad(
            "indirect call with too few arguments",
            "{\n.reg .b64 %fp;\nmov.u64 %fp, fadd;\n.param .b32 a0;\n.param .b32 r0;\n\
             proto: .callprototype (.param .b32 _) _ (.param .b32 _, .param .b32 _);\n\
             call (r0), %fp, (a0), proto;\n}",
        ),
        bad(
            "indirect call without a prototype",
            "{\n.reg .b64 %fp;\nmov.u64 %fp, fadd;\n.param .b32 a0;\n.param .b32 r0;\ncall (r0), %fp, (a0, a0);\n}",
        ),
        ok("call with an immediate argument", "call (%r1), fadd, (%r1, 5);"),
        bad(
            "b64 argument for a b32 parameter",
            "{\n.param .b64 a0;\n.param .b32 a1;\n.param .b32 r0;\ncall (r0), fadd, (a0, a1);\n}",
        ),
        bad(
            "64-bit register argument for a b32 parameter",
            "call (%r1), fadd, (%r1, %rd1);",
        ),
        bad(
            "64-bit register receiving a b32 return",
            "call (%rd1), fadd, (%r1, %r2);",
        ),
        ok("generic ld naming a shared variable", "ld.u32 %r1, [sbuf];"),
        bad("ld.global naming a local variable", "ld.global.u32 %r1, [lbuf];"),
        ok("generic ld naming a local variable", "ld.u32 %r1, [lbuf];"),
        ok("generic st naming a local variable", "st.u32 [lbuf+4], %r1;"),
        // ---- once known disagreements, now fixed
        ok("add.cc and addc", "add.cc.u32 %r1, %r2, %r3;\naddc.u32 %r4, %r5, %r6;"),
        ok("constant expression", "add.s32 %r1, %r2, (1+2)*3;"),
        ok("0f literal into mov.b32", "mov.b32 %r1, 0f3f800000;"),
        ok("0d literal into mov.b64", "mov.b64 %rd1, 0d3ff0000000000000;"),
        ok("0f literal in and.b32", "and.b32 %r1, %r1, 0f3f800000;"),
        ok("0f literal stored by st.b32", "st.global.b32 [%rd1], 0f3f800000;"),
        ok(
            "mov.b32 of an 0f literal into an f32 register",
            "mov.b32 %f1, 0f3f800000;",
        ),
        bad("add.f16x2 on f32 registers", "add.f16x2 %f1, %f2, %f3;"),
        ok("!p on selp", "selp.b32 %r1, %r2, %r3, !%p1;"),
        ok("!p on and.pred", "and.pred %p1, !%p2, %p3;"),
        ok("!p on not.pred", "not.pred %p1, !%p2;"),
        ok("!p on mov.pred", "mov.pred %p1, !%p2;"),
        ok("tid.w", "mov.u32 %r1, %tid.w;"),
        ok("ntid.w", "mov.u32 %r1, %ntid.w;"),
        ok("ctaid.w", "mov.u32 %r1, %ctaid.w;"),
        ok("mov.u16 of tid.x", "mov.u16 %rs1, %tid.x;"),
        ok("cvt.u32.u16 of tid.x", "cvt.u32.u16 %r1, %tid.x;"),
        ok(".b8 register", ".reg .b8 %b;"),
        ok(
            ".u8 register with ld, cvt and st",
            ".reg .u8 %b;\nld.global.u8 %b, [%rd1];\ncvt.u32.u8 %r1, %b;\nst.global.u8 [%rd1], %b;",
        ),
        bad(".u8 register in add.u16", ".reg .u8 %b;\nadd.u16 %rs1, %b, %b;"),
        bad("shfl without .sync on sm_80", "shfl.bfly.b32 %r1, %r2, 1, 31;"),
        bad("vote without .sync on sm_80", "vote.ballot.b32 %r1, %p1;"),
        bad("vote without .sync, PTX 6.4 on sm_70", "vote.any.pred %p1, %p2;")
            .sm(70)
            .version("6.4"),
        bad("ld address in an f32 register", "ld.global.u32 %r1, [%f1];"),
        bad("special register in add", "add.s32 %r1, %tid.x, 1;"),
        bad("special register in setp", "setp.eq.u32 %p1, %tid.x, 0;"),
        bad("special register stored", "st.global.u32 [%rd1], %tid.x;"),
        bad("special register as a barrier id", "bar.sync %tid.x;"),
        bad(
            "special register in shfl",
            "shfl.sync.idx.b32 %r1, %laneid, 0, 31, 0xffffffff;",
        ),
        bad("mov.u32 from an f32 register (message)", "mov.u32 %u2, %f1;"),
        bad("mov.u64 of tid.x (message)", "mov.u64 %rd1, %tid.x;"),
        ok("generic ld naming a global variable", "ld.u32 %r1, [gbuf];"),
        bad("variable as an add operand", "add.u64 %rd1, gbuf, 4;"),
        ok("a variable's address plus a constant as a value", "add.u64 %rd1, %rd2, gbuf+4;"),
        ok("isspacep of a variable's address plus a constant", "isspacep.global %p1, gbuf+8;"),
        ok("cvta.to of a global address plus a constant", "cvta.to.shared.u64 %rd1, gbuf+8;"),
        bad("cvta.to of a variable", "cvta.to.global.u64 %rd1, gbuf;"),
        bad("variable as an add.s32 operand", "add.s32 %r1, %r2, gbuf;"),
        bad("st.param to a kernel parameter", "st.param.u64 [kp], %rd1;"),
        bad("bar.sync 16", "bar.sync 16;"),
        // ptxas 12.9's narrower readings, followed (INTERPRETATIONS.md): immediate addresses
        // for `.local` only (the manual lists `[immAddr]` everywhere, L3100); no 32-bit
        // addresses of global or generic memory in a 64-bit module (L3114 zero-extends them).
        bad("ld.global at an immediate address", "ld.global.u32 %r1, [0x100];"),
        ok("ld.local at an immediate address", "ld.local.u32 %r1, [0x10];"),
        bad("ld through a 32-bit address register", "ld.global.u32 %r1, [%r2];"),
        ok("ld.shared through a 32-bit address register", "ld.shared.u32 %r1, [%r2];"),
        bad("mov.u32 of a variable's address", "mov.u32 %r1, gbuf;"),
        ok("mov.u32 of a shared variable's address", "mov.u32 %r1, sbuf;"),
        bad("cvta.global.u32", "cvta.global.u32 %r1, %r2;"),
        bad("cvta of a variable of another space", "cvta.shared.u64 %rd1, gbuf;"),
        bad("a result discarded with `_`", "add.s32 _, %r1, %r2;"),
        ok("a predicate discarded in `d|_`", "shfl.sync.idx.b32 %r1|_, %r2, 0, 31, -1;"),
        ok("a predicate discarded in `_|p`", "setp.eq.s32 _|%p1, %r1, %r2;"),
        ok("a modifier written twice", "add.sat.sat.s32 %r1, %r2, %r3;"),
        bad("a rounding modifier written twice", "cvt.rn.rn.f32.s32 %f1, %r1;"),
        bad("a cache policy without .L2::cache_hint", "ld.global.nc.u32 %r1, [%rd1], %rd2;"),
        ok("a cache policy with .L2::cache_hint", "ld.global.L2::cache_hint.u32 %r1, [%rd1], %rd2;"),
        bad("trap with an operand", "trap %r1;"),
        // `atom` (corpus/findings/ptxas-12.9-atom-disagreements.txt): a discarded result is
        // taken; `.L2::cache_hint` is refused on shared addresses and on `cas`.
        ok("atom with its result discarded", "atom.global.add.u32 _, [%rd1], %r1;"),
        ok("atom.cas with its result discarded", "atom.shared.cas.b32 _, [%rd1], %r1, %r2;"),
        ok("atom.exch.b128 with its result discarded", ".reg .b128 %q;\natom.global.exch.b128 _, [%rd1], %q;").sm(90).version("8.3"),
        ok("atom.global with .L2::cache_hint", "atom.global.L2::cache_hint.add.u32 %r1, [%rd1], %r2, %rd2;"),
        bad("atom.shared with .L2::cache_hint", "atom.shared.L2::cache_hint.add.u32 %r1, [%rd1], %r2, %rd2;"),
        bad("red.shared::cta with .L2::cache_hint", "red.shared::cta.L2::cache_hint.add.u32 [%rd1], %r2, %rd2;"),
        bad(
            "atom.cas.b128 with .L2::cache_hint",
            ".reg .b128 %q<3>;\natom.global.L2::cache_hint.cas.b128 %q0, [%rd1], %q1, %q2, %rd2;",
        )
        .sm(90),
        ok("ld through a 16-bit address register", "ld.global.u32 %r1, [%rs1];"),
        // ---- declarations the oracle does not run
        ok(".b128 register", ".reg .b128 %q;"),
        ok(
            ".b128 load, unpack and store",
            ".reg .b128 %q;\nld.global.b128 %q, [%rd1];\nmov.b128 {%rd1, %rd2}, %q;\nst.global.b128 [%rd1], %q;",
        ),
        bad(
            ".b128 register in add.s32",
            ".reg .b128 %q;\nmov.b128 %q, {%rd1, %rd2};\nadd.s32 %r1, %q, %r2;",
        ),
        bad(".b128 load in PTX 8.2", ".reg .b128 %q;\nld.global.b128 %q, [%rd1];").version("8.2"),
        ok("vector register", ".reg .v2 .b32 %v;"),
        // ---- what real compilers write (issue 13): NVRTC 12.9, Triton, CUDA headers' inline asm
        ok("one-element vector ld", "ld.global.b32 { %r1 }, [%rd1];"),
        ok("one-element vector st", "st.global.b32 [%rd1], { %r1 };"),
        ok("one-element vector mov", "mov.b32 {%r1}, %r2;"),
        bad("one-element vector in add", "add.s32 {%r1}, %r2, %r3;"),
        bad("two registers without .v2", "ld.global.b32 {%r1, %r2}, [%rd1];"),
        ok("several predicates in one .reg", ".reg .pred p, q, r;\nsetp.eq.s32 p|q, %r1, 0;\n@r bra L_end;"),
        ok("two .f16 names in one .reg", ".reg .f16 low, high;\nmov.b32 {low, high}, %r1;"),
        ok("div.ftz.rn.f32 (modifier order)", "div.ftz.rn.f32 %f1, %f2, %f3;"),
        ok("atom.global.gpu.acq_rel.add.u32", "atom.global.gpu.acq_rel.add.u32 %r1, [%rd1], 1;"),
        ok("add.s32.sat (modifier order)", "add.s32.sat %r1, %r2, %r3;"),
        ok("min.s16x2.relu on sm_90", "min.s16x2.relu %r1, %r2, %r3;").sm(90),
        ok("cvt.f32.s32.rn (rounding last)", "cvt.f32.s32.rn %f1, %r1;"),
        ok("ld.relaxed.gpu.global.u32 (scope first)", "ld.gpu.relaxed.global.u32 %r1, [%rd1];"),
        bad("mul.s32.lo (.lo after the type)", "mul.s32.lo %r1, %r2, %r3;"),
        bad("div.ftz.full.f32 (.full not first)", "div.ftz.full.f32 %f1, %f2, %f3;"),
        bad("shf.wrap.l.b32 (.l not first)", "shf.wrap.l.b32 %r1, %r2, %r3, %r4;"),
        bad("cvta.global.to.u64 (.to not first)", "cvta.global.to.u64 %rd1, %rd2;"),
        bad("cvt.s32.f32 types swapped", "cvt.rzi.f32.s32 %r1, %f1;"),
        ok(
            "vector register elements and whole",
            ".reg .v4 .b32 %v;\nld.global.v4.b32 %v, [%rd1];\nadd.s32 %r1, %v.x, %v.w;\nmov.b32 %v.g, 7;\nst.global.v4.b32 [%rd1], %v;",
        ),
        bad("vector register as .v2 data of a .v4", ".reg .v4 .b32 %v;\nld.global.v2.b32 %v, [%rd1];"),
        bad("array of registers", ".reg .b32 %ra[4];"),
        ok("PTX ISA 8.8 module", "add.s32 %r1, %r2, %r3;").version("8.8"),
        ok("fp8 cvt on sm_90 in PTX 7.8", "cvt.rn.satfinite.e4m3x2.f32 %h1, %f1, %f2;")
            .sm(90)
            .version("7.8"),
        bad("fp8 cvt on sm_89 in PTX 7.8", "cvt.rn.satfinite.e4m3x2.f32 %h1, %f1, %f2;")
            .sm(89)
            .version("7.8"),
        ok("fp8 cvt on sm_89 in PTX 8.1", "cvt.rn.satfinite.e4m3x2.f32 %h1, %f1, %f2;")
            .sm(89)
            .version("8.1"),
        ok(".reg parameters and return", "call (%r1), freg, (%r2, 5);").module(
            ".func (.reg .b32 rv) freg(.reg .b32 a, .reg .b32 b)\n{\n\tadd.s32 rv, a, b;\n\tret;\n}",
        ),
        ok("cluster special register", "mov.u32 %r1, %cluster_ctarank;").sm(90),
        ok("cluster id special register", "mov.u32 %r1, %clusterid.x;").sm(90),
        bad("cluster special register on sm_80", "mov.u32 %r1, %cluster_ctarank;"),
        unsup("performance counter", "mov.u32 %r1, %pm0;"),
        unsup("multimem reduction", "multimem.ld_reduce.relaxed.sys.global.add.u32 %r1, [%rd1];").sm(90),
        ok("mov of a variable plus an offset", "mov.u64 %rd1, gbuf+8;"),
        ok("cvta of a variable plus an offset", "cvta.global.u64 %rd1, gbuf+4;"),
        ok(".const variable's address in an initializer", "ld.global.u64 %rd1, [cptr];")
            .module(".global .u64 cptr = cbuf;"),
        ok("generic address plus an offset in an initializer", "ld.global.u64 %rd1, [gptr];")
            .module(".global .u64 gptr[2] = {generic(gbuf), generic(gbuf)+4};"),
        ok("cp.async", "cp.async.ca.shared.global [%rd1], [%rd2], 4;"),
        ok("cp.async with src-size", "cp.async.ca.shared.global [%rd1], [%rd2], 8, %r1;"),
        ok("cp.async with ignore-src", "cp.async.cg.shared.global [%rd1], [%rd2], 16, !%p1;"),
        bad("cp.async.cg of 8 bytes", "cp.async.cg.shared.global [%rd1], [%rd2], 8;"),
        bad("cp.async src-size past cp-size", "cp.async.ca.shared.global [%rd1], [%rd2], 8, 9;"),
        ok("cp.async.wait_group", "cp.async.wait_group 2;"),
        ok("discard", "discard.global.L2 [%rd1], 128;"),
        bad("discard of 64 bytes", "discard.global.L2 [%rd1], 64;"),
        bad("applypriority of 256 bytes", "applypriority.global.L2::evict_normal [%rd1], 256;"),
        bad("createpolicy fraction past 1", "createpolicy.fractional.L2::evict_last.b64 %rd1, 1.5;"),
        bad(
            "createpolicy primary-size past total-size",
            "createpolicy.range.L2::evict_last.b64 %rd1, [%rd2], 0x200000, 0x100000;",
        ),
        ok("createpolicy.fractional without a fraction", "createpolicy.fractional.L2::evict_last.b64 %rd1;"),
        ok("ldmatrix", "ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r1}, [%rd1];"),
        bad("ldmatrix with a fragment of the wrong length", "ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%r1}, [%rd1];"),
        ok("movmatrix", "movmatrix.sync.aligned.m8n8.trans.b16 %r1, %r2;"),
        ok(
            "mma.sync",
            "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f0, %f1, %f2, %f3}, {%r0, %r1, %r2, %r3}, \
             {%r4, %r5}, {%f4, %f5, %f6, %f7};",
        ),
        ok("cp.async.wait_all", "cp.async.wait_all;"),
        ok("cp.async.commit_group", "cp.async.commit_group;"),
        ok("atom.add.noftz.f16", "atom.global.add.noftz.f16 %hf1, [%rd1], %hf2;"),
        ok("mbarrier.init", "mbarrier.init.shared.b64 [sbuf], 32;"),
        ok("stacksave", "stacksave.u64 %rd1;"),
        ok("alloca", "alloca.u64 %rd1, %rd2, 16;"),
        bad("alloca aligned to 12", "alloca.u64 %rd1, %rd2, 12;"),
        ok("brkpt", "brkpt;"),
        ok("griddepcontrol.wait on sm_90", "griddepcontrol.wait;").sm(90),
        ok("prefetchu", "prefetchu.L1 [%rd1];"),
        ok(
            "ld.global.nc with a prefetch size",
            "ld.global.nc.L2::128B.u32 %r1, [%rd1];",
        ),
        ok("globaltimer_lo", "mov.u32 %r1, %globaltimer_lo;"),
        ok("pmevent", "pmevent 1;"),
        bad("fence.proxy.async on sm_80", "fence.proxy.async;"),
        bad("red.add.noftz.bf16 on sm_80", "red.global.add.noftz.bf16 [%rd1], %h1;"),
        bad(
            "vector atom on sm_80",
            "atom.global.v2.f32.add {%f1, %f2}, [%rd1], {%f3, %f4};",
        ),
    ]
}

fn check_oracle(c: &Case, text: &str, lines: &[u32]) -> Result<(), String> {
    let verdict = match oracle_verdict(text) {
        Ok(v) => v,
        Err(p) => return Err(format!("the oracle panicked: {p}")),
    };
    let e = match (c.expect, verdict) {
        (Expect::Valid, Ok(())) => return Ok(()),
        (_, Ok(())) => return Err("the oracle accepts it".into()),
        (Expect::Valid, Err(e)) => return Err(format!("the oracle rejects it: {e}")),
        (_, Err(e)) => e,
    };
    if e.message.trim().is_empty() || e.message.contains("panicked") {
        return Err(format!("bad message: {e}"));
    }
    match e.loc {
        Some((l, _)) if lines.contains(&l) => {}
        _ => return Err(format!("located outside the snippet (lines {lines:?}): {e}")),
    }
    let by_design = BY_DESIGN.iter().any(|m| e.message.contains(m));
    match c.expect {
        Expect::Unsupported if !by_design => Err(format!("rejected, but not as unsupported: {e}")),
        Expect::Invalid if by_design => Err(format!("rejected as unsupported, but it is invalid PTX: {e}")),
        _ => Ok(()),
    }
}

fn report(c: &Case, text: &str, lines: &[u32], why: &str) -> String {
    let snippet: Vec<&str> = text
        .lines()
        .enumerate()
        .filter(|(i, _)| lines.contains(&(*i as u32 + 1)))
        .map(|(_, l)| l)
        .collect();
    format!(
        "--- {} (sm_{}, PTX {}, expected {:?}): {why}\n    {}",
        c.name,
        c.sm,
        c.version,
        c.expect,
        snippet.join("\n    ")
    )
}

#[test]
fn the_table_is_substantial() {
    let cs = cases();
    let count = |e: Expect| cs.iter().filter(|c| c.expect == e).count();
    assert!(cs.len() >= 150, "{} cases", cs.len());
    assert!(count(Expect::Valid) >= 60 && count(Expect::Invalid) >= 60);
    assert!(count(Expect::Unsupported) >= 2);
    eprintln!(
        "{} cases: {} valid, {} invalid, {} valid but not executed by the oracle",
        cs.len(),
        count(Expect::Valid),
        count(Expect::Invalid),
        count(Expect::Unsupported),
    );
    // The template itself is valid: otherwise every `bad` case would agree vacuously.
    assert!(cs[0].body.is_empty() && cs[0].expect == Expect::Valid);
    let mut names = std::collections::HashSet::new();
    for c in &cs {
        assert!(names.insert(c.name), "case `{}` twice", c.name);
    }
}

/// The oracle against the table (no ptxas needed): every case.
#[test]
fn oracle_agrees_with_the_table() {
    let mut failures = Vec::new();
    for c in cases().iter() {
        let (text, lines) = render(c);
        if let Err(why) = check_oracle(c, &text, &lines) {
            failures.push(report(c, &text, &lines, &why));
        }
    }
    assert!(
        failures.is_empty(),
        "{} disagreements:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

// ---- ptxas

#[test]
fn table_and_oracle_agree_with_ptxas() {
    let Some(ptxas) = oracle::ptxas::required("the differential type-check test") else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("ptxconf-typecheck-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cs = cases();
    let files: Vec<(PathBuf, String, Vec<u32>)> = cs
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let (text, lines) = render(c);
            let p = dir.join(format!("case{i:03}.ptx"));
            std::fs::write(&p, &text).unwrap();
            (p, text, lines)
        })
        .collect();
    let mut failures = Vec::new();
    for (c, (path, text, lines)) in cs.iter().zip(&files) {
        let (accepted, stderr) = oracle::ptxas::accepts(&ptxas, path, &c.sm.to_string());
        let want = c.expect != Expect::Invalid;
        if accepted != want {
            failures.push(format!(
                "{}\n    ptxas says: {}",
                report(
                    c,
                    text,
                    lines,
                    &format!("ptxas {}", if accepted { "accepts" } else { "rejects" })
                ),
                stderr.trim().replace('\n', "\n    ")
            ));
            continue;
        }
        if let Err(why) = check_oracle(c, text, lines) {
            failures.push(format!(
                "{}\n    ptxas says: {}",
                report(c, text, lines, &why),
                if stderr.trim().is_empty() {
                    "(nothing)".into()
                } else {
                    stderr.trim().replace('\n', "\n    ")
                }
            ));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        failures.is_empty(),
        "{} disagreements:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
