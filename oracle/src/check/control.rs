//! The decoders of sm_90's control and cache-hint instructions: §9.7.19.5 `setmaxnreg`, §9.7.19.1
//! `brkpt`, §9.7.17 `stacksave`/`stackrestore`/`alloca`, §9.7.9.16-17 `applypriority`/`discard`
//! and §9.7.9.18 `createpolicy`. The static rules ptxas 12.9 also applies are type errors here;
//! the rest are the interpreter's (`exec/control.rs`).

use super::body::FuncCx;
use super::consts::const_int;
use super::errors::{terr, Result};
use super::operands::Site;
use crate::ast::{Instr, Operand};
use crate::program::*;
use spec::catalog::{Exec, Form};
use spec::types::Type;

/// A cache-eviction priority as `createpolicy`'s policy value numbers it (the oracle's own
/// encoding, `exec/control.rs`): `.L2::evict_last` 0, `evict_normal` 1, `evict_first` 2,
/// `evict_unchanged` 3.
fn priority(m: Option<&str>) -> u8 {
    match m {
        Some("L2::evict_last") => 0,
        Some("L2::evict_normal") => 1,
        Some("L2::evict_first") => 2,
        _ => 3,
    }
}

impl FuncCx<'_> {
    /// `setmaxnreg.{inc,dec}.sync.aligned.u32 imm-reg-count` (L31723-31766). The count's range
    /// and multiple are the catalog's (`in=24..256+mul=8`, L31747; ptxas 12.9 refuses others);
    /// in a kernel with `.maxnreg n`, a `.dec` to more than n is refused as ptxas 12.9 refuses it
    /// (C7406: "setmaxnreg.dec has register count (N) which is larger than the largest temporal
    /// register count in the program (n)"; the manual makes it undefined, L31755).
    pub(super) fn setmaxnreg(&self, i: &Instr, form: &Form) -> Result<Op> {
        self.shape(i, form)?;
        let count = match i.operands.first() {
            Some(Operand::Expr(e)) => const_int(e),
            _ => None,
        };
        let Some(count) = count else {
            return terr(i.loc, "`setmaxnreg`'s imm-reg-count is an integer constant (L31747)");
        };
        let count = count as u32;
        let inc = form.var("action") == Some("inc");
        let func = &self.ck.funcs[self.idx as usize];
        if let (false, true, Some(n)) = (inc, func.entry, func.maxnreg) {
            if count > n {
                return terr(
                    i.loc,
                    format!(
                        "`setmaxnreg.dec` to {count} registers, more than the kernel's `.maxnreg {n}`: the count before a `.dec` must be at least imm-reg-count (undefined otherwise, L31755; ptxas 12.9 refuses it: C7406)"
                    ),
                );
            }
        }
        Ok(Op::Setmaxnreg { inc, count })
    }

    /// `stacksave.type d`, `stackrestore.type a`, `alloca.type ptr, size{, immAlign}`
    /// (§9.7.17, L30639-30790). immAlign is a power of two, at most 2^23 (L30753; ptxas 12.9:
    /// "Alignment must be a power of two").
    pub(super) fn stack(&self, i: &Instr, form: &Form, exec: Exec) -> Result<Op> {
        self.shape(i, form)?;
        let loc = i.loc;
        let at = Site::of(i);
        let ty: Type = form.ty("t").unwrap_or_else(|| Type::parse("u64").unwrap());
        let ops = &i.operands[..];
        Ok(match (exec, ops) {
            (Exec::Stacksave, [d]) => Op::StackSave {
                d: self.dst(d, ty, false, loc)?,
            },
            (Exec::Stackrestore, [a]) => Op::StackRestore {
                a: self.src(a, ty, false, at)?,
            },
            (Exec::Alloca, [d, size, rest @ ..]) if rest.len() <= 1 => {
                let align = match rest.first() {
                    None => 8,
                    Some(Operand::Expr(e)) => match const_int(e) {
                        Some(a) if a > 0 && (a as u64).is_power_of_two() && a <= 1 << 23 => a as u32,
                        _ => {
                            return terr(
                                loc,
                                "`alloca`'s immAlign is a power of two, at most 2^23 (L30753; ptxas 12.9: \"Alignment must be a power of two\")",
                            )
                        }
                    },
                    Some(_) => return terr(loc, "`alloca`'s immAlign is an integer constant (L30753)"),
                };
                Op::Alloca {
                    d: self.dst(d, ty, false, loc)?,
                    size: self.src(size, ty, false, at)?,
                    align,
                }
            }
            _ => return terr(loc, format!("`{}` does not take these operands", form.name)),
        })
    }

    /// `discard{.global}.L2 [a], 128` (§9.7.9.17) and `applypriority{.global}.L2::evict_normal
    /// [a], 128` (§9.7.9.16): size is 128 (the catalog's `in=128..128`, L13342/L13375; ptxas
    /// 12.9: "expected to be 128"); the address's window and 128-byte alignment are checked
    /// when it executes.
    pub(super) fn l2_line(&self, i: &Instr, form: &Form, discard: bool) -> Result<Op> {
        self.shape(i, form)?;
        let Some(a) = i.operands.first() else {
            return terr(i.loc, format!("`{}` takes an address and a size", form.name));
        };
        let (addr, space) = self.mem_addr(a, form, i.loc)?;
        Ok(Op::L2Line { discard, addr, space })
    }

    /// `createpolicy` (§9.7.9.18, L13394-13475). Constants ptxas 12.9 range-checks are type
    /// errors: a fraction outside (0, 1] ("out of range, expected to be in range (0.000000 ..
    /// 1.000000]"; L13451) and a primary-size above the total-size ("must be less than or equal
    /// to the value ... of argument 4"; L13441).
    pub(super) fn createpolicy(&self, i: &Instr, form: &Form) -> Result<Op> {
        self.shape(i, form)?;
        let loc = i.loc;
        let at = Site::of(i);
        let b64 = Type::parse("b64").unwrap();
        let b32 = Type::parse("b32").unwrap();
        let f32t = Type::parse("f32").unwrap();
        let priorities = [priority(form.var("primary")), priority(form.var("secondary"))];
        let ops = &i.operands[..];
        let Some(d) = ops.first() else {
            return terr(loc, "`createpolicy` writes a cache policy");
        };
        let d = self.dst(d, b64, false, loc)?;
        let policy = if form.has("range") {
            let [_, a, p, t] = ops else {
                return terr(
                    loc,
                    "`createpolicy.range` takes cache-policy, [a], primary-size, total-size",
                );
            };
            if let (Operand::Expr(pe), Operand::Expr(te)) = (p, t) {
                if let (Some(pv), Some(tv)) = (const_int(pe), const_int(te)) {
                    if pv > tv {
                        return terr(
                            loc,
                            format!("`createpolicy.range`'s primary-size {pv} exceeds its total-size {tv} (it must be at most total-size, L13441)"),
                        );
                    }
                }
            }
            let (addr, space) = self.mem_addr(a, form, loc)?;
            Policy::Range {
                priorities,
                addr,
                space,
                primary_size: self.src(p, b32, false, at)?,
                total_size: self.src(t, b32, false, at)?,
            }
        } else if form.has("fractional") {
            let fraction = match ops.get(1) {
                None => Src::Imm(1.0f32.to_bits() as u64),
                Some(f) => self.src(f, f32t, false, at)?,
            };
            if let Src::Imm(bits) = fraction {
                let v = f32::from_bits(bits as u32);
                if !(v > 0.0 && v <= 1.0) {
                    return terr(
                        loc,
                        format!("`createpolicy.fractional`'s fraction {v} is outside (0.0, 1.0] (L13451)"),
                    );
                }
            }
            Policy::Fractional { priorities, fraction }
        } else {
            let [_, a] = ops else {
                return terr(loc, "`createpolicy.cvt` takes cache-policy, access-property");
            };
            Policy::Cvt {
                access: self.src(a, b64, false, at)?,
            }
        };
        Ok(Op::Createpolicy {
            d,
            policy: Box::new(policy),
        })
    }
}
