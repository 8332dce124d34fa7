//! The warp-wide matrix instructions on the interpreter (§9.7.14.5.14-17): `mma`, `ldmatrix`,
//! `stmatrix`, `movmatrix` executed by a whole warp, each lane's registers loaded from and
//! stored to global memory. Expected values are computed here independently: matrix products
//! in plain integer arithmetic, placed in lanes by the manual's fragment formulas as written in
//! the comments (not by the oracle's code).

use oracle::error::ErrorKind;
use oracle::launch::{self, LaunchFile};

/// Runs `body` on `threads` threads of one CTA (target `sm`), with `in` holding `input` and
/// `out` a zeroed buffer of `out_bytes`; `%rd1` is `in`, `%rd2` is `out`, `%rd3` is this lane's
/// 4-byte offset times `%r20` words (set `%r20` first with `mov`; `lane_base` below).
fn run(sm: u32, threads: u32, body: &str, input: &[u8], out_bytes: usize) -> Result<Vec<u8>, oracle::error::Error> {
    run_on(&format!("sm_{sm}"), threads, body, input, out_bytes)
}

/// [`run`] with the target written out (`sm_120a`).
fn run_on(
    target: &str,
    threads: u32,
    body: &str,
    input: &[u8],
    out_bytes: usize,
) -> Result<Vec<u8>, oracle::error::Error> {
    let ptx = format!(
        ".version 8.7\n.target {target}\n.address_size 64\n.shared .align 16 .b8 tile[1024];\n\
         .visible .entry k(.param .u64 pin, .param .u64 pout)\n{{\n\
         .reg .pred %p<4>;\n.reg .b32 %r<64>;\n.reg .b64 %rd<16>;\n\
         ld.param.u64 %rd1, [pin];\nld.param.u64 %rd2, [pout];\nmov.u32 %r0, %tid.x;\n{body}\nret;\n}}\n"
    );
    let hex: String = input.iter().map(|b| format!("{b:02x}")).collect();
    let l: LaunchFile = serde_json::from_value(serde_json::json!({
        "ptx": "k.ptx", "entry": "k", "grid": [1, 1, 1], "block": [threads, 1, 1],
        "buffers": [{"name": "in", "hex": hex}, {"name": "out", "size": out_bytes}],
        "params": [{"buffer": "in"}, {"buffer": "out"}],
        "limits": {"steps": 1_000_000, "stack": 1024},
    }))
    .unwrap();
    launch::run(&l, &ptx).map(|(b, _)| b[1].1.clone())
}

/// `%rd4` = `in + lane·4·words`, `%rd5` = `out + lane·4·words`.
fn lane_base(words: u32) -> String {
    format!(
        "mul.wide.u32 %rd6, %r0, {};\nadd.s64 %rd4, %rd1, %rd6;\nadd.s64 %rd5, %rd2, %rd6;\n",
        4 * words
    )
}

/// Loads registers `%r{first}..` from `in` at word offsets `off..` of the lane's block.
fn load_regs(first: u32, off: u32, n: u32) -> String {
    (0..n)
        .map(|k| format!("ld.global.b32 %r{}, [%rd4+{}];\n", first + k, 4 * (off + k)))
        .collect()
}

fn store_regs(first: u32, off: u32, n: u32) -> String {
    (0..n)
        .map(|k| format!("st.global.b32 [%rd5+{}], %r{};\n", 4 * (off + k), first + k))
        .collect()
}

fn regs(first: u32, n: u32) -> String {
    (0..n)
        .map(|k| format!("%r{}", first + k))
        .collect::<Vec<_>>()
        .join(", ")
}

fn words(b: &[u8]) -> Vec<u32> {
    b.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect()
}

/// `mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32` (L22303-22489): D = A·B + C over the
/// integers. Fragments by the manual's formulas (groupID g = lane/4, threadID_in_group t =
/// lane%4): A (s8, 4 registers of 4 bytes, L22372-22376): byte i (0..16) is row g + 8·((i/4)%2),
/// column 4t + (i%4) + 16·(i/8); B (2 registers, L22443-22446): byte i (0..8) is row
/// 4t + (i%4) + 16·(i/4), column g; C/D (4 registers, L22485-22488): element i is row
/// g + 8·(i/2), column 2t + (i%2).
#[test]
fn mma_s8_computes_the_integer_product_in_the_manuals_layout() {
    let a = |r: usize, c: usize| ((r * 7 + c * 3) % 23) as i64 - 11;
    let b = |r: usize, c: usize| ((r * 5 + c * 11) % 19) as i64 - 9;
    let c = |r: usize, c: usize| (r as i64 * 1000) - (c as i64 * 77);
    let mut input = vec![0u8; 32 * 10 * 4];
    for lane in 0..32 {
        let (g, t) = (lane / 4, lane % 4);
        let base = lane * 40;
        for i in 0..16 {
            input[base + i] = a(g + 8 * ((i / 4) % 2), 4 * t + (i % 4) + 16 * (i / 8)) as i8 as u8;
        }
        for i in 0..8 {
            input[base + 16 + i] = b(4 * t + (i % 4) + 16 * (i / 4), g) as i8 as u8;
        }
        for i in 0..4 {
            let v = c(g + 8 * (i / 2), 2 * t + (i % 2)) as i32;
            input[base + 24 + 4 * i..base + 28 + 4 * i].copy_from_slice(&v.to_le_bytes());
        }
    }
    let body = format!(
        "{}{}mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {{{}}}, {{{}}}, {{{}}}, {{{}}};\n{}",
        lane_base(10),
        load_regs(1, 0, 10),
        regs(11, 4),
        regs(1, 4),
        regs(5, 2),
        regs(7, 4),
        store_regs(11, 0, 4)
    );
    let out = run(80, 32, &body, &input, 32 * 40).unwrap_or_else(|e| panic!("{e}"));
    let d = words(&out);
    for lane in 0..32 {
        let (g, t) = (lane / 4, lane % 4);
        for i in 0..4 {
            let (r, col) = (g + 8 * (i / 2), 2 * t + (i % 2));
            let want = c(r, col) + (0..32).map(|k| a(r, k) * b(k, col)).sum::<i64>();
            assert_eq!(d[lane * 10 + i] as i32 as i64, want, "lane {lane} d{i}");
        }
    }
}

