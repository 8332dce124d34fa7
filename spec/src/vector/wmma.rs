//! Golden-vector lines of `wmma.load.{a,b,c}` and `wmma.store.d` (§9.7.14.4.3-4). The manual
//! leaves the fragments these forms fill or read unspecified (L20114-20116), so a line cannot
//! say what lands in which register: it says what a whole round trip computes. The form under
//! test moves one matrix of a multiply-accumulate — a fixed *companion* `wmma.mma` of the same
//! shape and types ([`companion`]) — whose other matrices go through the companion loads and
//! store of that `wmma.mma`'s own round trip ([`crate::matrix::movement::wmma_round_trip`]):
//!
//! ```text
//! # form: wmma.load.a.sync.aligned.col.m16n16k16.shared.f16
//! # columns: stride:u32 | A:f16[16x16] B:f16[16x16] C:f32[16x16] -> D:f32[16x16] tag
//! 00000010 | 0000 3c00 4000 ... | ... | ... | c29a0000 exact 41a00000 exact ...
//! ```
//!
//! - The grammar is the matrix forms' ([`super::matrix`]) with one scalar before the matrices:
//!   `stride`, the stride operand of the form under test in elements (L20417). The kernel always
//!   passes it; a line whose stride is the default one (L20419-20529) tests what the form reads
//!   or writes without it, a larger one the layout of a matrix whose rows (`.row`) or columns
//!   (`.col`) lie that far apart. The memory image of the tested matrix is laid out at that
//!   stride; every other matrix at its default stride.
//! - A, B, C, D as the companion `wmma.mma` multiplies them (row-major, whatever `.row`/`.col`
//!   the forms say), D computed by the spec ([`crate::tensor::mma`] of the companion's
//!   [`crate::tensor::MmaOp`]). The generators choose small integers, so D is exact and what a
//!   line tests is the memory layout of the form, not numerics.
//!
//! Forms ptxas refuses (and any without a companion) have no columns and no vectors.

use super::matrix::{self, Scalar};
use super::{LineError, Vector};
use crate::catalog::{catalog, Exec, Form};
use crate::matrix::movement::wmma_round_trip;
use crate::matrix::{Which, WmmaAccess};
use crate::types::{Kind, Type};
use crate::value::Outcome;
use std::collections::HashMap;
use std::sync::OnceLock;

/// The columns of a `wmma.load`/`wmma.store` form's lines.
#[derive(Clone, Debug)]
pub struct Columns {
    /// The companion `wmma.mma` form.
    pub mma: &'static Form,
    /// The four forms of the round trip (`load.a`, `load.b`, `load.c`, `store.d`): the
    /// companion's, with the form under test in its own slot.
    pub forms: [&'static Form; 4],
    /// Which of the four the form under test is (0-3: A, B, C, D).
    pub slot: usize,
    /// How the form under test lays its matrix out in memory.
    pub access: WmmaAccess,
    /// The line's columns: `stride`, then the companion's A, B, C and D.
    pub lines: matrix::Columns,
}

/// Which of A, B, C, D a load or store form moves (`.a/.b/.c` of a load, `.d` of a store).
/// Only meaningful for a form [`WmmaAccess::of`] accepts.
fn which(form: &Form) -> Option<Which> {
    // A store has no `m`: it always moves D (§9.7.14.4.4).
    form.var("m").map_or(Some(Which::D), Which::parse)
}

/// What a slot's companion must agree on with the form under test: (slot, shape, type, layout —
/// A and B only, since a `wmma.mma`'s `.alayout/.blayout` must be those of its A and B
/// fragments, L20845; C and D may be loaded and stored either way).
type Key = (usize, &'static str, &'static str, &'static str);

fn key(slot: usize, f: &Form) -> Option<Key> {
    Some((
        slot,
        f.var("shape")?,
        f.var("t")?,
        if slot < 2 { f.var("layout")? } else { "" },
    ))
}

/// The companion `wmma.mma` of every (slot, shape, type, layout), by catalog index: among the
/// `wmma.mma` forms with vectors whose round trip has that slot, the shortest name (no
/// `.satfinite`, no `.rnd`), then the one with an f32 D and C (f16 accumulates exactly in f32).
fn companions() -> &'static HashMap<Key, usize> {
    static MAP: OnceLock<HashMap<Key, usize>> = OnceLock::new();
    MAP.get_or_init(|| {
        let cat = catalog();
        let mut best: HashMap<Key, ((usize, bool, bool), usize)> = HashMap::new();
        for (i, f) in cat.forms.iter().enumerate() {
            if f.exec() != Some(Exec::Wmma) || cat.ptxas_rejects(f).is_some() || matrix::columns(f).is_none() {
                continue;
            }
            let Ok(names) = wmma_round_trip(f) else { continue };
            let rank = (f.name.len(), f.var("dt") != Some("f32"), f.var("ct") != Some("f32"));
            for (slot, n) in names.iter().enumerate() {
                let Some(&c) = cat.by_name(n).first() else { continue };
                let Some(k) = key(slot, &cat.forms[c]) else { continue };
                let e = best.entry(k).or_insert((rank, i));
                if rank < e.0 {
                    *e = (rank, i);
                }
            }
        }
        best.into_iter().map(|(k, (_, i))| (k, i)).collect()
    })
}

/// The companion `wmma.mma` of a `wmma.load`/`wmma.store` form: of the same shape and types
/// (the shortest name, no `.satfinite` or `.rnd`; f32 D and C where there is a choice).
pub fn companion(form: &Form) -> Option<&'static Form> {
    WmmaAccess::of(form).ok()?;
    let slot = Which::ALL.iter().position(|w| Some(*w) == which(form))?;
    let i = *companions().get(&key(slot, form)?)?;
    Some(&catalog().forms[i])
}

