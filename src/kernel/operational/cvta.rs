//! Scenarios of `cvta` (§9.7.9.20, L13534-13598) between generic addresses and the `.global`,
//! `.const`, `.local`, `.shared{::cta}` and `.param{::entry}` windows (the `.shared::cluster`
//! ones are `dsmem.rs`'s): every thread converts the address of its own word of a variable of
//! the space and accesses the word through the converted address.
//!
//! The `.u32` forms convert 32-bit addresses, which only a 32-bit module has (§11.1.3,
//! L33312-33347; ptxas 12.9 refuses them in a 64-bit module and refuses 32-bit modules:
//! corpus/findings/ptxas-12.9-32-bit-addresses.txt), so their scenarios are `.address_size 32`
//! modules; the `.u64` forms' are 64-bit.
//!
//! What the manual determines: `cvta.space` of a `space` address is the generic address of the
//! same location, `cvta.to.space` the reverse (L13551-13556), so a load through either names the
//! word stored there: the variable's initializer (`.global`, `.const`), the word the thread
//! stored from `in` (`.shared`, `.local`), the kernel parameter itself (`.param`: the word read
//! through the converted address must equal `ld.param`'s, L13558: `a` is a kernel parameter's
//! address). `cvta.to.global` takes the generic address the launch passed in `in` (CUDA's
//! buffers are generic addresses of global memory).

use super::{header, instr, BuildError, Check, Kernel, Rng, Rule, Scenario, THREADS};
use spec::catalog::{Exec, Form, PtxVersion};

/// Whether `form` is one of this module's: a `cvta` of any window but `.shared::cluster`.
pub(super) fn is_cvta(form: &Form) -> bool {
    form.exec() == Some(Exec::Cvta) && form.var("ss") != Some("shared::cluster")
}

/// The scenario's `.address_size`: the form's size (`.u32`: 32).
fn address_size(form: &Form) -> u32 {
    if form.var("t") == Some("u32") {
        32
    } else {
        64
    }
}

