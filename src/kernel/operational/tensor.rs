//! Scenarios of the tensor copies (TMA): `cp.async.bulk.tensor` loads and stores
//! (§9.7.9.25.5.2, L14847), `cp.reduce.async.bulk.tensor` (§9.7.9.25.5.3, L15098),
//! `cp.async.bulk.prefetch.tensor` (§9.7.9.25.5.4, L15181), `tensormap.replace` (§9.7.9.26,
//! L15381) and `tensormap.cp_fenceproxy` (§9.7.13.16, L19243), in the way CUTLASS and Triton use
//! them.
//!
//! The tensor maps are launch parameters described by the driver call's arguments
//! (`JobParam::TensorMap`): a backend builds its own encoding, so a scenario never looks at a
//! map's 128 bytes (the encoding is opaque, L3050). A load: thread 0 initializes an mbarrier,
//! arrives with `expect_tx` of the boxes' bytes and issues the copies; every thread waits
//! (`try_wait.parity`) and the boxes' shared-memory images go to `out`. A store or reduction:
//! the threads fill shared memory from `in`, `fence.proxy.async`, thread 0 issues each copy
//! and waits for its bulk async-group; the tensor itself lives in `out`. The expected bytes
//! come from [`model`], this module's own reading of §5.5, with out-of-bounds boxes (negative
//! coordinates), swizzles, traversal strides and OOB-NaN fill varied from the seed.
//! `tensormap.replace` edits a copy of a launch map in global or shared memory, the tensormap
//! proxy fences follow, and a load through the edited map must show the new field.

mod cluster;
mod model;
mod through;

pub(super) use through::is_param_prefetch;

use super::bulk::Elem;
use super::{header, trailing_hints, BuildError, Check, Kernel, Rng, Rule, Scenario, THREADS};
use crate::backend::{Job, JobBuffer, JobParam};
use model::{ty, Map, Op, Shape, Ty, TYPES};
use oracle::launch::tensor_map::TensorMapSpec;
use spec::catalog::{Exec, Form, PtxVersion, Target};
use std::fmt::Write as _;

/// Bytes of shared memory per box: each box starts 1024-aligned, where every swizzle pattern
/// starts its repeat (L3012-3040), so the swizzle base offset is 0.
const REGION: usize = 4096;

/// Shared memory: the boxes, the mbarrier, a 128-byte tensor-map template.
const DECLS: &str = ".shared .align 1024 .b8 sm[12288];\n.shared .align 8 .b64 mbar;\n.shared .align 128 .b8 tm[128];";

/// The cache policy the hinted copies pass (CUTLASS's `EVICT_NORMAL`); a policy is only a hint
/// (L15016).
const POLICY: &str = "mov.b64 %rd9, 0x1000000000000000;";

/// The sentinel shared memory holds before a load, so that a byte a load does not write shows.
const SENTINEL: u32 = 0xa5a5_a5a5;

/// What a tensor-copy form does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Load,
    Store(Option<Op>),
    Prefetch,
}

/// The scenarios of a tensor-copy or tensor-map form.
pub(super) fn scenarios(form: &Form, rng: &mut Rng) -> Result<Vec<Scenario>, BuildError> {
    match form.exec() {
        Some(Exec::TensormapReplace) => replace(form, rng),
        Some(Exec::TensormapCpFenceproxy) => cp_fenceproxy(form, rng),
        Some(Exec::TensormapFence) => through::fence(form, rng),
        _ if is_param_prefetch(form) => through::param_prefetch(form, rng),
        _ => copies(form, rng),
    }
}

fn kind(form: &Form) -> Result<Kind, BuildError> {
    if form.has("prefetch") {
        return Ok(Kind::Prefetch);
    }
    match (form.var("dst"), form.var("op")) {
        (Some("global"), None) => Ok(Kind::Store(None)),
        (Some("global"), Some(op)) => Op::parse(op)
            .map(|o| Kind::Store(Some(o)))
            .ok_or_else(|| BuildError(format!("`{}`: no reduction `{op}`", form.name))),
        (Some(_), _) => Ok(Kind::Load),
        _ => Err(BuildError(format!("`{}`: no tensor-copy scenario fits it", form.name))),
    }
}

fn rank(form: &Form) -> Result<usize, BuildError> {
    form.var("dim")
        .and_then(|d| d.strip_suffix('d'))
        .and_then(|d| d.parse().ok())
        .ok_or_else(|| BuildError(format!("`{}` has no `.dim`", form.name)))
}

/// One tensor-copy instruction's operands (texts), written in the form's operand order.
#[derive(Default)]
struct Ops {
    /// The shared-memory box (`dstMem`/`srcMem`), a 64-bit shared address register.
    smem: String,
    /// The tensor map operand (a parameter name or an address register).
    map: String,
    coords: Vec<String>,
    im2col: Vec<String>,
    hinted: bool,
    /// The mbarrier operand, `[mbar]` when `None`.
    mbar: Option<String>,
}

/// The instruction of `form` with `ops` (the map and coordinates as one `[map, {..}]` address,
/// vectors in braces), `.L2::cache_hint` written when `ops.hinted`.
fn tensor_instr(form: &Form, ops: &Ops) -> Result<String, BuildError> {
    let mut parts = Vec::new();
    for o in &form.inputs {
        match o.name {
            "dst" | "src" => parts.push(format!("[{}]", ops.smem)),
            "tensor_map" => parts.push(format!("[{}, {{{}}}]", ops.map, ops.coords.join(", "))),
            "coords" => {}
            "mbar" => parts.push(ops.mbar.clone().unwrap_or_else(|| "[mbar]".into())),
            "im2col_info" => parts.push(format!("{{{}}}", ops.im2col.join(", "))),
            // Own-CTA multicast: bit 0, the only CTA of the cluster (L15008).
            "cta_mask" => parts.push("%rs5".into()),
            "cache_policy" if ops.hinted => parts.push("%rd9".into()),
            "cache_policy" => {}
            n => {
                return Err(BuildError(format!(
                    "`{}`: operand `{n}` has no tensor-copy text",
                    form.name
                )))
            }
        }
    }
    let hint = if ops.hinted { ".L2::cache_hint" } else { "" };
    Ok(format!("{}{hint} {};", form.name, parts.join(", ")))
}

/// `mov`s placing `coords` in `%r20..` and `offsets` in `%rs1..`; the operand texts.
fn place(lines: &mut Vec<String>, coords: &[i32], offsets: &[u16]) -> (Vec<String>, Vec<String>) {
    let mut c = Vec::new();
    for (i, v) in coords.iter().enumerate() {
        lines.push(format!("mov.b32 %r{}, {v};", 20 + i));
        c.push(format!("%r{}", 20 + i));
    }
    let mut o = Vec::new();
    for (i, v) in offsets.iter().enumerate() {
        lines.push(format!("mov.b16 %rs{}, {v};", 1 + i));
        o.push(format!("%rs{}", 1 + i));
    }
    (c, o)
}