/// `mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32` with small integers, whose products and
/// sums are exact in every rounding: D must be the exact integer result (L22045-22052 for A:
/// element i of 8 halves is row g + 8·((i/2)%2), column 2t + (i%2) + 8·(i/4); B, L22109-22115:
/// row 2t + (i%2) + 8·(i/2), column g; C/D as for m16n8k32).
#[test]
fn mma_f16_with_exact_operands_gives_the_exact_product() {
    let a = |r: usize, c: usize| ((r + 2 * c) % 5) as i64 - 2;
    let b = |r: usize, c: usize| ((3 * r + c) % 7) as i64 - 3;
    let f16 = |v: i64| -> u16 {
        // Small integers: sign, exponent, mantissa by hand.
        if v == 0 {
            return 0;
        }
        let (s, m) = (if v < 0 { 0x8000 } else { 0 }, v.unsigned_abs() as u16);
        let e = 15 - m.leading_zeros() as u16; // floor(log2 m)
        s | ((e + 15) << 10) | ((m << (10 - e)) & 0x3ff)
    };
    let mut input = vec![0u8; 32 * 10 * 4];
    for lane in 0..32 {
        let (g, t) = (lane / 4, lane % 4);
        let base = lane * 40;
        for i in 0..8 {
            let v = f16(a(g + 8 * ((i / 2) % 2), 2 * t + (i % 2) + 8 * (i / 4)));
            input[base + 2 * i..base + 2 * i + 2].copy_from_slice(&v.to_le_bytes());
        }
        for i in 0..4 {
            let v = f16(b(2 * t + (i % 2) + 8 * (i / 2), g));
            input[base + 16 + 2 * i..base + 18 + 2 * i].copy_from_slice(&v.to_le_bytes());
        }
        for i in 0..4 {
            let v = (100.0f32 * (g + 8 * (i / 2)) as f32).to_bits();
            input[base + 24 + 4 * i..base + 28 + 4 * i].copy_from_slice(&v.to_le_bytes());
        }
    }
    let body = format!(
        "{}{}mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {{{}}}, {{{}}}, {{{}}}, {{{}}};\n{}",
        lane_base(10),
        load_regs(1, 0, 10),
        regs(11, 4),
        regs(1, 4),
        regs(5, 2),
        regs(7, 4),
        store_regs(11, 0, 4)
    );
    let out = run(80, 32, &body, &input, 32 * 40).unwrap_or_else(|e| panic!("{e}"));
    let d = words(&out);
    for lane in 0..32 {
        let (g, t) = (lane / 4, lane % 4);
        for i in 0..4 {
            let (r, col) = (g + 8 * (i / 2), 2 * t + (i % 2));
            let want = 100 * r as i64 + (0..16).map(|k| a(r, k) * b(k, col)).sum::<i64>();
            assert_eq!(f32::from_bits(d[lane * 10 + i]), want as f32, "lane {lane} d{i}");
        }
    }
}

/// `ldmatrix.x4` of a 16×16 `.b16` tile in shared memory, matrix j the 8×8 block at rows
/// 8·(j%2), columns 8·(j/2); lane 8j + r gives the address of row r of matrix j (L23437-23467),
/// and lane l receives, in register j, row l/4, columns 2(l%4) and 2(l%4)+1 of matrix j, the
/// lower column in the low half (L23473-23479). `movmatrix` then transposes matrix 0 (L23745):
/// the lane holds the same positions of the transpose. On sm_90 `stmatrix` writes the registers
/// back, as the inverse of `ldmatrix` (L23574-23659).
#[test]
fn ldmatrix_movmatrix_and_stmatrix_move_the_manuals_elements() {
    let elem = |r: usize, c: usize| (r * 16 + c) as u16 + 0x100;
    let mut input = vec![0u8; 512];
    for r in 0..16 {
        for c in 0..16 {
            input[2 * (16 * r + c)..2 * (16 * r + c) + 2].copy_from_slice(&elem(r, c).to_le_bytes());
        }
    }
    // Thread l copies bytes 16l..16l+16 of the tile into shared memory, then computes its row
    // address: matrix j = l/8, row r = l%8 → tile row 8(j%2) + r, column 8(j/2).
    let body = format!(
        "{}mov.u32 %r40, tile;\n\
         mul.wide.u32 %rd7, %r0, 16;\nadd.s64 %rd8, %rd1, %rd7;\n\
         ld.global.v4.b32 {{%r41, %r42, %r43, %r44}}, [%rd8];\n\
         shl.b32 %r45, %r0, 4;\nadd.u32 %r46, %r40, %r45;\n\
         st.shared.v4.b32 [%r46], {{%r41, %r42, %r43, %r44}};\n\
         bar.sync 0;\n\
         shr.u32 %r47, %r0, 3;\nand.b32 %r48, %r0, 7;\n\
         and.b32 %r49, %r47, 1;\nshl.b32 %r49, %r49, 3;\nadd.u32 %r49, %r49, %r48;\n\
         shr.u32 %r50, %r47, 1;\nshl.b32 %r50, %r50, 3;\n\
         shl.b32 %r51, %r49, 4;\nadd.u32 %r51, %r51, %r50;\nshl.b32 %r51, %r51, 1;\nadd.u32 %r52, %r40, %r51;\n\
         ldmatrix.sync.aligned.m8n8.x4.shared.b16 {{%r11, %r12, %r13, %r14}}, [%r52];\n\
         movmatrix.sync.aligned.m8n8.trans.b16 %r15, %r11;\n{}",
        lane_base(5),
        store_regs(11, 0, 5)
    );
    let out = run(80, 32, &body, &input, 32 * 20).unwrap_or_else(|e| panic!("{e}"));
    let d = words(&out);
    for l in 0..32 {
        let (row, col) = (l / 4, 2 * (l % 4));
        for j in 0..4 {
            let (r0, c0) = (8 * (j % 2), 8 * (j / 2));
            let want = elem(r0 + row, c0 + col) as u32 | (elem(r0 + row, c0 + col + 1) as u32) << 16;
            assert_eq!(d[l * 5 + j], want, "lane {l} r{j}");
        }
        // The transpose of matrix 0: position (row, col) of Mᵀ is M[col][row].
        let want = elem(col, row) as u32 | (elem(col + 1, row) as u32) << 16;
        assert_eq!(d[l * 5 + 4], want, "lane {l} movmatrix");
    }
    // stmatrix (sm_90) of the ldmatrix registers to the upper half of `tile`, then copied out:
    // the same 16×16 tile.
    let body = body.replace(
        "movmatrix.sync.aligned.m8n8.trans.b16 %r15, %r11;\n",
        "add.u32 %r53, %r52, 512;\n\
         stmatrix.sync.aligned.m8n8.x4.shared.b16 [%r53], {%r11, %r12, %r13, %r14};\n\
         bar.sync 0;\n\
         add.u32 %r54, %r46, 512;\nld.shared.v4.b32 {%r41, %r42, %r43, %r44}, [%r54];\n\
         mul.wide.u32 %rd9, %r0, 16;\nadd.s64 %rd10, %rd2, %rd9;\n\
         st.global.v4.b32 [%rd10+640], {%r41, %r42, %r43, %r44};\n",
    );
    let out = run(90, 32, &body, &input, 32 * 20 + 512).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(&out[640..1152], &input[..512]);
}

