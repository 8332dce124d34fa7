//! 32-bit modules (§11.1.3, L33312-33347: `.address_size 32`, the default when the directive is
//! left out) under the manual's grammar, and ptxas 12.9's refusal of them under its own
//! (`corpus/findings/ptxas-12.9-32-bit-addresses.txt`). ptxas refuses every 32-bit module, so
//! the expected values come from the manual and from the oracle's documented 32-bit windows
//! (`oracle::mem::Windows::A32`, spec/INTERPRETATIONS.md "32-bit modules"): launch buffers from
//! 0x1000_0000, module `.global` data from 0x0010_0000, functions at 0xa000_0000 + 16·index, the
//! shared window at 0xe000_0000, local 0xd000_0000, constant 0xc000_0000, parameters 0xb000_0000.

use oracle::check::Grammar;
use oracle::error::{Error, ErrorKind};
use oracle::launch::{self, LaunchFile};

/// Runs kernel `k` of `ptx` (grid × block threads, clusters of `cluster`) with a zeroed 256-byte
/// buffer `out` passed as its only parameter, under `grammar`; `out` as u32 words.
fn run_with(ptx: &str, grammar: Grammar, grid: u32, block: u32, cluster: Option<u32>) -> Result<Vec<u32>, Error> {
    let mut j = serde_json::json!({
        "ptx": "k.ptx", "entry": "k", "grid": [grid, 1, 1], "block": [block, 1, 1],
        "buffers": [{"name": "out", "size": 256}],
        "params": [{"buffer": "out"}],
        "limits": {"steps": 1_000_000, "stack": 1024},
    });
    if let Some(c) = cluster {
        j["cluster"] = serde_json::json!([c, 1, 1]);
    }
    let mut l: LaunchFile = serde_json::from_value(j).unwrap();
    l.grammar = grammar;
    let (b, _) = launch::run(&l, ptx)?;
    Ok(b[0]
        .1
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect())
}

fn run32(ptx: &str) -> Vec<u32> {
    run_with(ptx, Grammar::Manual, 1, 1, None).unwrap_or_else(|e| panic!("{e}\n{ptx}"))
}

/// A 32-bit sm_`sm` module: `decls`, then kernel `k(.param .u32 out)` with `out` in %r1 and
/// `body`.
fn module(sm: u32, decls: &str, body: &str) -> String {
    format!(
        ".version 8.7\n.target sm_{sm}\n.address_size 32\n{decls}\n.visible .entry k(.param .u32 out)\n{{\n\
         .reg .pred %p<4>;\n.reg .b32 %r<40>;\n.reg .b64 %rd<8>;\nld.param.u32 %r1, [out];\n{body}\nret;\n}}\n"
    )
}

#[test]
fn ptxas_grammar_refuses_a_32_bit_module_the_manual_runs_it() {
    let ptx = module(80, "", "st.global.u32 [%r1], %r1;");
    let e = run_with(&ptx, Grammar::Ptxas, 1, 1, None).expect_err("ptxas 12.9 refuses 32-bit modules");
    assert_eq!(e.kind, ErrorKind::Type, "{e}");
    assert_eq!(e.loc.map(|l| l.0), Some(3), "{e}");
    assert!(e.message.contains("32-Bit compilation is no longer supported"), "{e}");
    assert!(e.message.contains("ptxas-12.9-32-bit-addresses.txt"), "{e}");
    // The buffer's address, as the kernel received it: the first launch buffer of a 32-bit
    // module is at 0x1000_0000.
    assert_eq!(run32(&ptx)[0], 0x1000_0000);
}

#[test]
fn a_module_without_address_size_is_32_bit_by_the_manual_64_bit_by_ptxas() {
    // L33333: without the directive the address size is 32. ptxas 12.9 takes a module without
    // it as 64-bit while its addresses are 64-bit (the finding), and so does the ptxas grammar.
    let ptx = ".version 8.7\n.target sm_80\n.visible .entry k(.param .u64 out)\n{\n.reg .b64 %rd<4>;\n\
               ld.param.u64 %rd1, [out];\nst.global.u64 [%rd1], %rd1;\nret;\n}\n";
    let by_ptxas = run_with(ptx, Grammar::Ptxas, 1, 1, None).unwrap();
    assert_eq!(
        by_ptxas[0] as u64 | (by_ptxas[1] as u64) << 32,
        oracle::mem::HEAP,
        "64-bit: the first buffer at the 64-bit heap"
    );
    // The manual's 32-bit module: the 8-byte parameter holds the 32-bit address zero-extended
    // (L3114), and the 64-bit register addresses memory truncated to 32 bits.
    let by_manual = run_with(ptx, Grammar::Manual, 1, 1, None).unwrap();
    assert_eq!((by_manual[0], by_manual[1]), (0x1000_0000, 0));
    // A 32-bit address without the directive: the ptxas grammar refuses it (a 64-bit module),
    // the manual's runs it.
    let ptx32 = ".version 8.7\n.target sm_80\n.visible .entry k(.param .u32 out)\n{\n.reg .b32 %r<4>;\n\
                 ld.param.u32 %r1, [out];\nst.global.u32 [%r1], %r1;\nret;\n}\n";
    let e = run_with(ptx32, Grammar::Ptxas, 1, 1, None).expect_err("a 32-bit global address in a 64-bit module");
    assert_eq!(e.kind, ErrorKind::Type, "{e}");
    assert_eq!(run_with(ptx32, Grammar::Manual, 1, 1, None).unwrap()[0], 0x1000_0000);
}