/// `%rd12` = the shared address of box region `k`.
fn region_addr(lines: &mut Vec<String>, k: usize) {
    lines.push("mov.u64 %rd12, sm;".into());
    lines.push(format!("add.s64 %rd12, %rd12, {};", k * REGION));
}

/// The driver-call description of `m` on `buffer`.
fn spec_of(m: &Map, buffer: &str) -> TensorMapSpec {
    let mut wide = (None, None, None);
    let (encode, box_dim, lower, upper, cpp, ppc) = match &m.shape {
        Shape::Tile(b) => ("tiled", Some(b.clone()), None, None, None, None),
        Shape::Gather4(w) => ("tiled", Some(vec![*w, 1]), None, None, None, None),
        Shape::Im2colW {
            lower,
            upper,
            channels,
            pixels,
            w128,
            ..
        } => {
            wide = (
                Some(*lower),
                Some(*upper),
                Some(if *w128 { "w128" } else { "w" }.to_string()),
            );
            (
                "im2col_wide",
                None,
                None,
                None,
                Some(*channels),
                (!*w128).then_some(*pixels),
            )
        }
        Shape::Im2col {
            lower,
            upper,
            channels,
            pixels,
        } => (
            "im2col",
            None,
            Some(lower.clone()),
            Some(upper.clone()),
            Some(*channels),
            Some(*pixels),
        ),
    };
    let swizzle = match m.swizzle {
        (0, _) => "none",
        (32, _) => "32B",
        (64, _) => "64B",
        (128, 16) => "128B",
        (128, 32) => "128B_atom_32B",
        _ => "128B_atom_64B",
    };
    TensorMapSpec {
        encode: encode.into(),
        data_type: m.ty.name.into(),
        buffer: buffer.into(),
        offset: m.offset,
        global_dim: m.dims.clone(),
        global_strides: m.strides.clone(),
        box_dim,
        element_strides: Some(m.estrides.clone()),
        interleave: if m.interleave16 { "16B" } else { "none" }.into(),
        swizzle: swizzle.into(),
        l2_promotion: "none".into(),
        oob_fill: if m.nan { "nan_request_zero_fma" } else { "none" }.into(),
        pixel_box_lower_corner: lower,
        pixel_box_upper_corner: upper,
        channels_per_pixel: cpp,
        pixels_per_column: ppc,
        pixel_box_lower_corner_width: wide.0,
        pixel_box_upper_corner_width: wide.1,
        mode: wide.2,
    }
}

/// A random map of rank `r`: element type `t`, swizzle `swz`, traversal strides above 1 when
/// `strided`; im2col corners inside the tensor when `store` (L14833-14837).
fn random_map(rng: &mut Rng, r: usize, im2col: bool, t: Ty, swz: (u32, u32), strided: bool, store: bool) -> Map {
    let e = t.bytes;
    // The inner extent in bytes: a multiple of 16 (L2152); with a swizzle, the span itself
    // (as CUTLASS's layouts have it), so each box row is one row of the swizzle's pattern.
    let inner = if swz.0 == 0 {
        16 * rng.range(1, 4) as usize
    } else {
        swz.0 as usize
    };
    // Swizzled boxes hold whole 128-byte rows of the pattern: it permutes 16-byte chunks
    // within a 128-byte row by the row's index (L2574-3046).
    let whole = if swz.0 == 0 { 1 } else { (128 / inner) as u32 };
    let mut estrides = vec![1u32; r];
    let (dims, shape) = if im2col {
        let s = r - 2;
        let channels = (inner / e) as u32;
        let pixels = whole * rng.range(2, (1024 / inner).min(24) as u32 / whole);
        let c = u64::from(channels + rng.range(0, channels));
        let mut dims = vec![c];
        let (mut lower, mut upper) = (Vec::new(), Vec::new());
        for j in 0..s {
            let n = rng.range(2, 5);
            dims.push(u64::from(n));
            if store {
                lower.push(0);
                upper.push(-(rng.range(0, 1) as i32));
            } else {
                lower.push(-(rng.range(0, 1) as i32));
                upper.push(-(rng.range(0, 2.min(n - 1)) as i32));
            }
            if strided {
                estrides[j + 1] = rng.range(1, 2);
            }
        }
        dims.push(u64::from(rng.range(1, 3)));
        (
            dims,
            Shape::Im2col {
                lower,
                upper,
                channels,
                pixels,
            },
        )
    } else {
        let b0 = (inner / e) as u32;
        let mut rows = (REGION / inner) as u32;
        let mut boxd = vec![b0];
        let mut dims = vec![u64::from(b0 + rng.range(0, b0))];
        for (d, es) in estrides.iter_mut().enumerate().skip(1) {
            let b = if d == 1 && swz.0 != 0 {
                // At least two rows of the pattern, so that every swizzle moves some chunk.
                whole * rng.range(2, 3)
            } else {
                rng.range(1, rows.clamp(1, 4))
            };
            rows = (rows / b).max(1);
            if strided {
                *es = rng.range(1, 3);
            }
            boxd.push(b);
            let extra = if r >= 4 { 1 } else { 2 };
            dims.push(u64::from(b + rng.range(0, extra)));
        }
        (dims, Shape::Tile(boxd))
    };
    // Rows padded to 16 bytes (L2070: strides give the padding), each stride a multiple of 16.
    let mut strides = Vec::new();
    let mut below = dims[0] * e as u64;
    for &n in &dims[1..] {
        let s = below.div_ceil(16) * 16 + 16 * u64::from(rng.range(0, 1));
        strides.push(s);
        below = s * n;
    }
    Map {
        ty: t,
        offset: 16 * u64::from(rng.range(0, 3)),
        dims,
        strides,
        estrides,
        shape,
        swizzle: swz,
        interleave16: false,
        nan: false,
    }
}

/// A 2-D map for `.tile::gather4`/`.tile::scatter4`: rows as wide as `random_map`'s inner
/// extent (the swizzle span when swizzled), `boxDim` {width, 1} (L2216), 4 to 8 rows.
fn gather_map(rng: &mut Rng, t: Ty, swz: (u32, u32)) -> Map {
    let inner = if swz.0 == 0 {
        16 * rng.range(1, 4) as usize
    } else {
        swz.0 as usize
    };
    let width = (inner / t.bytes) as u32;
    let dims = vec![u64::from(width + rng.range(0, width)), u64::from(rng.range(4, 8))];
    let row = (dims[0] * t.bytes as u64).div_ceil(16) * 16 + 16 * u64::from(rng.range(0, 1));
    Map {
        ty: t,
        offset: 16 * u64::from(rng.range(0, 3)),
        dims,
        strides: vec![row],
        estrides: vec![1, 1],
        shape: Shape::Gather4(width),
        swizzle: swz,
        interleave16: false,
        nan: false,
    }
}