#[test]
fn a_warp_that_is_not_whole_at_an_mma_is_an_error() {
    let mma = format!(
        "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {{{}}}, {{{}}}, {{{}}}, {{{}}};\n",
        regs(11, 4),
        regs(1, 4),
        regs(5, 2),
        regs(7, 4)
    );
    // Half the warp branches around it; the other half waits for lanes that never come.
    let body = format!("setp.lt.u32 %p1, %r0, 16;\n@%p1 bra SKIP;\n{mma}SKIP:\n");
    let e = run(80, 32, &body, &[0; 4], 4).unwrap_err();
    assert!(
        e.kind == ErrorKind::Runtime && e.to_string().contains("needs all 32 threads"),
        "{e}"
    );
    // A CTA of 16 threads has a warp of 16.
    let e = run(80, 16, &mma, &[0; 4], 4).unwrap_err();
    assert!(e.to_string().contains("needs all 32 threads"), "{e}");
}

/// `wmma.load` → `wmma.mma` → `wmma.store` (§9.7.14.4): the fragment layout is the oracle's own
/// (the manual leaves it unspecified, L20114-20116), so the check is the round trip: D in memory
/// must be A·B + C, with A row-major, B column-major, C and D row-major (s8 into s32, exact).
#[test]
fn wmma_load_mma_store_computes_the_product_in_memory() {
    let a = |r: usize, c: usize| ((r * 3 + c * 5) % 17) as i64 - 8;
    let b = |r: usize, c: usize| ((r * 7 + c) % 13) as i64 - 6;
    let c = |r: usize, c: usize| r as i64 * 100 - c as i64;
    // in: A (16×16 s8, row-major) at 0, B (16×16 s8, column-major: B[k][n] at 16n + k) at 256,
    // C (16×16 s32, row-major) at 512.
    let mut input = vec![0u8; 512 + 1024];
    for r in 0..16 {
        for k in 0..16 {
            input[16 * r + k] = a(r, k) as i8 as u8;
            input[256 + 16 * r + k] = b(k, r) as i8 as u8;
            input[512 + 4 * (16 * r + k)..516 + 4 * (16 * r + k)].copy_from_slice(&(c(r, k) as i32).to_le_bytes());
        }
    }
    let body = format!(
        "add.s64 %rd7, %rd1, 256;\nadd.s64 %rd8, %rd1, 512;\n\
         wmma.load.a.sync.aligned.row.m16n16k16.global.s8 {{{}}}, [%rd1];\n\
         wmma.load.b.sync.aligned.col.m16n16k16.global.s8 {{{}}}, [%rd7];\n\
         wmma.load.c.sync.aligned.row.m16n16k16.global.s32 {{{}}}, [%rd8], 16;\n\
         wmma.mma.sync.aligned.row.col.m16n16k16.s32.s8.s8.s32 {{{}}}, {{{}}}, {{{}}}, {{{}}};\n\
         wmma.store.d.sync.aligned.row.m16n16k16.global.s32 [%rd2], {{{}}};\n",
        regs(1, 2),
        regs(3, 2),
        regs(5, 8),
        regs(13, 8),
        regs(1, 2),
        regs(3, 2),
        regs(5, 8),
        regs(13, 8)
    );
    let out = run(80, 32, &body, &input, 1024).unwrap_or_else(|e| panic!("{e}"));
    let d = words(&out);
    for r in 0..16 {
        for n in 0..16 {
            let want = c(r, n) + (0..16).map(|k| a(r, k) * b(k, n)).sum::<i64>();
            assert_eq!(d[16 * r + n] as i32 as i64, want, "D[{r}][{n}]");
        }
    }
    // The address must be the same in every lane (L20634).
    let body = "mul.wide.u32 %rd9, %r0, 16;\nadd.s64 %rd9, %rd1, %rd9;\n\
                wmma.load.a.sync.aligned.row.m16n16k16.global.s8 {%r1, %r2}, [%rd9];\n";
    let e = run(80, 32, body, &input, 4).unwrap_err();
    assert!(
        e.to_string()
            .contains("must be the same in every thread of the warp (L20634)"),
        "{e}"
    );
}