/// The stride operand's column.
const STRIDE: Scalar = Scalar {
    name: "stride",
    ty: Type::int(Kind::Unsigned, 32),
};

/// The columns of `form` when it is a `wmma.load`/`wmma.store` form with vectors; `None`
/// otherwise.
pub fn columns(form: &Form) -> Option<Columns> {
    // Every line of every scalar form asks: answer those without building anything.
    if form.exec() != Some(Exec::Wmma) {
        return None;
    }
    let access = WmmaAccess::of(form).ok()?;
    let cat = catalog();
    if cat.ptxas_rejects(form).is_some() {
        return None;
    }
    let slot = Which::ALL.iter().position(|w| Some(*w) == which(form))?;
    let mma = companion(form)?;
    let names = wmma_round_trip(mma).ok()?;
    let mut forms = Vec::with_capacity(4);
    for (k, n) in names.iter().enumerate() {
        forms.push(if k == slot {
            &cat.forms[*cat.by_name(&form.name).first()?]
        } else {
            &cat.forms[*cat.by_name(n).first()?]
        });
    }
    let mut lines = matrix::columns(mma)?;
    lines.scalars = vec![STRIDE];
    Some(Columns {
        mma,
        forms: forms.try_into().ok()?,
        slot,
        access,
        lines,
    })
}

impl Columns {
    /// The `# columns:` header value: `stride:u32 | A:f16[16x16] ... -> D:f32[16x16] tag`.
    pub fn header(&self) -> String {
        self.lines.header()
    }

    /// Whether `stride` (elements) is one a line may hold: at least the default (a smaller one
    /// is undefined, L20626), every row or column aligned (L20400, [`WmmaAccess::instance_addrs`]),
    /// and at most four times the default (the kernels' records have room for that).
    pub fn stride_ok(&self, stride: u128) -> bool {
        let Ok(s) = u32::try_from(stride) else { return false };
        u64::from(s) <= 4 * self.access.default_stride() && self.access.instance_addrs(0, Some(s)).is_ok()
    }

    /// D of the line's inputs (`stride`, then A, B, C row-major): the companion's product
    /// ([`matrix::Columns::eval`]); the stride moves the tested matrix in memory, not its
    /// value. `None` when `ins` has the wrong length or the stride is not allowed.
    ///
    /// When every floating-point element is an integer and `max|A|·max|B|·K + max|C|` is at most
    /// 2¹¹ (f16's, the narrowest accumulator's, last run of exact integers), every partial sum in
    /// any order is exact in every accumulator the manual allows, so D is tagged `exact` rather
    /// than with the tensor cores' error bound: these lines test where elements lie in memory,
    /// and a bound would let a misplaced element through wherever it changes D by less.
    pub fn eval(&self, ins: &[u128]) -> Option<Vec<Outcome>> {
        if !self.stride_ok(*ins.first()?) {
            return None;
        }
        let outs = self.lines.eval(ins)?;
        Some(if self.exact_integers(&ins[1..]) {
            outs.into_iter().map(|o| Outcome::exact(o.model)).collect()
        } else {
            outs
        })
    }

