//! Where the scale factors of a block-scaled `mma` (§9.7.14.3) sit in the warp's registers:
//! `scale-a-data`/`scale-b-data` (one `.b32` per thread) and the selectors
//! `{byte-id-a, thread-id-a}`/`{byte-id-b, thread-id-b}` (L20034-20104).
//!
//! The manual's text:
//! - `thread-id-a` picks a thread pair in each quad: 0 the lanes with `%laneid % 4` = 0, 1;
//!   1 those with 2, 3 (L20038). `thread-id-b` picks one thread per quad: `%laneid % 4 ==
//!   thread-id-b` (L20044).
//! - `byte-id-*` picks bytes of the selected register: 1X one byte, 2X a byte pair (0 the
//!   lower two bytes, 2 the upper two), 4X all four bytes, `byte-id` then 0 (L20050-20062).
//! - Table 36 (L20070-20104): the valid selector values — 1X `byte-id` 0..3, 2X 0 or 2, 4X 0;
//!   `thread-id-a` 0..1, `thread-id-b` 0..3. "Any other value results in undefined behaviour":
//!   a [`SelectorError`].
//!
//! Which row of scale_A and which column of scale_B each selected thread holds, and which byte
//! scales which K block, are in Figures 42-44 only (images, not in the text). The reading here
//! (an interpretation, `spec/INTERPRETATIONS.md`), with `g = %laneid >> 2`:
//! - scale_A row `g` from lane `4g + 2·thread-id-a`, row `g + 8` from lane `4g + 2·thread-id-a
//!   + 1` (the lower thread of the pair the upper half of the rows, as the A fragment's own
//!   rows `groupID`/`groupID + 8`);
//! - scale_B column `g` from lane `4g + thread-id-b` (the column B's fragment gives lane group g);
//! - SF block `v` (K positions `v·K/vec ..`) from byte `byte-id + v` of the register.
//!
//! Cross-checks (public sources, read not copied): CUTLASS's `SM120_16x8x64_TN_VS` traits
//! (`cute/atom/mma_traits_sm120.hpp`) map thread `t = t0 + 2·t1 + 4·t2` to scale_A row
//! `8·t0 + t2` with `t1` a broadcast (`SFALayout` strides 8, 0, 1) and every thread of quad
//! `t2` to scale_B column `t2` (`SFBLayout` strides 0, 1); a third-party kernel measured on an
//! RTX 5070 Ti documents "row r < 8 from lane 4r + 2s, row r + 8 from lane 4r + 2s + 1", "column
//! n from lane 4n + s", "byte b scales K 16b..16b+15" for `scale_vec::4X`.

use std::fmt;

/// The rows of scale_A (M of every block-scaled `mma.sync`: 16).
pub const ROWS_A: usize = 16;
/// The columns of scale_B (N: 8).
pub const COLS_B: usize = 8;

/// The selector tuple `{byte-id, thread-id}` of one operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Selector {
    /// `byte-id-a`/`byte-id-b`.
    pub byte_id: u16,
    /// `thread-id-a`/`thread-id-b`.
    pub thread_id: u16,
}

/// Which scale matrix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// scale_A (M × vec), selected by `{byte-id-a, thread-id-a}`.
    A,
    /// scale_B (vec × N), selected by `{byte-id-b, thread-id-b}`.
    B,
}

/// A selector value outside Table 36 (L20070-20104): undefined behaviour.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SelectorError {
    /// The operand: `byte-id-a`, `thread-id-b`, ...
    pub operand: &'static str,
    /// Its value.
    pub value: u16,
    /// The values Table 36 allows for this `.scale_vec_size`.
    pub allowed: &'static [u16],
    /// `.scale_vec_size`: 1, 2 or 4.
    pub vec: usize,
}

impl fmt::Display for SelectorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} = {} with .scale_vec::{}X; Table 36 allows {:?}, any other value is undefined (L20070)",
            self.operand, self.value, self.vec, self.allowed
        )
    }
}

impl std::error::Error for SelectorError {}

/// Checks `sel` against Table 36 (L20070-20104) for `side` and `.scale_vec_size` `vec`.
pub fn check(side: Side, vec: usize, sel: Selector) -> Result<(), SelectorError> {
    let bytes: &'static [u16] = match vec {
        1 => &[0, 1, 2, 3],
        2 => &[0, 2],
        _ => &[0],
    };
    let (byte_name, thread_name, threads): (_, _, &'static [u16]) = match side {
        Side::A => ("byte-id-a", "thread-id-a", &[0, 1]),
        Side::B => ("byte-id-b", "thread-id-b", &[0, 1, 2, 3]),
    };
    for (operand, value, allowed) in [(byte_name, sel.byte_id, bytes), (thread_name, sel.thread_id, threads)] {
        if !allowed.contains(&value) {
            return Err(SelectorError {
                operand,
                value,
                allowed,
                vec,
            });
        }
    }
    Ok(())
}

