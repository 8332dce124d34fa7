//! The 128-bit atomics `atom{.sem}{.scope}{.space}.exch.b128` and `.cas.b128` (§9.7.13.5,
//! L17386-17387; PTX 8.3, L17540; sm_90, L17582): `exch` returns the old 16 bytes and stores
//! `b`; `cas` stores `c` only when all 16 bytes equal `b` (`operation(*a, b, c)`, L17495) and
//! returns the old bytes either way. Global memory, `.shared::cta`, a generic address, and
//! another CTA's shared memory through `mapa`; a misaligned address is a runtime error
//! (L3112). The expected bytes are written out by hand below.

use oracle::error::{Error, ErrorKind};
use oracle::launch::{self, LaunchFile};

/// The old value A (halves low, high) that every test starts from.
const A: (u64, u64) = (0x1111_2222_3333_4444, 0x5555_6666_7777_8888);
/// The new value N.
const N: (u64, u64) = (0xaaaa_bbbb_cccc_dddd, 0xeeee_ffff_0000_1234);

/// The kernel `k(out)` of `body`, with %rd1 = out, %r1 = %tid.x, %r2 = %cluster_ctarank, and
/// the 128-bit registers %qA = A, %qN = N, %qX = A with its high half's top bit flipped,
/// %qY = A with its low half's lowest bit flipped.
fn kernel(body: &str) -> String {
    format!(
        ".version 8.3\n.target sm_90\n.address_size 64\n\
         .shared .align 16 .b8 sh[64];\n\
         .visible .entry k(.param .u64 out)\n{{\n\
         .reg .pred %p<4>;\n.reg .b32 %r<20>;\n.reg .b64 %rd<40>;\n.reg .b128 %q<8>;\n.reg .b128 %qA, %qN, %qX, %qY;\n\
         ld.param.u64 %rd1, [out];\nmov.u32 %r1, %tid.x;\nmov.u32 %r2, %cluster_ctarank;\n\
         mov.u64 %rd20, {:#x};\nmov.u64 %rd21, {:#x};\nmov.b128 %qA, {{%rd20, %rd21}};\n\
         mov.u64 %rd22, {:#x};\nmov.u64 %rd23, {:#x};\nmov.b128 %qN, {{%rd22, %rd23}};\n\
         xor.b64 %rd24, %rd21, 0x8000000000000000;\nmov.b128 %qX, {{%rd20, %rd24}};\n\
         xor.b64 %rd25, %rd20, 1;\nmov.b128 %qY, {{%rd25, %rd21}};\n\
         {body}\nret;\n}}\n",
        A.0, A.1, N.0, N.1
    )
}

