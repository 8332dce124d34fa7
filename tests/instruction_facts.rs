//! Instruction facts live in the catalog (`spec/catalog/*.forms`) and its accessors
//! (`spec::catalog`: `Catalog::effects`, `Catalog::rules`, `Form::exec`, operand flags, ...), not
//! in the code that uses them. This test reads the sources of the catalog's users — the oracle,
//! the ptxconf library and binary, the generators and the examples — and fails on a line that
//! decides something by an opcode's spelling: an opcode name compared (`== "mov"`, `!= "ld"`),
//! matched (`"shfl" =>`, `"ld" | "st"`) or written on a line about an `opcode`. Writing
//! instructions (`mk_instr("mov", ...)`, `self.line("ret")`) is not deciding, and is allowed.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Lines allowed to name an opcode in a comparison: (file, opcode, why).
const ALLOWED: &[(&str, &str, &str)] = &[
    (
        "oracle/src/check/mod.rs",
        "tex",
        "the `.tex` declaration directive (§5.3.1), not the `tex` instruction",
    ),
    (
        "src/main.rs",
        "mma",
        "the `bench mma` subcommand, not the `mma` instruction",
    ),
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            if p.file_name().is_some_and(|n| n != "target") {
                rust_files(&p, out);
            }
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The string literals of a line of code (comments cut off), each with the text before and after
/// it.
fn literals(code: &str) -> Vec<(&str, &str, &str)> {
    let mut out = Vec::new();
    let mut rest = 0;
    while let Some(a) = code[rest..].find('"') {
        let a = rest + a;
        let Some(b) = code[a + 1..].find('"') else {
            break;
        };
        let b = a + 1 + b;
        out.push((&code[..a], &code[a + 1..b], &code[b + 1..]));
        rest = b + 1;
    }
    out
}

/// Whether the literal between `before` and `after` on `code` is a decision on its value.
fn decides(code: &str, before: &str, after: &str) -> bool {
    let (b, a) = (before.trim_end(), after.trim_start());
    code.contains("opcode")
        || b.ends_with("==")
        || b.ends_with("!=")
        || b.ends_with('|')
        || a.starts_with("=>")
        || (a.starts_with('|') && !a.starts_with("||"))
}

/// The line's code without a trailing `//` comment (not inside a string: none of the scanned
/// lines put `//` in a literal before a comment).
fn code_of(line: &str) -> &str {
    match line.find("//") {
        Some(k) if line[..k].matches('"').count().is_multiple_of(2) => &line[..k],
        _ => line,
    }
}

#[test]
fn no_opcode_is_decided_on_outside_the_catalog() {
    let cat = spec::catalog::catalog();
    // (The rows of `@` and `{}`, §9.7.12.1-2, are syntax, not opcodes a program spells.)
    let opcodes: BTreeSet<&str> = cat
        .forms
        .iter()
        .map(|f| f.opcode)
        .filter(|o| o.starts_with(|c: char| c.is_ascii_alphabetic()))
        .collect();
    assert!(
        opcodes.len() > 100 && opcodes.contains("mov"),
        "{} opcodes",
        opcodes.len()
    );
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for d in ["oracle/src", "src", "generators/src", "examples"] {
        rust_files(&root.join(d), &mut files);
    }
    files.sort();
    assert!(
        files.len() > 40,
        "found only {} source files under {}",
        files.len(),
        root.display()
    );
    let mut found = Vec::new();
    for p in &files {
        let rel = p.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
        let text = std::fs::read_to_string(p).unwrap();
        for (n, line) in text.lines().enumerate() {
            let code = code_of(line);
            for (before, lit, after) in literals(code) {
                if opcodes.contains(lit)
                    && decides(code, before, after)
                    && !ALLOWED.iter().any(|(f, o, _)| *f == rel && *o == lit)
                {
                    found.push(format!("{rel}:{}: `{lit}`: {}", n + 1, line.trim()));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "instruction facts decided by opcode name outside the catalog (give the catalog a fact, \
         `@opcode`/`@exec`/a flag, and ask it):\n{}",
        found.join("\n")
    );
}

/// The scan itself finds what it is meant to find (a test that cannot fail is a defect).
#[test]
fn the_scan_recognises_decisions_on_opcode_names() {
    let hit = |line: &str| {
        literals(code_of(line))
            .iter()
            .any(|(b, l, a)| *l == "mov" && decides(code_of(line), b, a))
    };
    assert!(hit(r#"if i.opcode == "mov" {"#));
    assert!(hit(r#"matches!(op, "mov" | "cvt")"#));
    assert!(hit(r#"matches!(op, "cvt" | "mov")"#));
    assert!(hit(r#"    "mov" => 1,"#));
    assert!(hit(r#"x != "mov""#));
    assert!(!hit(r#"pro.push(mk_instr("mov", &["u32"], v));"#));
    assert!(!hit(r#"let s = "mov"; // i.opcode == "mov""#));
}
