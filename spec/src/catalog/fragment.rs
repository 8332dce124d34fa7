//! Fragment lengths: how many registers a braced matrix operand holds.
//!
//! The catalog writes each fragment of the manual (`{d}`, `{a}`, `{b}`, `{c}` of `mma`, `wmma`,
//! `wgmma`; the `{r}` of `ldmatrix`, `stmatrix`, `tcgen05.ld/st`; tcgen05's disable-output-lane
//! mask) as one braced element standing for the whole vector, because the length depends on the
//! form's shape and types. This module gives that length; the type checker requires it and the
//! writers of generated PTX use it. The tensor copies' `{coords}` and `{im2col_info}` vectors,
//! whose lengths follow `.dim` and the load mode, are written the same way and counted here too.
//!
//! The rule behind most lengths: a fragment holds the matrix's elements spread evenly over the
//! threads that compute it (32 for a warp, 128 for a warpgroup, 8 for the quad-pair of the
//! `.m8n8k4` f16 `mma`, L21037-21059), packed into 32-bit registers (`.f64` ones for f64). The
//! exceptions are the manual's: `wmma`'s f16 A and B fragments are eight `.f16x2` registers for
//! every shape (L20186-20192; twice the share for 16×16, four times for 8×16), fp6/fp4 elements of
//! `kind::f8f6f4`/`kind::mxf8f6f4` sit in 8-bit containers (L22355-22357, L22422-22424), and the
//! sparse forms' A holds half of K (L24479). Every length is checked against ptxas 12.9 by the census of
//! `oracle/tests/ptxas_agreement.rs`, which writes every form with these lengths.

use super::{Form, Operand};

/// `m16n8k16` → (16, 8, 16).
pub(crate) fn mnk(shape: &str) -> Option<(usize, usize, usize)> {
    let s = shape.strip_prefix('m')?;
    let (m, rest) = s.split_once('n')?;
    let (n, k) = rest.split_once('k')?;
    Some((m.parse().ok()?, n.parse().ok()?, k.parse().ok()?))
}

/// Bits one element of a matrix of type `t` takes in its register (`kind` decides whether fp6
/// and fp4 sit in 8-bit containers).
pub(crate) fn element_bits(t: &str, kind: Option<&str>) -> Option<usize> {
    Some(match t {
        "f64" => 64,
        "f32" | "s32" | "tf32" => 32,
        "f16" | "bf16" => 16,
        "s8" | "u8" | "e4m3" | "e5m2" => 8,
        "e3m2" | "e2m3" => 8,
        "e2m1" => match kind {
            Some("kind::mxf4" | "kind::mxf4nvf4") => 4,
            _ => 8,
        },
        "s4" | "u4" => 4,
        "b1" => 1,
        _ => return None,
    })
}

/// Registers for `elems` elements of `bits` each: 64-bit elements one per `.f64` register, the
/// others packed into 32-bit ones.
fn registers(elems: usize, bits: usize) -> usize {
    if bits == 64 {
        elems
    } else {
        (elems * bits).div_ceil(32)
    }
}

/// The number of registers operand `o` of `form` holds when the catalog writes it as one braced
/// element standing for a fragment; `None` for every other operand.
pub fn length(form: &Form, o: &Operand) -> Option<usize> {
    o.group?;
    let group_size = form
        .outputs
        .iter()
        .chain(&form.inputs)
        .filter(|p| p.group == o.group)
        .count();
    if group_size != 1 {
        return None;
    }
    let num = || {
        form.var("num")
            .and_then(|n| n.strip_prefix('x'))
            .and_then(|n| n.parse::<usize>().ok())
    };
    match form.opcode {
        "mma" => mma(form, o.name),
        "wmma" => wmma(form, o.name),
        "wgmma" => wgmma(form, o.name),
        // L23475-23491: each 8×8 matrix of b16 is one register per thread; the .m16n16 b8
        // matrices two, the .m8n16 ones one.
        "ldmatrix" => Some(num()? * if form.var("shape")? == "m16n16" { 2 } else { 1 }),
        // L23605: one register per matrix (.m8n8 b16, .m16n8 b8).
        "stmatrix" => num(),
        // L28561-28631 (table 46): registers per thread for each .num repetition of a shape.
        "tcgen05" if o.name == "r" => {
            let per = match form.var("shape")? {
                "16x64b" | "32x32b" | "16x32bx2" => 1,
                "16x128b" => 2,
                "16x256b" => 4,
                _ => return None,
            };
            Some(num()? * per)
        }
        // L30046-30058: a mask word per 32 lanes, four for .cta_group::1, eight for ::2.
        "tcgen05" if o.name == "disable_output_lane" => match form.var("cg")? {
            "cta_group::1" => Some(4),
            "cta_group::2" => Some(8),
            _ => None,
        },
        // The tensor copies' vectors (L14908, L14916-14926, L14976-14994): `.dim` coordinates,
        // five for `.tile::gather4`/`.tile::scatter4`; `.dim - 2` im2col offsets for `.im2col`,
        // `{wHalo, wOffset}` for `.im2col::w` and `.im2col::w::128`.
        _ if o.name == "coords" || o.name == "im2col_info" => {
            let dim = form.var("dim")?.strip_suffix('d')?.parse::<usize>().ok()?;
            let mode = form.var("mode").unwrap_or("tile");
            Some(match (o.name, mode) {
                ("coords", "tile::gather4" | "tile::scatter4") => 5,
                ("coords", _) => dim,
                (_, "im2col::w" | "im2col::w::128") => 2,
                _ => dim.checked_sub(2)?,
            })
        }
        _ => None,
    }
}

