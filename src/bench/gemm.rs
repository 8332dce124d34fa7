//! `ptxconf bench mma`: a square GEMM `D = A × B` on the oracle with
//! `mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32`, against a native f32 GEMM of the same
//! size over the same inputs, timed in the same run.
//!
//! Each warp (one per CTA) computes a 32×32 tile of D as 2×4 fragments of 16×8, looping over K
//! in steps of 16: per step it loads 8 A registers and 8 B registers straight from global memory
//! and issues 8 `mma`s, the accumulators staying in registers. The fragments are read where the
//! manual's `m16n8k16` f16 layouts put them (groupID g = lane/4, threadID_in_group t = lane%4;
//! L22045-22052 for A, L22109-22115 for B, as in oracle/tests/matrix.rs): A register q holds
//! row g + 8·(q%2), columns 2t + 8·(q/2) and the next one, so with A row-major (M×K, f16) each
//! register is one aligned 32-bit load; B register q holds rows 2t + 8q and the next one of
//! column g, so B is stored column-major (K×N as N rows of K, the `.col` of the instruction) and
//! each register is again one 32-bit load; D element i is row g + 8·(i/2), column 2t + i%2, so
//! each pair is one `st.global.v2.f32`. Loading directly (rather than through shared memory and
//! `ldmatrix`) keeps the kernel to loads and `mma`s: the benchmark measures the interpreter's
//! `mma`, not a staging copy and barriers.
//!
//! The inputs are integers in -4..=4 (exact in f16); every product and partial sum is an integer
//! below 2^24 in magnitude (|Σ| ≤ 16·K), exact in f32 and in every accumulation the tensor-core
//! model allows, so the oracle's D must equal the native GEMM's bit for bit (exact zeros are +0
//! on both sides: the accumulator starts at +0).

use super::BenchError;
use oracle::exec::{Launch, Limits, Machine};
use std::fmt::Write as _;
use std::time::Instant;

/// The largest `--size`: keeps |D| ≤ 16·K far below 2^24 and the buffers within the oracle's
/// default memory limit.
pub(super) const MAX_SIZE: u32 = 4096;

/// The instruction every warp issues 8 times per k-step.
const MMA: &str = "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32";

/// The kernel for `size`³ (K, N and the loop count are immediates), and how many instructions
/// each warp executes before, in each iteration of, and after its k loop.
struct Kernel {
    text: String,
    prologue: u64,
    step: u64,
    epilogue: u64,
}

/// Counts the instruction lines (those ending in `;`, labels and directives excluded).
pub(super) fn instructions(lines: &str) -> u64 {
    lines
        .lines()
        .filter(|l| l.trim_end().ends_with(';') && !l.trim_start().starts_with('.'))
        .count() as u64
}

