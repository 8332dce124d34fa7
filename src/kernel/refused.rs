//! The conformance kernel of a form the manual forbids ([`spec::vector::refused`]): one warp
//! uses the form as a program would — every lane gives an aligned 16-byte row of shared memory
//! (its generic address, `cvta.shared`, for the forms without a state space), `ldmatrix` loads
//! into the fragment's registers and stores them to `out`, `stmatrix` stores registers read from
//! `in`. A conforming implementation refuses the module before anything runs; what a kernel that
//! did run wrote is never judged (running it is the failure).

use super::BuildError;
use spec::catalog::{fragment, Exec, Form};
use spec::vector::refused::columns;
use spec::vector::Vector;
use std::fmt::Write as _;

/// Threads of the launch: one warp, as `.sync.aligned` requires.
const WARP: usize = 32;

/// Whether `form` is forbidden (and its kernel built here).
pub fn is_refused(form: &Form) -> bool {
    columns(form).is_some()
}

/// The registers of the form's fragment operand `r`.
fn regs(form: &Form) -> usize {
    form.outputs
        .iter()
        .chain(&form.inputs)
        .find_map(|o| fragment::length(form, o))
        .unwrap_or(1)
}

fn module(form: &Form) -> String {
    let n = regs(form);
    let mut s = super::in_out_entry(
        form,
        super::header_for(form),
        "refused at load by a conforming implementation",
    );
    let _ = writeln!(s, "\t.reg .b32 %t, %s, %x<{n}>;\n\t.reg .b64 %ia, %oa, %off, %sa;");
    let _ = writeln!(s, "\t.shared .align 16 .b8 smem[{}];", WARP * 16);
    s.push_str("\tld.param.u64 %ia, [in];\n\tld.param.u64 %oa, [out];\n\tmov.u32 %t, %tid.x;\n");
    let _ = writeln!(s, "\tmul.wide.u32 %off, %t, {};", 4 * n);
    s.push_str("\tadd.u64 %ia, %ia, %off;\n\tadd.u64 %oa, %oa, %off;\n");
    s.push_str("\tmov.u32 %s, smem;\n\tmad.lo.u32 %s, %t, 16, %s;\n\tcvt.u64.u32 %sa, %s;\n");
    if form.var("ss").is_none_or(str::is_empty) {
        s.push_str("\tcvta.shared.u64 %sa, %sa;\n");
    }
    let list: Vec<String> = (0..n).map(|r| format!("%x{r}")).collect();
    let list = format!("{{{}}}", list.join(", "));
    if form.exec() == Some(Exec::Stmatrix) {
        for r in 0..n {
            let _ = writeln!(s, "\tld.global.b32 %x{r}, [%ia+{}];", 4 * r);
        }
        let _ = writeln!(s, "\t{} [%sa], {list};", form.name);
    } else {
        let _ = writeln!(s, "\t{} {list}, [%sa];", form.name);
        for r in 0..n {
            let _ = writeln!(s, "\tst.global.b32 [%oa+{}], %x{r};", 4 * r);
        }
    }
    s.push_str("\tret;\n}\n");
    s
}

/// One launch of one warp for the picked vectors (a forbidden form has one vector; any number
/// share the launch, as they say the same).
pub fn build(form: &Form, vectors: &[Vector], pick: &[usize]) -> Result<Vec<super::Batch>, BuildError> {
    super::picked(form, vectors, pick, |v| v.ins.is_empty() && v.outs.is_empty())?;
    let bytes = WARP * 4 * regs(form);
    Ok(vec![super::Batch {
        job: super::in_out_job(&module(form), 1, WARP, &vec![0u8; bytes], bytes),
        vectors: pick.to_vec(),
        records: super::Records::Refused,
    }])
}

#[cfg(test)]
mod tests {
    use super::*;
    use spec::catalog::catalog;

    /// The kernel is the form used plainly: the oracle refuses it with a type error at the
    /// instruction naming the rule; the same kernel with `.trans` added (a valid form) runs.
    #[test]
    fn the_kernel_is_refused_for_the_rule_and_only_for_it() {
        let cat = catalog();
        let key = "ldmatrix.sync.aligned.m16n16.x2.shared.b8~o1";
        let f = &cat.forms[spec::vector::form_by_key(key).unwrap()];
        let v = columns(f).unwrap().vector();
        let b = build(f, &[v], &[0]).unwrap();
        let run = |ptx: &str| {
            let mut l = b[0].job.launch("kernel.ptx");
            l.grammar = oracle::check::Grammar::Manual;
            oracle::launch::run(&l, ptx).map(|_| ())
        };
        let e = run(&b[0].job.ptx).unwrap_err();
        assert_eq!(e.kind, oracle::error::ErrorKind::Type, "{e}");
        assert!(e.message.contains("(L23499)"), "{e}");
        let valid = b[0].job.ptx.replace(".x2.shared.b8", ".x2.trans.shared.b8");
        run(&valid).unwrap();
    }
}