/// A rank-`r` im2col-wide map for `.im2col::w` (`w128` false) or `.im2col::w::128`: pixels of
/// 16 or 32 bytes (16 for `::128`, whose 128 pixels and halos then fit a region), a swizzle
/// the driver takes for such maps (64B, 128B, 128B with 32-byte atoms; spec/INTERPRETATIONS.md),
/// W traversal stride 2 when `strided`, `wHalo` 0..=3.
fn wide_map(rng: &mut Rng, r: usize, t: Ty, w128: bool, strided: bool) -> Map {
    let swz = [(64, 16), (128, 16), (128, 32)][rng.range(0, 2) as usize];
    let pixel = if w128 { 16 } else { 16 * rng.range(1, 2) as usize };
    let channels = (pixel / t.bytes) as u32;
    let mut dims = vec![u64::from(channels + rng.range(0, channels)), u64::from(rng.range(3, 9))];
    for _ in 0..r - 3 {
        dims.push(u64::from(rng.range(1, 3)));
    }
    dims.push(u64::from(rng.range(2, 3)));
    let mut estrides = vec![1u32; r];
    if strided {
        estrides[1] = 2;
    }
    let mut strides = Vec::new();
    let mut below = dims[0] * t.bytes as u64;
    for &n in &dims[1..] {
        let s = below.div_ceil(16) * 16 + 16 * u64::from(rng.range(0, 1));
        strides.push(s);
        below = s * n;
    }
    Map {
        ty: t,
        offset: 16 * u64::from(rng.range(0, 3)),
        dims,
        strides,
        estrides,
        shape: Shape::Im2colW {
            lower: -(rng.range(0, 1) as i32),
            upper: -(rng.range(0, 2) as i32),
            channels,
            pixels: rng.range(2, 24),
            w128,
            halo: rng.range(0, 3) as u16,
        },
        swizzle: swz,
        interleave16: false,
        nan: false,
    }
}

/// Four distinct row indices of `m` (a gather's): inside the tensor when `inside`, else from one
/// row above it to one row below it.
fn gather_rows(rng: &mut Rng, m: &Map, inside: bool) -> Vec<i32> {
    let n = m.dims[1] as i32;
    let mut cand: Vec<i32> = if inside { (0..n).collect() } else { (-1..=n).collect() };
    for i in 0..4 {
        let j = i + rng.range(0, (cand.len() - 1 - i) as u32) as usize;
        cand.swap(i, j);
    }
    cand.truncate(4);
    cand
}

/// Coordinates (and im2col offsets) of a box of `m`: wholly inside when `inside`, else from
/// crossing the tensor's edge in dimension 0 (C in im2col), negative coordinates included.
fn random_box(rng: &mut Rng, m: &Map, inside: bool, offsets: bool) -> (Vec<i32>, Vec<u16>) {
    let r = m.rank();
    match &m.shape {
        Shape::Im2colW {
            lower,
            upper,
            channels,
            halo,
            ..
        } => {
            let c0 = m.dims[0] as u32 - channels;
            let mut c = vec![if inside {
                rng.range(0, c0)
            } else {
                c0 + rng.range(1, channels - 1)
            } as i32];
            // The first W inside the box (a start right of it is refused, L2421).
            let hi = m.dims[1] as i32 - 1 + upper;
            c.push(lower + rng.range(0, (hi - lower) as u32) as i32);
            for d in 2..r - 1 {
                c.push(rng.range(0, m.dims[d] as u32 - 1) as i32);
            }
            c.push(rng.range(0, m.dims[r - 1] as u32 - 1) as i32);
            (c, vec![*halo, rng.range(0, 2) as u16])
        }
        Shape::Gather4(width) => {
            let n = m.dims[0] as u32;
            let col = if inside {
                rng.range(0, n - width) as i32
            } else {
                // Across the left or right edge, as a tile box's dimension 0.
                let k = rng.range(1, width - 1) as i32;
                if rng.range(0, 1) == 0 {
                    -k
                } else {
                    (n - width) as i32 + k
                }
            };
            let mut c = vec![col];
            c.extend(gather_rows(rng, m, inside));
            (c, Vec::new())
        }
        Shape::Tile(b) => {
            let c = (0..r)
                .map(|d| {
                    let extent = (b[d].div_ceil(m.estrides[d]) - 1) * m.estrides[d] + 1;
                    let n = m.dims[d] as u32;
                    if inside {
                        rng.range(0, n - extent) as i32
                    } else if d == 0 {
                        // Dimension 0 (at least 2 elements wide) always crosses an edge, below 0
                        // or past the end, so every such box has out-of-bounds elements.
                        let k = rng.range(1, extent - 1) as i32;
                        if rng.range(0, 1) == 0 {
                            -k
                        } else {
                            n as i32 - extent as i32 + k
                        }
                    } else {
                        rng.range(0, n + extent - 1) as i32 - extent as i32 + 1
                    }
                })
                .collect();
            (c, Vec::new())
        }
        Shape::Im2col {
            lower, upper, channels, ..
        } => {
            let c0 = m.dims[0] as u32 - channels;
            let mut c = vec![if inside {
                rng.range(0, c0)
            } else {
                c0 + rng.range(1, channels - 1)
            } as i32];
            for j in 0..r - 2 {
                let hi = m.dims[j + 1] as i32 - 1 + upper[j];
                c.push(lower[j] + rng.range(0, (hi - lower[j]) as u32) as i32);
            }
            c.push(rng.range(0, m.dims[r - 1] as u32 - 1) as i32);
            let o = if offsets {
                (0..r - 2).map(|_| rng.range(0, 2) as u16).collect()
            } else {
                Vec::new()
            };
            (c, o)
        }
    }
}

/// Random tensor bytes; on `f32` maps every word a finite float (bit 30 clear: no exponent of
/// all ones), so a NaN read back can only be a fill.
fn data(rng: &mut Rng, n: usize, t: Ty) -> Vec<u8> {
    let mut b = rng.bytes(n);
    if t.name == "f32" {
        for w in b.chunks_mut(4) {
            if w.len() == 4 {
                w[3] &= 0xbf;
            }
        }
    }
    b
}