/// A `wmma` row needs only the fragment size's alignment (L20400), not its own: f64 `m8n8k4`
/// with A's rows 48 bytes apart (stride 6, fragment 8 bytes) and D's 80 bytes apart (stride 10,
/// fragment 16 bytes) — row starts that are not multiples of the 32- and 64-byte rows.
#[test]
fn wmma_rows_need_only_the_fragment_alignment() {
    let a = |r: usize, k: usize| (r * 4 + k) as f64 - 9.0;
    let b = |k: usize, n: usize| ((k * 3 + n * 5) % 7) as f64 - 3.0;
    // in: A (8×4, row-major, stride 6) at 0, B (4×8, column-major, default stride 4) at 512,
    // C = 0 (8×8, row-major) at 1024.
    let mut input = vec![0u8; 1536];
    for r in 0..8 {
        for k in 0..4 {
            input[8 * (6 * r + k)..8 * (6 * r + k) + 8].copy_from_slice(&a(r, k).to_le_bytes());
        }
    }
    for k in 0..4 {
        for n in 0..8 {
            let at = 512 + 8 * (4 * n + k);
            input[at..at + 8].copy_from_slice(&b(k, n).to_le_bytes());
        }
    }
    let body = ".reg .f64 %fd<8>;\nadd.s64 %rd7, %rd1, 512;\nadd.s64 %rd8, %rd1, 1024;\n\
         wmma.load.a.sync.aligned.row.m8n8k4.global.f64 {%fd0}, [%rd1], 6;\n\
         wmma.load.b.sync.aligned.col.m8n8k4.global.f64 {%fd1}, [%rd7];\n\
         wmma.load.c.sync.aligned.row.m8n8k4.global.f64 {%fd2, %fd3}, [%rd8];\n\
         wmma.mma.sync.aligned.row.col.m8n8k4.f64.f64.f64.f64 {%fd4, %fd5}, {%fd0}, {%fd1}, {%fd2, %fd3};\n\
         wmma.store.d.sync.aligned.row.m8n8k4.global.f64 [%rd2], {%fd4, %fd5}, 10;\n";
    let out = run(80, 32, body, &input, 640).unwrap_or_else(|e| panic!("{e}"));
    for r in 0..8 {
        for n in 0..8 {
            let at = 8 * (10 * r + n);
            let got = f64::from_le_bytes(out[at..at + 8].try_into().unwrap());
            // Small integers: every product and sum is exact in f64.
            let want: f64 = (0..4).map(|k| a(r, k) * b(k, n)).sum();
            assert_eq!(got, want, "D[{r}][{n}]");
        }
    }
}

/// Every dense `mma` and every `wmma.mma` form the oracle executes, on registers of pseudo-random bits under its
/// least target: it runs to the end (no internal error, no panic) and writes every register of
/// D, or stops as not executed; never anything else.
#[test]
fn every_executed_mma_form_runs_on_arbitrary_registers() {
    use spec::catalog::{catalog, fragment, Exec};
    let cat = catalog();
    let (mut ran, mut declined) = (0, 0);
    // (The block-scaled forms, whose scale operands this writer does not form, are declined by
    // the decoder: `spec::tensor::MmaOp::of_form`. The sparse ones need meaningful metadata:
    // `tests/sparse.rs`.)
    let mma = |f: &spec::catalog::Form| match f.exec() {
        Some(Exec::Mma) => !f.has("block_scale") && f.var("sp").is_none(),
        Some(Exec::Wmma) => f.mods.first() == Some(&"mma"),
        _ => false,
    };
    for f in cat.forms.iter().filter(|f| mma(f)) {
        // Operands: each fragment from its own registers (.f64 for f64 fragments).
        let mut decl = String::new();
        let mut init = String::new();
        let mut ops = Vec::new();
        let mut store = String::new();
        let mut next = 0;
        for (k, o) in f.outputs.iter().chain(&f.inputs).enumerate() {
            let n = fragment::length(f, o).unwrap_or(1);
            let (ty, pre) = if o.ty.bits() == 64 { ("b64", "fd") } else { ("b32", "r") };
            let names: Vec<String> = (0..n).map(|j| format!("%{pre}{}", next + j)).collect();
            for (j, r) in names.iter().enumerate() {
                let bits = ((next + j) as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (k as u64) << 7;
                let bits = if ty == "b64" { bits } else { bits & 0xffff_ffff };
                init.push_str(&format!("mov.{ty} {r}, {bits:#x};\n"));
                if k < f.outputs.len() {
                    store.push_str(&format!("st.global.{ty} [%rd1], {r};\n"));
                }
            }
            next += n;
            ops.push(if o.group.is_some() {
                format!("{{{}}}", names.join(", "))
            } else {
                names[0].clone()
            });
        }
        decl.push_str(&format!(".reg .b32 %r<{next}>;\n.reg .b64 %fd<{next}>;\n"));
        let target = f.target.to_string();
        let ptx = format!(
            ".version 8.7\n.target {target}\n.address_size 64\n.visible .entry k(.param .u64 out)\n{{\n\
             .reg .b64 %rd<2>;\n{decl}ld.param.u64 %rd1, [out];\n{init}{} {};\n{store}ret;\n}}\n",
            f.name,
            ops.join(", ")
        );
        let l: LaunchFile = serde_json::from_value(serde_json::json!({
            "ptx": "k.ptx", "entry": "k", "grid": [1, 1, 1], "block": [32, 1, 1],
            "buffers": [{"name": "out", "size": 8}], "params": [{"buffer": "out"}],
            // The manual's forms ptxas 12.9 refuses run too.
            "grammar": "manual",
        }))
        .unwrap();
        let r = std::panic::catch_unwind(|| launch::run(&l, &ptx));
        match r {
            Err(_) => panic!("{}: the oracle panicked\n{ptx}", f.name),
            Ok(Ok(_)) => ran += 1,
            Ok(Err(e)) if e.message.contains("does not execute it yet") => declined += 1,
            Ok(Err(e)) => panic!("{}: {e}\n{ptx}", f.name),
        }
    }
    eprintln!("{ran} mma and wmma.mma forms ran, {declined} declined");
    assert!(ran > 300, "{ran} ran, {declined} declined");
}

/// e2m1 (L1395: sign, 2 exponent bits, 1 mantissa bit, bias 1) of the magnitudes 0, 0.5, 1,
/// 1.5, 2, 3, 4, 6 by index `m` (0..8), negative when `neg`.
fn e2m1(m: usize, neg: bool) -> u8 {
    (m as u8 & 7) | if neg { 8 } else { 0 }
}

fn e2m1_value(m: usize, neg: bool) -> f64 {
    let v = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0][m & 7];
    if neg {
        -v
    } else {
        v
    }
}

