//! The interpreter on small kernels: SIMT divergence and reconvergence, barriers, collectives,
//! special registers, and every kind of bad kernel ending in a located error, never a panic or a
//! hang.

use oracle::error::ErrorKind;
use oracle::launch::{self, Buffers, LaunchFile};

const HEADER: &str = ".version 8.0\n.target sm_80\n.address_size 64\n";

/// Runs `body` as kernel `k(.param .u64 out)` with `out` a zeroed buffer of `out_bytes`.
fn run(body: &str, grid: u32, block: u32, out_bytes: usize, extra: &str) -> Result<Buffers, oracle::error::Error> {
    let ptx = format!("{HEADER}{extra}\n.visible .entry k(.param .u64 out)\n{{\n{body}\n}}\n");
    let l: LaunchFile = serde_json::from_value(serde_json::json!({
        "ptx": "k.ptx", "entry": "k", "grid": [grid, 1, 1], "block": [block, 1, 1],
        "buffers": [{"name": "out", "size": out_bytes}],
        "params": [{"buffer": "out"}],
        "limits": {"steps": 1_000_000, "stack": 4096},
    }))
    .unwrap();
    launch::run(&l, &ptx).map(|(b, _)| b)
}

fn words(b: &Buffers) -> Vec<u32> {
    b[0].1
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// The line of `needle` in the kernel text `run` builds (for checking error locations).
fn line_of(body: &str, extra: &str, needle: &str) -> u32 {
    let ptx = format!("{HEADER}{extra}\n.visible .entry k(.param .u64 out)\n{{\n{body}\n}}\n");
    ptx.lines().position(|l| l.contains(needle)).unwrap() as u32 + 1
}

const PROLOGUE: &str = "
    .reg .pred %p<4>;
    .reg .b32 %r<16>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
";

#[test]
fn divergent_lanes_take_their_own_paths_and_reconverge() {
    // Odd lanes add 100, even lanes 200; after the join every lane adds its shuffled neighbour's
    // value, which only works if the warp is whole again at the shfl.
    let body = format!(
        "{PROLOGUE}
    and.b32 %r2, %r1, 1;
    setp.eq.u32 %p1, %r2, 1;
    @%p1 bra ODD;
    add.u32 %r3, %r1, 200;
    bra.uni JOIN;
ODD:
    add.u32 %r3, %r1, 100;
JOIN:
    shfl.sync.bfly.b32 %r4, %r3, 1, 0x1f, 0xffffffff;
    add.u32 %r5, %r3, %r4;
    st.global.u32 [%rd3], %r5;
    ret;"
    );
    let out = words(&run(&body, 1, 64, 256, "").unwrap());
    for (t, &v) in out.iter().enumerate() {
        let own = |t: usize| t as u32 + if t % 2 == 1 { 100 } else { 200 };
        assert_eq!(v, own(t) + own(t ^ 1), "thread {t}");
    }
}

/// A generic access naming a `.local` variable (ptxas 12.9 takes it) reads and writes the
/// thread's own copy, the same bytes `ld.local` and a `cvta`'d generic address reach.
#[test]
fn labels_belong_to_their_block() {
    // Triton 3.9's inline-asm wait loops: the same `waitLoop` label in two sibling blocks, each
    // branch going to its own block's (3 and 5 trips); then a block's `L_s` shadowing the body's
    // (the inner loop runs twice per outer trip: 0 -> 100 -> 102 -> 202 -> 204 -> 304).
    let body = format!(
        "{PROLOGUE}
    mov.u32 %r2, 0;
    mov.u32 %r3, 0;
    {{
    .reg .pred done;
    waitLoop:
    add.u32 %r2, %r2, 1;
    setp.ge.u32 done, %r2, 3;
    @!done bra.uni waitLoop;
    }}
    {{
    .reg .pred done;
    waitLoop:
    add.u32 %r3, %r3, 10;
    setp.ge.u32 done, %r3, 50;
    @!done bra.uni waitLoop;
    }}
    mov.u32 %r5, 0;
L_s:
    add.u32 %r5, %r5, 100;
    setp.ge.u32 %p2, %r5, 300;
    @%p2 bra.uni OUT;
    {{
    .reg .pred again;
    mov.u32 %r6, 0;
L_s:
    add.u32 %r6, %r6, 1;
    setp.lt.u32 again, %r6, 2;
    @again bra.uni L_s;
    add.u32 %r5, %r5, %r6;
    }}
    bra.uni L_s;
OUT:
    mad.lo.u32 %r7, %r2, 1000, %r3;
    mad.lo.u32 %r7, %r5, 10000, %r7;
    st.global.u32 [%rd3], %r7;
    ret;"
    );
    let b = run(&body, 1, 32, 32 * 4, "").unwrap();
    assert_eq!(words(&b), vec![304 * 10000 + 3 * 1000 + 50; 32]);
}

#[test]
fn generic_accesses_naming_a_local_variable_reach_the_threads_copy() {
    let body = format!(
        "{PROLOGUE}
    .local .align 4 .b32 lbuf[2];
    add.u32 %r4, %r1, 100;
    st.u32 [lbuf+4], %r4;
    ld.local.u32 %r5, [lbuf+4];
    cvta.local.u64 %rd4, lbuf;
    ld.u32 %r6, [%rd4+4];
    ld.u32 %r7, [lbuf+4];
    add.u32 %r5, %r5, %r6;
    add.u32 %r5, %r5, %r7;
    st.global.u32 [%rd3], %r5;
    ret;"
    );
    let out = words(&run(&body, 1, 64, 256, "").unwrap());
    for (t, &v) in out.iter().enumerate() {
        assert_eq!(v, 3 * (t as u32 + 100), "thread {t}");
    }
}

#[test]
fn a_data_dependent_loop_per_lane() {
    // Each lane loops tid times; lanes leave the loop at different iterations.
    let body = format!(
        "{PROLOGUE}
    mov.u32 %r2, 0;
    mov.u32 %r3, 0;
LOOP:
    setp.ge.u32 %p1, %r2, %r1;
    @%p1 bra DONE;
    add.u32 %r3, %r3, %r2;
    add.u32 %r2, %r2, 1;
    bra LOOP;
DONE:
    st.global.u32 [%rd3], %r3;
    ret;"
    );
    let out = words(&run(&body, 1, 96, 384, "").unwrap());
    for (t, &v) in out.iter().enumerate() {
        assert_eq!(v, (0..t as u32).sum::<u32>(), "thread {t}");
    }
}

#[test]
fn barriers_order_shared_memory_across_warps() {
    // Every thread writes its slot, waits, then reads the slot of the thread mirrored across the
    // block (another warp): without the barrier the first warp would read zeros.
    let extra = ".shared .align 4 .b32 s[128];";
    let body = format!(
        "{PROLOGUE}
    shl.b32 %r2, %r1, 2;
    mov.u32 %r3, s;
    add.u32 %r4, %r3, %r2;
    add.u32 %r5, %r1, 1000;
    st.shared.u32 [%r4], %r5;
    bar.sync 0;
    sub.u32 %r6, 127, %r1;
    shl.b32 %r6, %r6, 2;
    add.u32 %r7, %r3, %r6;
    ld.shared.u32 %r8, [%r7];
    st.global.u32 [%rd3], %r8;
    ret;"
    );
    let out = words(&run(&body, 1, 128, 512, extra).unwrap());
    for (t, &v) in out.iter().enumerate() {
        assert_eq!(v, 1000 + 127 - t as u32, "thread {t}");
    }
}

#[test]
fn bar_red_popc_counts_the_block() {
    let body = format!(
        "{PROLOGUE}
    and.b32 %r2, %r1, 3;
    setp.eq.u32 %p1, %r2, 0;
    bar.red.popc.u32 %r3, 0, %p1;
    bar.red.and.pred %p2, 0, %p1;
    bar.red.or.pred %p3, 0, %p1;
    selp.u32 %r4, 2, 0, %p2;
    selp.u32 %r5, 4, 0, %p3;
    or.b32 %r6, %r4, %r5;
    shl.b32 %r7, %r3, 8;
    or.b32 %r8, %r7, %r6;
    st.global.u32 [%rd3], %r8;
    ret;"
    );
    let out = words(&run(&body, 1, 96, 384, "").unwrap());
    assert!(out.iter().all(|&v| v == (24 << 8) | 4), "{out:?}");
}

#[test]
fn special_registers() {
    let body = format!(
        "{PROLOGUE}
    mov.u32 %r2, %laneid;
    mov.u32 %r3, %warpid;
    mov.u32 %r4, %lanemask_lt;
    mov.u32 %r5, %ctaid.x;
    mov.u32 %r6, %nctaid.x;
    mov.u32 %r7, %ntid.x;
    mov.u32 %r8, %ctaid.x;
    mad.lo.u32 %r9, %r8, %r7, %r1;
    mul.wide.u32 %rd4, %r9, 32;
    add.s64 %rd5, %rd1, %rd4;
    st.global.v4.u32 [%rd5], {{%r2, %r3, %r4, %r5}};
    st.global.v2.u32 [%rd5+16], {{%r6, %r7}};
    ret;"
    );
    let out = words(&run(&body, 2, 64, 2 * 64 * 32, "").unwrap());
    for g in 0..128usize {
        let (c, t) = (g / 64, g % 64);
        let lane = (t % 32) as u32;
        let want = [lane, (t / 32) as u32, (1u32 << lane) - 1, c as u32, 2, 64];
        assert_eq!(&out[g * 8..g * 8 + 6], &want, "thread {g}");
    }
}

#[test]
fn shfl_in_a_branch_waits_for_the_lanes_still_on_their_way() {
    // Lanes 0..15 take a detour first; the shfl (full mask) must see all 32 lanes' values.
    let body = format!(
        "{PROLOGUE}
    mov.u32 %r3, %r1;
    setp.lt.u32 %p1, %r1, 16;
    @!%p1 bra SKIP;
    mul.lo.u32 %r3, %r1, 3;
SKIP:
    shfl.sync.idx.b32 %r4, %r3, 31, 0x1f, 0xffffffff;
    shfl.sync.idx.b32 %r5, %r3, 0, 0x1f, 0xffffffff;
    add.u32 %r6, %r4, %r5;
    st.global.u32 [%rd3], %r6;
    ret;"
    );
    let out = words(&run(&body, 1, 32, 128, "").unwrap());
    assert!(out.iter().all(|&v| v == 31), "{out:?}");
}

fn err(body: &str, block: u32, extra: &str) -> oracle::error::Error {
    run(body, 1, block, 64, extra).expect_err("the kernel must fail")
}

#[test]
fn out_of_bounds_stores_name_the_thread_the_instruction_and_the_address() {
    let body = format!("{PROLOGUE}\n    st.global.u32 [%rd3+64], %r1;\n    ret;");
    let e = err(&body, 32, "");
    assert_eq!(e.kind, ErrorKind::Runtime);
    assert_eq!(e.loc.unwrap().0, line_of(&body, "", "st.global.u32 [%rd3+64]"));
    assert!(
        e.message.contains("thread (0,0,0)") && e.message.contains("runs past the end of `out`"),
        "{e}"
    );
}

#[test]
fn misaligned_and_unmapped_accesses_fail_cleanly() {
    let e = err(
        &format!("{PROLOGUE}\n    st.global.u32 [%rd3+2], %r1;\n    ret;"),
        1,
        "",
    );
    assert!(e.message.contains("not aligned"), "{e}");
    let e = err(
        &format!("{PROLOGUE}\n    mov.u64 %rd4, 4096;\n    ld.u32 %r2, [%rd4];\n    ret;"),
        1,
        "",
    );
    assert!(e.message.contains("no state space"), "{e}");
    let e = err(
        &format!("{PROLOGUE}\n    mov.u32 %r2, 0x7fff0000;\n    ld.shared.u32 %r3, [%r2];\n    ret;"),
        1,
        "",
    );
    assert!(e.message.contains("shared memory"), "{e}");
}

#[test]
fn runaway_kernels_hit_the_step_limit() {
    let e = err("L:\n    bra L;", 32, "");
    assert_eq!(e.kind, ErrorKind::Limit);
    assert!(e.message.contains("step limit"), "{e}");
    assert!(e.loc.is_some());
}

#[test]
fn unbounded_recursion_hits_the_stack_limit() {
    let extra = ".func f(.param .b32 x)\n{\n    .local .b8 pad[256];\n    .reg .b32 %a;\n    ld.param.b32 %a, [x];\n    { .param .b32 y; st.param.b32 [y], %a; call.uni f, (y); }\n    ret;\n}";
    let body = "    { .param .b32 y; st.param.b32 [y], 1; call.uni f, (y); }\n    ret;";
    let e = err(body, 1, extra);
    assert_eq!(e.kind, ErrorKind::Limit);
    assert!(e.message.contains("stack"), "{e}");
}

#[test]
fn deadlocks_and_traps_are_errors() {
    // Half the block waits at a barrier the other half never reaches.
    let body = format!(
        "{PROLOGUE}
    setp.lt.u32 %p1, %r1, 32;
    @%p1 bra WAIT;
LOOP:
    bar.sync 1;
    bra LOOP;
WAIT:
    bar.sync 0;
    ret;"
    );
    let e = err(&body, 64, "");
    assert_eq!(e.kind, ErrorKind::Runtime);
    assert!(e.message.contains("deadlock"), "{e}");
    let e = err("    trap;", 1, "");
    assert!(e.message.contains("trap"), "{e}");
}

#[test]
fn collective_misuse_is_reported() {
    let body = format!("{PROLOGUE}\n    shfl.sync.idx.b32 %r2, %r1, 0, 0x1f, 0x0000ffff;\n    ret;");
    let e = err(&body, 32, "");
    assert!(e.message.contains("membermask") || e.message.contains("not in"), "{e}");
    let body = format!("{PROLOGUE}\n    brx.idx %r1, T;\n    ret;\nA:\n    ret;\nT: .branchtargets A;");
    // Written after its use, the list is still known; thread 1's index 1 is past its end.
    let e = run(&body, 1, 2, 64, "").map(|_| ()).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Runtime, "{e}");
    assert!(
        e.message.contains("index 1 is outside the 1 branch targets") && e.message.contains("thread (1,0,0)"),
        "{e}"
    );
}

