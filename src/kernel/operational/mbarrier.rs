//! Scenarios of the mbarrier forms (§9.7.13.15.9-17, L18546-19240): one object in shared
//! memory, driven through its phases by single threads or groups of threads, one step at a time,
//! with every thread observing whether a phase is complete (`test_wait.parity` or the form under
//! test) and, where a `.noComplete` arrive gives a state, the pending count.
//!
//! The expected observations come from [`Barrier`], this module's own reading of the manual's
//! rules (not the oracle's objects). The scenarios only do what the manual defines: an arrive
//! in a phase comes after some wait saw the phase before it complete (L18456), a wait names the
//! current phase or the one before (L19057-19061), a `.noComplete` arrive never completes its
//! phase (L18767), and no thread observes a phase while another thread could still complete it
//! (the steps are separated by `bar.sync`), so even `try_wait`'s `False` is determined.

use super::{header, instr, BuildError, Check, Kernel, Rng, Rule, Scenario, THREADS};
use spec::catalog::{Form, PtxVersion};

/// An mbarrier object as the manual describes its contents (L18398-18406): the current phase,
/// the pending and expected arrival counts and the tx-count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Barrier {
    /// Phases completed so far: the current phase (L18448).
    pub phase: u32,
    /// Arrivals the current phase still waits for.
    pub pending: u32,
    /// Arrivals each next phase waits for.
    pub expected: u32,
    /// Asynchronous transactions the current phase still waits for.
    pub tx: i64,
}

impl Barrier {
    /// `mbarrier.init [addr], count`: phase 0, expected and pending counts `count`, tx-count 0
    /// (L18562-18568).
    pub fn init(count: u32) -> Barrier {
        Barrier {
            phase: 0,
            pending: count,
            expected: count,
            tx: 0,
        }
    }

    /// The phase completes when the pending count and the tx-count are both zero (L18488-18490);
    /// then the next phase begins with the expected count pending (L18496-18498).
    fn settle(&mut self) {
        if self.pending == 0 && self.tx == 0 {
            self.phase += 1;
            self.pending = self.expected;
        }
    }

    /// An expect-tx operation: the tx-count grows by `n` (L18466).
    pub fn expect_tx(&mut self, n: u32) {
        self.tx += i64::from(n);
    }

    /// A complete-tx operation: the tx-count falls by `n`, which may complete the phase
    /// (L18470-18474).
    pub fn complete_tx(&mut self, n: u32) {
        self.tx -= i64::from(n);
        self.settle();
    }

    /// An arrive-on operation with `count` (L18500-18508); `drop` first lowers the expected count
    /// by `count` for this and every later phase (`arrive_drop`, L18855-18859). Returns the
    /// phase it took part in (what the opaque state captures, L18773), `None` when the pending
    /// count would fall below zero (a scenario defect).
    pub fn arrive(&mut self, count: u32, drop: bool) -> Option<u32> {
        let phase = self.phase;
        if drop {
            self.expected = self.expected.checked_sub(count)?;
        }
        self.pending = self.pending.checked_sub(count)?;
        self.settle();
        Some(phase)
    }

    /// Whether phase `phase` is complete, as `test_wait`/`try_wait` with a state of it says
    /// (L19047-19051); `None` unless it is the current phase or the one before (L19057-19061).
    pub fn complete(&self, phase: u32) -> Option<bool> {
        (phase == self.phase || phase + 1 == self.phase).then_some(phase < self.phase)
    }

    /// `.parity`: the phase of parity `parity` among the current phase and the one before
    /// (L19049-19053) is the one before exactly when the current phase's parity differs.
    pub fn parity_complete(&self, parity: u32) -> Option<bool> {
        let prev = self.phase % 2 != parity;
        (!prev || self.phase > 0).then_some(prev)
    }
}

/// What an mbarrier form does, read from its catalog operands and modifiers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    Init,
    Inval,
    /// `expect_tx` or (`complete`) `complete_tx`.
    Tx {
        complete: bool,
    },
    /// `arrive`/`arrive_drop` and their `.noComplete`/`.expect_tx`.
    Arrive {
        drop: bool,
        no_complete: bool,
        expect_tx: bool,
        /// The count operand: `None` absent, `Some(optional)`.
        count: Option<bool>,
        /// The state is the sink `_`.
        sink: bool,
    },
    /// `test_wait`/`try_wait`, `.parity`, with a time hint operand.
    Wait {
        parity: bool,
        hint: bool,
    },
    PendingCount,
}

