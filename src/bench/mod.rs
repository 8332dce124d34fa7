//! `ptxconf bench oracle`: the interpreter's speed on an ALU-heavy kernel, as thread-instructions
//! per second and as a ratio to the same computation compiled natively, measured in the same run.
//! The native result is also the check: both must produce the same bytes.
//!
//! `ptxconf bench mma` ([`mma()`], in `gemm.rs`): the same for a tensor-core GEMM, as
//! multiply-adds per second against a native f32 GEMM of the same size.
//!
//! `ptxconf bench` ([`suite`]): every benchmark — this ALU kernel, integer-heavy, float-heavy,
//! divergent and memory-bound kernels (`kernels.rs`), the real-world corpus's Triton softmax and
//! layer norm (`triton.rs`) and the GEMM — on every engine, against native twins, in one run.

mod gemm;
mod kernels;
pub mod suite;
mod triton;

pub use gemm::mma;

use oracle::exec::{Launch, Limits, Machine};
use std::fmt;
use std::time::Instant;

/// Per thread: a 32-bit LCG and xorshift mix, and an f32 recurrence (fma, mul, add) whose values
/// stay finite and normal, so the host's f32 arithmetic is IEEE-exact for it.
const KERNEL: &str = r#"
.version 7.0
.target sm_80
.address_size 64

.visible .entry alu(.param .u64 out, .param .u32 iters)
{
    .reg .pred %p<2>;
    .reg .b32 %r<12>;
    .reg .f32 %f<6>;
    .reg .b64 %rd<4>;

    ld.param.u64 %rd1, [out];
    ld.param.u32 %r9, [iters];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mad.lo.s32 %r4, %r2, %r3, %r1;
    mov.u32 %r5, %r4;
    xor.b32 %r6, %r4, 0x9e3779b9;
    cvt.rn.f32.u32 %f1, %r4;
    mul.rn.f32 %f1, %f1, 0f3A800000;
    mov.f32 %f2, 0f3F800000;
    mov.u32 %r10, 0;
$L_loop:
    mad.lo.s32 %r5, %r5, 1664525, 1013904223;
    shr.u32 %r7, %r5, 13;
    xor.b32 %r6, %r6, %r7;
    shl.b32 %r8, %r6, 5;
    add.s32 %r6, %r6, %r8;
    and.b32 %r7, %r5, 0xff;
    cvt.rn.f32.u32 %f3, %r7;
    fma.rn.f32 %f2, %f2, 0f3F7FF000, %f3;
    mul.rn.f32 %f4, %f2, 0f3B800000;
    add.rn.f32 %f1, %f1, %f4;
    mul.rn.f32 %f1, %f1, 0f3F7FFF00;
    add.s32 %r10, %r10, 1;
    setp.lt.u32 %p1, %r10, %r9;
    @%p1 bra $L_loop;
    mul.wide.u32 %rd2, %r4, 16;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r5;
    st.global.u32 [%rd3+4], %r6;
    st.global.f32 [%rd3+8], %f1;
    st.global.f32 [%rd3+12], %f2;
    ret;
}
"#;

/// Instructions per loop iteration (the loop body above, the branch included).
const BODY: u64 = 14;
/// Instructions outside the loop per thread.
const OUTSIDE: u64 = 12 + 7;

/// The kernel's computation for one thread, natively.
fn native_thread(tid: u32, iters: u32) -> [u32; 4] {
    let mut r5 = tid;
    let mut r6 = tid ^ 0x9e37_79b9;
    let mut f1 = tid as f32 * f32::from_bits(0x3A80_0000);
    let mut f2 = 1.0f32;
    for _ in 0..iters {
        r5 = r5.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        r6 ^= r5 >> 13;
        r6 = r6.wrapping_add(r6 << 5);
        let f3 = (r5 & 0xff) as f32;
        f2 = f2.mul_add(f32::from_bits(0x3F7F_F000), f3);
        let f4 = f2 * f32::from_bits(0x3B80_0000);
        f1 += f4;
        f1 *= f32::from_bits(0x3F7F_FF00);
    }
    [r5, r6, f1.to_bits(), f2.to_bits()]
}