/// A video instruction whose operands break a rule the manual states is the program's fault (a
/// runtime error located at the instruction), not a defect of the oracle.
#[test]
fn video_operands_breaking_a_manual_rule_are_runtime_errors() {
    for (inst, needle) in [
        // Negating both the product and c (L31056, L31066-31077).
        ("vmad.s32.s32.s32 %r2, -%r1, %r1, -%r1;", "either the product"),
        // A merge into d.b0 without c (L30859).
        ("vadd.u32.u32.u32 %r2.b0, %r1, %r1;", "merges into c"),
    ] {
        let body = format!("{PROLOGUE}\n    {inst}\n    st.global.u32 [%rd3], %r2;\n    ret;");
        let e = err(&body, 1, "");
        assert_eq!(e.kind, ErrorKind::Runtime, "{inst}: {e}");
        assert!(
            e.message.contains(needle) && !e.message.contains("defect"),
            "{inst}: {e}"
        );
        assert_eq!(e.loc.unwrap().0, line_of(&body, "", inst), "{inst}");
    }
}

#[test]
fn launch_errors_are_reported_as_launch_errors() {
    let ptx = format!("{HEADER}.visible .entry k(.param .u64 out, .param .u32 n)\n{{\n    ret;\n}}\n");
    let bad = |v: serde_json::Value| {
        let l: LaunchFile = serde_json::from_value(v).unwrap();
        launch::run(&l, &ptx).unwrap_err()
    };
    let base = serde_json::json!({"ptx": "k.ptx", "entry": "k", "grid": [1,1,1], "block": [32,1,1],
        "buffers": [{"name": "out", "size": 16}], "params": [{"buffer": "out"}, {"type": "u32", "value": "7"}]});
    let with = |k: &str, v: serde_json::Value| {
        let mut b = base.clone();
        b[k] = v;
        b
    };
    for (v, msg) in [
        (with("entry", "nope".into()), "no kernel"),
        (
            with("params", serde_json::json!([{"buffer": "out"}])),
            "takes 2 parameters",
        ),
        (
            with(
                "params",
                serde_json::json!([{"buffer": "in"}, {"type": "u32", "value": "7"}]),
            ),
            "does not list",
        ),
        (
            with(
                "params",
                serde_json::json!([{"buffer": "out"}, {"type": "u64", "value": "7"}]),
            ),
            "declares",
        ),
        (
            with(
                "params",
                serde_json::json!([{"buffer": "out"}, {"type": "u32", "value": "0x1ffffffff"}]),
            ),
            "fits",
        ),
        (with("block", serde_json::json!([1025, 1, 1])), "exceeds"),
        (with("grid", serde_json::json!([0, 1, 1])), "at least 1"),
        (
            with("buffers", serde_json::json!([{"name": "out", "hex": "abc"}])),
            "even number",
        ),
    ] {
        let e = bad(v);
        assert_eq!(e.kind, ErrorKind::Launch, "{e}");
        assert!(e.message.contains(msg), "{msg}: {e}");
    }
    assert!(launch::parse_launch("{\"ptx\": 1}").is_err());
    assert!(launch::parse_launch(
        "{\"ptx\": \"a\", \"entry\": \"k\", \"grid\": [1,1,1], \"block\": [1,1,1], \"bogus\": 1}"
    )
    .is_err());
}