/// `mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3`
/// (§9.7.14.3, sm_120a): D = (A·scale_A)·(B·scale_B) + C with scale_A 16×4, scale_B 4×8, each
/// factor scaling 16 consecutive k. Fragments by the manual's formulas (L22527-22531 A: nibble i
/// of 32 is row g + 8·((i/8)%2), column 8t + (i%8) + 32·(i/16); L22567-22571 B: nibble i of 16
/// is row 8t + (i%8) + 32·(i/8), column g). Scale factors (Figures 42-44; the reading of
/// `spec/src/matrix/scale.rs`): with thread-id-a = 1, row r < 8 of scale_A is lane 4r + 2's
/// register, row r + 8 lane 4r + 3's; with thread-id-b = 2, column n of scale_B is lane 4n + 2's;
/// byte v is block v. The other lanes hold the ue4m3 NaN 0x7f, which must not be read. Every
/// product and sum is exact in f32, so D is the exact value.
#[test]
fn mma_block_scale_mxf4nvf4_scales_each_block_of_16() {
    let a = |r: usize, k: usize| ((r * 3 + k * 5) % 8, (r + k).is_multiple_of(3));
    let b = |k: usize, n: usize| ((k * 7 + n) % 8, (k + 2 * n).is_multiple_of(5));
    // ue4m3 (bias 7, 3 mantissa bits): 0x28 = 0.25, 0x38 = 1, 0x3c = 1.5, 0x40 = 2.
    let scales = [0x28u8, 0x38, 0x3c, 0x40];
    let scale_value = [0.25, 1.0, 1.5, 2.0];
    let sa = |r: usize, v: usize| (r + 2 * v) % 4;
    let sb = |v: usize, n: usize| (3 * v + n) % 4;
    let c = |r: usize, n: usize| (r as f64) * 4.0 - n as f64 * 0.5;
    // Per lane: a (4 words), b (2), c (4), scale-a (1), scale-b (1) = 12 words.
    let mut input = vec![0u8; 32 * 12 * 4];
    for lane in 0..32 {
        let (g, t) = (lane / 4, lane % 4);
        let base = lane * 48;
        let mut nib = |word: usize, i: usize, v: u8| input[base + 4 * word + i / 2] |= v << (4 * (i % 2));
        for i in 0..32 {
            let (r, k) = (g + 8 * ((i / 8) % 2), 8 * t + (i % 8) + 32 * (i / 16));
            let (m, neg) = a(r, k);
            nib(i / 8, i % 8, e2m1(m, neg));
        }
        for i in 0..16 {
            let (k, n) = (8 * t + (i % 8) + 32 * (i / 8), g);
            let (m, neg) = b(k, n);
            nib(4 + i / 8, i % 8, e2m1(m, neg));
        }
        for i in 0..4 {
            let v = c(g + 8 * (i / 2), 2 * t + (i % 2)) as f32;
            input[base + 24 + 4 * i..base + 28 + 4 * i].copy_from_slice(&v.to_bits().to_le_bytes());
        }
        let sa_word: [u8; 4] = match t {
            2 => std::array::from_fn(|v| scales[sa(g, v)]),
            3 => std::array::from_fn(|v| scales[sa(g + 8, v)]),
            _ => [0x7f; 4],
        };
        let sb_word: [u8; 4] = if t == 2 {
            std::array::from_fn(|v| scales[sb(v, g)])
        } else {
            [0x7f; 4]
        };
        input[base + 40..base + 44].copy_from_slice(&sa_word);
        input[base + 44..base + 48].copy_from_slice(&sb_word);
    }
    let body = format!(
        "{}{}.reg .b16 %h<4>;\nmov.b16 %h1, 1;\nmov.b16 %h2, 2;\n\
         mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3 \
         {{{}}}, {{{}}}, {{{}}}, {{{}}}, %r11, {{0, %h1}}, %r12, {{0, %h2}};\n{}",
        lane_base(12),
        load_regs(1, 0, 12),
        regs(13, 4),
        regs(1, 4),
        regs(5, 2),
        regs(7, 4),
        store_regs(13, 0, 4)
    );
    let out = run_on("sm_120a", 32, &body, &input, 32 * 48).unwrap_or_else(|e| panic!("{e}"));
    let d = words(&out);
    for lane in 0..32 {
        let (g, t) = (lane / 4, lane % 4);
        for i in 0..4 {
            let (r, n) = (g + 8 * (i / 2), 2 * t + (i % 2));
            let want = c(r, n)
                + (0..64)
                    .map(|k| {
                        let (am, an) = a(r, k);
                        let (bm, bn) = b(k, n);
                        e2m1_value(am, an)
                            * scale_value[sa(r, k / 16)]
                            * e2m1_value(bm, bn)
                            * scale_value[sb(k / 16, n)]
                    })
                    .sum::<f64>();
            assert_eq!(f32::from_bits(d[lane * 12 + i]), want as f32, "lane {lane} d{i}");
        }
    }
}