/// Checks of `bytes` at `out + base`, one per 64 bytes.
fn check_bytes(k: &mut Kernel, base: usize, bytes: &[u8], what: &str) {
    for (i, c) in bytes.chunks(64).enumerate() {
        k.checks.push(Check {
            offset: base + 64 * i,
            rule: Rule::Bytes(c.to_vec()),
            what: format!("{what}, bytes {}..{}", 64 * i, 64 * i + c.len()),
        });
    }
}

/// Every thread waits for phase 0 of `mbar` (a bounded `try_wait.parity` loop) and stores
/// whether it completed, which must be True.
fn wait_phase(k: &mut Kernel, what: &str) {
    let (poll, done) = (k.label(), k.label());
    let off = k.slots();
    k.by(
        0,
        THREADS,
        &super::bounded_wait(
            "mbarrier.try_wait.parity.shared.b64 %p3, [mbar], 0;",
            &poll,
            &done,
            off,
            false,
        ),
    );
    for t in 0..THREADS {
        k.checks.push(Check {
            offset: off + 4 * t as usize,
            rule: Rule::Bytes(1u32.to_le_bytes().to_vec()),
            what: format!("try_wait.parity 0 after {what}: the phase completes (L14966, L18488) (thread {t})"),
        });
    }
}

/// The threads copy `bytes` of shared memory from `sm + from` to `out + to`, a word each in
/// turn; with `nan`, every word that is an `f32` NaN becomes 0x7fffffff.
fn copy_out(k: &mut Kernel, from: usize, to: usize, bytes: usize, nan: bool) {
    let (top, end) = (k.label(), k.label());
    let mut l = vec![
        "mov.u32 %r17, %r0;".to_string(),
        format!("{top}:"),
        format!("setp.ge.u32 %p4, %r17, {};", bytes / 4),
        format!("@%p4 bra {end};"),
        "mul.wide.u32 %rd13, %r17, 4;".into(),
        "mov.u64 %rd14, sm;".into(),
        "add.s64 %rd14, %rd14, %rd13;".into(),
        format!("ld.shared.b32 %r18, [%rd14+{from}];"),
    ];
    if nan {
        l.push("mov.b32 %f1, %r18;".into());
        l.push("testp.notanumber.f32 %p6, %f1;".into());
        l.push("@%p6 mov.b32 %r18, 0x7fffffff;".into());
    }
    l.extend([
        "add.s64 %rd15, %rd0, %rd13;".to_string(),
        format!("st.global.b32 [%rd15+{to}], %r18;"),
        "add.u32 %r17, %r17, 32;".into(),
        format!("bra {top};"),
        format!("{end}:"),
    ]);
    k.by(0, THREADS, &l);
}

/// The threads copy `bytes` from `in + 0` to `sm + 0`, then `fence.proxy.async.shared::cta`
/// (the generic writes ordered before the tensor copies' async-proxy accesses: a cross-proxy fence, L14241).
fn fill_shared(k: &mut Kernel, bytes: usize, sentinel: bool) {
    let (top, end) = (k.label(), k.label());
    let mut l = vec![
        "mov.u32 %r17, %r0;".to_string(),
        format!("{top}:"),
        format!("setp.ge.u32 %p4, %r17, {};", bytes / 4),
        format!("@%p4 bra {end};"),
        "mul.wide.u32 %rd13, %r17, 4;".into(),
        "mov.u64 %rd14, sm;".into(),
        "add.s64 %rd14, %rd14, %rd13;".into(),
    ];
    if sentinel {
        l.push(format!("mov.b32 %r18, {SENTINEL:#x};"));
    } else {
        l.push("add.s64 %rd15, %rd1, %rd13;".into());
        l.push("ld.global.b32 %r18, [%rd15];".into());
    }
    l.extend([
        "st.shared.b32 [%rd14], %r18;".to_string(),
        "add.u32 %r17, %r17, 32;".into(),
        format!("bra {top};"),
        format!("{end}:"),
        "fence.proxy.async.shared::cta;".into(),
    ]);
    k.by(0, THREADS, &l);
}

/// The module and launch: `conform(in, out, tmap0)`, `out` starting as `out_init`; `%rd30` is
/// the generic address of `tmap0` (as CUTLASS passes `&tmap` of a `__grid_constant__`
/// parameter: ptxas 12.9 refuses the parameter's name as the operand, "State space mismatch").
fn finish(
    k: Kernel,
    form: &Form,
    how: &str,
    (ptx, target): (PtxVersion, Target),
    maps: &[(&Map, &str)],
    input: &[u8],
    out_init: Vec<u8>,
) -> Scenario {
    let mut m = format!(
        "// ptxconf operational conformance kernel for `{}` ({}): {how}\n.version {ptx}\n.target {target}\n.address_size 64\n\n{DECLS}\n\n\
         .visible .entry {}(.param .u64 in, .param .u64 out",
        form.name,
        form.signature(),
        crate::kernel::ENTRY
    );
    for i in 0..maps.len() {
        let _ = write!(m, ", .param .align 64 .b8 tmap{i}[128]");
    }
    m.push_str(
        ")\n{\n\t.reg .pred %p<8>;\n\t.reg .b16 %rs<8>;\n\t.reg .b32 %r<32>;\n\t.reg .b64 %rd<32>;\n\t.reg .f32 %f<4>;\n\
         \tld.param.u64 %rd0, [out];\n\tcvta.to.global.u64 %rd0, %rd0;\n\
         \tld.param.u64 %rd1, [in];\n\tcvta.to.global.u64 %rd1, %rd1;\n\
         \tmov.u32 %r0, %tid.x;\n\tmul.wide.u32 %rd3, %r0, 4;\n\tadd.s64 %rd4, %rd0, %rd3;\n\tmov.b16 %rs5, 1;\n\
         \tmov.u64 %rd30, tmap0;\n\tcvta.param.u64 %rd30, %rd30;\n",
    );
    m.push_str(&k.body);
    m.push_str("\tret;\n}\n");
    let mut out = out_init;
    if out.len() < k.out {
        out.resize(k.out, 0);
    }
    let mut input = input.to_vec();
    if input.is_empty() {
        input.push(0);
    }
    let mut params = vec![
        JobParam::Buffer { buffer: "in".into() },
        JobParam::Buffer { buffer: "out".into() },
    ];
    for (map, buf) in maps {
        params.push(JobParam::TensorMap {
            tensor_map: Box::new(spec_of(map, buf)),
        });
    }
    Scenario {
        name: how.to_string(),
        job: Job {
            ptx: m,
            entry: crate::kernel::ENTRY.to_string(),
            grid: [1, 1, 1],
            block: [THREADS, 1, 1],
            buffers: vec![
                JobBuffer {
                    name: "in".into(),
                    hex: Some(oracle::launch::encode_hex(&input)),
                    size: None,
                },
                JobBuffer {
                    name: "out".into(),
                    hex: Some(oracle::launch::encode_hex(&out)),
                    size: None,
                },
            ],
            params,
            shared_bytes: 0,
            cluster: None,
        },
        checks: k.checks,
    }
}

