//! How an instance of a form is written in PTX: the operand list with vector operands in braces,
//! a second predicate destination joined by `|`, the carry flag left implicit, immediates in PTX's
//! notation. Shared by everything that emits PTX (conformance kernels, generated programs).

use super::Form;
use crate::types::{Kind, Type};

/// The register class that holds a value of `ty`: `.pred`, or the bit-size type of its width
/// (at least `.b8`); bit-size registers are accepted for every type of their size.
pub fn reg_class(ty: Type) -> String {
    if ty.kind == Kind::Pred {
        ".pred".into()
    } else {
        format!(".b{}", ty.bits().max(8))
    }
}

/// An immediate operand of type `ty` as PTX writes it (`0f3F800000`, `0d...`, `0x1f`).
pub fn immediate(ty: Type, bits: u128) -> String {
    match ty.kind {
        Kind::Float(_) if ty.bits() == 32 => format!("0f{bits:08X}"),
        Kind::Float(_) if ty.bits() == 64 => format!("0d{bits:016X}"),
        _ => format!("0x{bits:x}"),
    }
}

/// The operand list of one instruction of `form`: `outs[k]` and `ins[k]` are the texts of the
/// form's destinations and sources (register names with selectors, `!p`, `-a`, immediates);
/// `None` leaves a source unwritten (an absent optional operand). Carry-flag operands are implicit
/// in the opcode's `.cc` and skipped whatever their text.
pub fn operand_list(form: &Form, outs: &[String], ins: &[Option<String>]) -> String {
    let mut dsts: Vec<(Option<u32>, String)> = Vec::new();
    for (k, (o, text)) in form.outputs.iter().zip(outs).enumerate() {
        if o.flags.cc {
            continue;
        }
        // A second destination that is a predicate joins the first with `|` (`p|q`, `d|p`).
        if k == 1 && form.pair_destination() {
            if let Some(last) = dsts.pop() {
                dsts.push((None, format!("{}|{text}", last.1)));
                continue;
            }
        }
        dsts.push((o.group, text.clone()));
    }
    let srcs: Vec<(Option<u32>, String)> = form
        .inputs
        .iter()
        .zip(ins)
        .filter(|(o, t)| !o.flags.cc && t.is_some())
        .map(|(o, t)| (o.group, t.clone().unwrap_or_default()))
        .collect();
    let mut parts = grouped(&dsts);
    parts.extend(grouped(&srcs));
    parts.join(", ")
}

/// Consecutive operands of one group become one `{a, b}` vector operand.
fn grouped(ops: &[(Option<u32>, String)]) -> Vec<String> {
    let mut open: Option<u32> = None;
    let mut cur: Vec<&str> = Vec::new();
    let mut out: Vec<String> = Vec::new();
    for (g, text) in ops {
        if open.is_some() && *g != open {
            out.push(format!("{{{}}}", cur.join(", ")));
            cur.clear();
        }
        open = *g;
        if g.is_some() {
            cur.push(text);
        } else {
            out.push(text.clone());
        }
    }
    if open.is_some() {
        out.push(format!("{{{}}}", cur.join(", ")));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::catalog;

    fn form(name: &str) -> &'static Form {
        &catalog().forms[catalog().lookup(name).expect(name).forms[0]]
    }

    #[test]
    fn predicate_pairs_vectors_and_carry() {
        let f = form("setp.lt.and.s32");
        let outs = ["%p".to_string(), "%q".to_string()];
        let ins = [Some("%a".into()), Some("%b".into()), Some("!%c".into())];
        assert_eq!(operand_list(f, &outs, &ins), "%p|%q, %a, %b, !%c");
        // `mov.b64 d, {a, b}`: the two halves are one vector source.
        let f = catalog()
            .by_name("mov.b64")
            .iter()
            .map(|&i| &catalog().forms[i])
            .find(|f| f.inputs.len() == 2)
            .expect("mov.b64 d, {a, b}");
        let ins = [Some("%lo".into()), Some("%hi".into())];
        assert_eq!(operand_list(f, &["%d".into()], &ins), "%d, {%lo, %hi}");
        let f = form("addc.cc.u32");
        let outs: Vec<String> = f.outputs.iter().map(|o| format!("%{}", o.name)).collect();
        let ins: Vec<Option<String>> = f.inputs.iter().map(|o| Some(format!("%{}", o.name))).collect();
        assert_eq!(operand_list(f, &outs, &ins), "%d, %a, %b");
    }

    #[test]
    fn immediates() {
        let f32t = Type::parse("f32").unwrap();
        assert_eq!(immediate(f32t, 0x3f80_0000), "0f3F800000");
        assert_eq!(immediate(Type::parse("f64").unwrap(), 1), "0d0000000000000001");
        assert_eq!(immediate(Type::parse("u16").unwrap(), 0x1f), "0x1f");
        assert_eq!(reg_class(Type::parse("pred").unwrap()), ".pred");
        assert_eq!(reg_class(Type::parse("f16").unwrap()), ".b16");
        assert_eq!(reg_class(Type::parse("u8").unwrap()), ".b8");
    }
}