/// The suite's `alu` benchmark: [`KERNEL`] in CTAs of 128 threads (so that CTAs can run on
/// several workers), checked against [`native_thread`] and the instruction count.
fn alu_workload(size: suite::Size) -> suite::Workload {
    let (ctas, iters) = match size {
        suite::Size::Full => (32u32, 2500u32),
        suite::Size::Quick => (2, 16),
    };
    let threads = ctas * 128;
    suite::Workload {
        shape: format!("{threads} threads x {iters} iterations (CTAs of 128)"),
        ptx: KERNEL.into(),
        entry: "alu",
        grid: [ctas, 1, 1],
        block: [128, 1, 1],
        dyn_shared: 0,
        buffers: vec![vec![0u8; threads as usize * 16]],
        args: vec![suite::Arg::Buffer(0), suite::Arg::B32(iters)],
        checks: vec![(0, "out", suite::Rule::Exact)],
        native: Box::new(move |_| {
            let mut out = Vec::with_capacity(threads as usize * 16);
            for tid in 0..threads {
                for w in native_thread(tid, iters) {
                    out.extend_from_slice(&w.to_le_bytes());
                }
            }
            suite::Twin {
                outputs: vec![out],
                instructions: Some(threads as u64 * (BODY * iters as u64 + OUTSIDE)),
            }
        }),
    }
}

/// Why [`oracle()`], [`mma()`] or [`suite::run`] could not measure, or found the oracle wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BenchError {
    /// The thread count is not a positive multiple of 32.
    Threads {
        /// The count given.
        threads: u32,
    },
    /// The oracle could not parse the kernel.
    Parse(oracle::parse::ParseError),
    /// The oracle's type checker rejected the kernel.
    Check(oracle::error::Error),
    /// The oracle could not load the checked kernel.
    Load(oracle::error::Error),
    /// The oracle failed running the kernel.
    Run(oracle::error::Error),
    /// The oracle's output differs from the native computation's.
    OutputDiffers {
        /// The first byte that differs.
        byte: usize,
    },
    /// The GEMM size is not a positive multiple of 32 up to 4096.
    Size {
        /// The size given.
        size: u32,
    },
    /// The oracle's GEMM result differs from the native f32 GEMM's (every element is an integer
    /// exact in f32 and in the tensor-core model, so they must be equal bit for bit).
    GemmDiffers {
        /// The first differing element's row of D.
        row: u32,
        /// Its column.
        col: u32,
        /// The oracle's f32 bits.
        oracle: u32,
        /// The native GEMM's f32 bits.
        native: u32,
    },
    /// The oracle executed another number of thread-instructions than the kernel has.
    InstructionCount {
        /// Thread-instructions executed.
        executed: u64,
        /// Thread-instructions the kernel takes.
        expected: u64,
    },
    /// A suite benchmark's buffer differs from its native twin's beyond its rule.
    Differs {
        /// The buffer's name.
        buffer: String,
        /// The first differing element (bytes for an exact rule, f32 words otherwise).
        index: usize,
        /// The oracle's element and its width in bytes (`None`: the lengths differ).
        got: Option<(u32, usize)>,
        /// The twin's.
        want: Option<(u32, usize)>,
    },
    /// A suite benchmark's kernel does not take the arguments the benchmark gives.
    Kernel(String),
    /// What went wrong in one row of the suite.
    In {
        /// The benchmark.
        bench: &'static str,
        /// The engine.
        engine: &'static str,
        /// The workers.
        workers: usize,
        /// The error.
        source: Box<BenchError>,
    },
}

