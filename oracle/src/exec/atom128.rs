//! The 128-bit atomics `atom{.sem}{.scope}{.space}.exch.b128 d, [a], b` and
//! `atom{.sem}{.scope}{.space}.cas.b128 d, [a], b, c` (§9.7.13.5, L17386-17387; PTX 8.3,
//! L17540; sm_90, L17582). `exch` stores `b` and `cas` stores `c` when all 16 bytes at `a`
//! equal `b` (`operation(*a, b, c)`, L17495); both return the old 16 bytes in `d`. The
//! operands are `.b128` registers, which the decoder hands over as their two 64-bit halves,
//! low first (memory is little-endian, as for `ld.b128`/`st.b128`).
//!
//! The oracle runs one thread's read-modify-write at a time, so each one is atomic as the
//! manual asks; `.sem` and `.scope` order nothing further in that sequential model.

use super::{wr, Cta};
use crate::error::Result;
use crate::program::{Dst, Space, Src};
use spec::atom::{apply, AtomOp, AtomSpace};

impl Cta<'_, '_> {
    /// One thread's `exch.b128` or `cas.b128` at `at` = (its state space, resolved from
    /// generic; the atomic space; the address). `d`, `b` and `c` are halves, low first (`d` is
    /// empty for no destination, `c` is `[Imm(0), Imm(0)]` for `exch`).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn atom_b128(
        &mut self,
        i: usize,
        pc: u32,
        op: &AtomOp,
        at: (Space, AtomSpace, u64),
        d: &[Dst],
        b: &[Src],
        c: &[Src],
    ) -> Result<()> {
        let (space, aspace, a) = at;
        // "The address must be naturally aligned to a multiple of the access size ...
        // otherwise the behavior is undefined" (§6.4.1, L3112; atom's operand a, L17475).
        if !a.is_multiple_of(16) {
            return Err(self.rt_err(
                i,
                pc,
                format!(
                    "`atom.{}.b128`: {} address {a:#x} is not 16-byte aligned (undefined: an address must be naturally aligned to the access size, L3112, L17475)",
                    op.op().name(),
                    space.name()
                ),
            ));
        }
        let t = &self.threads[i];
        let wide = |s: &[Src]| -> u128 {
            match s {
                [lo, hi] => u128::from(self.rd(t, lo)) | u128::from(self.rd(t, hi)) << 64,
                _ => 0,
            }
        };
        let (bv, cv) = (wide(b), wide(c));
        let mut buf = [0u8; 16];
        self.load(i, pc, space, a, &mut buf)?;
        let old = u128::from_le_bytes(buf);
        let new = apply(op, aspace, old, bv, cv).model;
        // `cas` that fails stores the old value back: atomically the same as storing nothing,
        // and it goes through the same checks (a `.const` or read-only window is refused).
        self.store(i, pc, space, a, &new.to_le_bytes())?;
        let t = &mut self.threads[i];
        for (dst, v) in d.iter().zip([old as u64, (old >> 64) as u64]) {
            wr(t, dst, v);
        }
        t.pc += 1;
        t.clock += 1;
        Ok(())
    }
}