fn kernel(size: u32) -> Kernel {
    let (n, k) = (size, size);
    let mut prologue = String::from(
        "ld.param.u64 %rd1, [a];\n\
         ld.param.u64 %rd2, [b];\n\
         ld.param.u64 %rd3, [d];\n\
         mov.u32 %r1, %tid.x;\n\
         shr.u32 %r2, %r1, 2;\n\
         and.b32 %r3, %r1, 3;\n\
         shl.b32 %r3, %r3, 1;\n\
         mov.u32 %r4, %ctaid.y;\n\
         shl.b32 %r4, %r4, 5;\n\
         mov.u32 %r5, %ctaid.x;\n\
         shl.b32 %r5, %r5, 5;\n\
         add.u32 %r6, %r4, %r2;\n",
    );
    // %rd4: A at (tile row + g, 2t); %rd5: B at (row 2t, tile column + g), column-major;
    // %rd6: D at (tile row + g, tile column + 2t).
    write!(
        prologue,
        "mad.lo.u32 %r7, %r6, {k}, %r3;\n\
         mul.wide.u32 %rd4, %r7, 2;\n\
         add.s64 %rd4, %rd1, %rd4;\n\
         add.u32 %r8, %r5, %r2;\n\
         mad.lo.u32 %r9, %r8, {k}, %r3;\n\
         mul.wide.u32 %rd5, %r9, 2;\n\
         add.s64 %rd5, %rd2, %rd5;\n\
         mad.lo.u32 %r10, %r6, {n}, %r5;\n\
         add.u32 %r10, %r10, %r3;\n\
         mul.wide.u32 %rd6, %r10, 4;\n\
         add.s64 %rd6, %rd3, %rd6;\n"
    )
    .unwrap();
    for i in 0..32 {
        writeln!(prologue, "mov.f32 %f{i}, 0f00000000;").unwrap();
    }
    prologue.push_str("mov.u32 %r11, 0;\n");

    // A fragment of row block mi (16 rows): %r{20 + 4mi + q}; B fragment of column block nj
    // (8 columns): %r{30 + 2nj + q}; D fragment (mi, nj): %f{4(4mi + nj)}..+4.
    let mut step = String::new();
    for mi in 0..2u32 {
        for q in 0..4u32 {
            let off = ((16 * mi + 8 * (q % 2)) * k + 8 * (q / 2)) * 2;
            writeln!(step, "ld.global.b32 %r{}, [%rd4+{off}];", 20 + 4 * mi + q).unwrap();
        }
    }
    for nj in 0..4u32 {
        for q in 0..2u32 {
            let off = (8 * nj * k + 8 * q) * 2;
            writeln!(step, "ld.global.b32 %r{}, [%rd5+{off}];", 30 + 2 * nj + q).unwrap();
        }
    }
    for mi in 0..2u32 {
        for nj in 0..4u32 {
            let d = 4 * (4 * mi + nj);
            let dregs = format!("%f{}, %f{}, %f{}, %f{}", d, d + 1, d + 2, d + 3);
            let a = 20 + 4 * mi;
            let b = 30 + 2 * nj;
            writeln!(
                step,
                "{MMA} {{{dregs}}}, {{%r{}, %r{}, %r{}, %r{}}}, {{%r{}, %r{}}}, {{{dregs}}};",
                a,
                a + 1,
                a + 2,
                a + 3,
                b,
                b + 1
            )
            .unwrap();
        }
    }
    write!(
        step,
        "add.s64 %rd4, %rd4, 32;\n\
         add.s64 %rd5, %rd5, 32;\n\
         add.u32 %r11, %r11, 1;\n\
         setp.lt.u32 %p1, %r11, {};\n\
         @%p1 bra $L_k;\n",
        k / 16
    )
    .unwrap();

    let mut epilogue = String::new();
    for mi in 0..2u32 {
        for nj in 0..4u32 {
            let d = 4 * (4 * mi + nj);
            for half in 0..2u32 {
                let off = ((16 * mi + 8 * half) * n + 8 * nj) * 4;
                let (x, y) = (d + 2 * half, d + 2 * half + 1);
                writeln!(epilogue, "st.global.v2.f32 [%rd6+{off}], {{%f{x}, %f{y}}};").unwrap();
            }
        }
    }
    epilogue.push_str("ret;\n");

    let text = format!(
        ".version 7.0\n.target sm_80\n.address_size 64\n\n\
         .visible .entry gemm(.param .u64 a, .param .u64 b, .param .u64 d)\n{{\n\
         .reg .pred %p<2>;\n.reg .b32 %r<40>;\n.reg .f32 %f<32>;\n.reg .b64 %rd<8>;\n\n\
         {prologue}$L_k:\n{step}{epilogue}}}\n"
    );
    Kernel {
        prologue: instructions(&prologue),
        step: instructions(&step),
        epilogue: instructions(&epilogue),
        text,
    }
}

/// A small integer (|v| < 2048) as f16 bits.
fn f16_of_int(v: i32) -> u16 {
    if v == 0 {
        return 0;
    }
    let sign = if v < 0 { 0x8000 } else { 0 };
    let m = v.unsigned_abs();
    let e = 31 - m.leading_zeros(); // floor(log2 m)
    sign | (((e + 15) << 10) | ((m << (10 - e)) & 0x3ff)) as u16
}

/// f16 bits as f32 (every finite f16 is exact in f32).
fn f32_of_f16(h: u16) -> f32 {
    let sign = if h & 0x8000 != 0 { -1.0f32 } else { 1.0 };
    let (e, m) = ((h >> 10) & 0x1f, (h & 0x3ff) as f32);
    sign * match e {
        0 => m * (-24f32).exp2(),
        31 if m == 0.0 => f32::INFINITY,
        31 => f32::NAN,
        _ => (1.0 + m / 1024.0) * (e as f32 - 15.0).exp2(),
    }
}