fn role(form: &Form) -> Result<Role, BuildError> {
    let input = |n: &str| form.inputs.iter().find(|o| o.name == n);
    let output = |n: &str| form.outputs.iter().find(|o| o.name == n);
    Ok(if output("wait_complete").is_some() {
        Role::Wait {
            parity: input("phase_parity").is_some(),
            hint: input("suspend_time_hint").is_some(),
        }
    } else if let Some(state) = output("state") {
        Role::Arrive {
            drop: form.has("arrive_drop"),
            no_complete: form.has("noComplete"),
            expect_tx: input("tx_count").is_some(),
            count: input("count").map(|o| o.optional),
            sink: state.flags.sink,
        }
    } else if output("count").is_some() {
        Role::PendingCount
    } else if input("tx_count").is_some() {
        Role::Tx {
            complete: form.has("complete_tx"),
        }
    } else if input("count").is_some() {
        Role::Init
    } else if form.has("inval") {
        Role::Inval
    } else {
        return Err(BuildError(format!("`{}`: no mbarrier scenario fits it", form.name)));
    })
}

/// The object's address as the form takes it: the variable for a `.shared` space, a generic
/// address (a 64-bit register; L18570) without one.
fn addr(form: &Form) -> &'static str {
    match form.var("ss") {
        Some(s) if !s.is_empty() => "[mbar]",
        _ => "[%rd2]",
    }
}

/// A scenario under construction: the kernel and the model of its object.
struct Script<'f> {
    form: &'f Form,
    k: Kernel,
    bar: Barrier,
}