/// A map for scenario `n` of a copy form: plain; swizzled with a box over the edge (and the
/// cache hint); traversal strides with OOB-NaN fill on `f32` (loads) or another type.
fn map_for(rng: &mut Rng, form: &Form, n: usize, r: usize, mode: &str, store: Option<Option<Op>>) -> Map {
    let im2col = mode.starts_with("im2col");
    let t = match store {
        Some(Some(op)) => {
            let names = op.types();
            ty(names[rng.range(0, names.len() as u32 - 1) as usize])
        }
        _ if n == 2 && store.is_none() => ty("f32"),
        _ => TYPES[rng.range(0, TYPES.len() as u32 - 1) as usize],
    };
    // A 1-D box is one row, where every swizzle pattern is the identity.
    let swz = if n == 1 && r > 1 {
        // A gather's four rows of a 32-byte-swizzled map fill one 128-byte row at the 1024-aligned
        // destination, where the 32-byte pattern is the identity: its swizzled scenarios take the
        // spans that move bytes.
        let spans: &[u32] = if mode.starts_with("tile::") {
            &[64, 128]
        } else {
            &[32, 64, 128]
        };
        let span = spans[rng.range(0, spans.len() as u32 - 1) as usize];
        // The 32- and 64-byte atomicities of the 128-byte swizzle are sm_100 modes.
        let atom = if span == 128 && form.target.sm >= 100 {
            [16, 32, 64][rng.range(0, 2) as usize]
        } else {
            16
        };
        (span, atom)
    } else {
        (0, 16)
    };
    let mut m = if mode.starts_with("tile::") {
        gather_map(rng, t, swz)
    } else if mode.starts_with("im2col::w") {
        wide_map(rng, r, t, mode == "im2col::w::128", n == 2)
    } else {
        random_map(rng, r, im2col, t, swz, n == 2, store.is_some())
    };
    m.nan = n == 2 && store.is_none() && t.name == "f32";
    m
}

/// The scenarios of a tensor-copy form: three maps each, two boxes per map (one inside the
/// tensor, one anywhere it touches it).
fn copies(form: &Form, rng: &mut Rng) -> Result<Vec<Scenario>, BuildError> {
    let kind = kind(form)?;
    let r = rank(form)?;
    let mode = form.var("mode").unwrap_or("");
    if !matches!(
        mode,
        "" | "tile" | "im2col" | "im2col_no_offs" | "tile::gather4" | "tile::scatter4" | "im2col::w" | "im2col::w::128"
    ) {
        return Err(BuildError(format!(
            "`{}`: no tensor-copy scenario for `.{mode}` yet",
            form.name
        )));
    }
    let im2col = mode.starts_with("im2col");
    let head = header(form, 90, PtxVersion(8, 0));
    let hint_ok = trailing_hints(form).iter().flatten().any(|h| *h == "L2::cache_hint")
        && form.inputs.iter().any(|o| o.name == "cache_policy");
    let mut out = Vec::new();
    for n in 0..3 {
        let store = match kind {
            Kind::Store(op) => Some(op),
            _ => None,
        };
        let m = map_for(rng, form, n, r, mode, store);
        let hinted = hint_ok && n == 1;
        let boxes: Vec<(Vec<i32>, Vec<u16>)> = (0..2)
            .map(|b| random_box(rng, &m, b == 0, im2col && store.is_none()))
            .collect();
        out.push(match kind {
            Kind::Load | Kind::Prefetch => load(form, rng, kind, &m, &boxes, hinted, head)?,
            Kind::Store(op) => store_scenario(form, rng, op, &m, &boxes, hinted, head)?,
        });
    }
    if let Kind::Store(Some(op)) = kind {
        if op.halves() {
            // `.f16` and `.bf16` maps, boxes inside the tensor (whole rows: the element pairs
            // of packed halves never split).
            for t in ["f16", "bf16"] {
                let m = random_map(rng, r, im2col, model::ty(t), (0, 16), false, true);
                let boxes: Vec<(Vec<i32>, Vec<u16>)> = (0..2).map(|_| random_box(rng, &m, true, false)).collect();
                out.push(store_scenario(form, rng, Some(op), &m, &boxes, false, head)?);
            }
        }
    }
    if kind == Kind::Load && cluster::is_multicast(form) {
        out.push(cluster::multicast(form, rng)?);
    }
    if kind == Kind::Load && cluster::is_peer_signalled(form) {
        out.push(cluster::peer(form, rng)?);
    }
    Ok(out)
}

fn describe(m: &Map, boxes: &[(Vec<i32>, Vec<u16>)]) -> String {
    let shape = match &m.shape {
        Shape::Tile(b) => format!("box {b:?}"),
        Shape::Gather4(w) => format!("four rows of {w}"),
        Shape::Im2colW {
            lower,
            upper,
            channels,
            pixels,
            w128,
            halo,
        } => format!(
            "im2col-wide W corners {lower}/{upper}, {channels} channels x {} pixels, wHalo {halo}",
            if *w128 { 128 } else { *pixels }
        ),
        Shape::Im2col {
            lower,
            upper,
            channels,
            pixels,
        } => format!("im2col corners {lower:?}/{upper:?}, {channels} channels x {pixels} pixels"),
    };
    let b: Vec<String> = boxes
        .iter()
        .map(|(c, o)| {
            if o.is_empty() {
                format!("{c:?}")
            } else {
                format!("{c:?}+{o:?}")
            }
        })
        .collect();
    format!(
        "{} tensor {:?} (strides {:?}, traversal {:?}), {shape}, swizzle {}/{}{}; boxes at {}",
        m.ty.name,
        m.dims,
        m.strides,
        m.estrides,
        m.swizzle.0,
        m.swizzle.1,
        if m.nan { ", OOB-NaN" } else { "" },
        b.join(" and ")
    )
}