/// Runs `k` on `ctas` CTAs of one thread (one cluster of them when `ctas > 1`) with `out`
/// (256 bytes) holding `init`; returns `out` as 64-bit words.
fn run(body: &str, ctas: u32, init: &[u8]) -> Result<Vec<u64>, Error> {
    let mut bytes = init.to_vec();
    bytes.resize(256, 0);
    let mut j = serde_json::json!({
        "ptx": "k.ptx", "entry": "k", "grid": [ctas, 1, 1], "block": [1, 1, 1],
        "buffers": [{"name": "out", "hex": launch::encode_hex(&bytes)}],
        "params": [{"buffer": "out"}],
    });
    if ctas > 1 {
        j["cluster"] = serde_json::json!([ctas, 1, 1]);
    }
    let l: LaunchFile = serde_json::from_value(j).unwrap();
    let (b, _) = launch::run(&l, &kernel(body))?;
    let out = &b.iter().find(|(n, _)| n == "out").unwrap().1;
    Ok(out
        .chunks(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect())
}

/// A as `n` consecutive 16-byte records, little-endian.
fn a_times(n: usize) -> Vec<u8> {
    (0..n)
        .flat_map(|_| [A.0.to_le_bytes(), A.1.to_le_bytes()].concat())
        .collect()
}

/// Global memory: out[0..16] exchanged; out[16..32] compare-and-swapped with A (equal: N
/// stored), out[32..48] with A's high half differing in its top bit and out[48..64] with its
/// low half differing in its lowest bit (not equal: left as A). The four old values go to
/// out[64..128].
#[test]
fn exch_and_cas_on_global_memory() {
    let body = "atom.global.exch.b128 %q1, [%rd1], %qN;\n\
                atom.relaxed.gpu.global.cas.b128 %q2, [%rd1+16], %qA, %qN;\n\
                atom.acq_rel.gpu.global.cas.b128 %q3, [%rd1+32], %qX, %qN;\n\
                atom.global.cas.b128 %q4, [%rd1+48], %qY, %qN;\n\
                st.global.b128 [%rd1+64], %q1;\nst.global.b128 [%rd1+80], %q2;\n\
                st.global.b128 [%rd1+96], %q3;\nst.global.b128 [%rd1+112], %q4;";
    let out = run(body, 1, &a_times(4)).unwrap();
    assert_eq!(out[0..2], [N.0, N.1], "exch stores b");
    assert_eq!(out[2..4], [N.0, N.1], "cas with equal bytes stores c");
    assert_eq!(out[4..6], [A.0, A.1], "cas with a different high half stores nothing");
    assert_eq!(out[6..8], [A.0, A.1], "cas with a different low half stores nothing");
    for k in 0..4 {
        assert_eq!(out[8 + 2 * k..10 + 2 * k], [A.0, A.1], "old value {k}");
    }
}

/// Shared memory through `.shared::cta` and a generic address: sh[0..16] = A exchanged for N,
/// then compare-and-swapped through its generic address: with N (equal: A stored back), then
/// with N again (now unequal: nothing stored). Returned: A, N, A; final: A.
#[test]
fn exch_and_cas_on_shared_memory_and_generic_addresses() {
    let body = "mov.u64 %rd2, sh;\nst.shared.b128 [%rd2], %qA;\n\
                atom.shared::cta.exch.b128 %q1, [%rd2], %qN;\n\
                cvta.shared.u64 %rd3, %rd2;\n\
                atom.release.cta.cas.b128 %q2, [%rd3], %qN, %qA;\n\
                atom.acquire.cluster.cas.b128 %q3, [%rd3], %qN, %qX;\n\
                ld.shared.b128 %q4, [%rd2];\n\
                st.global.b128 [%rd1], %q1;\nst.global.b128 [%rd1+16], %q2;\n\
                st.global.b128 [%rd1+32], %q3;\nst.global.b128 [%rd1+48], %q4;";
    let out = run(body, 1, &[]).unwrap();
    assert_eq!(out[0..2], [A.0, A.1], "exch returns the old A");
    assert_eq!(out[2..4], [N.0, N.1], "cas returns N and, equal, stores A");
    assert_eq!(out[4..6], [A.0, A.1], "cas returns A and, unequal, stores nothing");
    assert_eq!(out[6..8], [A.0, A.1], "the slot holds A");
}

/// CTA 0 of a 2-CTA cluster on CTA 1's sh[0..32] (both A) through `mapa`: `exch` on the first
/// record (`.shared::cluster`), a failing then a succeeding `cas` on the second through its
/// generic address. CTA 1 then stores its records: N and N; CTA 0 its old values: A, A, A.
#[test]
fn exch_and_cas_on_another_ctas_shared_memory() {
    let body = "mov.u64 %rd2, sh;\nsetp.eq.u32 %p1, %r2, 1;\n\
                @%p1 st.shared.b128 [%rd2], %qA;\n@%p1 st.shared.b128 [%rd2+16], %qA;\n\
                barrier.cluster.arrive;\nbarrier.cluster.wait;\n\
                setp.eq.u32 %p2, %r2, 0;\n\
                mapa.shared::cluster.u64 %rd3, %rd2, 1;\nmapa.u64 %rd4, %rd5, 1;\n\
                @%p2 atom.shared::cluster.exch.b128 %q1, [%rd3], %qN;\n\
                @%p2 atom.relaxed.cluster.cas.b128 %q2, [%rd4+16], %qY, %qX;\n\
                @%p2 atom.relaxed.cluster.cas.b128 %q3, [%rd4+16], %qA, %qN;\n\
                @%p2 st.global.b128 [%rd1], %q1;\n@%p2 st.global.b128 [%rd1+16], %q2;\n\
                @%p2 st.global.b128 [%rd1+32], %q3;\n\
                barrier.cluster.arrive;\nbarrier.cluster.wait;\n\
                @%p1 ld.shared.b128 %q4, [%rd2];\n@%p1 ld.shared.b128 %q5, [%rd2+16];\n\
                @%p1 st.global.b128 [%rd1+64], %q4;\n@%p1 st.global.b128 [%rd1+80], %q5;";
    // %rd5: sh's generic address, set before the body's mapa.
    let body = body.replace("mapa.u64 %rd4", "cvta.shared.u64 %rd5, %rd2;\nmapa.u64 %rd4");
    let out = run(&body, 2, &[]).unwrap();
    assert_eq!(out[0..2], [A.0, A.1], "exch returns CTA 1's A");
    assert_eq!(out[2..4], [A.0, A.1], "the failing cas returns A");
    assert_eq!(out[4..6], [A.0, A.1], "the succeeding cas returns A");
    assert_eq!(out[8..10], [N.0, N.1], "CTA 1's first record: exchanged for N");
    assert_eq!(
        out[10..12],
        [N.0, N.1],
        "CTA 1's second record: the succeeding cas stored N"
    );
}

/// A `.b128` atomic on an address 8 bytes past a 16-byte boundary is undefined (L3112): a
/// runtime error at that instruction naming the rule.
#[test]
fn a_misaligned_address_is_reported() {
    for (body, line) in [
        ("atom.global.exch.b128 %q1, [%rd1+8], %qN;", "atom.global.exch"),
        (
            "mov.u64 %rd2, sh;\natom.shared.cas.b128 %q1, [%rd2+24], %qA, %qN;",
            "atom.shared.cas",
        ),
    ] {
        let e = run(body, 1, &a_times(4)).expect_err("a misaligned b128 atomic must be reported");
        assert_eq!(e.kind, ErrorKind::Runtime, "{e}");
        let want = kernel(body).lines().position(|l| l.contains(line)).unwrap() as u32 + 1;
        assert_eq!(e.loc.map(|l| l.0), Some(want), "{e}");
        assert!(
            e.message.contains("16-byte aligned") && e.message.contains("L3112"),
            "{e}"
        );
    }
}

/// The manual's rules (L17540-17582): `.b128` needs sm_90 and PTX 8.3 (`.sys` scope 8.4), and
/// only `exch` and `cas` take it (L17477-17479).
#[test]
fn the_requirements_are_checked() {
    let good = "atom.global.exch.b128 %q1, [%rd1], %qN;";
    assert!(run(good, 1, &[]).is_ok());
    let type_error = |src: String, why: &str| {
        let l: LaunchFile = serde_json::from_value(serde_json::json!({
            "ptx": "k.ptx", "entry": "k", "grid": [1, 1, 1], "block": [1, 1, 1],
            "buffers": [{"name": "out", "size": 256}], "params": [{"buffer": "out"}],
        }))
        .unwrap();
        let e = launch::run(&l, &src).expect_err("must be refused");
        assert_eq!(e.kind, ErrorKind::Type, "{e}");
        assert!(e.message.contains(why), "`{why}` missing from: {e}");
    };
    type_error(
        kernel(good)
            .replace(".target sm_90", ".target sm_80")
            .replace("mov.u32 %r2, %cluster_ctarank;\n", ""),
        "sm_90",
    );
    type_error(kernel(good).replace(".version 8.3", ".version 8.2"), "PTX ISA 8.3");
    type_error(kernel("atom.sys.global.exch.b128 %q1, [%rd1], %qN;"), "PTX ISA 8.4");
    type_error(kernel("atom.global.and.b128 %q1, [%rd1], %qN;"), "and");
    let v84 = kernel("atom.sys.global.exch.b128 %q1, [%rd1], %qN;").replace(".version 8.3", ".version 8.4");
    let l: LaunchFile = serde_json::from_value(serde_json::json!({
        "ptx": "k.ptx", "entry": "k", "grid": [1, 1, 1], "block": [1, 1, 1],
        "buffers": [{"name": "out", "size": 256}], "params": [{"buffer": "out"}],
    }))
    .unwrap();
    let (b, _) = launch::run(&l, &v84).unwrap();
    let out = &b.iter().find(|(n, _)| n == "out").unwrap().1;
    assert_eq!(out[..16], [N.0.to_le_bytes(), N.1.to_le_bytes()].concat()[..]);
}

/// A discarded result (`atom ... _, [a], b`, which ptxas 12.9 takes: corpus/findings/
/// ptxas-12.9-atom-disagreements.txt) still performs the operation: the 128-bit exchange and
/// compare-and-swap store as before, and a 32-bit add and a `v2.f32` add update memory.
#[test]
fn a_discarded_result_still_updates_memory() {
    let body = "atom.global.exch.b128 _, [%rd1], %qN;\n\
                atom.global.cas.b128 _, [%rd1+16], %qA, %qN;\n\
                mov.u32 %r3, 5;\natom.global.add.u32 _, [%rd1+32], %r3;\n\
                mov.f32 %f1, 0f3FC00000;\nmov.f32 %f2, 0fC0000000;\n\
                atom.global.v2.f32.add _, [%rd1+40], {%f1, %f2};";
    let body = format!(".reg .f32 %f<3>;\n{body}");
    let mut init = a_times(2);
    init.extend(7u32.to_le_bytes());
    init.extend([0u8; 4]);
    init.extend(1.0f32.to_le_bytes());
    init.extend(1.0f32.to_le_bytes());
    let out = run(&body, 1, &init).unwrap();
    assert_eq!(out[0..4], [N.0, N.1, N.0, N.1], "exch and cas stored N");
    assert_eq!(out[4] as u32, 12, "7 + 5");
    // 1.0 + 1.5 = 2.5 (0x40200000), 1.0 + -2.0 = -1.0 (0xbf800000)
    assert_eq!(out[5], 0xbf80_0000_4020_0000);
}
