//! The module's address size (§11.1.3, L33312-33347): `.address_size 32` or `64`, 32 when the
//! directive is left out (L33333), and what it changes: the generic windows ([`mem::Windows`])
//! and the width of an address register.
//!
//! ptxas 12.9 refuses every 32-bit module ("32-Bit compilation is no longer supported"; on
//! sm_90 and later "32-Bit ABI ... is not supported"), and without the directive it reads the
//! program: 64-bit unless an instruction uses a 32-bit address, which it then refuses
//! (`corpus/findings/ptxas-12.9-32-bit-addresses.txt`). So the checker follows ptxas by default
//! (a 32-bit module is refused, a module without the directive is 64-bit, whose rules refuse
//! 32-bit addresses of global and generic memory), and the manual under
//! [`Grammar::Manual`]: `.address_size 32` and a module without the directive are 32-bit
//! modules, run in [`mem::Windows::A32`].

use super::errors::{terr, Result};
use super::{Checker, Grammar};
use crate::ast::Loc;
use crate::mem;

impl Checker {
    /// `.address_size bits` at `loc`; `seen`: the module had one before.
    pub(super) fn address_size(&mut self, bits: u32, loc: Loc, seen: bool, after_target: bool) -> Result<()> {
        if seen {
            // L33327; ptxas 12.9: "Parsing error near '.address_size'".
            return terr(
                loc,
                "a second `.address_size`: the directive may not be redefined in a module (L33327)",
            );
        }
        if !after_target {
            // L33329; ptxas 12.9: "Missing .target directive at start of file".
            return terr(loc, "`.address_size` must immediately follow `.target` (L33329)");
        }
        if bits == 32 && self.grammar == Grammar::Ptxas {
            return terr(
                loc,
                "`.address_size 32` is valid PTX (§11.1.3, L33322), but ptxas 12.9 refuses 32-bit modules: \"32-Bit compilation is no longer supported\" (corpus/findings/ptxas-12.9-32-bit-addresses.txt; a launch with `\"grammar\": \"manual\"` runs it)",
            );
        }
        self.windows = mem::Windows::of(bits);
        Ok(())
    }

    /// The windows of a module without `.address_size`: 32-bit by the manual (L33333); by ptxas
    /// 12.9, 64-bit as long as no instruction uses a 32-bit address (the 64-bit rules refuse one
    /// there, as ptxas refuses the module).
    pub(super) fn default_windows(&self) -> mem::Windows {
        match self.grammar {
            Grammar::Manual => mem::Windows::A32,
            Grammar::Ptxas => mem::Windows::A64,
        }
    }
}