#[test]
fn the_directive_follows_target_once() {
    for (ptx, why) in [
        (
            ".version 8.7\n.target sm_80\n.address_size 64\n.address_size 64\n",
            "L33327",
        ),
        (".version 8.7\n.address_size 64\n.target sm_80\n", "L33329"),
    ] {
        let m = oracle::parse::parse(ptx).unwrap();
        let e = oracle::check::check(&m).expect_err(ptx);
        assert!(e.message.contains(why), "{e}");
    }
}

#[test]
fn global_and_local_addresses_are_32_bit() {
    // `mov.u32 d, gvar` (refused in a 64-bit module) is the variable's address: module data
    // starts at 0x0010_0000; a store through it and through `[%r1+8]`; `cvta.global.u32` is the
    // identity on a global address and `cvta.to.global.u32` too (both windows are global memory).
    let ptx = module(
        80,
        ".global .align 4 .u32 g[4] = {7, 8, 9, 10};",
        "mov.u32 %r2, g;\nst.global.u32 [%r1], %r2;\nld.global.u32 %r3, [%r2+8];\nst.global.u32 [%r1+4], %r3;\n\
         cvta.global.u32 %r4, %r1;\ncvta.to.global.u32 %r5, %r4;\nst.global.u32 [%r1+8], %r4;\nst.u32 [%r5+12], %r5;\n\
         .local .align 4 .u32 l[2];\nst.local.u32 [l+4], 41;\nmov.u32 %r6, l;\ncvta.local.u32 %r7, %r6;\n\
         st.global.u32 [%r1+16], %r7;\nld.u32 %r8, [%r7+4];\nst.global.u32 [%r1+20], %r8;\n\
         cvta.to.local.u32 %r9, %r7;\nst.global.u32 [%r1+24], %r9;",
    );
    let out = run32(&ptx);
    assert_eq!(out[0], 0x0010_0000);
    assert_eq!(out[1], 9);
    assert_eq!(out[2], 0x1000_0000);
    assert_eq!(out[3], 0x1000_0000);
    // The thread's first local variable is at local address 0 (`.local` window 0xd000_0000).
    assert_eq!(out[4], 0xd000_0000 + out[6]);
    assert_eq!(out[5], 41);
}

#[test]
fn shared_const_and_param_windows() {
    let ptx = module(
        80,
        ".shared .align 4 .u32 sh[4];\n.const .align 4 .u32 c[2] = {5, 6};",
        "st.shared.u32 [sh+8], 77;\ncvta.shared.u32 %r2, sh;\nst.global.u32 [%r1], %r2;\nld.u32 %r3, [%r2+8];\n\
         st.global.u32 [%r1+4], %r3;\ncvta.to.shared.u32 %r4, %r2;\nst.global.u32 [%r1+8], %r4;\n\
         cvta.shared::cta.u32 %r5, sh;\ncvta.to.shared::cta.u32 %r6, %r5;\nst.global.u32 [%r1+12], %r6;\n\
         cvta.const.u32 %r7, c;\nst.global.u32 [%r1+16], %r7;\nld.u32 %r8, [%r7+4];\nst.global.u32 [%r1+20], %r8;\n\
         cvta.to.const.u32 %r9, %r7;\nst.global.u32 [%r1+24], %r9;\n\
         mov.u32 %r10, out;\ncvta.param.u32 %r11, %r10;\nst.global.u32 [%r1+28], %r11;\nld.u32 %r12, [%r11];\n\
         st.global.u32 [%r1+32], %r12;\ncvta.to.param.u32 %r13, %r11;\nld.param.u32 %r14, [%r13];\n\
         st.global.u32 [%r1+36], %r14;\n\
         isspacep.shared %p1, %r2;\nselp.u32 %r15, 1, 0, %p1;\nisspacep.global %p2, %r2;\nselp.u32 %r16, 1, 0, %p2;\n\
         isspacep.global %p3, %r1;\nselp.u32 %r17, 1, 0, %p3;\nst.global.v4.u32 [%r1+48], {%r15, %r16, %r17, %r17};",
    );
    let out = run32(&ptx);
    assert_eq!(out[0], 0xe000_0000, "sh is at shared address 0");
    assert_eq!(out[1], 77);
    assert_eq!(out[2], 0);
    assert_eq!(out[3], 0);
    assert_eq!(out[4], 0xc000_0000, "c is at constant address 0");
    assert_eq!(out[5], 6);
    assert_eq!(out[6], 0);
    // The kernel's first parameter: offset 0 of the parameter window.
    assert_eq!(out[7], 0xb000_0000);
    assert_eq!(out[8], 0x1000_0000, "the parameter read through its generic address");
    assert_eq!(out[9], 0x1000_0000, "and through `cvta.to.param`");
    assert_eq!(&out[12..15], &[1, 0, 1]);
}

