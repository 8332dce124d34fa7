//! Scenarios of `elect.sync` (§9.7.13.14, L18308): the lanes of a member mask elect a leader;
//! each stores `d` and `p`. The manual fixes the relation (one leader among the members, its
//! laneid in every member's `d`, `p` True on it alone, L18320) but not which lane leads,
//! so the check is [`Rule::Leader`]; lanes outside the mask skip the instruction (L18322: a
//! thread outside the mask executing it is undefined).

use super::{header, instr, BuildError, Check, Kernel, Rng, Rule, Scenario, THREADS};
use spec::catalog::{Form, PtxVersion};

pub(super) fn scenarios(form: &Form, rng: &mut Rng) -> Result<Vec<Scenario>, BuildError> {
    let head = header(form, 90, PtxVersion(8, 0));
    let mut k = Kernel::new();
    let mut random = rng.next() as u32;
    if random == 0 {
        random = 1;
    }
    let masks = [u32::MAX, 0x0000_ffff, 0xaaaa_aaaa, 1 << rng.range(0, 31), random];
    for &mask in &masks {
        let base = k.out;
        k.out += 8 * THREADS as usize;
        let skip = k.label();
        let it = instr(
            form,
            &[
                ("d", "%r20".into()),
                ("p", "%p6".into()),
                ("membermask", format!("{mask:#x}")),
            ],
        )?;
        for l in [
            format!("shr.b32 %r17, {mask:#x}, %r0;"),
            "and.b32 %r17, %r17, 1;".into(),
            "setp.eq.u32 %p1, %r17, 0;".into(),
            format!("@%p1 bra {skip};"),
            it,
            "selp.u32 %r21, 1, 0, %p6;".into(),
            "mul.wide.u32 %rd6, %r0, 8;".into(),
            "add.s64 %rd8, %rd0, %rd6;".into(),
            format!("st.global.u32 [%rd8+{base}], %r20;"),
            format!("st.global.u32 [%rd8+{}], %r21;", base + 4),
        ] {
            k.line(l);
        }
        k.body.push_str(&format!("{skip}:\n"));
        k.line("bar.sync 0;");
        k.checks.push(Check {
            offset: base,
            rule: Rule::Leader { mask },
            what: format!("elect.sync with member mask {mask:#010x}: one leader among the members (L18320)"),
        });
    }
    let how = format!(
        "elect.sync with member masks {}",
        masks
            .iter()
            .map(|m| format!("{m:#010x}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    Ok(vec![k.finish(form, &how, head, "", &[])])
}
