//! `tensormap.replace` (§9.7.9.26, L15381-15640) and `tensormap.cp_fenceproxy` (§9.7.13.16,
//! L19243-19302): the device-side editing of tensor maps.
//!
//! A tensor map is 128 bytes in `spec::tma`'s encoding (the manual calls the object opaque,
//! L3050; `spec::tma::encoding` documents ours). `tensormap.replace` reads the map at its
//! address, rewrites one field with `spec::tma::replace` and writes the map back: "a weak memory
//! operation on the whole 1024-bit opaque tensor-map object" (L15626), through the generic
//! proxy like a store (in shared memory it is recorded as one for the async-proxy rule). An
//! address outside `.global` and `.shared::cta` is undefined (L15624): a runtime error here.
//! A value the field cannot take (Table 32's `x`, a rank above 5, an `ord` past the rank) is a
//! runtime error naming the table or line; the checker refuses the immediate ones already.
//!
//! `tensormap.cp_fenceproxy` copies 128 bytes from shared to global memory through the generic
//! proxy, then establishes a release from the generic proxy to the tensormap proxy on the copy
//! (L19260-19264). Every thread that executes it copies (the copies are identical when the
//! warp's threads name the same addresses, as `.aligned` requires, L19274).
//!
//! The tensormap-proxy rule: a tensor copy reads its map through the tensormap proxy (L14904);
//! a map written through the generic proxy (`st`, `tensormap.replace` on global memory, this
//! copy) is ordered before that read only by a release (`cp_fenceproxy`, or
//! `fence.proxy.tensormap::generic.release`) and an acquire
//! `fence.proxy.tensormap::generic.acquire [addr], 128` (the manual's example, L19286-19302,
//! L17348-17350, L17280). It is checked where tensor copies read their maps: `exec/bulk/tensor.rs`.

use super::Cta;
use crate::error::Result;
use crate::program::{Addr, Space, Src};
use spec::tma::{encoding::SIZE, Field};

impl Cta<'_, '_> {
    /// Reads the 128-byte map at `a` (in two naturally aligned halves: a map needs 64-byte
    /// alignment, the driver's rule for `tensorMap`, not 128). Also what a tensor copy's
    /// executor reads its `tensorMap` operand with (a generic address of `.param`, `.const` or
    /// `.global`, L14904), then `spec::tma::decode` and `spec::tma::plan`.
    pub(super) fn read_map(&self, i: usize, pc: u32, space: Space, a: u64) -> Result<[u8; SIZE]> {
        let mut b = [0u8; SIZE];
        let (lo, hi) = b.split_at_mut(SIZE / 2);
        self.load(i, pc, space, a, lo)?;
        self.load(i, pc, space, a.wrapping_add(SIZE as u64 / 2), hi)?;
        Ok(b)
    }

    fn write_map(&mut self, i: usize, pc: u32, space: Space, a: u64, b: &[u8; SIZE]) -> Result<()> {
        self.store(i, pc, space, a, &b[..SIZE / 2])?;
        self.store(i, pc, space, a.wrapping_add(SIZE as u64 / 2), &b[SIZE / 2..])
    }

    /// Thread `i`'s `tensormap.replace` at `pc`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn tensormap_replace(
        &mut self,
        i: usize,
        pc: u32,
        field: Field,
        ord: u32,
        addr: &Addr,
        space: Space,
        new_val: &Src,
    ) -> Result<()> {
        let a = self.address(i, addr);
        let v = self.rd(&self.threads[i], new_val);
        // Generic addressing must land in .global or .shared::cta (L15624).
        if space == Space::Generic {
            match self.m.prog.windows.resolve_generic(a) {
                Some((Space::Global | Space::Shared, _)) => {}
                _ => {
                    return Err(self.rt_err(
                        i,
                        pc,
                        format!(
                            "`tensormap.replace` at generic address {a:#x}, outside the .global and .shared::cta windows: undefined (L15624)"
                        ),
                    ))
                }
            }
        }
        let mut b = self.read_map(i, pc, space, a)?;
        if let Err(e) = spec::tma::replace(&mut b, field, ord, v) {
            return Err(self.rt_err(i, pc, format!("`tensormap.replace.{}`: {e}", field.name())));
        }
        self.write_map(i, pc, space, a, &b)
    }

    /// Thread `i`'s `tensormap.cp_fenceproxy` at `pc`: the copy (the fence has no effect on the
    /// oracle's memory; see the module documentation).
    pub(super) fn tensormap_cp_fenceproxy(&mut self, i: usize, pc: u32, dst: &Addr, src: &Addr) -> Result<()> {
        let (d, s) = (self.address(i, dst), self.address(i, src));
        let b = self.read_map(i, pc, Space::Shared, s)?;
        self.write_map(i, pc, Space::Global, d, &b)
    }
}
