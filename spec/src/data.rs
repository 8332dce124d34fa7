//! §9.7.9 Data movement and conversion instructions (L11551), register part: `mov` (§9.7.9.3),
//! `mov` pack/unpack (§9.7.9.4) and `prmt` (§9.7.9.7).
//!
//! The rest of the family (loads, stores, conversions, address-taking `mov`) needs the memory
//! model or the state spaces; its forms live in `memory.forms` and get no semantics here.

use crate::catalog::Form;
use crate::eval::SemFn;
use crate::types::mask;
use crate::value::{Args, EvalError, Outcome, Outcomes};

/// §9.7.9.3 mov (L11756-11757): `d = a` (also `d = sreg`); the bits are copied unchanged,
/// whatever the type.
pub const fn mov(a: u128) -> u128 {
    a
}

/// §9.7.9.4 mov, pack (L11812-11825): `d = a.x | (a.y << k) | (a.z << 2k) | (a.w << 3k)` for
/// elements of `k = elem_bits` bits: little-endian, the first element in the low bits. Each
/// element is taken modulo `2^k`.
pub fn pack(elems: &[u128], elem_bits: u32) -> u128 {
    let m = mask(elem_bits);
    elems
        .iter()
        .enumerate()
        .fold(0, |d, (i, &e)| d | ((e & m) << (elem_bits * i as u32)))
}

/// §9.7.9.4 mov, unpack (L11827-11846): `{d.x, d.y, ...} = {a[0..k-1], a[k..2k-1], ...}`, `n`
/// elements of `k = elem_bits` bits, the first from the low bits.
pub fn unpack(a: u128, elem_bits: u32, n: usize) -> Vec<u128> {
    let m = mask(elem_bits);
    (0..n).map(|i| (a >> (elem_bits * i as u32)) & m).collect()
}

/// `prmt` mode (`.mode`, L12097): `None` of these is the default (generic) mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PrmtMode {
    /// The generic form: four 4-bit selectors from `c[15:0]`, with sign replication.
    Default,
    /// Forward 4 extract.
    F4e,
    /// Backward 4 extract.
    B4e,
    /// Replicate 8.
    Rc8,
    /// Edge clamp left.
    Ecl,
    /// Edge clamp right.
    Ecr,
    /// Replicate 16.
    Rc16,
}

impl PrmtMode {
    /// Parses the mode modifier without its dot; `""` is the default mode.
    pub fn parse(s: &str) -> Option<PrmtMode> {
        Some(match s {
            "" => PrmtMode::Default,
            "f4e" => PrmtMode::F4e,
            "b4e" => PrmtMode::B4e,
            "rc8" => PrmtMode::Rc8,
            "ecl" => PrmtMode::Ecl,
            "ecr" => PrmtMode::Ecr,
            "rc16" => PrmtMode::Rc16,
            _ => return None,
        })
    }

    /// Source byte indices for a special mode, `[d.b0, d.b1, d.b2, d.b3]`, for each value of
    /// `c[1:0]`. The manual's table (L12139-12403) lists them as d.b3 d.b2 d.b1 d.b0; this is
    /// the same table with each row reversed.
    const fn table(self) -> [[u8; 4]; 4] {
        match self {
            // f4e: 3 2 1 0 | 4 3 2 1 | 5 4 3 2 | 6 5 4 3
            PrmtMode::F4e => [[0, 1, 2, 3], [1, 2, 3, 4], [2, 3, 4, 5], [3, 4, 5, 6]],
            // b4e: 5 6 7 0 | 6 7 0 1 | 7 0 1 2 | 0 1 2 3
            PrmtMode::B4e => [[0, 7, 6, 5], [1, 0, 7, 6], [2, 1, 0, 7], [3, 2, 1, 0]],
            // rc8: 0 0 0 0 | 1 1 1 1 | 2 2 2 2 | 3 3 3 3
            PrmtMode::Rc8 => [[0, 0, 0, 0], [1, 1, 1, 1], [2, 2, 2, 2], [3, 3, 3, 3]],
            // ecl: 3 2 1 0 | 3 2 1 1 | 3 2 2 2 | 3 3 3 3
            PrmtMode::Ecl => [[0, 1, 2, 3], [1, 1, 2, 3], [2, 2, 2, 3], [3, 3, 3, 3]],
            // ecr: 0 0 0 0 | 1 1 1 0 | 2 2 1 0 | 3 2 1 0
            PrmtMode::Ecr => [[0, 0, 0, 0], [0, 1, 1, 1], [0, 1, 2, 2], [0, 1, 2, 3]],
            // rc16: 1 0 1 0 | 3 2 3 2 | 1 0 1 0 | 3 2 3 2
            PrmtMode::Rc16 => [[0, 1, 0, 1], [2, 3, 2, 3], [0, 1, 0, 1], [2, 3, 2, 3]],
            PrmtMode::Default => [[0; 4]; 4],
        }
    }
}