/// `n`×`n` integers in -4..=4 from a fixed LCG, as f16 bits.
fn inputs(n: usize, seed: u32) -> Vec<u16> {
    let mut x = seed;
    (0..n * n)
        .map(|_| {
            x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            f16_of_int((x >> 16) as i32 % 9 - 4)
        })
        .collect()
}

/// The native f32 GEMM: `a` row-major M×K, `b` row-major K×N, D row-major M×N (i-k-j order,
/// the inner loop over contiguous rows of B and D).
fn native_gemm(n: usize, a: &[f32], b: &[f32]) -> Vec<f32> {
    let mut d = vec![0f32; n * n];
    for i in 0..n {
        let row = &mut d[i * n..(i + 1) * n];
        for kk in 0..n {
            let aik = a[i * n + kk];
            for (dj, bj) in row.iter_mut().zip(&b[kk * n..(kk + 1) * n]) {
                *dj += aik * bj;
            }
        }
    }
    d
}

/// Multiplies two `size`×`size` f16 matrices (integers in -4..=4) on the oracle with
/// `mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32`, one warp per 32×32 tile of D, and natively
/// as an f32 GEMM; checks that both give the same bits and the oracle the expected instruction
/// count, and returns the report's lines. `size` is a positive multiple of 32 up to 4096.
pub fn mma(size: u32) -> Result<String, BenchError> {
    if size == 0 || !size.is_multiple_of(32) || size > MAX_SIZE {
        return Err(BenchError::Size { size });
    }
    let n = size as usize;
    let a = inputs(n, 0x1234_5678); // row-major: a[i·K + k]
    let bt = inputs(n, 0x9abc_def0); // column-major B: bt[j·K + k] = B[k][j]

    let kern = kernel(size);
    let module = oracle::parse::parse(&kern.text).map_err(BenchError::Parse)?;
    let prog = oracle::check::check(&module).map_err(BenchError::Check)?;
    let mut m = Machine::new(&prog).map_err(BenchError::Load)?;
    let bytes = |v: &[u16]| v.iter().flat_map(|h| h.to_le_bytes()).collect::<Vec<u8>>();
    let pa = m.alloc("a", bytes(&a)).map_err(BenchError::Load)?;
    let pb = m.alloc("b", bytes(&bt)).map_err(BenchError::Load)?;
    let pd = m.alloc("d", vec![0u8; n * n * 4]).map_err(BenchError::Load)?;
    let mut params = pa.to_le_bytes().to_vec();
    params.extend_from_slice(&pb.to_le_bytes());
    params.extend_from_slice(&pd.to_le_bytes());
    let tiles = size / 32;
    let launch = Launch {
        entry: "gemm".into(),
        grid: [tiles, tiles, 1],
        block: [32, 1, 1],
        params,
        dyn_shared: 0,
        cluster: None,
        limits: Limits::default(),
    };
    let t0 = Instant::now();
    let stats = m.run(&launch).map_err(BenchError::Run)?;
    let t_oracle = t0.elapsed().as_secs_f64();

    // The same f16 values as f32, B transposed to row-major for the native loop order.
    let af: Vec<f32> = a.iter().map(|&h| f32_of_f16(h)).collect();
    let mut bf = vec![0f32; n * n];
    for j in 0..n {
        for kk in 0..n {
            bf[kk * n + j] = f32_of_f16(bt[j * n + kk]);
        }
    }
    // Repeated until 50 ms have passed (a small GEMM takes microseconds): the mean per run.
    let t1 = Instant::now();
    let mut runs = 0u32;
    let native = loop {
        let d = native_gemm(n, std::hint::black_box(&af), std::hint::black_box(&bf));
        runs += 1;
        if t1.elapsed().as_secs_f64() >= 0.05 {
            break d;
        }
    };
    let t_native = t1.elapsed().as_secs_f64() / runs as f64;

    let got = m.buffer(pd).unwrap_or_default();
    for (idx, (chunk, want)) in got.chunks_exact(4).zip(&native).enumerate() {
        let bits = u32::from_le_bytes(chunk.try_into().unwrap_or_default());
        if bits != want.to_bits() {
            return Err(BenchError::GemmDiffers {
                row: (idx / n) as u32,
                col: (idx % n) as u32,
                oracle: bits,
                native: want.to_bits(),
            });
        }
    }
    let warps = (tiles as u64).pow(2);
    let steps = size as u64 / 16;
    let expected = 32 * warps * (kern.prologue + steps * kern.step + kern.epilogue);
    if stats.thread_instructions != expected {
        return Err(BenchError::InstructionCount {
            executed: stats.thread_instructions,
            expected,
        });
    }
    let mmas = warps * steps * 8;
    let macs = (size as u64).pow(3) as f64;
    Ok(format!(
        "mma:    {size}x{size}x{size} GEMM, f16 inputs, f32 accumulation: {warps} warps x {steps} k-steps x 8 = {mmas} warp-level {MMA}\n\
         oracle: {:.3} s, {:.2} M multiply-adds/s ({} warp-instructions in all)\n\
         native: {:.6} s, {:.2} M multiply-adds/s (f32 GEMM over the same inputs, mean of {runs} runs; D bit-identical)\n\
         ratio:  oracle is {:.0}x slower than native\n",
        t_oracle,
        macs / t_oracle / 1e6,
        stats.warp_instructions,
        t_native,
        macs / t_native.max(1e-9) / 1e6,
        t_oracle / t_native.max(1e-9),
    ))
}