    /// Whether A, B, C (`ins`, row-major) are small enough integers for an exact D (see
    /// [`Columns::eval`]).
    fn exact_integers(&self, ins: &[u128]) -> bool {
        let mut at = 0;
        let mut max = [0f64; 3];
        for (k, m) in self.lines.ins.iter().enumerate() {
            for &bits in &ins[at..at + m.len()] {
                let Some(v) = small_value(m.ty, bits) else { return false };
                max[k] = max[k].max(v.abs());
            }
            at += m.len();
        }
        max[0] * max[1] * self.lines.ins[0].cols as f64 + max[2] <= 2048.0
    }

    /// The memory image of the tested matrix (`m`, row-major bit patterns) with its rows
    /// (`.row`) or columns (`.col`) `stride` elements apart: [`WmmaAccess::image`] spread out.
    pub fn image_at(&self, m: &[u64], stride: u32) -> Option<Vec<u8>> {
        let dense = self.access.image(m).ok()?;
        let n = self.access.instances().0;
        let each = dense.len() / n;
        let step = (u64::from(stride) * self.access.layout.bits as u64 / 8) as usize;
        let mut out = vec![0u8; step * (n - 1) + each];
        for k in 0..n {
            out[k * step..k * step + each].copy_from_slice(&dense[k * each..(k + 1) * each]);
        }
        Some(out)
    }

    /// The inverse of [`Columns::image_at`]: the row-major matrix from its image at `stride`.
    pub fn matrix_at(&self, bytes: &[u8], stride: u32) -> Option<Vec<u64>> {
        let n = self.access.instances().0;
        let each = self.access.image_bytes() / n;
        let step = (u64::from(stride) * self.access.layout.bits as u64 / 8) as usize;
        let mut dense = Vec::with_capacity(n * each);
        for k in 0..n {
            dense.extend_from_slice(bytes.get(k * step..k * step + each)?);
        }
        self.access.matrix(&dense).ok()
    }

    /// Bytes of the tested matrix's image at the largest stride a line may hold.
    pub fn max_image_bytes(&self) -> usize {
        let n = self.access.instances().0;
        let each = self.access.image_bytes() / n;
        let step = (4 * self.access.default_stride() * self.access.layout.bits as u64 / 8) as usize;
        step * (n - 1) + each
    }
}

/// The value of element `bits` of type `ty` when it is an integer (any integer type; a float
/// that is finite and integral); `None` otherwise.
fn small_value(ty: Type, bits: u128) -> Option<f64> {
    let n = ty.bits();
    let v = match ty.kind {
        Kind::Float(_) => {
            let x = match n {
                64 => f64::from_bits(bits as u64),
                // f32 and tf32 (a 32-bit container), bf16 (the top half of an f32).
                32 => f64::from(f32::from_bits(bits as u32)),
                16 if ty.to_string() == "bf16" => f64::from(f32::from_bits((bits as u32) << 16)),
                16 => {
                    let (e, m) = ((bits >> 10 & 0x1f) as i32, (bits & 0x3ff) as f64);
                    let mag = match e {
                        0 => m * 2f64.powi(-24),
                        31 => return None,
                        _ => (1024.0 + m) * 2f64.powi(e - 25),
                    };
                    if bits >> 15 & 1 == 1 {
                        -mag
                    } else {
                        mag
                    }
                }
                _ => return None,
            };
            (x.is_finite() && x.fract() == 0.0).then_some(x)?
        }
        Kind::Signed => (((bits as i128) << (128 - n)) >> (128 - n)) as f64,
        _ => bits as f64,
    };
    Some(v)
}

