//! Loads through a tensor map that a kernel made or prefetched: the tensormap proxy fences
//! `fence.proxy.tensormap::generic.{release,acquire}` (§9.7.13.4, L17237-17266) and
//! `prefetch.param.tensormap` (§9.7.9.15, L13263-13342).
//!
//! - A fence: thread 1 writes launch map `tmap0`'s 128 bytes to global memory (`out`) with
//!   generic stores, then overwrites them with `tmap1`'s (a map of another `globalDim` and
//!   element type over the same tensor), and issues the release fence; after `bar.sync`,
//!   thread 0 issues the acquire fence on those 128 bytes and loads a box through them. The
//!   release and acquire of one scope are a pair (L17348-17350: a tensor map written by the
//!   generic proxy is used by the tensormap proxy after a release and an acquire of it); the
//!   form under test is one of them and its counterpart the other. The bytes must follow
//!   `tmap1`.
//! - `prefetch.param.tensormap [tmap0]`, then a load through the parameter's generic address:
//!   the prefetch is a hint (L13286), the box's bytes are the map's.

use super::model::{ty, Map, Shape, TYPES};
use super::{base_map, check_bytes, copy_out, data, describe, fill_shared, finish, wait_phase, MAP_AT};
use crate::kernel::operational::{header, BuildError, Kernel, Rng, Scenario};
use spec::catalog::{Form, PtxVersion};

/// Whether `form` is `prefetch.param.tensormap` (this module's, not `control`'s).
pub(in crate::kernel::operational) fn is_param_prefetch(form: &Form) -> bool {
    form.has("tensormap") && form.var("ss") == Some("param")
}

/// Thread 0: an mbarrier for one arrival with `expect_tx` of `m`'s box, the load of the box at
/// `coords` through the map at generic address `map` into region 0; every thread waits; the box
/// goes to `out` and is checked against the model.
fn load_box(k: &mut Kernel, pre: Vec<String>, m: &Map, input: &[u8], coords: &[i32], map: &str, what: &str) {
    let bb = m.box_bytes();
    let mut l = pre;
    l.extend([
        "mbarrier.init.shared.b64 [mbar], 1;".to_string(),
        "fence.proxy.async.shared::cta;".into(),
        format!("mbarrier.arrive.expect_tx.shared.b64 %rd10, [mbar], {bb};"),
        "mov.u64 %rd12, sm;".into(),
    ]);
    let mut c = Vec::new();
    for (i, v) in coords.iter().enumerate() {
        l.push(format!("mov.b32 %r{}, {v};", 20 + i));
        c.push(format!("%r{}", 20 + i));
    }
    l.push(format!(
        "cp.async.bulk.tensor.{}d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%rd12], [{map}, {{{}}}], [mbar];",
        m.rank(),
        c.join(", ")
    ));
    k.by(0, 1, &l);
    wait_phase(k, &format!("expect_tx of the box's {bb} bytes and the copy"));
    let base = k.out;
    k.out += bb.div_ceil(64) * 64;
    copy_out(k, 0, base, bb.div_ceil(4) * 4, false);
    check_bytes(k, base, &m.load(input, coords, &[]), what);
}

/// The fence scenarios (module doc): two maps each, the second one's `globalDim[0]` cut short
/// and its element type another of the same size or not.
pub(super) fn fence(form: &Form, rng: &mut Rng) -> Result<Vec<Scenario>, BuildError> {
    let scope = form
        .var("scope")
        .ok_or_else(|| BuildError(format!("`{}`: no scope", form.name)))?;
    let head = header(form, 90, PtxVersion(8, 3));
    let release = format!("fence.proxy.tensormap::generic.release.{scope};");
    let acquire = format!("fence.proxy.tensormap::generic.acquire.{scope} [%rd13], 128;");
    (0..2)
        .map(|_| {
            let old = base_map(rng, ty("u32"), 8, 2);
            let mut new = old.clone();
            let others: Vec<_> = TYPES.iter().copied().filter(|t| t.bytes <= 4).collect();
            new.ty = others[rng.range(0, others.len() as u32 - 1) as usize];
            let Shape::Tile(b) = &mut new.shape else { unreachable!() };
            // 16 bytes of box row whatever the type (L2152).
            b[0] = (16 / new.ty.bytes) as u32;
            new.dims[0] = u64::from(rng.range(1, b[0]));
            let coords = vec![0, rng.range(0, 1) as i32];
            let input = data(rng, old.span(), new.ty);
            let mut k = Kernel::new();
            k.out = MAP_AT + 128;
            fill_shared(&mut k, super::REGION, true);
            let mut w = vec![
                "ld.param.u64 %rd13, [out];".to_string(),
                format!("add.s64 %rd13, %rd13, {MAP_AT};"),
            ];
            for map in ["tmap0", "tmap1"] {
                for i in 0..16 {
                    w.push(format!("ld.param.b64 %rd16, [{map}+{}];", 8 * i));
                    w.push(format!("st.global.b64 [%rd13+{}], %rd16;", 8 * i));
                }
            }
            w.push(release.clone());
            k.by(1, 2, &w);
            let pre = vec![
                "ld.param.u64 %rd13, [out];".to_string(),
                format!("add.s64 %rd13, %rd13, {MAP_AT};"),
                acquire.clone(),
            ];
            let what = format!(
                "the box at {coords:?} through the map thread 1 wrote (tmap1's bytes over tmap0's) and released, acquired at .{scope} (L17237-17266, L17348-17350)"
            );
            load_box(&mut k, pre, &new, &input, &coords, "%rd13", &what);
            let how = format!(
                "thread 1 writes a map by generic stores, `{}`; thread 0 `{}` and loads: {} becomes {}",
                release.trim_end_matches(';'),
                acquire.trim_end_matches(';'),
                describe(&old, &[]),
                describe(&new, &[(coords.clone(), Vec::new())])
            );
            Ok(finish(k, form, &how, head, &[(&old, "in"), (&new, "in")], &input, Vec::new()))
        })
        .collect()
}

/// `prefetch.param.tensormap [tmap0]` then loads through the map (module doc).
pub(super) fn param_prefetch(form: &Form, rng: &mut Rng) -> Result<Vec<Scenario>, BuildError> {
    let head = header(form, 90, PtxVersion(8, 0));
    (0..2)
        .map(|_| {
            let m = base_map(rng, ty("u32"), 8, 2);
            let Shape::Tile(b) = &m.shape else { unreachable!() };
            let coords = vec![
                rng.range(0, (m.dims[0] - u64::from(b[0])) as u32) as i32,
                rng.range(0, 1) as i32,
            ];
            let input = data(rng, m.span(), m.ty);
            let mut k = Kernel::new();
            fill_shared(&mut k, super::REGION, true);
            let pre = vec![format!("{} [tmap0];", form.name)];
            let what = format!("the box at {coords:?} through the prefetched parameter map (a hint, L13286)");
            load_box(&mut k, pre, &m, &input, &coords, "%rd30", &what);
            let how = format!(
                "prefetch the map parameter, then load: {}",
                describe(&m, &[(coords.clone(), Vec::new())])
            );
            Ok(finish(k, form, &how, head, &[(&m, "in")], &input, Vec::new()))
        })
        .collect()
}
