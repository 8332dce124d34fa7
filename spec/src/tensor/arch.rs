//! Which block-FMA configuration each GPU generation uses, per instruction kind and format.
//!
//! The numbers are the ones the recorded results pin down (`corpus/tensor-cores/hw-data/`,
//! `shared/tensor-cores/README.md`): fraction bits F, block sizes, rounding, where `C` enters.
//! Where the data are silent this module chooses, and says so in [`config`]'s table.

use super::block::{BlockFma, BlockRound, KOrder};
use crate::types::FloatFormat;

/// A tensor-core generation: the unit of the numerics model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Arch {
    /// Volta (V100, recorded): sm_70, sm_72.
    Sm70,
    /// Ampere (A100, recorded): sm_80, sm_86, sm_87, sm_88; Turing sm_75 is mapped here too.
    Sm80,
    /// Ada (an RTX card, recorded): sm_89.
    Sm89,
    /// Hopper (H100, H200, recorded): sm_90, sm_90a.
    Sm90,
    /// Datacenter Blackwell (B200, recorded): sm_100, sm_100a/f, and the family targets sm_101,
    /// sm_103, sm_110 (and their a/f variants); also the RTX Blackwell sm_120/sm_121 (a guess).
    Sm100,
}

impl Arch {
    /// The generation whose model a PTX target (`.target` name, `sm_90a`) uses, `None` for
    /// targets before sm_70 (no tensor cores) and unknown names.
    ///
    /// - sm_70, sm_72 → [`Arch::Sm70`] (Xavier's sm_72 is a Volta core).
    /// - sm_75 → [`Arch::Sm80`]: no Turing data here; MMA-Sim's Turing model has F = 24 and one
    ///   step for m16n8k8 (8 products), which is A100's F and block size, so sm_80's rules are the
    ///   nearest justified (an interpretation).
    /// - sm_80, sm_86, sm_87, sm_88 → [`Arch::Sm80`] (the A100 rules; GA10x not recorded).
    /// - sm_89 → [`Arch::Sm89`]; sm_90, sm_90a → [`Arch::Sm90`].
    /// - sm_100, sm_101, sm_103, sm_110 (with `a`/`f`) → [`Arch::Sm100`]; sm_120, sm_121 (with
    ///   `a`/`f`) → [`Arch::Sm100`] as the nearest generation. This is a guess: sm_120's fp8
    ///   `mma` is native (`.kind::f8f6f4`), not the emulation modelled for sm_100.
    ///
    /// ```
    /// use spec::tensor::Arch;
    /// assert_eq!(Arch::from_target("sm_90a"), Some(Arch::Sm90));
    /// assert_eq!(Arch::from_target("sm_86"), Some(Arch::Sm80));
    /// assert_eq!(Arch::from_target("sm_100f"), Some(Arch::Sm100));
    /// assert_eq!(Arch::from_target("sm_61"), None);
    /// ```
    pub fn from_target(target: &str) -> Option<Arch> {
        let num = target.strip_prefix("sm_")?;
        let num = num.trim_end_matches(['a', 'f']);
        Some(match num.parse::<u32>().ok()? {
            70 | 72 => Arch::Sm70,
            75 | 80 | 86 | 87 | 88 => Arch::Sm80,
            89 => Arch::Sm89,
            90 => Arch::Sm90,
            100 | 101 | 103 | 110 | 120 | 121 => Arch::Sm100,
            _ => return None,
        })
    }

    /// Every generation, oldest first.
    pub const ALL: [Arch; 5] = [Arch::Sm70, Arch::Sm80, Arch::Sm89, Arch::Sm90, Arch::Sm100];
}

/// The instruction family: the numerics differ between `mma.sync` and `wgmma` for fp8 on sm_90.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// `mma.sync` (§9.7.14.5.14), also `mma.sp`.
    Mma,
    /// `wmma.mma` (§9.7.14.4.5).
    Wmma,
    /// `wgmma.mma_async` (§9.7.15.5.2), also `.sp`.
    Wgmma,
}

/// The input formats of the fp8/fp6/fp4 family (`.e4m3 .e5m2 .e3m2 .e2m3 .e2m1`, L22925).
pub fn is_narrow(f: FloatFormat) -> bool {
    matches!(
        f,
        FloatFormat::E4m3 | FloatFormat::E5m2 | FloatFormat::E3m2 | FloatFormat::E2m3 | FloatFormat::E2m1
    )
}

