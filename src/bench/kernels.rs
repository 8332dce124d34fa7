//! The suite's hand-written kernels, each with its native twin: `int-heavy`, `float-heavy`,
//! `divergent` and `memory`. Every instruction used is exactly determined by the manual (no
//! approximate forms), so the twin's bytes must equal the oracle's; each kernel's text is built
//! from named blocks whose instruction counts ([`instructions`]) give the thread-instructions the
//! twin expects.

use super::gemm::instructions;
use super::suite::{Arg, Rule, Size, Twin, Workload};

const HEADER: &str = ".version 7.0\n.target sm_80\n.address_size 64\n\n";

/// The global thread index `%r4` = ctaid.x · ntid.x + tid.x (4 instructions).
const GID: &str = "mov.u32 %r1, %tid.x;\n\
                   mov.u32 %r2, %ctaid.x;\n\
                   mov.u32 %r3, %ntid.x;\n\
                   mad.lo.s32 %r4, %r2, %r3, %r1;\n";

/// (CTAs of 128 threads, loop iterations) of the loop kernels.
fn loop_size(size: Size, full_iters: u32) -> (u32, u32) {
    match size {
        Size::Full => (32, full_iters),
        Size::Quick => (2, 16),
    }
}

// ---------------------------------------------------------------------------------------------
// int-heavy

const INT_PRO: &str = "ld.param.u64 %rd1, [out];\n\
                       ld.param.u32 %r19, [iters];\n";
const INT_SEED: &str = "mul.lo.u32 %r5, %r4, -1640531527;\n\
                        xor.b32 %r6, %r4, -2048144789;\n\
                        mov.u32 %r7, 0;\n\
                        mov.u32 %r18, 0;\n";
/// h = mulhi(h, c1) ^ mullo(h, c2); g rotated by h; a byte permutation of (g', h) selected by g
/// (sign-replicating selectors included); popc, bfe, brev, clz folded into acc and g.
const INT_BODY: &str = "mul.hi.u32 %r8, %r5, -862048943;\n\
                        mul.lo.u32 %r9, %r5, 461845907;\n\
                        xor.b32 %r5, %r8, %r9;\n\
                        shf.l.wrap.b32 %r10, %r6, %r6, %r5;\n\
                        prmt.b32 %r11, %r10, %r5, %r6;\n\
                        popc.b32 %r12, %r11;\n\
                        bfe.u32 %r13, %r5, 7, 9;\n\
                        brev.b32 %r14, %r11;\n\
                        clz.b32 %r15, %r14;\n\
                        add.u32 %r7, %r7, %r12;\n\
                        add.u32 %r7, %r7, %r15;\n\
                        xor.b32 %r6, %r14, %r13;\n\
                        add.u32 %r6, %r6, %r7;\n\
                        add.u32 %r18, %r18, 1;\n\
                        setp.lt.u32 %p1, %r18, %r19;\n\
                        @%p1 bra $L_loop;\n";
const INT_EPI: &str = "mul.wide.u32 %rd2, %r4, 12;\n\
                       add.s64 %rd3, %rd1, %rd2;\n\
                       st.global.u32 [%rd3], %r5;\n\
                       st.global.u32 [%rd3+4], %r6;\n\
                       st.global.u32 [%rd3+8], %r7;\n\
                       ret;\n";

/// `prmt.b32` without a mode (the manual's default): byte i of the result is byte `c[4i+2:4i]`
/// of {b, a} (a's bytes 0-3, b's 4-7), or that byte's sign replicated when `c[4i+3]` is set.
fn prmt(a: u32, b: u32, c: u32) -> u32 {
    let bytes = (((b as u64) << 32) | a as u64).to_le_bytes();
    (0..4).fold(0u32, |d, i| {
        let s = (c >> (4 * i)) & 0xf;
        let mut byte = bytes[(s & 7) as usize];
        if s & 8 != 0 {
            byte = if byte & 0x80 != 0 { 0xff } else { 0 };
        }
        d | (byte as u32) << (8 * i)
    })
}