/// Where the manual gives operand `o`'s [`length`]: the tensor copies' vectors (L14908,
/// L14916-14926, L14976-14994) or the matrix fragments (§9.7.14-16).
pub fn rule(o: &Operand) -> &'static str {
    match o.name {
        "coords" | "im2col_info" => "L14908, L14916-14926, L14976-14994",
        _ => "§9.7.14-16 fragment sizes",
    }
}

/// `mma` and `mma.sp` (§9.7.14.5.14, §9.7.14.6.3): per-thread share of M×K (A), K×N (B) and M×N
/// (C, D) over the warp.
fn mma(form: &Form, name: &str) -> Option<usize> {
    let (m, n, k) = mnk(form.var("shape")?)?;
    let kind = form.var("kind");
    let at = form.var("at")?;
    // The .m8n8k4 f16 forms are computed by quad-pairs of 8 threads (L21047-21059).
    let threads = if (m, n, k) == (8, 8, 4) && at == "f16" { 8 } else { 32 };
    let sparse = form.var("sp").is_some();
    let (elems, t) = match name {
        "a" => (m * if sparse { k / 2 } else { k }, at),
        "b" => (k * n, form.var("bt")?),
        "c" => (m * n, form.var("ct")?),
        "d" => (m * n, form.var("dt")?),
        _ => return None,
    };
    Some(registers(elems / threads, element_bits(t, kind)?))
}

/// `wmma.load/store/mma` (§9.7.14.4): the per-thread share over the warp, except f16 A and B,
/// always eight registers (L20186-20192).
fn wmma(form: &Form, name: &str) -> Option<usize> {
    let (m, n, k) = mnk(form.var("shape")?)?;
    // Which matrix: the operand of wmma.mma, the `.a/.b/.c` of wmma.load, `.d` of wmma.store.
    let (matrix, t) = match form.mods.get(0..1) {
        Some(["load"]) => (form.var("m")?, form.var("t")?),
        Some(["store"]) => ("d", form.var("t")?),
        _ => match name {
            "a" => ("a", form.var("at").unwrap_or("f16")),
            "b" => ("b", form.var("bt").unwrap_or("f16")),
            "c" => ("c", form.var("ct")?),
            "d" => ("d", form.var("dt")?),
            _ => return None,
        },
    };
    let elems = match matrix {
        "a" => m * k,
        "b" => k * n,
        _ => m * n,
    };
    // f16 A and B: eight `.f16x2` registers whatever the shape (L20186-20192).
    if matches!(matrix, "a" | "b") && t == "f16" {
        return Some(8);
    }
    Some(registers(elems / 32, element_bits(t, None)?))
}

/// `wgmma.mma_async(.sp)` (§9.7.15.5.1): the per-thread share over the warpgroup of D (64×N:
/// N/2 `.f32` or N/4 `.f16x2` registers, L24934-24952) and of A when it comes from registers
/// (64×K, half of K when sparse).
fn wgmma(form: &Form, name: &str) -> Option<usize> {
    let (m, n, k) = mnk(form.var("shape")?)?;
    let sparse = form.mods.contains(&"sp");
    let (elems, t) = match name {
        "d" => (m * n, form.var("dt")?),
        "a" => (m * if sparse { k / 2 } else { k }, form.var("at")?),
        _ => return None,
    };
    Some(registers(elems / 128, element_bits(t, None)?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::catalog;

    fn len_of(name: &str, operand: &str) -> usize {
        let cat = catalog();
        let i = cat.by_name(name)[0];
        let f = &cat.forms[i];
        let o = f.outputs.iter().chain(&f.inputs).find(|o| o.name == operand).unwrap();
        length(f, o).unwrap_or_else(|| panic!("{name} {operand}"))
    }

    /// The manual's own fragment sizes (the figures of §9.7.14.5.x and §9.7.14.4.2).
    #[test]
    fn the_manuals_sizes() {
        // m8n8k4 f16 (L21037 ff.): A, B two .f16x2; C, D four .f16x2 or eight .f32.
        assert_eq!(len_of("mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32", "a"), 2);
        assert_eq!(len_of("mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32", "d"), 8);
        assert_eq!(len_of("mma.sync.aligned.m8n8k4.row.col.f16.f16.f16.f16", "c"), 4);
        // m16n8k16 f16: A four, B two, C/D f32 four.
        assert_eq!(len_of("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", "a"), 4);
        assert_eq!(len_of("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", "b"), 2);
        assert_eq!(len_of("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", "d"), 4);
        // f64 m8n8k4: one .f64 each for A and B, two for C and D.
        assert_eq!(len_of("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64", "a"), 1);
        assert_eq!(len_of("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64", "c"), 2);
        // wmma f16 m16n16k16: A eight .f16x2, C f32 eight.
        assert_eq!(len_of("wmma.load.a.sync.aligned.row.m16n16k16.f16", "r"), 8);
        assert_eq!(len_of("wmma.load.b.sync.aligned.row.m8n32k16.f16", "r"), 8);
        assert_eq!(len_of("wmma.load.c.sync.aligned.row.m16n16k16.f32", "r"), 8);
        assert_eq!(len_of("wmma.load.c.sync.aligned.row.m16n16k16.f16", "r"), 4);
        // wgmma m64n256k16 f32: 128 registers; A from registers four.
        assert_eq!(len_of("wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16", "d"), 128);
        assert_eq!(len_of("ldmatrix.sync.aligned.m8n8.x4.b16", "r"), 4);
    }
}
