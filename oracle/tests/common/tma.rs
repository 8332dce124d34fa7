//! Helpers of the tensor-copy suites (`tma.rs`, `tma_sm100.rs`): one kernel frame with a
//! `tensor_map` parameter, its launch, and the byte patterns the tests compute from.

#![allow(dead_code)] // Each suite uses its part.

use oracle::error::Error;
use oracle::launch::{self, LaunchFile};
use serde_json::{json, Value};

/// The kernel for `.target` `target`: `body` after a prologue that puts `out` in %rd1, `src` in
/// %rd2, the generic address of the `tmap` parameter in %rd5, `bar`'s shared address in %r1 and
/// `sh`'s (1024-byte aligned, 4 KiB) in %r3, %tid.x in %r4; %p7 is `%tid.x == 0`.
pub fn kernel(target: &str, body: &str) -> String {
    format!(
        ".version 8.7\n.target {target}\n.address_size 64\n\
         .shared .align 8 .b64 bar;\n.shared .align 1024 .b8 sh[4096];\n\
         .visible .entry k(.param .u64 out, .param .u64 src, .param .align 64 .b8 tmap[128])\n{{\n\
         .reg .pred %p<8>;\n.reg .b16 %rs<8>;\n.reg .b32 %r<32>;\n.reg .b64 %rd<16>;\n\
         ld.param.u64 %rd1, [out];\nld.param.u64 %rd2, [src];\nmov.u64 %rd5, tmap;\n\
         cvta.param.u64 %rd5, %rd5;\nmov.u32 %r1, bar;\nmov.u32 %r3, sh;\nmov.u32 %r4, %tid.x;\n\
         setp.eq.u32 %p7, %r4, 0;\n{body}\n}}\n"
    )
}

/// Lowercase hex of bytes in memory order.
pub fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// One launch of [`kernel`]: its grid and grammar.
pub struct Launch<'a> {
    /// The `.target`.
    pub target: &'a str,
    /// CTAs, all in one cluster when more than one.
    pub ctas: u32,
    /// Threads per CTA.
    pub threads: u32,
    /// The launch's `grammar` (`ptxas` or `manual`).
    pub grammar: &'a str,
}

impl Launch<'_> {
    /// Runs `body` over buffers `out` and `src` (initial bytes) and the tensor map `tmap`; the
    /// bytes of `out` after the run.
    pub fn run(&self, body: &str, out: &[u8], src: &[u8], tmap: Value) -> Result<Vec<u8>, Error> {
        let mut l = json!({
            "ptx": "k.ptx", "entry": "k", "grid": [self.ctas, 1, 1], "block": [self.threads, 1, 1],
            "buffers": [{"name": "out", "hex": hex(out)}, {"name": "src", "hex": hex(src)}],
            "params": [{"buffer": "out"}, {"buffer": "src"}, {"tensor_map": tmap}],
            "limits": {"steps": 10_000_000},
            "grammar": self.grammar,
        });
        if self.ctas > 1 {
            l["cluster"] = json!([self.ctas, 1, 1]);
        }
        let l: LaunchFile = serde_json::from_value(l).unwrap();
        let (b, _) = launch::run(&l, &kernel(self.target, body))?;
        Ok(b.iter().find(|(n, _)| n == "out").unwrap().1.clone())
    }
}

/// The line of `needle` in the kernel text for `target`.
pub fn line_of(target: &str, body: &str, needle: &str) -> u32 {
    kernel(target, body).lines().position(|l| l.contains(needle)).unwrap() as u32 + 1
}

/// `n` bytes of a fixed pattern: byte k is (37k + 11) mod 256.
pub fn pattern(n: usize) -> Vec<u8> {
    (0..n).map(|k| (37 * k + 11) as u8).collect()
}

/// The little-endian word at `at`.
pub fn word(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

/// Thread 0 fills the first `n` bytes of `sh` with 0xee (so that a byte the copy does not
/// write shows), initializes the barrier for one arrival, arrives with expect-tx `tx`, issues
/// `copy`, and waits for phase 0; then it copies `n` bytes of `sh` to `out`.
pub fn load_kernel(copy: &str, tx: u32, n: u32) -> String {
    format!(
        "@!%p7 bra END;\nmov.u32 %r10, 0;\nFILL:\nadd.u32 %r11, %r3, %r10;\nst.shared.u32 [%r11], 0xeeeeeeee;\n\
         add.u32 %r10, %r10, 4;\nsetp.lt.u32 %p2, %r10, {n};\n@%p2 bra FILL;\n\
         mbarrier.init.shared.b64 [%r1], 1;\n\
         mbarrier.arrive.expect_tx.shared.b64 %rd3, [%r1], {tx};\n{copy}\n\
         mov.u32 %r6, 0;\nWAIT:\nmbarrier.try_wait.parity.shared.b64 %p1, [%r1], %r6;\n@!%p1 bra WAIT;\n\
         mov.u32 %r10, 0;\nCOPY:\nadd.u32 %r11, %r3, %r10;\nld.shared.u32 %r12, [%r11];\n\
         cvt.u64.u32 %rd6, %r10;\nadd.u64 %rd7, %rd1, %rd6;\nst.global.u32 [%rd7], %r12;\n\
         add.u32 %r10, %r10, 4;\nsetp.lt.u32 %p2, %r10, {n};\n@%p2 bra COPY;\nEND:\nret;"
    )
}
