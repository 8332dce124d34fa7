//! `wgmma.mma_async.sp` on the interpreter (§9.7.15.6): a warpgroup of 128 threads copies a
//! shared-memory image of the packed A (M×K/2, L26272) and of B, builds the matrix descriptors
//! (L25606-25652), runs `wgmma.fence` / `wgmma.mma_async.sp` / `commit_group` / `wait_group 0`
//! and stores its accumulator. Expected values are plain integer products of a dense A chosen
//! here with 2:4 sparsity, placed by the layouts stated in the comments.
//!
//! The metadata of each lane is written from the reading recorded in `spec/INTERPRETATIONS.md`
//! ("sparse mma metadata"): warp `w` gives the metadata of rows `16w..16w+16` (L25983-26000) as
//! an `mma.sp` warp does (the figures are `mma.sp`'s: Fig. 175, 177, 179-180): its `j`-th
//! selected thread of a group of four describes four consecutive 4-wide blocks of K, row
//! `16w + groupID` in bits 15..0 and row `16w + groupID + 8` in bits 31..16.

use oracle::error::ErrorKind;
use oracle::launch::{self, LaunchFile};

#[path = "common/wgmma.rs"]
mod wgmma_common;
use wgmma_common::{acc, desc, f16, load_regs, regs, store_regs, swizzle};