/// `mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e2m1.e4m3.f32.ue8m0`
/// (§9.7.14.3): one ue8m0 scale factor (2^(e−127), L1407) per row of A and per column of B.
/// A's e2m1 elements sit in the middle four bits of 8-bit containers (L22916; the padding bits
/// set here, which the oracle ignores), B is e4m3; fragments as for s8 (L22372-22376 A: byte i
/// of 16 is row g + 8·((i/4)%2), column 4t + (i%4) + 16·(i/8); L22443-22446 B: byte i of 8 is
/// row 4t + (i%4) + 16·(i/4), column g). Selectors {3, 0} and {1, 1}: scale_A row r < 8 is byte
/// 3 of lane 4r's register, row r + 8 of lane 4r + 1's; scale_B column n byte 1 of lane 4n + 1's.
#[test]
fn mma_block_scale_mxf8f6f4_reads_containers_and_selected_bytes() {
    let a = |r: usize, k: usize| ((r + 3 * k) % 8, (r * k) % 4 == 1);
    // e4m3 (bias 7): small integers and halves, by index.
    let e4m3 = [0x00u8, 0x30, 0x38, 0x3c, 0x40, 0x44, 0x48, 0x4c];
    let e4m3_value = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0];
    let b = |k: usize, n: usize| ((2 * k + 3 * n) % 8, (k + n) % 3 == 2);
    let sa = |r: usize| 120 + (r % 9) as u8; // 2^-7 .. 2^1
    let sb = |n: usize| 125 + (n % 5) as u8; // 2^-2 .. 2^2
    let c = |r: usize, n: usize| 0.25 * (r as f64) - n as f64;
    let mut input = vec![0u8; 32 * 12 * 4];
    for lane in 0..32 {
        let (g, t) = (lane / 4, lane % 4);
        let base = lane * 48;
        for i in 0..16 {
            let (m, neg) = a(g + 8 * ((i / 4) % 2), 4 * t + (i % 4) + 16 * (i / 8));
            input[base + i] = 0b1100_0011 | (e2m1(m, neg) << 2);
        }
        for i in 0..8 {
            let (m, neg) = b(4 * t + (i % 4) + 16 * (i / 4), g);
            input[base + 16 + i] = e4m3[m] | if neg { 0x80 } else { 0 };
        }
        for i in 0..4 {
            let v = c(g + 8 * (i / 2), 2 * t + (i % 2)) as f32;
            input[base + 24 + 4 * i..base + 28 + 4 * i].copy_from_slice(&v.to_bits().to_le_bytes());
        }
        // Unselected bytes and lanes hold the ue8m0 NaN 0xff.
        let mut sa_word = [0xffu8; 4];
        match t {
            0 => sa_word[3] = sa(g),
            1 => sa_word[3] = sa(g + 8),
            _ => {}
        }
        let mut sb_word = [0xffu8; 4];
        if t == 1 {
            sb_word[1] = sb(g);
        }
        input[base + 40..base + 44].copy_from_slice(&sa_word);
        input[base + 44..base + 48].copy_from_slice(&sb_word);
    }
    let body = format!(
        "{}{}mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e2m1.e4m3.f32.ue8m0 \
         {{{}}}, {{{}}}, {{{}}}, {{{}}}, %r11, {{3, 0}}, %r12, {{1, 1}};\n{}",
        lane_base(12),
        load_regs(1, 0, 12),
        regs(13, 4),
        regs(1, 4),
        regs(5, 2),
        regs(7, 4),
        store_regs(13, 0, 4)
    );
    let out = run_on("sm_120a", 32, &body, &input, 32 * 48).unwrap_or_else(|e| panic!("{e}"));
    let d = words(&out);
    let pow2 = |e: u8| 2f64.powi(e as i32 - 127);
    for lane in 0..32 {
        let (g, t) = (lane / 4, lane % 4);
        for i in 0..4 {
            let (r, n) = (g + 8 * (i / 2), 2 * t + (i % 2));
            let dot: f64 = (0..32)
                .map(|k| {
                    let (am, an) = a(r, k);
                    let (bm, bn) = b(k, n);
                    let bv = if bn { -e4m3_value[bm] } else { e4m3_value[bm] };
                    e2m1_value(am, an) * bv
                })
                .sum();
            let want = c(r, n) + dot * pow2(sa(r)) * pow2(sb(n));
            assert_eq!(f32::from_bits(d[lane * 12 + i]), want as f32, "lane {lane} d{i}");
        }
    }
}

/// Table 36 (L20070): with `.scale_vec::2X` (the default of `.kind::mxf4`, L22894) `byte-id-a`
/// is 0 or 2; 1 is undefined behaviour, reported as a runtime error naming the rule.
#[test]
fn mma_block_scale_selector_outside_table_36_is_a_runtime_error() {
    let body = "mma.sync.aligned.m16n8k64.row.col.kind::mxf4.block_scale.f32.e2m1.e2m1.f32.ue8m0 \
                {%r1, %r2, %r3, %r4}, {%r5, %r6, %r7, %r8}, {%r9, %r10}, {%r11, %r12, %r13, %r14}, \
                %r15, {1, 0}, %r16, {0, 0};\n";
    let e = run_on("sm_120a", 32, body, &[0; 4], 4).unwrap_err();
    assert!(
        e.kind == ErrorKind::Runtime && e.to_string().contains("byte-id-a = 1") && e.to_string().contains("L20070"),
        "{e}"
    );
}

/// Every dense block-scaled `mma` form of the catalog (54, sm_120a) decodes and executes on
/// arbitrary fragment and scale registers with the selectors {0, 0}, valid for every
/// `.scale_vec_size` (Table 36, L20070-20104); written as the manual's examples write them
/// (L23296-23331).
#[test]
fn every_block_scaled_mma_form_executes() {
    use spec::catalog::{catalog, fragment};
    let cat = catalog();
    let mut ran = 0;
    for f in cat
        .forms
        .iter()
        .filter(|f| spec::tensor::scaled::ScaledOp::of_form(f).is_some() && f.var("sp").is_none())
    {
        let frag = |name: &str| {
            let o = f.outputs.iter().chain(&f.inputs).find(|o| o.name == name).unwrap();
            fragment::length(f, o).unwrap()
        };
        let mut next = 0;
        let mut group = |n: usize| {
            let v: Vec<String> = (next..next + n).map(|j| format!("%r{j}")).collect();
            next += n;
            format!("{{{}}}", v.join(", "))
        };
        let (d, a, b, c) = (group(frag("d")), group(frag("a")), group(frag("b")), group(frag("c")));
        let init: String = (0..next + 2)
            .map(|j| format!("mov.b32 %r{j}, {:#x};\n", (j as u64 * 0x9e37_79b9) & 0xffff_ffff))
            .collect();
        let ptx = format!(
            ".version 8.7\n.target sm_120a\n.address_size 64\n.visible .entry k()\n{{\n.reg .b32 %r<64>;\n\
             {init}{} {d}, {a}, {b}, {c}, %r{}, {{0, 0}}, %r{}, {{0, 0}};\nret;\n}}\n",
            f.name,
            next,
            next + 1
        );
        let l: LaunchFile = serde_json::from_value(serde_json::json!({
            "ptx": "k.ptx", "entry": "k", "grid": [1, 1, 1], "block": [32, 1, 1],
            "buffers": [], "params": [],
        }))
        .unwrap();
        launch::run(&l, &ptx).unwrap_or_else(|e| panic!("{}: {e}\n{ptx}", f.name));
        ran += 1;
    }
    assert_eq!(ran, 54);
}