#[test]
fn a_64_bit_register_is_truncated_and_a_u64_cvta_zero_extends() {
    // L3114: an address register wider than the address size is truncated.
    let ptx = module(
        80,
        "",
        "cvt.u64.u32 %rd1, %r1;\nor.b64 %rd1, %rd1, 0x500000000;\nst.global.u32 [%rd1+4], 3;\n\
         cvta.to.global.u64 %rd2, %rd1;\nst.global.u64 [%r1+8], %rd2;",
    );
    let out = run32(&ptx);
    assert_eq!(out[1], 3);
    assert_eq!((out[2], out[3]), (0x1000_0000, 0));
}

#[test]
fn functions_have_32_bit_addresses() {
    let ptx = ".version 8.7\n.target sm_80\n.address_size 32\n\
               .func (.param .u32 r) f(.param .u32 a)\n{\n.reg .b32 %r<3>;\nld.param.u32 %r1, [a];\nadd.u32 %r2, %r1, 1;\nst.param.u32 [r], %r2;\nret;\n}\n\
               .visible .entry k(.param .u32 out)\n{\n.reg .b32 %r<8>;\nld.param.u32 %r1, [out];\nmov.u32 %r2, f;\n\
               st.global.u32 [%r1], %r2;\nproto: .callprototype (.param .u32 _) _ (.param .u32 _);\n\
               {\n.param .u32 a0;\n.param .u32 r0;\nst.param.u32 [a0], 41;\ncall (r0), %r2, (a0), proto;\nld.param.u32 %r3, [r0];\nst.global.u32 [%r1+4], %r3;\n}\nret;\n}\n";
    let out = run32(ptx);
    assert_eq!(out[0], 0xa000_0000, "function 0");
    assert_eq!(out[1], 42);
}

#[test]
fn generic_mapa_and_getctarank_in_a_cluster() {
    // Two CTAs: each writes its rank into the peer's `sh` through the generic address `mapa.u32`
    // gives, after a cluster barrier reads its own. `cvta.shared::cluster.u32` of `sh`
    // (offset 16) is 0xe000_0010; rank r's copy is at (r + 1)·2^24 + 16 of the window.
    let ptx = module(
        90,
        ".shared .align 16 .u32 pad[4];\n.shared .align 4 .u32 sh;",
        "mov.u32 %r2, %cluster_ctarank;\nxor.b32 %r3, %r2, 1;\ncvta.shared::cluster.u32 %r4, sh;\n\
         mapa.u32 %r5, %r4, %r3;\ngetctarank.u32 %r6, %r5;\nst.u32 [%r5], %r2;\n\
         barrier.cluster.arrive;\nbarrier.cluster.wait;\nld.shared.u32 %r7, [sh];\n\
         cvta.to.shared::cluster.u32 %r8, %r5;\nmul.lo.u32 %r9, %r2, 16;\nadd.u32 %r10, %r1, %r9;\n\
         st.global.v4.u32 [%r10], {%r4, %r5, %r6, %r7};\nst.global.u32 [%r10+32], %r8;\n\
         barrier.cluster.arrive;\nbarrier.cluster.wait;",
    );
    let out = run_with(&ptx, Grammar::Manual, 2, 1, Some(2)).unwrap_or_else(|e| panic!("{e}"));
    for r in 0..2u32 {
        let peer = r ^ 1;
        let w = &out[4 * r as usize..4 * r as usize + 4];
        assert_eq!(w[0], 0xe000_0010, "rank {r}");
        assert_eq!(w[1], 0xe000_0010 + ((peer + 1) << 24), "rank {r}");
        assert_eq!(w[2], peer, "rank {r}");
        assert_eq!(w[3], peer, "rank {r}: the peer's rank, stored by the peer");
        assert_eq!(out[8 + 4 * r as usize], ((peer + 1) << 24) + 16, "rank {r}");
    }
}

#[test]
fn a_32_bit_cvta_in_a_64_bit_module_is_refused_under_either_grammar() {
    let ptx =
        ".version 8.7\n.target sm_80\n.address_size 64\n.shared .u32 sh;\n.visible .entry k(.param .u64 out)\n{\n\
               .reg .b32 %r<4>;\ncvta.shared.u32 %r1, sh;\nret;\n}\n";
    for g in [Grammar::Ptxas, Grammar::Manual] {
        let e = run_with(ptx, g, 1, 1, None).expect_err("cvta.u32 in a 64-bit module");
        assert_eq!(e.kind, ErrorKind::Type, "{e}");
        assert!(e.message.contains("64-bit module"), "{e}");
    }
}