fn int_thread(gid: u32, iters: u32) -> [u32; 3] {
    let mut h = gid.wrapping_mul(0x9e37_79b9);
    let mut g = gid ^ 0x85eb_ca6b;
    let mut acc = 0u32;
    for _ in 0..iters {
        let hi = ((h as u64 * 0xcc9e_2d51u64) >> 32) as u32;
        h = hi ^ h.wrapping_mul(0x1b87_3593);
        let rot = g.rotate_left(h & 31);
        let p = prmt(rot, h, g);
        let field = (h >> 7) & 0x1ff;
        let rev = p.reverse_bits();
        acc = acc.wrapping_add(p.count_ones()).wrapping_add(rev.leading_zeros());
        g = (rev ^ field).wrapping_add(acc);
    }
    [h, g, acc]
}

/// The `int-heavy` benchmark.
pub(super) fn int_heavy(size: Size) -> Workload {
    let (ctas, iters) = loop_size(size, 2000);
    let threads = ctas * 128;
    let ptx = format!(
        "{HEADER}.visible .entry int_heavy(.param .u64 out, .param .u32 iters)\n{{\n\
         .reg .pred %p<2>;\n.reg .b32 %r<20>;\n.reg .b64 %rd<4>;\n\
         {INT_PRO}{GID}{INT_SEED}$L_loop:\n{INT_BODY}{INT_EPI}}}\n"
    );
    let outside = instructions(INT_PRO) + instructions(GID) + instructions(INT_SEED) + instructions(INT_EPI);
    let per_thread = outside + iters as u64 * instructions(INT_BODY);
    Workload {
        shape: format!("{threads} threads x {iters} iterations (CTAs of 128)"),
        ptx,
        entry: "int_heavy",
        grid: [ctas, 1, 1],
        block: [128, 1, 1],
        dyn_shared: 0,
        buffers: vec![vec![0u8; threads as usize * 12]],
        args: vec![Arg::Buffer(0), Arg::B32(iters)],
        checks: vec![(0, "out", Rule::Exact)],
        native: Box::new(move |_| Twin {
            outputs: vec![(0..threads)
                .flat_map(|t| int_thread(t, iters))
                .flat_map(u32::to_le_bytes)
                .collect()],
            instructions: Some(threads as u64 * per_thread),
        }),
    }
}

// ---------------------------------------------------------------------------------------------
// float-heavy

const FLT_PRO: &str = "ld.param.u64 %rd1, [out];\n\
                       ld.param.u32 %r9, [iters];\n";
/// x = ((gid mod 2^15) + 0.5) · 2^-15 in (0, 1); the f64 state y starts at x.
const FLT_SEED: &str = "and.b32 %r5, %r4, 32767;\n\
                        cvt.rn.f32.u32 %f1, %r5;\n\
                        fma.rn.f32 %f1, %f1, 0f38000000, 0f37800000;\n\
                        mov.f32 %f2, 0f00000000;\n\
                        cvt.f64.f32 %fd1, %f1;\n\
                        mov.f64 %fd2, 0d0000000000000000;\n\
                        mov.u32 %r10, 0;\n";
/// f32: the logistic map x ← 3.9·x·(1 − x) (stays in [0, 1)), s = √(x + 1), q = x / s,
/// acc += q·s (fused); f64: y ← 0.999·y + q (fused), acc64 += q / (√y + 1). Every operation is
/// IEEE round-to-nearest-even on finite normal values (or zero), so the host computes the same bits.
const FLT_BODY: &str = "sub.rn.f32 %f3, 0f3F800000, %f1;\n\
                        mul.rn.f32 %f4, %f1, %f3;\n\
                        mul.rn.f32 %f1, %f4, 0f4079999A;\n\
                        add.rn.f32 %f5, %f1, 0f3F800000;\n\
                        sqrt.rn.f32 %f6, %f5;\n\
                        div.rn.f32 %f7, %f1, %f6;\n\
                        fma.rn.f32 %f2, %f7, %f6, %f2;\n\
                        cvt.f64.f32 %fd3, %f7;\n\
                        fma.rn.f64 %fd1, %fd1, 0d3FEFF7CED916872B, %fd3;\n\
                        sqrt.rn.f64 %fd4, %fd1;\n\
                        add.rn.f64 %fd5, %fd4, 0d3FF0000000000000;\n\
                        div.rn.f64 %fd6, %fd3, %fd5;\n\
                        add.rn.f64 %fd2, %fd2, %fd6;\n\
                        add.s32 %r10, %r10, 1;\n\
                        setp.lt.u32 %p1, %r10, %r9;\n\
                        @%p1 bra $L_loop;\n";