impl<'f> Script<'f> {
    fn new(form: &'f Form) -> Script<'f> {
        let mut k = Kernel::new();
        k.line("mov.u64 %rd2, mbar;");
        k.line("cvta.shared.u64 %rd2, %rd2;");
        Script {
            form,
            k,
            bar: Barrier::init(0),
        }
    }

    fn defect(&self, what: &str) -> BuildError {
        BuildError(format!("`{}`: scenario defect: {what}", self.form.name))
    }

    /// The form under test with these operands.
    fn it(&self, given: &[(&str, String)]) -> Result<String, BuildError> {
        let mut g = given.to_vec();
        g.push(("addr", addr(self.form).to_string()));
        instr(self.form, &g)
    }

    /// Thread 0 initializes the object with `n` (a `.shared` `mbarrier.init`).
    fn init(&mut self, n: u32) {
        self.k.by(0, 1, &[format!("mbarrier.init.shared.b64 [mbar], {n};")]);
        self.bar = Barrier::init(n);
    }

    fn inval(&mut self) {
        self.k.by(0, 1, &["mbarrier.inval.shared.b64 [mbar];".into()]);
    }

    /// Threads `lo..hi` arrive once each (a `.shared` `mbarrier.arrive`), their states in
    /// `state`.
    fn arrive(&mut self, lo: u32, hi: u32, state: &str) -> Result<(), BuildError> {
        if lo >= hi {
            return Ok(());
        }
        self.k
            .by(lo, hi, &[format!("mbarrier.arrive.shared.b64 {state}, [mbar];")]);
        self.bar
            .arrive(hi - lo, false)
            .ok_or_else(|| self.defect("too many arrivals"))?;
        Ok(())
    }

    /// Every thread asks `test_wait.parity` of `parity`.
    fn wait_parity(&mut self, parity: u32, what: &str) -> Result<(), BuildError> {
        let e = self
            .bar
            .parity_complete(parity)
            .ok_or_else(|| self.defect("parity of no phase"))?;
        self.k.observe_pred(
            0,
            THREADS,
            format!("mbarrier.test_wait.parity.shared.b64 %p3, [mbar], {parity};"),
            e,
            &format!("test_wait.parity {parity} {what}"),
        );
        Ok(())
    }
}

/// The scenarios of an mbarrier form.
pub(super) fn scenarios(form: &Form, rng: &mut Rng) -> Result<Vec<Scenario>, BuildError> {
    let role = role(form)?;
    // `test_wait.parity` (7.1) runs every scenario; `try_wait`, tx-counts and arrive counts
    // without `.noComplete` are sm_90 forms, which raise the target themselves.
    let head = header(form, 80, PtxVersion(7, 1));
    let mut out = Vec::new();
    let variants: &[bool] = match role {
        Role::Arrive { count: Some(true), .. } | Role::Wait { hint: true, .. } => &[false, true],
        _ => &[true],
    };
    for &with in variants {
        let mut s = Script::new(form);
        let how = match role {
            Role::Init => init(&mut s, rng)?,
            Role::Inval => inval(&mut s, rng)?,
            Role::Tx { complete } => tx(&mut s, rng, complete)?,
            Role::Arrive {
                drop,
                no_complete,
                expect_tx,
                count,
                sink,
            } => {
                let c = match count {
                    Some(false) => Some(rng.range(1, 4)),
                    Some(true) if with => Some(rng.range(2, 4)),
                    _ => None,
                };
                let tx = expect_tx.then(|| 8 * rng.range(1, 32));
                arrive(&mut s, rng, drop, no_complete, tx, c, sink)?
            }
            Role::Wait { parity, hint } => wait(&mut s, rng, parity, hint && with)?,
            Role::PendingCount => pending_count(&mut s, rng)?,
        };
        out.push(s.k.finish(form, &how, head, ".shared .align 8 .b64 mbar;", &[]));
    }
    Ok(out)
}

/// `mbarrier.init` with a count `n`: the phase waits for exactly `n` arrivals, and so does the
/// next one.
fn init(s: &mut Script, rng: &mut Rng) -> Result<String, BuildError> {
    let n = rng.range(2, THREADS - 1);
    let it = s.it(&[("count", "%r10".into())])?;
    s.k.by(0, 1, &[format!("mov.u32 %r10, {n};"), it]);
    s.bar = Barrier::init(n);
    for phase in 0..2 {
        s.arrive(0, n - 1, "%rd10")?;
        s.wait_parity(
            phase,
            &format!(
                "after {} of the {n} arrivals init expects (L18564-18566): phase {phase} incomplete (L18488)",
                n - 1
            ),
        )?;
        s.arrive(n - 1, n, "%rd10")?;
        s.wait_parity(
            phase,
            &format!("after all {n} arrivals: phase {phase} complete (L18488-18498)"),
        )?;
    }
    s.inval();
    Ok(format!("init with count {n}; two phases of {n} arrivals"))
}

/// `mbarrier.inval`: the memory is then usable as any other (L18614), and by another
/// object (L18574).
fn inval(s: &mut Script, rng: &mut Rng) -> Result<String, BuildError> {
    let x = rng.next();
    let it = s.it(&[])?;
    let off = s.k.slots();
    s.k.by(
        0,
        1,
        &[
            "mbarrier.init.shared.b64 [mbar], 1;".into(),
            "mbarrier.arrive.shared.b64 %rd10, [mbar];".into(),
            it.clone(),
            format!("mov.b64 %rd11, {x:#x};"),
            "st.shared.b64 [mbar], %rd11;".into(),
            "ld.shared.b64 %rd12, [mbar];".into(),
            format!("st.global.b64 [%rd0+{off}], %rd12;"),
        ],
    );
    s.k.checks.push(Check {
        offset: off,
        rule: Rule::Bytes(x.to_le_bytes().to_vec()),
        what: "the object's memory after inval holds what st.shared wrote there (L18614)".into(),
    });
    s.init(2);
    s.arrive(1, 2, "%rd10")?;
    s.wait_parity(
        0,
        "after 1 of 2 arrivals on the object initialized again after inval (L18574): phase 0 incomplete",
    )?;
    s.arrive(1, 2, "%rd10")?;
    s.wait_parity(0, "after 2 of 2 arrivals: phase 0 complete")?;
    s.k.by(0, 1, &[it]);
    Ok("init, arrive, inval; the memory stored and loaded; init again, one phase; inval".into())
}

/// `mbarrier.expect_tx`/`complete_tx`: a phase with no pending arrival waits for its tx-count.
fn tx(s: &mut Script, rng: &mut Rng, complete: bool) -> Result<String, BuildError> {
    let t = 8 * rng.range(2, 64);
    let a = 4 * rng.range(1, t / 4 - 1);
    let expect = |n: u32| -> Result<String, BuildError> {
        if complete {
            Ok(format!("mbarrier.expect_tx.shared.b64 [mbar], {n};"))
        } else {
            s.it(&[("tx_count", n.to_string())])
        }
    };
    let done = |n: u32| -> Result<String, BuildError> {
        if complete {
            s.it(&[("tx_count", n.to_string())])
        } else {
            Ok(format!("mbarrier.complete_tx.shared.b64 [mbar], {n};"))
        }
    };
    let (e, d1, d2) = (expect(t)?, done(a)?, done(t - a)?);
    s.init(1);
    s.k.by(0, 1, &[e, "mbarrier.arrive.shared.b64 %rd10, [mbar];".into()]);
    s.bar.expect_tx(t);
    s.bar.arrive(1, false).ok_or_else(|| s.defect("arrive"))?;
    s.wait_parity(0, &format!("with no arrival pending and tx-count {t} (L18488-18490)"))?;
    s.k.by(0, 1, &[d1]);
    s.bar.complete_tx(a);
    s.wait_parity(0, &format!("after complete-tx {a} of {t} (L18470-18474)"))?;
    s.k.by(0, 1, &[d2]);
    s.bar.complete_tx(t - a);
    s.wait_parity(0, &format!("after complete-tx of the other {} (L18470-18474)", t - a))?;
    s.inval();
    Ok(format!("init 1; expect-tx {t}, arrive; complete-tx {a} then {}", t - a))
}

/// `mbarrier.arrive`/`arrive_drop`: the form's arrive with count `c` (or none) among others; its
/// phase, the pending count its `.noComplete` state gives, its tx-count, and with `drop` the
/// next phase's smaller count.
fn arrive(
    s: &mut Script,
    rng: &mut Rng,
    drop: bool,
    no_complete: bool,
    tx: Option<u32>,
    c: Option<u32>,
    sink: bool,
) -> Result<String, BuildError> {
    let count = c.unwrap_or(1);
    let extra = rng.range(1, 3);
    let n = count + extra;
    s.init(n);
    let mut ops: Vec<(&str, String)> = Vec::new();
    if !sink {
        ops.push(("state", "%rd10".into()));
    }
    if let Some(c) = c {
        ops.push(("count", c.to_string()));
    }
    if let Some(t) = tx {
        ops.push(("tx_count", t.to_string()));
        // The expect-tx comes before the arrive-on (L18765).
        s.bar.expect_tx(t);
    }
    let it = s.it(&ops)?;
    let before = s.bar.pending;
    s.bar.arrive(count, drop).ok_or_else(|| s.defect("arrive"))?;
    if no_complete && !sink {
        s.k.observe_u32(
            1,
            &[it, "mbarrier.pending_count.b64 %r9, %rd10;".into()],
            before,
            "pending_count of the .noComplete arrive's state: the count before it (L19224)",
        );
    } else {
        s.k.by(1, 2, &[it]);
    }
    s.wait_parity(
        0,
        &format!("after the form's arrive-on with count {count} of {n} (L18500-18508): {extra} pending"),
    )?;
    s.arrive(2, 2 + extra, "%rd11")?;
    if let Some(t) = tx {
        s.wait_parity(
            0,
            &format!("with every arrival made and tx-count {t} from .expect_tx (L18765, L18488-18490)"),
        )?;
        s.k.by(0, 1, &[format!("mbarrier.complete_tx.shared.b64 [mbar], {t};")]);
        s.bar.complete_tx(t);
    }
    s.wait_parity(0, "with every arrival made: phase 0 complete (L18488-18498)")?;
    if !sink {
        let e = s.bar.complete(0).ok_or_else(|| s.defect("state wait"))?;
        s.k.observe_pred(
            1,
            2,
            "mbarrier.test_wait.shared.b64 %p3, [mbar], %rd10;".into(),
            e,
            "test_wait with the form's state: its phase is complete (L18773, L19047-19051)",
        );
    }
    // The next phase waits for the expected count, lowered by a drop (L18859).
    let e = s.bar.expected;
    let expects = format!(
        "phase 1, which expects {e}{} (L18496-18498)",
        if drop { " after the drop (L18859)" } else { "" }
    );
    s.arrive(2, 2 + e - 1, "%rd12")?;
    s.wait_parity(1, &format!("after {} arrivals in {expects}", e - 1))?;
    s.arrive(2 + e - 1, 2 + e, "%rd12")?;
    s.wait_parity(1, &format!("after all {e} arrivals of {expects}"))?;
    s.inval();
    Ok(format!(
        "init {n}; the form's arrive{} by thread 1{}; {extra} more; phase 1 of {e}",
        c.map_or(String::new(), |c| format!(" with count {c}")),
        tx.map_or(String::new(), |t| format!(" expecting tx {t}")),
    ))
}

/// `test_wait`/`try_wait`: the form asks of phases 0 and 1 before and after they complete, by
/// state (the threads that arrived) or by parity (every thread).
fn wait(s: &mut Script, rng: &mut Rng, parity: bool, hint: bool) -> Result<String, BuildError> {
    let n = rng.range(2, 6);
    s.init(n);
    let states = ["%rd10", "%rd11"];
    let ask = |s: &mut Script, hi: u32, of: u32, what: &str| -> Result<(), BuildError> {
        let mut ops = vec![("wait_complete", "%p3".to_string())];
        let e = if parity {
            ops.push(("phase_parity", (of % 2).to_string()));
            s.bar.parity_complete(of % 2)
        } else {
            ops.push(("state", states[of as usize].to_string()));
            s.bar.complete(of)
        }
        .ok_or_else(|| s.defect("wait on no phase"))?;
        if hint {
            // A time limit in nanoseconds (L19045): it only bounds a suspension.
            ops.push(("suspend_time_hint", "%r12".into()));
        }
        let it = s.it(&ops)?;
        let hi = if parity { THREADS } else { hi };
        s.k.observe_pred(0, hi, it, e, &format!("the form on phase {of} {what}"));
        Ok(())
    };
    if hint {
        s.k.line("mov.u32 %r12, 1000;");
    }
    for phase in 0..2u32 {
        let st = states[phase as usize];
        s.arrive(0, n - 1, st)?;
        ask(
            s,
            n - 1,
            phase,
            &format!("after {} of {n} arrivals: incomplete (L18488)", n - 1),
        )?;
        if phase == 1 {
            ask(
                s,
                n - 1,
                0,
                "(the phase before the current one) : complete (L19057-19061)",
            )?;
        }
        s.arrive(n - 1, n, st)?;
        ask(s, n, phase, &format!("after all {n} arrivals: complete (L18488-18498)"))?;
    }
    s.inval();
    Ok(format!(
        "init {n}; two phases of {n} arrivals, the form asked before and after each{}",
        if hint { ", with a time hint" } else { "" }
    ))
}

/// `mbarrier.pending_count` of two `.noComplete` arrives' states.
fn pending_count(s: &mut Script, rng: &mut Rng) -> Result<String, BuildError> {
    let n = rng.range(4, 9);
    let c1 = rng.range(1, n - 3);
    let c2 = rng.range(1, n - c1 - 1);
    s.init(n);
    for (c, state) in [(c1, "%rd10"), (c2, "%rd11")] {
        let before = s.bar.pending;
        let it = s.it(&[("count", "%r9".into()), ("state", state.into())])?;
        s.k.observe_u32(
            0,
            &[
                format!("mbarrier.arrive.noComplete.shared.b64 {state}, [mbar], {c};"),
                it,
            ],
            before,
            &format!("pending_count after a .noComplete arrive with count {c}: the pending count before it (L19224)"),
        );
        s.bar.arrive(c, false).ok_or_else(|| s.defect("arrive"))?;
    }
    let rest = s.bar.pending;
    s.arrive(1, 1 + rest, "%rd12")?;
    s.wait_parity(0, &format!("after the other {rest} arrivals"))?;
    s.inval();
    Ok(format!(
        "init {n}; .noComplete arrives with counts {c1} and {c2}, pending_count of each"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The model against hand arithmetic on the manual's rules.
    #[test]
    fn the_model_follows_the_phase_rules() {
        let mut b = Barrier::init(3);
        assert_eq!(b.arrive(1, false), Some(0));
        assert_eq!(b.complete(0), Some(false));
        assert_eq!(b.parity_complete(0), Some(false));
        // Parity 1 in phase 0 names no phase.
        assert_eq!(b.parity_complete(1), None);
        assert_eq!(b.arrive(2, false), Some(0));
        assert_eq!((b.phase, b.pending), (1, 3));
        assert_eq!(b.complete(0), Some(true));
        assert_eq!(b.parity_complete(0), Some(true));
        assert_eq!(b.parity_complete(1), Some(false));
        // arrive_drop: this phase and the next expect one fewer.
        assert_eq!(b.arrive(1, true), Some(1));
        assert_eq!((b.pending, b.expected), (2, 2));
        b.expect_tx(64);
        assert_eq!(b.arrive(2, false), Some(1));
        assert_eq!(b.phase, 1, "the tx-count holds the phase open");
        b.complete_tx(64);
        assert_eq!((b.phase, b.pending), (2, 2));
        assert_eq!(b.complete(0), None, "two phases back");
        assert_eq!(b.arrive(3, false), None, "more arrivals than pending");
    }
}