impl fmt::Display for BenchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BenchError::Threads { .. } => f.write_str("--threads must be a positive multiple of 32"),
            BenchError::Parse(e) => write!(f, "{e}"),
            BenchError::Check(e) | BenchError::Load(e) | BenchError::Run(e) => write!(f, "{e}"),
            BenchError::OutputDiffers { byte } => {
                write!(f, "the oracle's output differs from the native build's at byte {byte}")
            }
            BenchError::Size { size } => write!(
                f,
                "--size must be a positive multiple of 32 up to {} (got {size})",
                gemm::MAX_SIZE
            ),
            BenchError::GemmDiffers {
                row,
                col,
                oracle,
                native,
            } => write!(
                f,
                "the oracle's D[{row}][{col}] is {} ({oracle:#010x}), the native GEMM's {} ({native:#010x})",
                f32::from_bits(*oracle),
                f32::from_bits(*native)
            ),
            BenchError::InstructionCount { executed, expected } => {
                write!(f, "executed {executed} thread-instructions, expected {expected}")
            }
            BenchError::Differs {
                buffer,
                index,
                got: Some((g, width)),
                want: Some((w, _)),
            } => {
                let digits = width * 2;
                write!(
                    f,
                    "the oracle's `{buffer}` differs from the native twin's at element {index} \
                     ({width}-byte elements): {g:#0pad$x}, the twin's {w:#0pad$x}",
                    pad = digits + 2
                )
            }
            BenchError::Differs { buffer, index, .. } => {
                write!(
                    f,
                    "the oracle's `{buffer}` has another length than the twin's ({index} bytes in common)"
                )
            }
            BenchError::Kernel(m) => f.write_str(m),
            BenchError::In {
                bench,
                engine,
                workers,
                source,
            } => write!(f, "{bench} on the {engine} engine with {workers} worker(s): {source}"),
        }
    }
}

impl std::error::Error for BenchError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            BenchError::Parse(e) => Some(e),
            BenchError::Check(e) | BenchError::Load(e) | BenchError::Run(e) => Some(e),
            BenchError::In { source, .. } => Some(source.as_ref()),
            BenchError::Threads { .. }
            | BenchError::Differs { .. }
            | BenchError::Kernel(_)
            | BenchError::Size { .. }
            | BenchError::GemmDiffers { .. }
            | BenchError::OutputDiffers { .. }
            | BenchError::InstructionCount { .. } => None,
        }
    }
}

/// Runs the kernel on the oracle with `threads` threads (a positive multiple of 32, in CTAs of up
/// to 1024) of `iters` loop iterations each, and natively; the report's lines, or an error when
/// the outputs or the instruction count differ from the native computation's.
pub fn oracle(threads: u32, iters: u32) -> Result<String, BenchError> {
    if threads == 0 || !threads.is_multiple_of(32) {
        return Err(BenchError::Threads { threads });
    }
    let module = oracle::parse::parse(KERNEL).map_err(BenchError::Parse)?;
    let prog = oracle::check::check(&module).map_err(BenchError::Check)?;
    let mut m = Machine::new(&prog).map_err(BenchError::Load)?;
    let out = m
        .alloc("out", vec![0u8; threads as usize * 16])
        .map_err(BenchError::Load)?;
    let mut params = out.to_le_bytes().to_vec();
    params.extend_from_slice(&iters.to_le_bytes());
    let block = threads.min(1024);
    let launch = Launch {
        entry: "alu".into(),
        grid: [threads.div_ceil(block), 1, 1],
        block: [block, 1, 1],
        params,
        dyn_shared: 0,
        cluster: None,
        limits: Limits::default(),
    };
    let t0 = Instant::now();
    let stats = m.run(&launch).map_err(BenchError::Run)?;
    let t_oracle = t0.elapsed().as_secs_f64();

    let t1 = Instant::now();
    let mut native = Vec::with_capacity(threads as usize * 16);
    for tid in 0..threads {
        for w in native_thread(std::hint::black_box(tid), std::hint::black_box(iters)) {
            native.extend_from_slice(&w.to_le_bytes());
        }
    }
    let t_native = t1.elapsed().as_secs_f64();
    let got = m.buffer(out).unwrap_or_default();
    if got != native.as_slice() {
        let first = got.iter().zip(&native).position(|(a, b)| a != b).unwrap_or(0);
        return Err(BenchError::OutputDiffers { byte: first });
    }
    let expected = threads as u64 * (BODY * iters as u64 + OUTSIDE);
    if stats.thread_instructions != expected {
        return Err(BenchError::InstructionCount {
            executed: stats.thread_instructions,
            expected,
        });
    }
    let rate = stats.thread_instructions as f64 / t_oracle;
    Ok(format!(
        "oracle: {threads} threads x {iters} iterations = {} thread-instructions ({} warp-instructions)\n\
         oracle: {:.3} s, {:.1} M thread-instructions/s\n\
         native: {:.4} s (same computation, output bytes identical)\n\
         ratio:  oracle is {:.0}x slower than native\n",
        stats.thread_instructions,
        stats.warp_instructions,
        t_oracle,
        rate / 1e6,
        t_native,
        t_oracle / t_native.max(1e-9),
    ))
}