const FLT_EPI: &str = "mul.wide.u32 %rd2, %r4, 24;\n\
                       add.s64 %rd3, %rd1, %rd2;\n\
                       st.global.f32 [%rd3], %f1;\n\
                       st.global.f32 [%rd3+4], %f2;\n\
                       st.global.f64 [%rd3+8], %fd1;\n\
                       st.global.f64 [%rd3+16], %fd2;\n\
                       ret;\n";

fn float_thread(gid: u32, iters: u32, out: &mut Vec<u8>) {
    let mut x = ((gid & 32767) as f32).mul_add(f32::from_bits(0x3800_0000), f32::from_bits(0x3780_0000));
    let mut acc = 0f32;
    let mut y = x as f64;
    let mut acc64 = 0f64;
    for _ in 0..iters {
        x = x * (1.0 - x) * f32::from_bits(0x4079_999A);
        let s = (x + 1.0).sqrt();
        let q = x / s;
        acc = q.mul_add(s, acc);
        let qd = q as f64;
        y = y.mul_add(f64::from_bits(0x3FEF_F7CE_D916_872B), qd);
        acc64 += qd / (y.sqrt() + 1.0);
    }
    out.extend_from_slice(&x.to_bits().to_le_bytes());
    out.extend_from_slice(&acc.to_bits().to_le_bytes());
    out.extend_from_slice(&y.to_bits().to_le_bytes());
    out.extend_from_slice(&acc64.to_bits().to_le_bytes());
}

/// The `float-heavy` benchmark.
pub(super) fn float_heavy(size: Size) -> Workload {
    let (ctas, iters) = loop_size(size, 2000);
    let threads = ctas * 128;
    let ptx = format!(
        "{HEADER}.visible .entry float_heavy(.param .u64 out, .param .u32 iters)\n{{\n\
         .reg .pred %p<2>;\n.reg .b32 %r<12>;\n.reg .f32 %f<8>;\n.reg .f64 %fd<8>;\n.reg .b64 %rd<4>;\n\
         {FLT_PRO}{GID}{FLT_SEED}$L_loop:\n{FLT_BODY}{FLT_EPI}}}\n"
    );
    let outside = instructions(FLT_PRO) + instructions(GID) + instructions(FLT_SEED) + instructions(FLT_EPI);
    let per_thread = outside + iters as u64 * instructions(FLT_BODY);
    Workload {
        shape: format!("{threads} threads x {iters} iterations (CTAs of 128)"),
        ptx,
        entry: "float_heavy",
        grid: [ctas, 1, 1],
        block: [128, 1, 1],
        dyn_shared: 0,
        buffers: vec![vec![0u8; threads as usize * 24]],
        args: vec![Arg::Buffer(0), Arg::B32(iters)],
        checks: vec![(0, "out", Rule::Exact)],
        native: Box::new(move |_| {
            let mut out = Vec::with_capacity(threads as usize * 24);
            for t in 0..threads {
                float_thread(t, iters, &mut out);
            }
            Twin {
                outputs: vec![out],
                instructions: Some(threads as u64 * per_thread),
            }
        }),
    }
}

// ---------------------------------------------------------------------------------------------
// divergent

const DIV_PRO: &str = "ld.param.u64 %rd1, [out];\n\
                       ld.param.u32 %r9, [rounds];\n";
const DIV_SEED: &str = "mul.lo.u32 %r5, %r4, -1640531527;\n\
                        mov.u32 %r6, 0;\n\
                        mov.u32 %r7, 0;\n\
                        mov.u32 %r12, 0;\n";