/// Formats one line (without the newline).
pub fn format_line(cols: &Columns, v: &Vector) -> String {
    matrix::format_line(&cols.lines, v)
}

/// Parses one line (the inverse of [`format_line`]).
pub fn parse_line(cols: &Columns, line: &str) -> Result<Vector, LineError> {
    matrix::parse_line(&cols.lines, line)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vector::matrix::MatrixLineError;

    use crate::catalog::test_form as form;

    #[test]
    fn headers_and_companions() {
        let c = columns(form("wmma.load.a.sync.aligned.col.m16n16k16.shared.f16")).unwrap();
        assert_eq!(
            c.header(),
            "stride:u32 | A:f16[16x16] B:f16[16x16] C:f32[16x16] -> D:f32[16x16] tag"
        );
        assert_eq!(c.mma.name, "wmma.mma.sync.aligned.col.row.m16n16k16.f32.f32");
        assert_eq!(c.slot, 0);
        assert_eq!(c.forms[0].name, "wmma.load.a.sync.aligned.col.m16n16k16.shared.f16");
        let c = columns(form("wmma.store.d.sync.aligned.col.m8n8k4.f64")).unwrap();
        assert_eq!(c.slot, 3);
        assert_eq!(
            c.header(),
            "stride:u32 | A:f64[8x4] B:f64[4x8] C:f64[8x8] -> D:f64[8x8] tag"
        );
        let c = columns(form("wmma.load.c.sync.aligned.row.m32n8k16.f16")).unwrap();
        assert_eq!(c.lines.ins[2].ty.to_string(), "f16");
        assert!(columns(form("wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32")).is_none());
        assert!(columns(form("add.s32")).is_none());
    }

    /// Every load and store form ptxas takes has columns.
    #[test]
    fn every_form_has_columns() {
        let cat = catalog();
        let (mut with, mut refused) = (0, 0);
        for f in cat.forms.iter().filter(|f| WmmaAccess::of(f).is_ok()) {
            if cat.ptxas_rejects(f).is_some() {
                refused += 1;
            } else {
                assert!(columns(f).is_some(), "{}", f.name);
                with += 1;
            }
        }
        assert_eq!(with + refused, 456, "{with} + {refused}");
    }

    /// Strides: the default and aligned larger ones; images round trip at any of them.
    #[test]
    fn strides_and_images() {
        let c = columns(form("wmma.load.b.sync.aligned.row.m8n32k16.global.f16")).unwrap();
        assert_eq!(c.access.default_stride(), 32);
        assert!(c.stride_ok(32) && c.stride_ok(48) && c.stride_ok(128));
        assert!(!c.stride_ok(16) && !c.stride_ok(129) && !c.stride_ok(1 << 40));
        let m: Vec<u64> = (0..16 * 32).collect();
        let img = c.image_at(&m, 48).unwrap();
        assert_eq!(img.len(), 15 * 96 + 64);
        assert_eq!(&img[96..98], &32u16.to_le_bytes());
        assert_eq!(c.matrix_at(&img, 48).unwrap(), m);
        assert!(img.len() <= c.max_image_bytes());
    }

    #[test]
    fn line_round_trips() {
        let c = columns(form("wmma.store.d.sync.aligned.row.m16n16k16.shared::cta.s32")).unwrap();
        let one = |v: u128, n: usize| vec![v; n];
        let mut ins = vec![16u128];
        ins.extend(one(1, 256)); // A = 1
        ins.extend(one(2, 256)); // B = 2
        ins.extend(one(3, 256)); // C = 3
        let outs = c.eval(&ins).unwrap();
        assert!(outs.iter().all(|o| *o == Outcome::exact(16 * 2 + 3)));
        let mut bad = ins.clone();
        bad[0] = 8;
        assert!(c.eval(&bad).is_none());
        let v = crate::vector::Vector::whole(&ins, outs);
        let line = format_line(&c, &v);
        assert!(line.starts_with("00000010 | 01*256 | 02*256 | "), "{line}");
        assert_eq!(parse_line(&c, &line).unwrap(), v);
        assert!(matches!(
            parse_line(&c, "zz"),
            Err(LineError::Matrix(MatrixLineError::Scalar { name: "stride", .. }))
        ));
    }
}
