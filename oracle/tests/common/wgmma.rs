//! PTX text and layouts the `wgmma` kernel tests (`wgmma.rs`, `wgmma_sparse.rs`) share: the
//! descriptor, register loads and stores, the accumulator layout, the swizzle, f16 bits.
/// `%rd{reg}` = descriptor with start address `tile + off` and the other fields in `high`
/// (`matrix-descriptor-encode(x) = (x & 0x3FFFF) >> 4` in bits 13-0, L25606-25652).
pub fn desc(reg: u32, off: u32, high: u64) -> String {
    format!(
        "mov.u32 %r5, tile;\nadd.u32 %r5, %r5, {off};\nbfe.u32 %r6, %r5, 4, 14;\ncvt.u64.u32 %rd{reg}, %r6;\n\
         or.b64 %rd{reg}, %rd{reg}, {};\n",
        high as i64
    )
}

pub fn load_regs(first: u32, n: u32) -> String {
    (0..n)
        .map(|k| format!("ld.global.b32 %r{}, [%rd4+{}];\n", first + k, 4 * k))
        .collect()
}

pub fn store_regs(first: u32, n: u32) -> String {
    (0..n)
        .map(|k| format!("st.global.b32 [%rd5+{}], %r{};\n", 4 * k, first + k))
        .collect()
}

pub fn regs(first: u32, n: u32) -> String {
    (0..n)
        .map(|k| format!("%r{}", first + k))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The accumulator layout (Fig. 148; mma's m16n8 C/D layout per warp w and per 8-column block,
/// as CUTLASS's GMMA traits have it): element i of thread t is row 16w + g + 8·((i >> 1) & 1),
/// column 8·(i >> 2) + 2·q + (i & 1), with w = t / 32, g = t % 32 / 4, q = t % 4.
pub fn acc(t: usize, i: usize) -> (usize, usize) {
    let (w, g, q) = (t / 32, t % 32 / 4, t % 4);
    (16 * w + g + 8 * ((i >> 1) & 1), 8 * (i >> 2) + 2 * q + (i & 1))
}

/// `Swizzle<bits,4,3>` on a byte address (the table at L25308-25360).
pub fn swizzle(bits: u32, a: usize) -> usize {
    a ^ (((a >> 7) & ((1 << bits) - 1)) << 4)
}

/// f16 bits of a small integer (exact).
pub fn f16(v: i64) -> u16 {
    if v == 0 {
        return 0;
    }
    let bits = (v as f32).to_bits();
    let sign = (bits >> 16) & 0x8000;
    let exp = ((bits >> 23) & 0xff) as i32 - 127 + 15;
    (sign | ((exp as u32) << 10) | ((bits >> 13) & 0x3ff)) as u16
}