/// The sm_100a `ldmatrix` shapes (§9.7.14.5.15; fragment layouts in Fig. 104-105 only, read as
/// `spec/src/matrix/wide.rs` documents): lane l gives the address of tile row l (16 bytes), so
/// row r of matrix j is tile row R·j + r (R = 16 for .m16n16, 8 for .m8n16). With g = l/4,
/// t = l%4:
/// - `.m16n16.x2.trans.b8`: register 2j + q, byte b = tile row 16j + 4t + 2q + (b & 1), byte
///   g + 8·(b >> 1) ("4 consecutive columns spanning 2 rows" of the transpose, L23485);
/// - `.m8n16.x4.b8x16.b4x16_p64`: register j, byte b = unpacked element 4t + b of tile row
///   8j + g (L23491-23493), a 4-bit element i being bits 4i..4i+4 of the row, placed in bits
///   2..6 of its byte (the `.kind::f8f6f4` container, L22916);
/// - `.m8n16.x1.b8x16.b6x16_p32`: the same with 6-bit elements at bits 6i.., in bits 0..6.
#[test]
fn ldmatrix_sm100_shapes_move_the_figures_elements() {
    let tile: Vec<u8> = (0..512).map(|i| ((i * 37 + 11) % 251) as u8).collect();
    let row = |r: usize| -> [u8; 16] { tile[16 * r..16 * r + 16].try_into().unwrap() };
    let nibble = |r: usize, i: usize| (row(r)[i / 2] >> (4 * (i % 2))) & 0xf;
    let six = |r: usize, i: usize| ((u128::from_le_bytes(row(r)) >> (6 * i)) & 0x3f) as u8;
    let copy = "mov.u32 %r40, tile;\n\
         mul.wide.u32 %rd7, %r0, 16;\nadd.s64 %rd8, %rd1, %rd7;\n\
         ld.global.v4.b32 {%r41, %r42, %r43, %r44}, [%rd8];\n\
         shl.b32 %r45, %r0, 4;\nadd.u32 %r46, %r40, %r45;\n\
         st.shared.v4.b32 [%r46], {%r41, %r42, %r43, %r44};\n\
         bar.sync 0;\n";
    // (form, registers, byte b of register `reg` of lane `l`).
    type Want<'a> = &'a dyn Fn(usize, usize, usize) -> u8;
    let cases: [(&str, usize, Want); 3] = [
        ("ldmatrix.sync.aligned.m16n16.x2.trans.shared.b8", 4, &|l, reg, b| {
            let (g, t, j, q) = (l / 4, l % 4, reg / 2, reg % 2);
            row(16 * j + 4 * t + 2 * q + (b & 1))[g + 8 * (b >> 1)]
        }),
        (
            "ldmatrix.sync.aligned.m8n16.x4.shared.b8x16.b4x16_p64",
            4,
            &|l, j, b| nibble(8 * j + l / 4, 4 * (l % 4) + b) << 2,
        ),
        (
            "ldmatrix.sync.aligned.m8n16.x1.shared::cta.b8x16.b6x16_p32",
            1,
            &|l, j, b| six(8 * j + l / 4, 4 * (l % 4) + b),
        ),
    ];
    for (name, n, want) in cases {
        let body = format!(
            "{}{copy}{name} {{{}}}, [%r46];\n{}",
            lane_base(4),
            regs(11, n as u32),
            store_regs(11, 0, n as u32)
        );
        let out = run_on("sm_100a", 32, &body, &tile, 32 * 16).unwrap_or_else(|e| panic!("{name}: {e}"));
        let d = words(&out);
        for l in 0..32 {
            for reg in 0..n {
                let w = u32::from_le_bytes(std::array::from_fn(|b| want(l, reg, b)));
                assert_eq!(d[l * 4 + reg], w, "{name}: lane {l} r{reg}");
            }
        }
    }
}

/// `stmatrix.sync.aligned.m16n8.x2.trans.shared.b8` (§9.7.14.5.16; Fig. 107 only): register j
/// of lane l holds e0..e3 (e0 the low byte, L23653) = elements (g, 2t), (g, 2t+1), (g+8, 2t),
/// (g+8, 2t+1) of the 16×8 matrix j (the `mma` m16n8 C/D layout, L22485-22488), stored
/// column-major (`.trans`, L23659): memory row 2t + (b & 1) of matrix j (the address of lane
/// 8j + 2t + (b & 1)), byte g + 8·(b >> 1). Lane l's address is row l of the upper half of
/// `tile`. Also: `.m16n16` without `.trans` is invalid (L23499), a runtime error.
#[test]
fn stmatrix_m16n8_stores_the_c_layout_transposed() {
    let reg = |l: usize, j: usize| (0x0101_0101u32).wrapping_mul((l * 2 + j) as u32) ^ 0x8040_2010;
    let mut input = vec![0u8; 32 * 2 * 4];
    for l in 0..32 {
        for j in 0..2 {
            input[8 * l + 4 * j..8 * l + 4 * j + 4].copy_from_slice(&reg(l, j).to_le_bytes());
        }
    }
    let body = format!(
        "{}{}mov.u32 %r40, tile;\nshl.b32 %r45, %r0, 4;\nadd.u32 %r46, %r40, %r45;\nadd.u32 %r47, %r46, 512;\n\
         stmatrix.sync.aligned.m16n8.x2.trans.shared.b8 [%r47], {{%r11, %r12}};\n\
         bar.sync 0;\nld.shared.v4.b32 {{%r41, %r42, %r43, %r44}}, [%r47];\n\
         mul.wide.u32 %rd9, %r0, 16;\nadd.s64 %rd10, %rd2, %rd9;\n\
         st.global.v4.b32 [%rd10], {{%r41, %r42, %r43, %r44}};\n",
        lane_base(2),
        load_regs(11, 0, 2)
    );
    let out = run_on("sm_100a", 32, &body, &input, 32 * 16).unwrap_or_else(|e| panic!("{e}"));
    let mut want = vec![0u8; 32 * 16];
    for l in 0..32 {
        let (g, t) = (l / 4, l % 4);
        for j in 0..2 {
            for b in 0..4 {
                let mem_row = 8 * j + 2 * t + (b & 1);
                want[16 * mem_row + g + 8 * (b >> 1)] = reg(l, j).to_le_bytes()[b];
            }
        }
    }
    // Rows 0..16 were written; lanes 16..31 read back the untouched (zero) rows after them.
    assert_eq!(out, want);
    // The manual forbids `.m16n16` without `.trans` (L23499): the type checker refuses it under
    // the manual's grammar too (as ptxas 12.9 does), at the instruction, naming the rule.
    let ptx = ".version 8.7\n.target sm_100a\n.address_size 64\n.shared .align 16 .b8 tile[256];\n\
               .visible .entry k()\n{\n.reg .b32 %r<4>;\nmov.u32 %r0, tile;\n\
               ldmatrix.sync.aligned.m16n16.x1.shared.b8 {%r1, %r2}, [%r0];\nret;\n}\n";
    let l: LaunchFile = serde_json::from_value(serde_json::json!({
        "ptx": "k.ptx", "entry": "k", "grid": [1, 1, 1], "block": [32, 1, 1],
        "buffers": [], "params": [], "grammar": "manual",
    }))
    .unwrap();
    let e = launch::run(&l, ptx).unwrap_err();
    assert!(
        e.kind == ErrorKind::Type && e.loc.map(|(l, _)| l) == Some(9) && e.to_string().contains("L23499"),
        "{e}"
    );
}