pub(super) fn scenarios(form: &Form, rng: &mut Rng) -> Result<Vec<Scenario>, BuildError> {
    let space = form.var("ss").unwrap_or("");
    let bits = address_size(form);
    let to = form.has("to");
    let t = if bits == 32 { "u32" } else { "u64" };
    // Address registers of the form's width: %r20.. or %rd20...
    let reg = |n: u32| {
        if bits == 32 {
            format!("%r{n}")
        } else {
            format!("%rd{n}")
        }
    };
    let (a, g, p) = (reg(20), reg(21), reg(22));
    let head = header(form, 50, PtxVersion(2, 0));
    let words: Vec<u8> = rng.bytes(4 * THREADS as usize);
    let word = |k: u32| words[4 * k as usize..4 * k as usize + 4].to_vec();
    let init = (0..THREADS)
        .map(|k| u32::from_le_bytes(word(k).try_into().expect("4 bytes")).to_string())
        .collect::<Vec<_>>()
        .join(", ");
    let mut k = Kernel::new();
    k.address_size = bits;
    // The thread's word of `in` in %r10, its byte offset in %r5 and, widened, in the form's
    // address width.
    let mut l = vec![
        "mul.lo.u32 %r5, %r0, 4;".to_string(),
        "add.s64 %rd5, %rd1, %rd3;".into(),
        "ld.global.u32 %r10, [%rd5];".into(),
        if bits == 32 {
            "mov.u32 %r6, %r5;".into()
        } else {
            "cvt.u64.u32 %rd6, %r5;".into()
        },
    ];
    let off = reg(6);
    let (decls, what, expected) = match space {
        "global" => (
            format!(".global .align 4 .b32 gv[{THREADS}] = {{{init}}};"),
            "the variable's initializer",
            Expected::Words,
        ),
        "const" => (
            format!(".const .align 4 .b32 cv[{THREADS}] = {{{init}}};"),
            "the variable's initializer",
            Expected::Words,
        ),
        "shared" | "shared::cta" => (
            format!(".shared .align 4 .b32 sv[{THREADS}];"),
            "the word the thread stored",
            Expected::Input,
        ),
        "local" => (String::new(), "the word the thread stored", Expected::Input),
        _ => (String::new(), "the kernel parameter `in` itself", Expected::Same),
    };
    // `a`: the word's address in the space (for `cvta.to.global`, the generic address of the
    // thread's word of `in`).
    match space {
        "global" if to => {
            l.push(format!("ld.param.{t} {a}, [in];"));
            l.push(format!("add.{t} {a}, {a}, {off};"));
        }
        "global" => l.extend([format!("mov.{t} {a}, gv;"), format!("add.{t} {a}, {a}, {off};")]),
        "const" => l.extend([format!("mov.{t} {a}, cv;"), format!("add.{t} {a}, {a}, {off};")]),
        "shared" | "shared::cta" => l.extend([
            format!("mov.{t} {a}, sv;"),
            format!("add.{t} {a}, {a}, {off};"),
            format!("st.shared.u32 [{a}], %r10;"),
        ]),
        "local" => l.extend([
            ".local .align 4 .b32 lv;".into(),
            "st.local.u32 [lv], %r10;".into(),
            format!("mov.{t} {a}, lv;"),
        ]),
        _ => l.push(format!("mov.{t} {a}, in;")),
    }
    // The access: through the generic address `cvta.space` gives, or through the space address
    // `cvta.to.space` gives (of a generic address `cvta.space` made, but for `.global`).
    let ld = |sp: &str, at: &str| {
        if matches!(expected, Expected::Same) {
            vec![
                format!("ld{sp}.{t} {}, [{at}];", reg(23)),
                format!("ld.param.{t} {}, [in];", reg(24)),
                format!("setp.eq.{t} %p3, {}, {};", reg(23), reg(24)),
                "selp.u32 %r9, 1, 0, %p3;".into(),
            ]
        } else {
            vec![format!("ld{sp}.u32 %r9, [{at}];")]
        }
    };
    if to {
        let base = space.split("::").next().unwrap_or(space);
        let g = if space == "global" {
            a.clone()
        } else {
            l.push(format!("cvta.{space}.{t} {g}, {a};"));
            g
        };
        l.push(instr(form, &[("p", p.clone()), ("a", g)])?);
        l.extend(ld(&format!(".{base}"), &p));
    } else {
        l.push(instr(form, &[("p", g.clone()), ("a", a.clone())])?);
        l.extend(ld("", &g));
    }
    let rec = k.slots();
    l.push(format!("st.global.u32 [%rd4+{rec}], %r9;"));
    k.by(0, THREADS, &l);
    let input = rng.bytes(4 * THREADS as usize);
    for th in 0..THREADS {
        let mine = input[4 * th as usize..4 * th as usize + 4].to_vec();
        let (bytes, from) = match expected {
            // `cvta.to.global` reads the thread's word of `in`.
            _ if space == "global" && to => (mine, "the thread's word of `in`".to_string()),
            Expected::Words => (word(th), what.to_string()),
            Expected::Input => (mine, what.to_string()),
            Expected::Same => (1u32.to_le_bytes().to_vec(), format!("{what} (1: equal)")),
        };
        k.checks.push(Check {
            offset: rec + 4 * th as usize,
            rule: Rule::Bytes(bytes),
            what: format!(
                "the word at the address `{}` converts: {from} (L13551-13556; thread {th})",
                form.name
            ),
        });
    }
    Ok(vec![k.finish(
        form,
        &if matches!(expected, Expected::Same) {
            format!("{} of the kernel parameter `in`'s address, read through", form.name)
        } else {
            format!(
                "{} of each thread's word of a `.{space}` variable, accessed through",
                form.name
            )
        },
        head,
        &decls,
        &input,
    )])
}

/// What the word accessed must be.
#[derive(Clone, Copy)]
enum Expected {
    /// The variable's initializer word (`words`).
    Words,
    /// The thread's word of `in`.
    Input,
    /// Equal to the parameter read with `ld.param`.
    Same,
}