/// Runs `body` on 128 threads (sm_90a) with `in` = `input` and a zeroed `out`: first the
/// threads copy the first `image_words` words of `in` to `tile` in shared memory, then
/// `bar.sync 0` and `fence.proxy.async.shared::cta`; `%rd4`/`%rd5` are `in` (past the image) and
/// `out` plus the thread's block of `words` words.
fn run(image_words: u32, words: u32, body: &str, input: &[u8]) -> Result<Vec<u32>, oracle::error::Error> {
    let ptx = format!(
        ".version 8.7\n.target sm_90a\n.address_size 64\n.shared .align 1024 .b8 tile[16384];\n\
         .visible .entry k(.param .u64 pin, .param .u64 pout)\n{{\n\
         .reg .pred %p<4>;\n.reg .b32 %r<200>;\n.reg .b64 %rd<16>;\n\
         ld.param.u64 %rd1, [pin];\nld.param.u64 %rd2, [pout];\nmov.u32 %r0, %tid.x;\n\
         mov.u32 %r1, %r0;\n\
         $copy:\n\
         setp.ge.u32 %p1, %r1, {image_words};\n\
         @%p1 bra $copied;\n\
         mul.wide.u32 %rd6, %r1, 4;\nadd.s64 %rd7, %rd1, %rd6;\nld.global.b32 %r2, [%rd7];\n\
         mov.u32 %r3, tile;\nshl.b32 %r4, %r1, 2;\nadd.u32 %r3, %r3, %r4;\nst.shared.b32 [%r3], %r2;\n\
         add.u32 %r1, %r1, 128;\nbra $copy;\n\
         $copied:\n\
         bar.sync 0;\nfence.proxy.async.shared::cta;\n\
         mul.wide.u32 %rd6, %r0, {};\nadd.s64 %rd4, %rd1, %rd6;\nadd.s64 %rd4, %rd4, {};\nadd.s64 %rd5, %rd2, %rd6;\n\
         setp.eq.u32 %p2, %r0, %r0;\n{body}\nret;\n}}\n",
        4 * words,
        4 * image_words
    );
    let hex: String = input.iter().map(|b| format!("{b:02x}")).collect();
    let l: LaunchFile = serde_json::from_value(serde_json::json!({
        "ptx": "k.ptx", "entry": "k", "grid": [1, 1, 1], "block": [128, 1, 1],
        "buffers": [{"name": "in", "hex": hex}, {"name": "out", "size": 128 * 4 * words}],
        "params": [{"buffer": "in"}, {"buffer": "out"}],
        "limits": {"steps": 10_000_000, "stack": 1024},
    }))
    .unwrap();
    launch::run(&l, &ptx).map(|(b, _)| {
        b[1].1
            .chunks(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect()
    })
}

/// A dense A, its packed form and its index fields, by row.
type SparseA = (Vec<Vec<i64>>, Vec<Vec<i64>>, Vec<Vec<u32>>);

/// A dense 64×K A with 2:4 sparsity (descending pairs too: `wgmma.mma_async.sp` has no ordered
/// variant, each 2-bit index may be 0b00..0b11, L26284-26314): the dense matrix, the packed one
/// (64 × K/2) and each (row, block)'s index field.
fn sparse_a(k: usize, val: impl Fn(usize, usize) -> i64) -> SparseA {
    let pairs = [(0, 1), (2, 0), (0, 3), (3, 1), (1, 2), (2, 3), (1, 0), (3, 2)];
    let mut dense = vec![vec![0; k]; 64];
    let mut packed = vec![Vec::new(); 64];
    let mut fields = vec![Vec::new(); 64];
    for r in 0..64 {
        for b in 0..k / 4 {
            let (lo, hi) = pairs[(r * 5 + b * 3 + b / 4) % pairs.len()];
            for p in [lo, hi] {
                let v = val(r, 4 * b + p);
                dense[r][4 * b + p] = v;
                packed[r].push(v);
            }
            fields[r].push((hi << 2 | lo) as u32);
        }
    }
    (dense, packed, fields)
}

/// Thread `t`'s `sp-meta` under selector `f` with `threads` metadata threads per group of four,
/// for f16/bf16/tf32 A (`MetaLayout::BothRows`).
fn meta(t: usize, f: usize, threads: usize, fields: &[Vec<u32>]) -> u32 {
    let (w, g, q) = (t / 32, t % 32 / 4, t % 4);
    if q / threads != f {
        return 0; // not read: invalid on purpose
    }
    let j = q % threads;
    let mut word = 0;
    for h in 0..2 {
        for b in 0..4 {
            word |= fields[16 * w + g + 8 * h][4 * j + b] << (16 * h + 4 * b);
        }
    }
    word
}

/// The metadata word of thread `t` for 8- and 4-bit A (`MetaLayout::RowPerThread`, worked out
/// from the H200's integer records, corpus/findings/h200/tensor-cores.md): the selected thread
/// `j = 2q + r` (all four threads of a group with selector 0) holds row `groupID + 8r`'s blocks
/// `8q..8q+7`, block `8q + b` in bits `4b+3..4b`.
fn meta_row_per_thread(t: usize, fields: &[Vec<u32>]) -> u32 {
    let (w, g, j) = (t / 32, t % 32 / 4, t % 4);
    let (q, r) = (j / 2, j % 2);
    (0..8).fold(0, |word, b| word | fields[16 * w + g + 8 * r][8 * q + b] << (4 * b))
}

fn s8_b(k: usize, n: usize) -> i64 {
    ((k * 5 + n * 11) % 19) as i64 - 9
}
fn s8_c(r: usize, n: usize) -> i64 {
    (r as i64 * 1000) - (n as i64 * 77)
}

/// `wgmma.mma_async.sp.sync.aligned.m64n8k64.s32.s8.s8` from descriptors, all four metadata
/// threads (selector 0, L25981), in the row-per-thread layout. The packed A (64×32 s8) is K-major with the 128-byte swizzle:
/// byte (r, c) at `(r % 8)·128 + (r / 8)·1024 + c`, then `Swizzle<3,4,3>` (SBO 1024). B (64×8
/// s8, K-major, no swizzle, LBO 128): byte (k, n) at `(n % 8)·16 + (k % 16) + (k / 16)·128`.
/// `patch` edits the input (thread t's words at `image + 20·t`: C, then `sp-meta`).
fn s8_case(sel: u32, patch: impl Fn(&mut [u8], usize)) -> (Result<Vec<u32>, oracle::error::Error>, Vec<Vec<i64>>) {
    let (dense, packed, fields) = sparse_a(64, |r, c| ((r * 7 + c * 3) % 23) as i64 - 11);
    let (a_off, b_off) = (0usize, 8192usize);
    let image = 8192 + 512;
    let mut input = vec![0u8; image + 128 * 20];
    for (r, row) in packed.iter().enumerate() {
        for (c, &v) in row.iter().enumerate() {
            input[a_off + swizzle(3, (r % 8) * 128 + (r / 8) * 1024 + c)] = v as i8 as u8;
        }
    }
    for k in 0..64 {
        for n in 0..8 {
            input[b_off + (n % 8) * 16 + (k % 16) + (k / 16) * 128] = s8_b(k, n) as i8 as u8;
        }
    }
    for t in 0..128 {
        for i in 0..4 {
            let (r, n) = acc(t, i);
            let at = image + t * 20 + 4 * i;
            input[at..at + 4].copy_from_slice(&(s8_c(r, n) as i32).to_le_bytes());
        }
        let at = image + t * 20 + 16;
        input[at..at + 4].copy_from_slice(&meta_row_per_thread(t, &fields).to_le_bytes());
    }
    patch(&mut input, image);
    let a_high = (1u64 << 62) | (64 << 32) | (1 << 16);
    let b_high = (16u64 << 32) | (8 << 16);
    let body = format!(
        "{}{}{}wgmma.fence.sync.aligned;\n\
         wgmma.mma_async.sp.sync.aligned.m64n8k64.s32.s8.s8 {{{}}}, %rd8, %rd9, %r104, {sel}, %p2;\n\
         wgmma.commit_group.sync.aligned;\nwgmma.wait_group.sync.aligned 0;\n{}",
        load_regs(100, 5),
        desc(8, a_off as u32, a_high),
        desc(9, b_off as u32, b_high),
        regs(100, 4),
        store_regs(100, 4)
    );
    let want = (0..128)
        .map(|t| {
            (0..4)
                .map(|i| {
                    let (r, n) = acc(t, i);
                    s8_c(r, n) + (0..64).map(|k| dense[r][k] * s8_b(k, n)).sum::<i64>()
                })
                .collect()
        })
        .collect();
    (run((image / 4) as u32, 5, &body, &input), want)
}

#[test]
fn s8_m64n8k64_from_descriptors_is_the_integer_product() {
    let (got, want) = s8_case(0, |_, _| {});
    let got = got.unwrap_or_else(|e| panic!("{e}"));
    for t in 0..128 {
        for i in 0..4 {
            assert_eq!(
                got[t * 5 + i] as i32 as i64,
                want[t][i],
                "thread {t} d{i} = D{:?}",
                acc(t, i)
            );
        }
    }
}

/// Undefined metadata and selectors are runtime errors naming the warp and the rule.
#[test]
fn undefined_metadata_and_selectors_are_runtime_errors() {
    // Equal indices (0b1010) in bits 7..4 of thread 64 + 4·3 + 1 (warp 2, lane 13): invalid
    // (L25937).
    let (got, _) = s8_case(0, |input, image| {
        let at = image + (64 + 13) * 20 + 16;
        let mut w = u32::from_le_bytes(input[at..at + 4].try_into().unwrap());
        w = w & !0xf0 | 0b1010 << 4;
        input[at..at + 4].copy_from_slice(&w.to_le_bytes());
    });
    let e = got.unwrap_err();
    assert_eq!(e.kind, ErrorKind::Runtime, "{e}");
    let msg = e.to_string();
    assert!(
        msg.contains("warp 2 of the warpgroup: lane 13, metadata bits 7..4") && msg.contains("L25937"),
        "{msg}"
    );
    // Selector 1 with four metadata threads (L25981).
    let (got, _) = s8_case(1, |_, _| {});
    let msg = got.unwrap_err().to_string();
    assert!(
        msg.contains("sparsity selector 1 is undefined") && msg.contains("L25951-25981"),
        "{msg}"
    );
}

/// `wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16` with the packed A (64×16 f16) from
/// registers, both selectors (a pair of metadata threads, L25951), small integers (exact).
/// The packed A's fragment is the dense `m64nNk16` f16 A's (Fig. 174; mma m16n8k16's A per
/// warp, L22048-22052): element i of thread t at row 16w + g + 8·((i >> 1) & 1), column
/// 2q + (i & 1) + 8·(i >> 2), two per register, low half first. B (32×8 f16, K-major, no
/// swizzle, LBO 128 bytes): element (k, n) at byte `(n % 8)·16 + 2·(k % 8) + (k / 8)·128`.
#[test]
fn f16_m64n8k32_packed_a_from_registers_both_selectors() {
    let b = |k: usize, n: usize| ((k * 3 + n * 5) % 7) as i64 - 3;
    let c = |r: usize, n: usize| (r as i64) - 3 * (n as i64);
    for sel in 0..2 {
        let (dense, packed, fields) = sparse_a(32, |r, k| ((r * 5 + k * 3) % 7) as i64 - 3);
        let image = 512;
        let mut input = vec![0u8; image + 128 * 36];
        for k in 0..32 {
            for n in 0..8 {
                let at = (n % 8) * 16 + 2 * (k % 8) + (k / 8) * 128;
                input[at..at + 2].copy_from_slice(&f16(b(k, n)).to_le_bytes());
            }
        }
        for t in 0..128 {
            let (w, g, q) = (t / 32, t % 32 / 4, t % 4);
            let base = image + t * 36;
            for i in 0..8 {
                let (r, col) = (16 * w + g + 8 * ((i >> 1) & 1), 2 * q + (i & 1) + 8 * (i >> 2));
                input[base + 2 * i..base + 2 * i + 2].copy_from_slice(&f16(packed[r][col]).to_le_bytes());
            }
            for i in 0..4 {
                let (r, n) = acc(t, i);
                let at = base + 16 + 4 * i;
                input[at..at + 4].copy_from_slice(&(c(r, n) as f32).to_bits().to_le_bytes());
            }
            input[base + 32..base + 36].copy_from_slice(&meta(t, sel, 2, &fields).to_le_bytes());
        }
        let b_high = (16u64 << 32) | (8 << 16);
        let body = format!(
            "{}{}wgmma.fence.sync.aligned;\n\
             wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16 {{{}}}, {{{}}}, %rd9, %r108, {sel}, %p2, 1, 1, 0;\n\
             wgmma.commit_group.sync.aligned;\nwgmma.wait_group.sync.aligned 0;\n{}",
            load_regs(100, 9),
            desc(9, 0, b_high),
            regs(104, 4),
            regs(100, 4),
            store_regs(104, 4)
        );
        let got = run((image / 4) as u32, 9, &body, &input).unwrap_or_else(|e| panic!("{e}"));
        for t in 0..128 {
            for i in 0..4 {
                let (r, n) = acc(t, i);
                let want = c(r, n) + (0..32).map(|k| dense[r][k] * b(k, n)).sum::<i64>();
                assert_eq!(
                    f32::from_bits(got[t * 9 + i]),
                    want as f32,
                    "selector {sel} thread {t} d{i}"
                );
            }
        }
    }
}

/// `wgmma.mma_async.sp.sync.aligned.m64n8k16.f32.tf32.tf32`, 1:2 (L25955: index fields
/// 0b0100 and 0b1110 only), selector 1, the packed A (64×8 tf32) from registers: the dense
/// `m64nNk8` tf32 A's fragment (Fig. 176; mma m16n8k8 tf32's A per warp, L21818-21825):
/// element i of thread t at row 16w + g + 8·(i % 2), column q + 4·(i / 2). B (16×8 tf32,
/// K-major, no swizzle, LBO 128 bytes): element (k, n) at byte `(n % 8)·16 + 4·(k % 4) +
/// (k / 4)·128`. Small integers, exact.
#[test]
fn tf32_m64n8k16_one_of_two() {
    let sel = 1;
    let a = |r: usize, k: usize| ((r * 3 + k) % 9) as i64 - 4;
    let b = |k: usize, n: usize| ((k + 5 * n) % 7) as i64 - 3;
    let c = |r: usize, n: usize| (r * n) as i64;
    // Row r keeps element (r + blk) % 2 of each 2-wide block blk.
    let keep = |r: usize, blk: usize| (r + blk) % 2;
    let dense = |r: usize, k: usize| if k % 2 == keep(r, k / 2) { a(r, k) } else { 0 };
    let packed = |r: usize, col: usize| a(r, 2 * col + keep(r, col));
    let image = 512;
    let mut input = vec![0u8; image + 128 * 36];
    for k in 0..16 {
        for n in 0..8 {
            let at = (n % 8) * 16 + 4 * (k % 4) + (k / 4) * 128;
            input[at..at + 4].copy_from_slice(&(b(k, n) as f32).to_bits().to_le_bytes());
        }
    }
    for t in 0..128 {
        let (w, g, q) = (t / 32, t % 32 / 4, t % 4);
        let base = image + t * 36;
        for i in 0..4 {
            let (r, col) = (16 * w + g + 8 * (i % 2), q + 4 * (i / 2));
            input[base + 4 * i..base + 4 * i + 4].copy_from_slice(&(packed(r, col) as f32).to_bits().to_le_bytes());
        }
        for i in 0..4 {
            let (r, n) = acc(t, i);
            let at = base + 16 + 4 * i;
            input[at..at + 4].copy_from_slice(&(c(r, n) as f32).to_bits().to_le_bytes());
        }
        // Threads 2 and 3 of each group (selector 1): the j-th holds 2-wide blocks 4j..4j+3.
        let mut word = 0u32;
        if q / 2 == sel {
            let j = q % 2;
            for h in 0..2 {
                for blk in 0..4 {
                    let field = if keep(16 * w + g + 8 * h, 4 * j + blk) == 0 {
                        0b0100
                    } else {
                        0b1110
                    };
                    word |= field << (16 * h + 4 * blk);
                }
            }
        }
        input[base + 32..base + 36].copy_from_slice(&word.to_le_bytes());
    }
    let b_high = (16u64 << 32) | (8 << 16);
    let body = format!(
        "{}{}wgmma.fence.sync.aligned;\n\
         wgmma.mma_async.sp.sync.aligned.m64n8k16.f32.tf32.tf32 {{{}}}, {{{}}}, %rd9, %r108, {sel}, %p2, 1, 1;\n\
         wgmma.commit_group.sync.aligned;\nwgmma.wait_group.sync.aligned 0;\n{}",
        load_regs(100, 9),
        desc(9, 0, b_high),
        regs(104, 4),
        regs(100, 4),
        store_regs(104, 4)
    );
    let got = run((image / 4) as u32, 9, &body, &input).unwrap_or_else(|e| panic!("{e}"));
    for t in 0..128 {
        for i in 0..4 {
            let (r, n) = acc(t, i);
            let want = c(r, n) + (0..16).map(|k| dense(r, k) * b(k, n)).sum::<i64>();
            assert_eq!(f32::from_bits(got[t * 9 + i]), want as f32, "thread {t} d{i}");
        }
    }
}

/// Every `wgmma.mma_async.sp` form of N = 8 (both A sources, every type), on a zeroed shared
/// memory with the always-meaningful metadata 0x44444444 (every field 0b0100) and selector 0:
/// it runs to the end (no internal error, no panic).
#[test]
fn every_n8_sparse_form_runs() {
    use spec::catalog::{catalog, fragment, Exec};
    let cat = catalog();
    let mut ran = 0;
    let n8 = |f: &&spec::catalog::Form| {
        f.exec() == Some(Exec::Wgmma)
            && f.mods.contains(&"sp")
            && f.var("shape").is_some_and(|s| s.starts_with("m64n8k"))
    };
    for f in cat.forms.iter().filter(n8) {
        let nd = fragment::length(f, &f.outputs[0]).unwrap() as u32;
        let mut ops = vec![format!("{{{}}}", regs(100, nd))];
        for o in &f.inputs {
            ops.push(match o.name {
                "a_desc" | "b_desc" => "%rd8".to_string(),
                "a" => format!("{{{}}}", regs(160, fragment::length(f, o).unwrap() as u32)),
                "sp_meta" => "%r150".into(),
                "sp_sel" => "0".into(),
                "scale_d" => "%p2".into(),
                "imm_scale_a" | "imm_scale_b" => "1".into(),
                _ => "0".into(),
            });
        }
        let body = format!(
            "{}mov.b32 %r150, 0x44444444;\nwgmma.fence.sync.aligned;\n{} {};\n\
             wgmma.commit_group.sync.aligned;\nwgmma.wait_group.sync.aligned 0;\n{}",
            desc(8, 0, 0),
            f.name,
            ops.join(", "),
            store_regs(100, nd)
        );
        if let Err(e) = run(0, nd, &body, &[0u8; 4]) {
            panic!("{}: {e}", f.name);
        }
        ran += 1;
    }
    assert!(ran >= 40, "{ran}");
}