#[test]
fn the_reply_formats_follow_the_contract() {
    let ok = launch::ok_json(&vec![("a".into(), vec![0, 0xff]), ("b".into(), vec![])]);
    let v: serde_json::Value = serde_json::from_str(&ok).unwrap();
    assert_eq!(v["status"], "ok");
    assert_eq!(v["buffers"][0]["hex"], "00ff");
    assert_eq!(v["buffers"][1]["name"], "b");
    let e = oracle::error::Error::at(ErrorKind::Type, oracle::ast::Loc { line: 3, col: 7 }, "bad");
    let v: serde_json::Value = serde_json::from_str(&launch::error_json(&e, "k.ptx")).unwrap();
    assert_eq!(v["status"], "error");
    assert_eq!(v["kind"], "type");
    assert_eq!(v["location"], "k.ptx:3:7");
}

#[test]
fn generic_initializers_point_at_their_variables() {
    let extra = ".global .u32 g = 7;\n.const .u32 c = 9;\n.global .u64 p[2] = {generic(g), generic(c)};";
    let body = format!(
        "{PROLOGUE}
    ld.global.u64 %rd4, [p];
    ld.u32 %r2, [%rd4];
    ld.global.u64 %rd5, [p+8];
    ld.u32 %r3, [%rd5];
    isspacep.const %p1, %rd5;
    selp.u32 %r4, 100, 0, %p1;
    add.u32 %r5, %r3, %r4;
    st.global.v2.u32 [%rd1], {{%r2, %r5}};
    ret;"
    );
    assert_eq!(words(&run(&body, 1, 1, 8, extra).unwrap()), [7, 109]);
    // It prints back as written.
    let m = oracle::parse::parse(&format!("{HEADER}{extra}")).unwrap();
    assert!(oracle::print::print(&m).contains("generic(g)"));
}