/// Every sm_100a `ldmatrix`/`stmatrix` form of the catalog (72) executes under the manual's
/// grammar: the valid ones move their rows (lane l's address is row l of `tile`, through a
/// generic address where no state space is written), the ones the text calls invalid
/// (`.m16n16` `.x4`, L23425; no `.trans` on `.m16n16`/`.m16n8`, L23499/L23659) are refused by
/// the type checker, under either grammar, with an error at the instruction's line naming the
/// rule (`spec::matrix::wide::forbidden`).
#[test]
fn every_sm100_ldmatrix_and_stmatrix_form_executes_or_breaks_its_rule() {
    use spec::catalog::{catalog, fragment};
    use spec::matrix::wide::WideAccess;
    let cat = catalog();
    let (mut ran, mut invalid) = (0, 0);
    for f in cat.forms.iter() {
        let Ok(acc) = WideAccess::of(f) else { continue };
        let o = f.outputs.iter().chain(&f.inputs).find(|o| o.name == "r").unwrap();
        let r = format!("{{{}}}", regs(1, fragment::length(f, o).unwrap() as u32));
        let generic = f.var("ss") == Some("");
        let addr = if generic {
            "mov.u64 %rd2, tile;\ncvta.shared.u64 %rd2, %rd2;\n"
        } else {
            "mov.u64 %rd2, tile;\n"
        };
        let op = if f.opcode == "ldmatrix" {
            format!("{} {r}, [%rd3];", f.name)
        } else {
            format!("{} [%rd3], {r};", f.name)
        };
        let ptx = format!(
            ".version 8.7\n.target sm_100a\n.address_size 64\n.shared .align 16 .b8 tile[1024];\n\
             .visible .entry k()\n{{\n.reg .b32 %r<16>;\n.reg .b64 %rd<4>;\n{addr}\
             mov.u32 %r0, %tid.x;\nmul.wide.u32 %rd1, %r0, 16;\nadd.s64 %rd3, %rd2, %rd1;\n\
             mov.b32 %r1, 1;\nmov.b32 %r2, 2;\nmov.b32 %r3, 3;\nmov.b32 %r4, 4;\n{op}\nret;\n}}\n"
        );
        let l: LaunchFile = serde_json::from_value(serde_json::json!({
            "ptx": "k.ptx", "entry": "k", "grid": [1, 1, 1], "block": [32, 1, 1],
            "buffers": [], "params": [], "grammar": "manual",
        }))
        .unwrap();
        let at = ptx.lines().position(|x| x == op).unwrap() + 1;
        match (launch::run(&l, &ptx), acc.invalid()) {
            (Ok(_), None) => ran += 1,
            (Err(e), Some(rule))
                if e.kind == ErrorKind::Type
                    && e.message.contains(rule)
                    && e.loc.map(|(l, _)| l as usize) == Some(at) =>
            {
                invalid += 1
            }
            (r, rule) => panic!("{}: {:?} (rule {rule:?})\n{ptx}", f.name, r.map(|_| ())),
        }
    }
    assert_eq!((ran, invalid), (45, 27));
}

/// `mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m1.e2m1.f32` (dense, sm_120a): an e2m1
/// element sits in the middle four bits of its 8-bit container (L22916). Every A and B element
/// is 1.0 (0b0010 → container 0x08; the padding bits are set in B, 0b11_0010_11): each D
/// element is C + 32.
#[test]
fn mma_f8f6f4_reads_e2m1_from_the_middle_of_its_container() {
    let mut input = vec![0u8; 32 * 10 * 4];
    for lane in 0..32 {
        let base = lane * 40;
        input[base..base + 16].fill(0x08);
        input[base + 16..base + 24].fill(0b1100_1011);
        for i in 0..4 {
            input[base + 24 + 4 * i..base + 28 + 4 * i].copy_from_slice(&(i as f32).to_bits().to_le_bytes());
        }
    }
    let body = format!(
        "{}{}mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m1.e2m1.f32 {{{}}}, {{{}}}, {{{}}}, {{{}}};\n{}",
        lane_base(10),
        load_regs(1, 0, 10),
        regs(11, 4),
        regs(1, 4),
        regs(5, 2),
        regs(7, 4),
        store_regs(11, 0, 4)
    );
    let out = run_on("sm_120a", 32, &body, &input, 32 * 40).unwrap_or_else(|e| panic!("{e}"));
    let d = words(&out);
    for lane in 0..32 {
        for i in 0..4 {
            assert_eq!(f32::from_bits(d[lane * 10 + i]), i as f32 + 32.0, "lane {lane} d{i}");
        }
    }
}