/// Per round: an LCG step gives an odd start in [1, 4095] and a step cap in [16, 271].
const DIV_ROUND: &str = "mad.lo.u32 %r5, %r5, 1664525, 1013904223;\n\
                         shr.u32 %r8, %r5, 20;\n\
                         or.b32 %r8, %r8, 1;\n\
                         and.b32 %r13, %r5, 255;\n\
                         add.u32 %r13, %r13, 16;\n\
                         mov.u32 %r10, 0;\n";
/// The walk stops at 1 ...
const DIV_AT_ONE: &str = "setp.eq.u32 %p1, %r8, 1;\n\
                          @%p1 bra $L_done;\n";
/// ... or at the cap.
const DIV_AT_CAP: &str = "setp.ge.u32 %p3, %r10, %r13;\n\
                          @%p3 bra $L_done;\n";
const DIV_PARITY: &str = "and.b32 %r11, %r8, 1;\n\
                          setp.eq.u32 %p2, %r11, 0;\n\
                          @%p2 bra $L_even;\n";
const DIV_ODD: &str = "mad.lo.u32 %r8, %r8, 3, 1;\n\
                       bra $L_next;\n";
const DIV_EVEN: &str = "shr.u32 %r8, %r8, 1;\n";
const DIV_NEXT: &str = "add.u32 %r10, %r10, 1;\n\
                        bra $L_step;\n";
const DIV_DONE: &str = "add.u32 %r6, %r6, %r10;\n\
                        xor.b32 %r12, %r12, %r8;\n\
                        add.u32 %r7, %r7, 1;\n\
                        setp.lt.u32 %p4, %r7, %r9;\n\
                        @%p4 bra $L_round;\n";
const DIV_EPI: &str = "mul.wide.u32 %rd2, %r4, 8;\n\
                       add.s64 %rd3, %rd1, %rd2;\n\
                       st.global.u32 [%rd3], %r6;\n\
                       st.global.u32 [%rd3+4], %r12;\n\
                       ret;\n";

/// Instruction counts of the divergent kernel's blocks.
#[derive(Clone, Copy)]
struct DivCounts {
    outside: u64,
    round: u64,
    at_one: u64,
    at_cap: u64,
    odd: u64,
    even: u64,
    done: u64,
}

fn div_counts() -> DivCounts {
    let c = instructions;
    DivCounts {
        outside: c(DIV_PRO) + c(GID) + c(DIV_SEED) + c(DIV_EPI),
        round: c(DIV_ROUND),
        at_one: c(DIV_AT_ONE),
        at_cap: c(DIV_AT_CAP),
        odd: c(DIV_PARITY) + c(DIV_ODD) + c(DIV_NEXT),
        even: c(DIV_PARITY) + c(DIV_EVEN) + c(DIV_NEXT),
        done: c(DIV_DONE),
    }
}

/// (total steps, xor of the walks' last values, thread-instructions).
fn divergent_thread(gid: u32, rounds: u32, k: DivCounts) -> (u32, u32, u64) {
    let mut state = gid.wrapping_mul(0x9e37_79b9);
    let (mut steps, mut check, mut n) = (0u32, 0u32, k.outside);
    for _ in 0..rounds {
        state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        let mut v = (state >> 20) | 1;
        let cap = (state & 255) + 16;
        let mut s = 0u32;
        n += k.round;
        loop {
            n += k.at_one;
            if v == 1 {
                break;
            }
            n += k.at_cap;
            if s >= cap {
                break;
            }
            if v & 1 == 1 {
                v = v.wrapping_mul(3).wrapping_add(1);
                n += k.odd;
            } else {
                v >>= 1;
                n += k.even;
            }
            s += 1;
        }
        steps = steps.wrapping_add(s);
        check ^= v;
        n += k.done;
    }
    (steps, check, n)
}