#[test]
fn b128_registers_load_unpack_pack_and_store() {
    // ld.b128 reads 16 bytes into one register; mov.b128 unpacks it to 64-bit halves (low first)
    // and packs them back swapped; st.b128 writes it.
    let ptx = "
.version 8.3
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out)
{
    .reg .b128 %q<3>;
    .reg .b64 %rd<6>;
    ld.param.u64 %rd1, [out];
    ld.global.b128 %q1, [%rd1];
    mov.b128 {%rd2, %rd3}, %q1;
    mov.b128 %q2, {%rd3, %rd2};
    st.global.b128 [%rd1+16], %q2;
    st.global.u64 [%rd1+32], %rd2;
    ret;
}
";
    let input: Vec<u8> = (0u8..16).chain([0; 24]).collect();
    let l: LaunchFile = serde_json::from_value(serde_json::json!({
        "ptx": "k.ptx", "entry": "k", "grid": [1, 1, 1], "block": [1, 1, 1],
        "buffers": [{"name": "out", "hex": launch::encode_hex(&input)}],
        "params": [{"buffer": "out"}],
    }))
    .unwrap();
    let out = &launch::run(&l, ptx).unwrap().0[0].1;
    let want: Vec<u8> = (0u8..16).chain(8..16).chain(0..8).chain(0..8).collect();
    assert_eq!(out, &want);
    // Misaligned 16-byte accesses are caught like any other.
    let bad = ptx.replace("ld.global.b128 %q1, [%rd1];", "ld.global.b128 %q1, [%rd1+8];");
    let e = launch::run(&l, &bad).unwrap_err();
    assert!(e.message.contains("aligned to the access size of 16"), "{e}");
}