/// A load scenario (or, for `cp.async.bulk.prefetch.tensor`, the prefetches of the boxes
/// followed by plain loads of them: a prefetch is only a hint, L15185).
fn load(
    form: &Form,
    rng: &mut Rng,
    kind: Kind,
    m: &Map,
    boxes: &[(Vec<i32>, Vec<u16>)],
    hinted: bool,
    head: (PtxVersion, Target),
) -> Result<Scenario, BuildError> {
    let input = data(rng, m.span(), m.ty);
    let mut k = Kernel::new();
    let bb = m.box_bytes();
    fill_shared(&mut k, boxes.len() * REGION, true);
    k.by(
        0,
        1,
        &[
            "mbarrier.init.shared.b64 [mbar], 1;".into(),
            "fence.proxy.async.shared::cta;".into(),
        ],
    );
    let mut l = Vec::new();
    if hinted {
        l.push(POLICY.to_string());
    }
    l.push(format!(
        "mbarrier.arrive.expect_tx.shared.b64 %rd10, [mbar], {};",
        bb * boxes.len()
    ));
    let im2col = matches!(m.shape, Shape::Im2col { .. } | Shape::Im2colW { .. });
    let r = m.rank();
    for (i, (c, o)) in boxes.iter().enumerate() {
        let (coords, im2col_ops) = place(&mut l, c, o);
        region_addr(&mut l, i);
        let mut ops = Ops {
            smem: "%rd12".into(),
            map: "%rd30".into(),
            coords,
            im2col: im2col_ops,
            hinted,
            mbar: None,
        };
        if kind == Kind::Prefetch {
            l.push(tensor_instr(form, &ops)?);
            ops.hinted = false;
            let mode = match m.shape {
                Shape::Im2col { .. } => "im2col",
                Shape::Im2colW { w128: false, .. } => "im2col::w",
                Shape::Im2colW { w128: true, .. } => "im2col::w::128",
                Shape::Gather4(_) => "tile::gather4",
                Shape::Tile(_) => "tile",
            };
            let offs = if im2col {
                format!(", {{{}}}", ops.im2col.join(", "))
            } else {
                String::new()
            };
            l.push(format!(
                "cp.async.bulk.tensor.{r}d.shared::cluster.global.{mode}.mbarrier::complete_tx::bytes [%rd12], [%rd30, {{{}}}], [mbar]{offs};",
                ops.coords.join(", ")
            ));
        } else {
            l.push(tensor_instr(form, &ops)?);
        }
    }
    k.by(0, 1, &l);
    wait_phase(
        &mut k,
        &format!("expect_tx of {} bytes and the copies", bb * boxes.len()),
    );
    for (i, (c, o)) in boxes.iter().enumerate() {
        let img = m.load(&input, c, o);
        let base = k.out;
        k.out += img.len().div_ceil(64) * 64;
        copy_out(&mut k, i * REGION, base, img.len().div_ceil(4) * 4, m.nan);
        check_bytes(
            &mut k,
            base,
            &img,
            &format!(
                "box {i} at {c:?}{}: the elements in shared-memory order, swizzled, out-of-bounds ones {} (L2146-2190, L2574-3046)",
                if o.is_empty() { String::new() } else { format!(" offsets {o:?}") },
                if m.nan { "NaN" } else { "zero" }
            ),
        );
    }
    let how = format!(
        "{}{}: {}",
        if kind == Kind::Prefetch {
            "prefetch then load"
        } else {
            "load"
        },
        if hinted { " with L2::cache_hint" } else { "" },
        describe(m, boxes)
    );
    Ok(finish(k, form, &how, head, &[(m, "in")], &input, Vec::new()))
}

/// A store or reduction scenario: the boxes' images from `in` into shared memory, each copy its
/// own bulk async-group waited for before the next (copies of one group are unordered,
/// L15325), the tensor in `out`.
fn store_scenario(
    form: &Form,
    rng: &mut Rng,
    op: Option<Op>,
    m: &Map,
    boxes: &[(Vec<i32>, Vec<u16>)],
    hinted: bool,
    head: (PtxVersion, Target),
) -> Result<Scenario, BuildError> {
    let small = |rng: &mut Rng, n: usize| -> Vec<u8> {
        // Small values make `.inc`/`.dec` take both branches and `f32` sums exact.
        match (op, m.ty.name) {
            (Some(Op::Inc | Op::Dec), _) => (0..n / 4).flat_map(|_| rng.range(0, 12).to_le_bytes()).collect(),
            (Some(o), "f16" | "bf16") => {
                // Finite halves; for `.add` a quarter subnormal and a quarter among the smallest
                // normals (bulk.rs `Elem::random_subnormal`).
                let e = if m.ty.name == "f16" { Elem::F16 } else { Elem::Bf16 };
                let name = if o == Op::Add { "add" } else { "min" };
                (0..n / 2).flat_map(|_| e.random_subnormal(name, rng)).collect()
            }
            (_, "f32") => (0..n / 4)
                .flat_map(|_| ((rng.range(0, 2000) as f32 - 1000.0) / 8.0).to_bits().to_le_bytes())
                .collect(),
            _ => data(rng, n, m.ty),
        }
    };
    let input = small(rng, boxes.len() * REGION);
    let tensor = small(rng, m.span().div_ceil(16) * 16);
    let mut expected = tensor.clone();
    let mut k = Kernel::new();
    k.out = tensor.len();
    fill_shared(&mut k, boxes.len() * REGION, false);
    let mut l = Vec::new();
    if hinted {
        l.push(POLICY.to_string());
    }
    for (i, (c, _)) in boxes.iter().enumerate() {
        let (coords, _) = place(&mut l, c, &[]);
        region_addr(&mut l, i);
        l.push(tensor_instr(
            form,
            &Ops {
                smem: "%rd12".into(),
                map: "%rd30".into(),
                coords,
                im2col: Vec::new(),
                hinted,
                mbar: None,
            },
        )?);
        l.push("cp.async.bulk.commit_group;".into());
        l.push("cp.async.bulk.wait_group 0;".into());
        m.store(&input[i * REGION..(i + 1) * REGION], &mut expected, c, op);
    }
    k.by(0, 1, &l);
    let what = match op {
        None => "the tensor after the stores: in-bounds box elements from shared memory (unswizzled), the rest unchanged (L2178, L15325)".to_string(),
        Some(op) => format!(
            "the tensor after the {op:?} reductions: each in-bounds element combined with the box's (L15131-15145), the rest unchanged"
        ),
    };
    check_bytes(&mut k, 0, &expected, &what);
    let how = format!(
        "{}{}: {}",
        match op {
            None => "store".to_string(),
            Some(o) => format!("reduce {o:?}"),
        },
        if hinted { " with L2::cache_hint" } else { "" },
        describe(m, boxes)
    );
    Ok(finish(k, form, &how, head, &[(m, "out")], &input, tensor))
}

