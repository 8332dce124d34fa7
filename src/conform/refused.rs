//! Judging a form the manual forbids ([`spec::vector::refused`]): its kernel must be refused at
//! load time. A refusal is a [`Failure::Rejected`] of a load-time kind ([`refused_at_load`]);
//! a kernel that ran fails the form whatever it wrote, and so does one that was accepted and then
//! failed otherwise (at launch, at run time): the implementation took the form as valid PTX.

use super::{write_repro, FormReport, FormVectors, Settings, Status};
use crate::backend::{Backend, Failure};
use crate::baseline::{FailureClass, Skip};
use crate::kernel;
use spec::catalog::catalog;
use std::time::Instant;

/// The error kinds that mean "refused before running": the oracle's and the `cmd:` protocol's
/// `parse` and `type`, the CUDA driver's `jit` (its PTX compiler refused the module).
pub fn refused_at_load(kind: &str) -> bool {
    matches!(kind, "parse" | "type" | "jit")
}

/// Runs a forbidden form's kernel on the backend: passed when refused at load.
pub(super) fn check(backend: &dyn Backend, fv: &FormVectors, settings: &Settings, mut r: FormReport) -> FormReport {
    let started = Instant::now();
    let form = &catalog().forms[fv.form];
    let rule = spec::vector::refused::columns(form).map_or("", |c| c.rule.message);
    r.vectors = fv.vectors.len();
    let all: Vec<usize> = (0..fv.vectors.len()).collect();
    let batch = match kernel::build(form, &fv.vectors, &all, settings.max_threads) {
        Ok(b) if !b.is_empty() => b.into_iter().next().expect("one batch"),
        Ok(_) => return fail(r, FailureClass::Error, "cannot build the kernel: no launch".into()),
        Err(e) => return fail(r, FailureClass::Error, format!("cannot build the kernel: {e}")),
    };
    let failed = match backend.run(&batch.job) {
        Err(Failure::Rejected { kind, message }) if refused_at_load(&kind) => {
            r.status = Status::Passed;
            r.passed = r.vectors;
            r.reason = Some(format!("refused at load ({kind} error: {message})"));
            None
        }
        Err(Failure::Unavailable(why)) => {
            r.status = Status::Skipped;
            r.reason = Some(why);
            r.trace.skip(Skip::Unavailable);
            None
        }
        Ok(_) => Some(format!(
            "the kernel ran: the manual forbids this form ({rule}), a conforming implementation refuses it at load"
        )),
        Err(f) => Some(format!(
            "accepted at load, then {f}: the manual forbids this form ({rule}), a conforming implementation refuses it at load"
        )),
    };
    if let Some(why) = failed {
        r = fail(r, FailureClass::Accepted, why);
        if let Some(dir) = &settings.repro_dir {
            r.repro = Some(match write_repro(dir, form, fv, &all, backend.caps()) {
                Ok(p) => p.display().to_string(),
                Err(e) => format!("(could not write the repro: {e})"),
            });
        }
    }
    r.seconds = started.elapsed().as_secs_f64();
    r
}

fn fail(mut r: FormReport, class: FailureClass, why: String) -> FormReport {
    r.status = Status::Failed;
    r.trace.fail(class, 0..r.vectors);
    r.failed = r.vectors;
    r.passed = 0;
    r.reason = Some(why);
    r
}