/// The `divergent` benchmark.
pub(super) fn divergent(size: Size) -> Workload {
    let (ctas, rounds) = match size {
        Size::Full => (32, 40),
        Size::Quick => (2, 4),
    };
    let threads = ctas * 128;
    let ptx = format!(
        "{HEADER}.visible .entry divergent(.param .u64 out, .param .u32 rounds)\n{{\n\
         .reg .pred %p<5>;\n.reg .b32 %r<14>;\n.reg .b64 %rd<4>;\n\
         {DIV_PRO}{GID}{DIV_SEED}$L_round:\n{DIV_ROUND}$L_step:\n{DIV_AT_ONE}{DIV_AT_CAP}{DIV_PARITY}\
         {DIV_ODD}$L_even:\n{DIV_EVEN}$L_next:\n{DIV_NEXT}$L_done:\n{DIV_DONE}{DIV_EPI}}}\n"
    );
    let k = div_counts();
    Workload {
        shape: format!("{threads} threads x {rounds} Collatz walks of up to 16-271 steps (CTAs of 128)"),
        ptx,
        entry: "divergent",
        grid: [ctas, 1, 1],
        block: [128, 1, 1],
        dyn_shared: 0,
        buffers: vec![vec![0u8; threads as usize * 8]],
        args: vec![Arg::Buffer(0), Arg::B32(rounds)],
        checks: vec![(0, "out", Rule::Exact)],
        native: Box::new(move |_| {
            let mut out = Vec::with_capacity(threads as usize * 8);
            let mut total = 0u64;
            for t in 0..threads {
                let (s, c, n) = divergent_thread(t, rounds, k);
                out.extend_from_slice(&s.to_le_bytes());
                out.extend_from_slice(&c.to_le_bytes());
                total += n;
            }
            Twin {
                outputs: vec![out],
                instructions: Some(total),
            }
        }),
    }
}

// ---------------------------------------------------------------------------------------------
// memory

/// Loads a 32×32 tile of `in` (CTA (bx, by), thread (tx, ty) of 32×8: rows by·32 + ty + 8k,
/// column bx·32 + tx) into a 32×33 shared tile (the pad column keeps the transposed reads on
/// distinct banks, as real kernels do), waits at the barrier, and stores the transposed tile:
/// out[bx·32 + ty + 8k][by·32 + tx] = tile[tx][ty + 8k].
const MEM_PRO: &str = "ld.param.u64 %rd1, [in];\n\
                       ld.param.u64 %rd2, [out];\n\
                       ld.param.u32 %r1, [n];\n\
                       mov.u32 %r2, %tid.x;\n\
                       mov.u32 %r3, %tid.y;\n\
                       mov.u32 %r4, %ctaid.x;\n\
                       mov.u32 %r5, %ctaid.y;\n\
                       shl.b32 %r6, %r4, 5;\n\
                       shl.b32 %r8, %r5, 5;\n\
                       add.u32 %r7, %r6, %r2;\n\
                       add.u32 %r9, %r8, %r3;\n\
                       mad.lo.u32 %r10, %r9, %r1, %r7;\n\
                       mul.wide.u32 %rd3, %r10, 4;\n\
                       add.s64 %rd3, %rd1, %rd3;\n\
                       mul.wide.u32 %rd4, %r1, 32;\n\
                       mov.u64 %rd5, tile;\n\
                       mad.lo.u32 %r11, %r3, 33, %r2;\n\
                       mul.wide.u32 %rd6, %r11, 4;\n\
                       add.s64 %rd6, %rd5, %rd6;\n\
                       ld.global.u32 %r20, [%rd3];\n\
                       add.s64 %rd3, %rd3, %rd4;\n\
                       ld.global.u32 %r21, [%rd3];\n\
                       add.s64 %rd3, %rd3, %rd4;\n\
                       ld.global.u32 %r22, [%rd3];\n\
                       add.s64 %rd3, %rd3, %rd4;\n\
                       ld.global.u32 %r23, [%rd3];\n\
                       st.shared.u32 [%rd6], %r20;\n\
                       st.shared.u32 [%rd6+1056], %r21;\n\
                       st.shared.u32 [%rd6+2112], %r22;\n\
                       st.shared.u32 [%rd6+3168], %r23;\n\
                       bar.sync 0;\n\
                       mad.lo.u32 %r12, %r2, 33, %r3;\n\
                       mul.wide.u32 %rd7, %r12, 4;\n\
                       add.s64 %rd7, %rd5, %rd7;\n\
                       ld.shared.u32 %r24, [%rd7];\n\
                       ld.shared.u32 %r25, [%rd7+32];\n\
                       ld.shared.u32 %r26, [%rd7+64];\n\
                       ld.shared.u32 %r27, [%rd7+96];\n\
                       add.u32 %r13, %r6, %r3;\n\
                       add.u32 %r14, %r8, %r2;\n\
                       mad.lo.u32 %r15, %r13, %r1, %r14;\n\
                       mul.wide.u32 %rd8, %r15, 4;\n\
                       add.s64 %rd8, %rd2, %rd8;\n\
                       st.global.u32 [%rd8], %r24;\n\
                       add.s64 %rd8, %rd8, %rd4;\n\
                       st.global.u32 [%rd8], %r25;\n\
                       add.s64 %rd8, %rd8, %rd4;\n\
                       st.global.u32 [%rd8], %r26;\n\
                       add.s64 %rd8, %rd8, %rd4;\n\
                       st.global.u32 [%rd8], %r27;\n\
                       ret;\n";