/// A 2-D (3-D for `.rank`) tiled map on `in` for the tensor-map scenarios: `t`, box `b0` wide.
fn base_map(rng: &mut Rng, t: Ty, b0: u32, r: usize) -> Map {
    let mut boxd = vec![b0];
    let mut dims = vec![u64::from(b0 + rng.range(0, 4))];
    for d in 1..r {
        let b = if d == 2 { 2 } else { rng.range(2, 4) };
        boxd.push(b);
        dims.push(u64::from(b + rng.range(1, 3)));
    }
    let mut strides = Vec::new();
    let mut below = dims[0] * 8;
    for &n in &dims[1..] {
        let s = below.div_ceil(16) * 16;
        strides.push(s);
        below = s * n;
    }
    Map {
        ty: t,
        offset: 0,
        dims,
        strides,
        estrides: vec![1; r],
        shape: Shape::Tile(boxd),
        swizzle: (0, 16),
        interleave16: false,
        nan: false,
    }
}

/// Bytes of `out` where the global copy of an edited map lives (`%rd13`, a generic address;
/// `%rd11` is the map's address in the form's state space).
const MAP_AT: usize = 0;

/// `tensormap.replace` of one field: thread 0 copies the launch map (`ld.param` of its 128
/// bytes, as CUTLASS's device-side descriptor updates do) to global memory (`out`) or shared
/// memory (`tm`), replaces the field, fences (`tensormap.cp_fenceproxy` from shared memory,
/// `fence.proxy.tensormap::generic` release and acquire in global memory, L17250, L17348-17350), and
/// loads a box through the new map: the bytes must follow the new field.
fn replace(form: &Form, rng: &mut Rng) -> Result<Vec<Scenario>, BuildError> {
    let field = form
        .var("field")
        .ok_or_else(|| BuildError(format!("`{}` has no field", form.name)))?;
    let ss = form.var("ss").unwrap_or("");
    let head = header(form, 90, PtxVersion(8, 3));
    let mut out = Vec::new();
    for _ in 0..2 {
        let (old, new, val, ord, coords) = replaced(rng, field, form)?;
        out.push(edited_load(
            form,
            rng,
            head,
            ss,
            &old,
            &new,
            &val,
            ord,
            &coords,
            Some(field),
        )?);
    }
    Ok(out)
}

/// The map before and after a replace of `field`, the new value's text (an immediate, or a
/// register the lines set), the `ord`, and the box's coordinates.
#[allow(clippy::type_complexity)]
fn replaced(rng: &mut Rng, field: &str, form: &Form) -> Result<(Map, Map, String, Option<u32>, Vec<i32>), BuildError> {
    let u32t = ty("u32");
    let mut ord = None;
    let (old, new, val) = match field {
        "global_address" => {
            let old = base_map(rng, u32t, 8, 2);
            let mut new = old.clone();
            new.offset = 16 * u64::from(rng.range(8, 64));
            {
                let v = format!("in+{}", new.offset);
                (old, new, v)
            }
        }
        "rank" => {
            // Rank 3 with a third dimension of 2 becomes rank 2 (`new_val` is rank - 1,
            // L15412): the 2-D load reads one plane.
            let old = base_map(rng, u32t, 8, 3);
            let mut new = old.clone();
            new.dims.truncate(2);
            new.strides.truncate(1);
            new.estrides.truncate(2);
            if let Shape::Tile(b) = &mut new.shape {
                b.truncate(2);
            }
            (old, new, "1".into())
        }
        "box_dim" => {
            // The global extent stays: a box grown past it reads zeros there.
            let old = base_map(rng, u32t, 8, 2);
            let mut new = old.clone();
            let o = rng.range(0, 1) as usize;
            ord = Some(o as u32);
            let Shape::Tile(b) = &mut new.shape else { unreachable!() };
            // Dimension 0 in 16-byte steps (L2152).
            let (step, v) = if o == 0 {
                (4, 4 * rng.range(1, 4))
            } else {
                (1, rng.range(1, 5))
            };
            b[o] = if v == b[o] { v + step } else { v };
            let v = b[o];
            (old, new, v.to_string())
        }
        "global_dim" => {
            let old = base_map(rng, u32t, 8, 2);
            let mut new = old.clone();
            let o = rng.range(0, 1) as usize;
            ord = Some(o as u32);
            new.dims[o] = u64::from(rng.range(1, old.dims[o] as u32 - 1));
            {
                let v = new.dims[o].to_string();
                (old, new, v)
            }
        }
        "element_stride" => {
            let old = base_map(rng, u32t, 8, 2);
            let mut new = old.clone();
            ord = Some(1);
            new.estrides[1] = rng.range(2, 3);
            {
                let v = new.estrides[1].to_string();
                (old, new, v)
            }
        }
        "global_stride" => {
            let old = base_map(rng, u32t, 8, 2);
            let mut new = old.clone();
            ord = Some(0);
            new.strides[0] += 16 * u64::from(rng.range(1, 4));
            {
                let v = new.strides[0].to_string();
                (old, new, v)
            }
        }
        "elemtype" => {
            let old = base_map(rng, u32t, 16, 2);
            let mut new = old.clone();
            let others: Vec<Ty> = TYPES.iter().copied().filter(|t| t.bytes != 4).collect();
            new.ty = others[rng.range(0, others.len() as u32 - 1) as usize];
            {
                let v = new.ty.code.to_string();
                (old, new, v)
            }
        }
        "interleave_layout" => {
            // 16-byte interleave (`NC/8DHWC8`, L2562) of a 3-D tensor whose dimension 0 is one
            // 16-byte slice: the tiled box reads the same elements (the traversal stride of
            // dimension 0 stays 1).
            let mut old = base_map(rng, u32t, 4, 3);
            old.dims[0] = 4;
            let mut new = old.clone();
            new.interleave16 = true;
            (old, new, "1".into())
        }
        "swizzle_mode" => {
            // Rows of the swizzle span, whole 128-byte rows of the pattern.
            let v = rng.range(1, 3);
            let span = 16u32 << v;
            let mut old = base_map(rng, u32t, span / 4, 2);
            if let Shape::Tile(b) = &mut old.shape {
                b[1] = 2 * 128 / span;
                old.dims[1] = old.dims[1].max(u64::from(b[1]));
            }
            old.strides[0] = old.strides[0].max(old.dims[0] * 4).div_ceil(16) * 16;
            let mut new = old.clone();
            new.swizzle = (span, 16);
            (old, new, v.to_string())
        }
        "fill_mode" => {
            let old = base_map(rng, ty("f32"), 8, 2);
            let mut new = old.clone();
            new.nan = true;
            (old, new, "1".into())
        }
        "swizzle_atomicity" => {
            let mut old = base_map(rng, u32t, 32, 2);
            old.swizzle = (128, 16);
            let mut new = old.clone();
            let v = [1u32, 3][rng.range(0, 1) as usize];
            new.swizzle = (128, if v == 1 { 32 } else { 64 });
            (old, new, v.to_string())
        }
        f => return Err(BuildError(format!("`{}`: no scenario for field `{f}`", form.name))),
    };
    // A box over the tensor's top-left edge for the fill, inside otherwise.
    let Shape::Tile(b) = &new.shape else { unreachable!() };
    let coords = if field == "fill_mode" {
        vec![-(rng.range(1, 3) as i32), rng.range(0, 1) as i32]
    } else {
        (0..new.rank())
            .map(|d| {
                let extent = (b[d].div_ceil(new.estrides[d]) - 1) * new.estrides[d] + 1;
                (new.dims[d] as u32).saturating_sub(extent).min(1) as i32
            })
            .collect()
    };
    Ok((old, new, val, ord, coords))
}