#[test]
fn generic_atomics_on_a_named_variable_use_its_generic_address() {
    // 32 threads add 1 to `.shared` s through a generic `atom` that names it (its generic
    // address, not its shared offset 0); each gets a distinct old value below 32.
    let extra = ".shared .align 4 .u32 s;";
    let body = format!(
        "{PROLOGUE}
    atom.add.u32 %r2, [s], 1;
    bar.sync 0;
    ld.shared.u32 %r3, [s];
    st.global.v2.u32 [%rd1], {{%r2, %r3}};
    ret;"
    );
    let out = words(&run(&body, 1, 32, 8, extra).unwrap());
    assert!(out[0] < 32, "{out:?}");
    assert_eq!(out[1], 32, "{out:?}");
}

/// `red.async` on `.shared::cluster` (§9.7.13.7) must reach another CTA of the cluster
/// (L17936-17938), which this launch's cluster of one CTA cannot: a kernel holding it
/// type-checks and runs as long as no thread reaches it; a thread that does gets a located
/// runtime error. (It used to fail the whole kernel at type check.)
#[test]
fn unexecuted_atomics_fail_only_where_reached() {
    let kernel = |guard: &str| {
        format!(
            ".version 8.1\n.target sm_90\n.address_size 64\n\
             .visible .entry k(.param .u64 out)\n{{\n\
             .reg .pred %p;\n.reg .b32 %r<4>;\n.reg .b64 %rd<4>;\n\
             ld.param.u64 %rd1, [out];\nmov.u32 %r1, %tid.x;\nsetp.eq.u32 %p, %r1, {guard};\n\
             @%p red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 [%rd2], %r1, [%rd3];\n\
             st.global.u32 [%rd1], 7;\nret;\n}}\n"
        )
    };
    let l: LaunchFile = serde_json::from_value(serde_json::json!({
        "ptx": "k.ptx", "entry": "k", "grid": [1, 1, 1], "block": [1, 1, 1],
        "buffers": [{"name": "out", "size": 4}], "params": [{"buffer": "out"}],
    }))
    .unwrap();
    let (b, _) = launch::run(&l, &kernel("1")).expect("not reached: runs");
    assert_eq!(words(&b), [7]);
    let e = launch::run(&l, &kernel("0")).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Runtime, "{e}");
    // (%rd2 holds 0, and the CTA has no shared memory: the address rule of L17950.)
    assert!(e.message.contains("red.async") && e.message.contains("L17950"), "{e}");
    assert_eq!(e.loc.map(|(line, _)| line), Some(12), "{e}");
}