/// The suite's `gemm` benchmark: [`mma()`]'s kernel, inputs and native GEMM (D compared bit for
/// bit, the instruction count checked).
pub(super) fn workload(size: super::suite::Size) -> super::suite::Workload {
    use super::suite::{Arg, Rule, Size, Twin, Workload};
    let size = match size {
        Size::Full => 256u32,
        Size::Quick => 64,
    };
    let n = size as usize;
    let a = inputs(n, 0x1234_5678);
    let bt = inputs(n, 0x9abc_def0);
    let kern = kernel(size);
    let tiles = size / 32;
    let warps = (tiles as u64).pow(2);
    let steps = size as u64 / 16;
    let expected = 32 * warps * (kern.prologue + steps * kern.step + kern.epilogue);
    let bytes = |v: &[u16]| v.iter().flat_map(|h| h.to_le_bytes()).collect::<Vec<u8>>();
    Workload {
        shape: format!("{size}x{size}x{size} GEMM, f16 in, f32 accumulate; {warps} warps x {steps} k-steps x 8 mma"),
        ptx: kern.text,
        entry: "gemm",
        grid: [tiles, tiles, 1],
        block: [32, 1, 1],
        dyn_shared: 0,
        buffers: vec![bytes(&a), bytes(&bt), vec![0u8; n * n * 4]],
        args: vec![Arg::Buffer(0), Arg::Buffer(1), Arg::Buffer(2)],
        checks: vec![(2, "d", Rule::Exact)],
        // The twin converts the f16 inputs and transposes B as `mma()`'s native side does, so the
        // time covers the same work.
        native: Box::new(move |_| {
            let af: Vec<f32> = a.iter().map(|&h| f32_of_f16(h)).collect();
            let mut bf = vec![0f32; n * n];
            for j in 0..n {
                for kk in 0..n {
                    bf[kk * n + j] = f32_of_f16(bt[j * n + kk]);
                }
            }
            let d = native_gemm(n, &af, &bf);
            Twin {
                outputs: vec![d.iter().flat_map(|x| x.to_bits().to_le_bytes()).collect()],
                instructions: Some(expected),
            }
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f16_round_trips_small_integers() {
        for v in -2047..=2047 {
            assert_eq!(f32_of_f16(f16_of_int(v)), v as f32, "{v}");
        }
        assert_eq!(f32_of_f16(0x0001), (-24f32).exp2());
    }

    #[test]
    fn a_one_tile_gemm_matches_the_native_one() {
        let report = mma(32).unwrap_or_else(|e| panic!("{e}"));
        assert!(report.contains("1 warps x 2 k-steps x 8 = 16 warp-level"), "{report}");
    }

    #[test]
    fn sizes_must_be_multiples_of_32() {
        assert_eq!(mma(48), Err(BenchError::Size { size: 48 }));
        assert_eq!(mma(0), Err(BenchError::Size { size: 0 }));
    }
}