/// The block-FMA configuration of `kind` on `arch` with A/B elements of format `input` and a
/// D (and accumulator) of format `out` (`F32` or `F16`); `None` for `f64` (an FMA chain, see
/// [`super::exact::f64_chain`]) and for an `out` other than f32/f16.
///
/// Recorded (every sample of `corpus/tensor-cores/hw-data/` matches):
///
/// | arch | fp16 / bf16 | tf32 | fp8 → f32 | fp8 → f16 |
/// |---|---|---|---|---|
/// | Sm70 | blocks of 4, F = 23 | — | — | — |
/// | Sm80 | blocks of 8, F = 24 | blocks of 4, F = 24 | — | — |
/// | Sm89 | blocks of 8, F = 24 | blocks of 4, F = 24 | blocks of 16, F = 13, RZ e8m13 | blocks of 16, F = 13, RNE f16 |
/// | Sm90 | one block of 16, F = 25 | 8, F = 25 | `wgmma`: 32, F = 13, RZ e8m13 | `mma`: emulated |
/// | Sm100 | one block of 16, F = 25 | 8, F = 25 | `mma`: emulated | `mma`: emulated |
///
/// f32 outputs round RZ, f16 outputs RNE, after every block; `C` enters the first block. The
/// emulated fp8 `mma.sync` of sm_90/sm_100 (cutlass#1986 says ptxas lowers it to f16 tensor-core
/// operations; its structure is inferred from the data) is two native f16-input steps — blocks of
/// 16 over k ≡ 0,1 (mod 4) from a zero accumulator, then over k ≡ 2,3 (mod 4) — F = 25, RZ f32
/// or RNE f16, the inputs aligned as f16, and `C` added last with one RNE addition.
///
/// Chosen where the data are silent (also in `spec/INTERPRETATIONS.md`):
/// - `wmma` and `mma` share every configuration (the fp16/bf16/tf32 data are `wmma`, the fp8 data
///   `mma`); `wgmma` fp16/bf16/tf32 on sm_90 uses `mma`'s; fp8 `wgmma` with an f16 accumulator
///   is one block of 32, F = 13, RNE f16 (the f32 rule with Ada's f16 rounding); `wgmma` asked
///   for on another arch (it exists only on sm_90a) uses that arch's `mma` rule.
/// - Block sizes beyond the K recorded (the data use 4 of V100's 16 k positions, 8 of A100's,
///   4 of tf32's 8) are the published models' (Khattak & Mikaitis), and F for f16 outputs is
///   the f32 output's.
/// - e3m2/e2m3/e2m1 (no data at all) use their generation's fp8 rule; so does fp8 where the
///   generation has no fp8 instruction (sm_70, sm_80): F of that generation's fp16 rule with
///   its block size.
/// - bf16/tf32 asked for on sm_70 (no such instruction) use sm_70's fp16 rule.
/// - No floor on the alignment exponent beyond the inputs' emin (the published models' min_exp
///   does not change any recorded result).
pub fn config(arch: Arch, kind: Kind, input: FloatFormat, out: FloatFormat) -> Option<BlockFma> {
    use FloatFormat as F;
    let (f32_round, f16_round) = (BlockRound::RzF32, BlockRound::RneF16);
    let round = match out {
        F::F32 => f32_round,
        F::F16 => f16_round,
        _ => return None,
    };
    if input == F::F64 {
        return None;
    }
    let (block16, f_wide) = match arch {
        Arch::Sm70 => (4, 23),
        Arch::Sm80 | Arch::Sm89 => (8, 24),
        Arch::Sm90 | Arch::Sm100 => (16, 25),
    };
    let tf32_block = match arch {
        Arch::Sm70 => 4,
        Arch::Sm80 | Arch::Sm89 => 4,
        Arch::Sm90 | Arch::Sm100 => 8,
    };
    let emulated = BlockFma {
        block: 16,
        f: 25,
        rounding: round,
        c_in_first_block: false,
        order: KOrder::PairsMod4,
        align_as: Some(F::F16),
    };
    Some(match input {
        F::Tf32 => BlockFma::native(tf32_block, f_wide, round),
        i if is_narrow(i) => match (arch, kind) {
            (Arch::Sm70 | Arch::Sm80, _) => BlockFma::native(block16, f_wide, round),
            (Arch::Sm89, _) => BlockFma::native(16, 13, if out == F::F32 { BlockRound::RzE8m13 } else { f16_round }),
            (Arch::Sm90, Kind::Wgmma) => {
                BlockFma::native(32, 13, if out == F::F32 { BlockRound::RzE8m13 } else { f16_round })
            }
            (Arch::Sm90 | Arch::Sm100, _) => emulated,
        },
        _ => BlockFma::native(block16, f_wide, round),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets() {
        assert_eq!(Arch::from_target("sm_70"), Some(Arch::Sm70));
        assert_eq!(Arch::from_target("sm_75"), Some(Arch::Sm80));
        assert_eq!(Arch::from_target("sm_89"), Some(Arch::Sm89));
        assert_eq!(Arch::from_target("sm_90"), Some(Arch::Sm90));
        assert_eq!(Arch::from_target("sm_103a"), Some(Arch::Sm100));
        assert_eq!(Arch::from_target("sm_120a"), Some(Arch::Sm100));
        assert_eq!(Arch::from_target("compute_90"), None);
        assert_eq!(Arch::from_target("sm_52"), None);
    }

    #[test]
    fn table() {
        use FloatFormat::*;
        let c = |a, k, i, o| config(a, k, i, o).unwrap();
        assert_eq!(
            (
                c(Arch::Sm70, Kind::Wmma, F16, F32).block,
                c(Arch::Sm70, Kind::Wmma, F16, F32).f
            ),
            (4, 23)
        );
        assert_eq!(c(Arch::Sm80, Kind::Mma, Tf32, F32).block, 4);
        assert_eq!(c(Arch::Sm90, Kind::Mma, Bf16, F32).block, 16);
        assert_eq!(c(Arch::Sm89, Kind::Mma, E4m3, F32).rounding, BlockRound::RzE8m13);
        assert_eq!(c(Arch::Sm90, Kind::Wgmma, E5m2, F32).block, 32);
        assert!(!c(Arch::Sm90, Kind::Mma, E4m3, F16).c_in_first_block);
        assert!(!c(Arch::Sm100, Kind::Mma, E4m3, F32).c_in_first_block);
        assert_eq!(config(Arch::Sm90, Kind::Mma, F64, F64), None);
    }
}