/// Byte `i` of a register.
fn byte(reg: u32, i: usize) -> u128 {
    u128::from((reg >> (8 * i)) as u8)
}

/// scale_A (16 × `vec`, row-major scale bytes) from every lane's `scale-a-data` register
/// (`regs[lane]`, 32 lanes), selected by `sel` (checked: [`check`]).
pub fn scale_a(vec: usize, sel: Selector, regs: &[u32; 32]) -> Result<Vec<u128>, SelectorError> {
    check(Side::A, vec, sel)?;
    let t = usize::from(sel.thread_id);
    let mut out = vec![0u128; ROWS_A * vec];
    for g in 0..8 {
        for (half, row) in [(0, g), (1, g + 8)] {
            let reg = regs[4 * g + 2 * t + half];
            for v in 0..vec {
                out[row * vec + v] = byte(reg, usize::from(sel.byte_id) + v);
            }
        }
    }
    Ok(out)
}

/// scale_B (`vec` × 8, row-major scale bytes) from every lane's `scale-b-data` register,
/// selected by `sel` (checked: [`check`]).
pub fn scale_b(vec: usize, sel: Selector, regs: &[u32; 32]) -> Result<Vec<u128>, SelectorError> {
    check(Side::B, vec, sel)?;
    let t = usize::from(sel.thread_id);
    let mut out = vec![0u128; vec * COLS_B];
    for g in 0..COLS_B {
        let reg = regs[4 * g + t];
        for v in 0..vec {
            out[v * COLS_B + g] = byte(reg, usize::from(sel.byte_id) + v);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lane `l`'s register holds bytes `4l, 4l+1, 4l+2, 4l+3` (byte i = 4l + i): each byte
    /// names its lane and position.
    fn regs() -> [u32; 32] {
        std::array::from_fn(|l| u32::from_le_bytes(std::array::from_fn(|i| (4 * l + i) as u8)))
    }

    #[test]
    fn table_36() {
        let s = |byte_id, thread_id| Selector { byte_id, thread_id };
        assert!(check(Side::A, 1, s(3, 1)).is_ok());
        assert!(check(Side::B, 1, s(3, 3)).is_ok());
        assert!(check(Side::A, 1, s(0, 2)).is_err());
        assert!(check(Side::A, 2, s(1, 0)).is_err());
        assert!(check(Side::B, 2, s(2, 3)).is_ok());
        assert!(check(Side::B, 4, s(2, 0)).is_err());
        let e = check(Side::B, 1, s(4, 0)).unwrap_err();
        assert_eq!((e.operand, e.value), ("byte-id-b", 4));
        assert!(e.to_string().contains("L20070"));
    }

    #[test]
    fn scale_a_rows_come_from_the_selected_pair() {
        // 1X, thread-id-a 1, byte-id-a 2: row g from lane 4g + 2, row g + 8 from 4g + 3, byte 2.
        let a = scale_a(
            1,
            Selector {
                byte_id: 2,
                thread_id: 1,
            },
            &regs(),
        )
        .unwrap();
        assert_eq!(a.len(), 16);
        assert_eq!(a[0], 4 * 2 + 2);
        assert_eq!(a[8], 4 * 3 + 2);
        assert_eq!(a[5], 4 * (4 * 5 + 2) + 2);
        assert_eq!(a[13], 4 * (4 * 5 + 3) + 2);
        // 2X, byte-id-a 2: blocks 0, 1 from bytes 2, 3.
        let a = scale_a(
            2,
            Selector {
                byte_id: 2,
                thread_id: 0,
            },
            &regs(),
        )
        .unwrap();
        assert_eq!((a[2 * 3], a[2 * 3 + 1]), (4 * 12 + 2, 4 * 12 + 3));
        // 4X: bytes 0..4 are blocks 0..4; row 9 from lane 4·1 + 1.
        let a = scale_a(
            4,
            Selector {
                byte_id: 0,
                thread_id: 0,
            },
            &regs(),
        )
        .unwrap();
        assert_eq!(&a[36..40], &[20, 21, 22, 23]);
    }

    #[test]
    fn scale_b_columns_come_from_one_thread_per_quad() {
        // 1X, thread-id-b 3, byte-id-b 1: column n from lane 4n + 3, byte 1.
        let b = scale_b(
            1,
            Selector {
                byte_id: 1,
                thread_id: 3,
            },
            &regs(),
        )
        .unwrap();
        assert_eq!(b.len(), 8);
        assert_eq!(b[6], 4 * (4 * 6 + 3) + 1);
        // 4X: scale_B is 4 × 8, row v = byte v.
        let b = scale_b(
            4,
            Selector {
                byte_id: 0,
                thread_id: 2,
            },
            &regs(),
        )
        .unwrap();
        assert_eq!(b[3 * 8 + 1], 4 * 6 + 3);
        assert!(scale_b(
            4,
            Selector {
                byte_id: 0,
                thread_id: 4
            },
            &regs()
        )
        .is_err());
    }
}