/// §9.7.9.7 prmt (L12101-12137, L12407-12421): picks four bytes of the 8-byte `{b, a}` (bytes
/// b0..b3 from `a`, b4..b7 from `b`). In the default mode each destination byte `i` has the
/// selector `c[4i+3 : 4i]`: its 3 lsbs pick the source byte and its msb, when set, replicates
/// that byte's sign bit over the whole destination byte (L12105). The special modes take
/// `c[1:0]` and the table of L12139-12403; sign replication is only part of the generic form
/// (L12105), so they copy bytes unchanged.
pub fn prmt(a: u32, b: u32, c: u32, mode: PrmtMode) -> u32 {
    let tmp64 = ((b as u64) << 32) | a as u64;
    let byte = |i: u32| ((tmp64 >> (8 * i)) & 0xff) as u32;
    let mut d = 0u32;
    let mut i = 0;
    while i < 4 {
        let out = match mode {
            PrmtMode::Default => {
                let ctl = (c >> (4 * i)) & 0xf;
                let v = byte(ctl & 7);
                if ctl & 8 != 0 {
                    // Replicate the selected byte's msb.
                    if v & 0x80 != 0 {
                        0xff
                    } else {
                        0
                    }
                } else {
                    v
                }
            }
            _ => byte(mode.table()[(c & 3) as usize][i as usize] as u32),
        };
        d |= out << (8 * i);
        i += 1;
    }
    d
}

/// The semantics adapter for the register forms of §9.7.9; `None` for the other sections.
pub(crate) fn semantics(form: &Form) -> Option<SemFn> {
    Some(match form.section {
        "9.7.9.3" => sem_mov,
        "9.7.9.4" => sem_mov_vector,
        "9.7.9.7" => sem_prmt,
        _ => return None,
    })
}

fn sem_mov(form: &Form, args: &Args) -> Outcomes {
    Ok(vec![Outcome::exact(mov(args.get(0)) & form.outputs[0].ty.mask())])
}

fn sem_mov_vector(form: &Form, args: &Args) -> Outcomes {
    let packing = form.inputs.iter().any(|o| o.group.is_some());
    if packing {
        let k = form.inputs[0].ty.bits();
        let elems: Vec<u128> = (0..form.inputs.len()).map(|i| args.get(i)).collect();
        Ok(vec![Outcome::exact(pack(&elems, k))])
    } else if form.outputs.iter().any(|o| o.group.is_some()) {
        let k = form.outputs[0].ty.bits();
        let a = args.get(0) & form.inputs[0].ty.mask();
        Ok(unpack(a, k, form.outputs.len())
            .into_iter()
            .map(Outcome::exact)
            .collect())
    } else {
        Err(EvalError::unhandled(format!(
            "`{}`: §9.7.9.4 form without a vector operand",
            form.name
        )))
    }
}

fn sem_prmt(form: &Form, args: &Args) -> Outcomes {
    let mode = form.var("mode").unwrap_or("");
    let Some(mode) = PrmtMode::parse(mode) else {
        return Err(EvalError::unhandled(format!("`{}`: bad mode", form.name)));
    };
    let d = prmt(args.u(0) as u32, args.u(1) as u32, args.u(2) as u32, mode);
    Ok(vec![Outcome::exact(d as u128)])
}