/// The load through a map edited on the device (`field` replaced by the form), or for
/// `tensormap.cp_fenceproxy` (`field` None) copied from shared memory unchanged.
#[allow(clippy::too_many_arguments)]
fn edited_load(
    form: &Form,
    rng: &mut Rng,
    head: (PtxVersion, Target),
    ss: &str,
    old: &Map,
    new: &Map,
    val: &str,
    ord: Option<u32>,
    coords: &[i32],
    field: Option<&str>,
) -> Result<Scenario, BuildError> {
    let span = old.span().max(new.span());
    let input = data(rng, span, new.ty);
    let mut k = Kernel::new();
    // out: the global copy of the map at MAP_AT (128 bytes), then the observations.
    k.out = MAP_AT + 128;
    let shared = ss == "shared::cta" || field.is_none();
    fill_shared(&mut k, REGION, true);
    let mut l = vec![
        "ld.param.u64 %rd13, [out];".to_string(),
        format!("add.s64 %rd13, %rd13, {MAP_AT};"),
    ];
    // The map's copy: 16 words of the parameter.
    for w in 0..16 {
        l.push(format!("ld.param.b64 %rd16, [tmap0+{}];", 8 * w));
        l.push(if shared {
            format!("st.shared.b64 [tm+{}], %rd16;", 8 * w)
        } else {
            format!("st.global.b64 [%rd13+{}], %rd16;", 8 * w)
        });
    }
    l.push(match ss {
        "shared::cta" => "mov.u64 %rd11, tm;".to_string(),
        _ => "mov.u64 %rd11, %rd13;".to_string(),
    });
    if let Some(field) = field {
        let v = if field == "global_address" {
            l.push("ld.param.u64 %rd17, [in];".into());
            l.push(format!("add.s64 %rd17, %rd17, {};", new.offset));
            "%rd17".to_string()
        } else if matches!(field, "box_dim" | "global_dim" | "element_stride") {
            l.push(format!("mov.b32 %r19, {val};"));
            "%r19".to_string()
        } else if field == "global_stride" {
            l.push(format!("mov.b64 %rd17, {val};"));
            "%rd17".to_string()
        } else {
            val.to_string()
        };
        let mut ops = vec![("addr", "[%rd11]".to_string())];
        if let Some(o) = ord {
            ops.push(("ord", o.to_string()));
        }
        ops.push(("new_val", v));
        l.push(super::instr(form, &ops)?);
    }
    if !shared {
        l.push("fence.proxy.tensormap::generic.release.gpu;".into());
    }
    k.by(0, 1, &l);
    if shared {
        // The whole warp copies the map to global memory with the release fence (`.sync.aligned`,
        // L19272-19274).
        let cp = match field {
            None => super::instr(
                form,
                &[
                    ("dst", "[%rd13]".into()),
                    ("src", "[%rd11]".into()),
                    ("size", "128".into()),
                ],
            )?,
            Some(_) => "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%rd13], [%rd11], 128;".into(),
        };
        let mut pre = vec![
            "ld.param.u64 %rd13, [out];".to_string(),
            format!("add.s64 %rd13, %rd13, {MAP_AT};"),
            "mov.u64 %rd11, tm;".into(),
        ];
        pre.push(cp);
        k.by(0, THREADS, &pre);
    }
    let bb = new.box_bytes();
    {
        let mut l = vec![
            "fence.proxy.tensormap::generic.acquire.gpu [%rd13], 128;".to_string(),
            "mbarrier.init.shared.b64 [mbar], 1;".into(),
            "fence.proxy.async.shared::cta;".into(),
            format!("mbarrier.arrive.expect_tx.shared.b64 %rd10, [mbar], {bb};"),
        ];
        let (c, _) = place(&mut l, coords, &[]);
        region_addr(&mut l, 0);
        l.push(format!(
            "cp.async.bulk.tensor.{}d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%rd12], [%rd13, {{{}}}], [mbar];",
            new.rank(),
            c.join(", ")
        ));
        k.by(0, 1, &l);
    }
    wait_phase(
        &mut k,
        &format!("expect_tx of the edited box's {bb} bytes and the copy"),
    );
    let base = k.out;
    k.out += bb.div_ceil(64) * 64;
    copy_out(&mut k, 0, base, bb.div_ceil(4) * 4, new.nan);
    let img = new.load(&input, coords, &[]);
    let what = match field {
        Some(f) => {
            format!("the box at {coords:?} through the map with `.{f}` replaced (L15385-15416, Table 32 L15416-15560)")
        }
        None => format!("the box at {coords:?} through the map copied by tensormap.cp_fenceproxy (L19260-19270)"),
    };
    check_bytes(&mut k, base, &img, &what);
    let how = match field {
        Some(f) => format!(
            "replace .{f} with {val}{} in {}: {} becomes {}",
            ord.map(|o| format!(" (ord {o})")).unwrap_or_default(),
            if ss.is_empty() {
                "global memory by a generic address"
            } else {
                ss
            },
            describe(old, &[(coords.to_vec(), Vec::new())]),
            describe(new, &[])
        ),
        None => format!(
            "copy a launch map through shared memory: {}",
            describe(new, &[(coords.to_vec(), Vec::new())])
        ),
    };
    Ok(finish(k, form, &how, head, &[(old, "in")], &input, Vec::new()))
}

/// `tensormap.cp_fenceproxy`: a launch map copied to shared memory, from there to global memory
/// by the form, acquired, and used by a load.
fn cp_fenceproxy(form: &Form, rng: &mut Rng) -> Result<Vec<Scenario>, BuildError> {
    let head = header(form, 90, PtxVersion(8, 3));
    (0..2)
        .map(|_| {
            let m = base_map(rng, ty("u32"), 8, 2);
            let Shape::Tile(b) = &m.shape else { unreachable!() };
            let coords = vec![rng.range(0, (m.dims[0] - u64::from(b[0])) as u32) as i32, 1];
            edited_load(form, rng, head, "shared::cta", &m, &m, "", None, &coords, None)
        })
        .collect()
}