/// The `memory` benchmark.
pub(super) fn memory(size: Size) -> Workload {
    let n: u32 = match size {
        Size::Full => 2048,
        Size::Quick => 64,
    };
    let tiles = n / 32;
    let ptx = format!(
        "{HEADER}.visible .entry transpose(.param .u64 in, .param .u64 out, .param .u32 n)\n{{\n\
         .shared .align 4 .b32 tile[1056];\n\
         .reg .b32 %r<28>;\n.reg .b64 %rd<9>;\n{MEM_PRO}}}\n"
    );
    let elems = n as usize * n as usize;
    let mut x = 0x2545_f491u32;
    let input: Vec<u32> = (0..elems)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x
        })
        .collect();
    let per_thread = instructions(MEM_PRO);
    let threads = elems as u64 / 4;
    Workload {
        shape: format!("{n}x{n} u32 transpose: {tiles}x{tiles} CTAs of 32x8 threads, 32x33 shared tile"),
        ptx,
        entry: "transpose",
        grid: [tiles, tiles, 1],
        block: [32, 8, 1],
        dyn_shared: 0,
        buffers: vec![
            input.iter().flat_map(|v| v.to_le_bytes()).collect(),
            vec![0u8; elems * 4],
        ],
        args: vec![Arg::Buffer(0), Arg::Buffer(1), Arg::B32(n)],
        checks: vec![(1, "out", Rule::Exact)],
        // A blocked transpose (32×32 tiles, as the kernel), from the input's bytes.
        native: Box::new(move |bufs| {
            let n = n as usize;
            let src = &bufs[0];
            let mut out = vec![0u8; n * n * 4];
            for bi in (0..n).step_by(32) {
                for bj in (0..n).step_by(32) {
                    for i in bi..bi + 32 {
                        for j in bj..bj + 32 {
                            let (s, d) = ((i * n + j) * 4, (j * n + i) * 4);
                            out[d..d + 4].copy_from_slice(&src[s..s + 4]);
                        }
                    }
                }
            }
            Twin {
                outputs: vec![out],
                instructions: Some(threads * per_thread),
            }
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The manual's default `prmt` on hand-worked selectors.
    #[test]
    fn prmt_selects_and_replicates_signs() {
        // Identity on a, then b's bytes.
        assert_eq!(prmt(0x4433_2211, 0x8877_6655, 0x3210), 0x4433_2211);
        assert_eq!(prmt(0x4433_2211, 0x8877_6655, 0x7654), 0x8877_6655);
        // Selectors (low nibble first) f, 0, 8, f: byte 7 (0x88, negative) sign-replicated is
        // 0xff; byte 0 as is, 0x11; byte 0 sign-replicated, 0x00; 0xff again.
        assert_eq!(prmt(0x4433_2211, 0x8877_6655, 0xf80f), 0xff00_11ff);
    }

    #[test]
    fn divergent_counts_follow_the_blocks() {
        let k = div_counts();
        assert_eq!(k.odd, k.even + 1);
        let (steps, _, n) = divergent_thread(0, 0, k);
        assert_eq!((steps, n), (0, k.outside));
    }
}
