//! The shared-memory swizzle of tensor copies (§5.5.7, L2576-3046).
//!
//! The patterns are tables of 16-byte cells, one row per 128 bytes, from a start address
//! aligned to the pattern's period:
//! - 32 B (L2616-2640, 256-byte aligned): rows `0 1 2 3 4 5 6 7` / `1 0 3 2 5 4 7 6`;
//! - 64 B (L2672-2740, 512-byte aligned): row `r` holds cell `c ^ r` at position `c`, r < 4;
//! - 128 B, 16-byte atomicity (L2760-2880, 1024-byte aligned): the same with r < 8.
//!
//! Cell `c` of row `r` at position `c ^ r` is `Swizzle<B,4,3>` on the byte address — bits
//! `[7, 7+B)` XORed into bits `[4, 4+B)` — which is the mapping the `wgmma` matrix descriptors
//! use (§9.7.15.5.1.2, L25308-25360); [`address`] calls
//! [`crate::matrix::wgmma::Swizzle::apply`] for those three rather than a second copy.
//!
//! The sm_100 atomicity sub-modes of the 128-byte swizzle (L2902-2982):
//! - 32-byte atomicity (L2902-2942): 32-byte units `(0 1)(2 3)(4 5)(6 7)`, row `r` holding
//!   unit `u ^ (r % 4)` at position `u` (the table lists four rows, then "the pattern
//!   repeats"): bits `[7, 9)` XORed into bits `[5, 7)`;
//! - 32-byte atomicity with 8-byte flip (L2950-2952): the same, and "in every alternate
//!   shared-memory row" the two 8-byte halves of each 16 bytes swapped. Read as the odd rows
//!   (bit 7 of the address set): bit 3 flipped; Fig. 35 is not in the text;
//! - 64-byte atomicity (L2960-2976): units `(0 1 2 3)(4 5 6 7)` swapped in odd rows: bit 7
//!   XORed into bit 6.
//!
//! Like `wgmma`'s, the patterns are applied to the shared-memory address itself, which is what
//! the base-offset table describes for a start address off the pattern boundary (L3012-3046):
//! for 128 B its `(dstMem / 128) % 8` is address bits 7-9, the row index of the table. For
//! 64 B and 32 B it gives `(dstMem / 64) % 4` and `(dstMem / 32) % 2`, which would index rows of
//! 64 and 32 bytes, against the tables' 128-byte rows (eight 16-byte cells each) and against
//! `wgmma`'s `(pattern start addr >> 7) & 7` for every mode (L25664); read here as a defect of
//! the text: bits 7 and up select the row in every mode.

use super::map::{Atomicity, SwizzleMode};
use crate::matrix::wgmma::Swizzle;

/// The shared-memory address a byte at unswizzled address `addr` goes to.
pub fn address(mode: SwizzleMode, atomicity: Atomicity, addr: u64) -> u64 {
    match (mode, atomicity) {
        (SwizzleMode::None, _) => addr,
        (SwizzleMode::B32, _) => Swizzle::B32.apply(addr),
        (SwizzleMode::B64, _) => Swizzle::B64.apply(addr),
        (SwizzleMode::B128, Atomicity::B16) => Swizzle::B128.apply(addr),
        (SwizzleMode::B128, Atomicity::B32) => addr ^ (((addr >> 7) & 3) << 5),
        (SwizzleMode::B128, Atomicity::B32Flip8) => {
            let a = addr ^ (((addr >> 7) & 3) << 5);
            a ^ (((addr >> 7) & 1) << 3)
        }
        (SwizzleMode::B128, Atomicity::B64) => addr ^ (((addr >> 7) & 1) << 6),
    }
}

/// The alignment the shared-memory box needs: 16 bytes (L2152), 32 and 64 bytes for the
/// 32- and 64-byte atomicity sub-modes (L2942, L2976).
pub fn smem_alignment(atomicity: Atomicity) -> u64 {
    match atomicity {
        Atomicity::B16 => 16,
        Atomicity::B32 | Atomicity::B32Flip8 => 32,
        Atomicity::B64 => 64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cell (16-byte unit) at position `p` of row `r` of a pattern starting at 0.
    fn cell(mode: SwizzleMode, atom: Atomicity, r: u64, p: u64) -> u64 {
        // Find which logical cell lands at position p: the mapping is an involution.
        let a = address(mode, atom, r * 128 + p * 16);
        (a % 128) / 16
    }

    #[test]
    fn tables_of_the_manual() {
        // 64 B (L2672-2740): rows 0..4.
        let t64 = [
            [0, 1, 2, 3, 4, 5, 6, 7],
            [1, 0, 3, 2, 5, 4, 7, 6],
            [2, 3, 0, 1, 6, 7, 4, 5],
            [3, 2, 1, 0, 7, 6, 5, 4],
        ];
        for (r, row) in t64.iter().enumerate() {
            for (p, &c) in row.iter().enumerate() {
                assert_eq!(cell(SwizzleMode::B64, Atomicity::B16, r as u64, p as u64), c);
            }
        }
        // 32 B (L2616-2640).
        let t32 = [[0, 1, 2, 3, 4, 5, 6, 7], [1, 0, 3, 2, 5, 4, 7, 6]];
        for (r, row) in t32.iter().enumerate() {
            for (p, &c) in row.iter().enumerate() {
                assert_eq!(cell(SwizzleMode::B32, Atomicity::B16, r as u64, p as u64), c);
            }
        }
        // 128 B with 32-byte atomicity (L2906-2940): four rows.
        let ta = [
            [0, 1, 2, 3, 4, 5, 6, 7],
            [2, 3, 0, 1, 6, 7, 4, 5],
            [4, 5, 6, 7, 0, 1, 2, 3],
            [6, 7, 4, 5, 2, 3, 0, 1],
        ];
        for (r, row) in ta.iter().enumerate() {
            for (p, &c) in row.iter().enumerate() {
                assert_eq!(cell(SwizzleMode::B128, Atomicity::B32, r as u64, p as u64), c);
            }
        }
        // 64-byte atomicity (L2964-2972).
        let tb = [[0, 1, 2, 3, 4, 5, 6, 7], [4, 5, 6, 7, 0, 1, 2, 3]];
        for (r, row) in tb.iter().enumerate() {
            for (p, &c) in row.iter().enumerate() {
                assert_eq!(cell(SwizzleMode::B128, Atomicity::B64, r as u64, p as u64), c);
            }
        }
        // The 8-byte flip: odd rows swap the halves of each 16 bytes.
        assert_eq!(address(SwizzleMode::B128, Atomicity::B32Flip8, 128), 128 + 32 + 8);
        assert_eq!(address(SwizzleMode::B128, Atomicity::B32Flip8, 256 + 8), 256 + 64 + 8);
    }
}
