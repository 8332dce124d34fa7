//! Golden vectors of the `wgmma` control forms (§9.7.15.7): `wgmma.fence`, `wgmma.commit_group`,
//! `wgmma.wait_group`. They compute nothing themselves; what they define is *when* the
//! accumulator of a `wgmma.mma_async` may be written and read, so each vector is a small program
//! around one companion multiply-accumulate whose result is defined only if the control form does
//! what the manual says:
//!
//! - `wgmma.fence` (L26388-26394): the accumulator registers are written by ordinary
//!   instructions (loads of C), then `wgmma.fence`, then the `wgmma.mma_async` reads them as C:
//!   `D = A·B + C`.
//! - `wgmma.commit_group` (L26445): two `wgmma.mma_async` into the same accumulator, batched by
//!   one `commit_group` into one wgmma-group, then `wait_group 0`: `D = A·B + (A·B + C)`.
//! - `wgmma.wait_group` (L26476-26478): group 1 computes `A·B + C` into one accumulator, group 2
//!   `A·B` (`scale-d` false) into another; `wait_group 1` makes group 1's accumulator readable
//!   (only the newest group may still be pending), then `wait_group 0` group 2's: `D` is the two
//!   stacked, rows 0-63 group 1's, rows 64-127 group 2's.
//!
//! The companion is `wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16` with both matrices from
//! descriptors, `scale-d` true (but group 2 of `wait_group`), no negation or transpose. The line
//! grammar is the matrix forms' ([`super::matrix`]) without scalars:
//!
//! ```text
//! # form: wgmma.wait_group.sync.aligned
//! # columns: A:f16[64x16] B:f16[16x8] C:f32[64x8] -> D:f32[128x8] tag
//! 3c00 ... | ... | ... | 41000000*8 exact ...
//! ```
//!
//! The generators keep the elements small integers, so that every sum is exact and the results
//! do not depend on the tensor core's internal precision; [`Columns::eval`] refuses lines whose
//! first multiply is not exact (the second would then need a set of C's).

use super::matrix::{self, Mat};
use super::{LineError, Vector};
use crate::catalog::{catalog, Form};
use crate::value::{Accept, Outcome};

/// The companion multiply-accumulate of every control vector.
pub const COMPANION: &str = "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16";

/// Which control form, and so which program the line means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Control {
    /// `wgmma.fence`: C written by ordinary instructions, fenced, then one multiply.
    Fence,
    /// `wgmma.commit_group`: two multiplies in one wgmma-group.
    CommitGroup,
    /// `wgmma.wait_group`: two groups, waited for one at a time.
    WaitGroup,
}

impl Control {
    /// Accumulators the program reads back (stacked in D).
    pub fn accumulators(self) -> usize {
        match self {
            Control::WaitGroup => 2,
            _ => 1,
        }
    }
}

/// The columns of a control form's lines.
#[derive(Clone, Debug)]
pub struct Columns {
    /// Which form.
    pub control: Control,
    /// The companion's form (descriptor A).
    pub companion: &'static Form,
    /// The companion's columns without its scalars (the program fixes them).
    pub mma: matrix::Columns,
}

/// The companion's form: the dense one with A from a descriptor.
pub fn companion() -> Option<&'static Form> {
    let cat = catalog();
    cat.by_name(COMPANION)
        .iter()
        .map(|&i| &cat.forms[i])
        .find(|f| f.inputs.iter().any(|o| o.name == "a_desc"))
}

/// The columns of `form` when it is a `wgmma` control form; `None` otherwise.
pub fn columns(form: &Form) -> Option<Columns> {
    let control = match form.name.as_str() {
        "wgmma.fence.sync.aligned" => Control::Fence,
        "wgmma.commit_group.sync.aligned" => Control::CommitGroup,
        "wgmma.wait_group.sync.aligned" => Control::WaitGroup,
        _ => return None,
    };
    let companion = companion()?;
    let mut mma = matrix::columns(companion)?;
    mma.scalars.clear();
    Some(Columns {
        control,
        companion,
        mma,
    })
}

impl Columns {
    /// The columns of the line: the companion's A, B, C, and D with one block of rows per
    /// accumulator read back.
    pub fn lines(&self) -> matrix::Columns {
        let mut c = self.mma.clone();
        c.out = Mat {
            rows: c.out.rows * self.control.accumulators(),
            ..c.out
        };
        c
    }

    /// The `# columns:` header value.
    pub fn header(&self) -> String {
        self.lines().header()
    }

    /// D of the line's inputs (A, B, C row-major); `None` when `ins` has the wrong length or
    /// (`commit_group`) the first multiply is not exact.
    pub fn eval(&self, ins: &[u128]) -> Option<Vec<Outcome>> {
        let first = self.mma.eval(ins)?;
        let ab_len = self.mma.ins[0].len() + self.mma.ins[1].len();
        match self.control {
            Control::Fence => Some(first),
            Control::CommitGroup => {
                if first.iter().any(|o| o.accept != Accept::Exact) {
                    return None;
                }
                let mut again = ins[..ab_len].to_vec();
                again.extend(first.iter().map(|o| o.model));
                self.mma.eval(&again)
            }
            Control::WaitGroup => {
                let mut ab = ins[..ab_len].to_vec();
                ab.extend(std::iter::repeat_n(0, self.mma.ins[2].len()));
                let mut d = first;
                d.extend(self.mma.eval(&ab)?);
                Some(d)
            }
        }
    }
}

/// Formats one line.
pub fn format_line(c: &Columns, v: &Vector) -> String {
    matrix::format_line(&c.lines(), v)
}

/// Parses one line.
pub fn parse_line(c: &Columns, line: &str) -> Result<Vector, LineError> {
    matrix::parse_line(&c.lines(), line)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cols(name: &str) -> Columns {
        let cat = catalog();
        columns(&cat.forms[cat.by_name(name)[0]]).unwrap()
    }

    /// With A = 1, B = 1 (f16) and C = 2 (f32): fence D = 16 + 2, commit_group 16 + 18,
    /// wait_group 18 over 16.
    #[test]
    fn the_three_programs() {
        let one_h = 0x3c00u128;
        let c = cols("wgmma.fence.sync.aligned");
        let mut ins = vec![one_h; 64 * 16 + 16 * 8];
        ins.extend(std::iter::repeat_n(2f32.to_bits() as u128, 64 * 8));
        let f = |x: f32| x.to_bits() as u128;
        let d = c.eval(&ins).unwrap();
        assert!(d.iter().all(|o| o.model == f(18.0) && o.accept == Accept::Exact));
        let d = cols("wgmma.commit_group.sync.aligned").eval(&ins).unwrap();
        assert!(d.iter().all(|o| o.model == f(34.0)));
        let w = cols("wgmma.wait_group.sync.aligned");
        assert_eq!(w.header(), "A:f16[64x16] B:f16[16x8] C:f32[64x8] -> D:f32[128x8] tag");
        let d = w.eval(&ins).unwrap();
        assert_eq!(d.len(), 128 * 8);
        assert!(d[..512].iter().all(|o| o.model == f(18.0)));
        assert!(d[512..].iter().all(|o| o.model == f(16.0)));
        let v = crate::vector::Vector::whole(&ins, d);
        assert_eq!(parse_line(&w, &format_line(&w, &v)).unwrap(), v);
    }
}
