//! A crash's identity: what a backend's crash report ([`crate::backend::Failure::Crashed`]) says
//! once everything that varies between runs of the same defect is taken out.
//!
//! A backend dies in many ways — GPGPU-Sim alone aborts on a parse error, on a failed
//! assertion, on a double free — and a reduction that kept "some crash" slides from the defect it
//! started with to whichever crash is easiest to reach (issue 17). The signature is what the
//! reducer keeps and what a fuzz finding's signature starts with
//! ([`super::findings::class_of`]), so both mean the same thing by "the same crash":
//!
//! - the **kind**: the signal's name (`SIGABRT`, `SIGSEGV`) anywhere in the report, else
//!   `signal N` (a signal without a name), `exit N` (an exit without a reply), `internal` (the
//!   implementation's own `internal` error without a signal), else `crash`;
//! - the **location**: the first `FILE.EXT:LINE` of a source file (C, C++, Rust, CUDA, ...; never
//!   the kernel's `.ptx`, whose lines move as it shrinks) in the decisive line, the directory
//!   dropped: `instructions.cc:5303` of glibc's `prog: FILE:LINE: FUNCTION: Assertion `E' failed.`;
//! - the **message**: the decisive line of the report — the first that states an assertion or a
//!   panic, else the last (what the program said right before it died: `free(): double free
//!   detected in tcache 2`) — normalised: directories dropped from paths, addresses (`0x...`,
//!   long hex words) and free-standing numbers replaced, register names replaced, whitespace
//!   collapsed, at most [`MESSAGE_MAX`] characters. glibc's heap checks are one message,
//!   [`GLIBC_HEAP`]: glibc names one heap corruption after the allocator's state at the time
//!   (which cache the chunk sits in, which depends on the launch's thread count), so one
//!   double free in GPGPU-Sim is `free(): double free detected in tcache 2` with one thread and
//!   `double free or corruption (fasttop)` with seven; the report carries no stack to tell two
//!   corruptions apart.
//!
//! The report's lines are the ` | `-separated parts of the failure's text, as the `cmd:`
//! backend quotes a stderr tail (`; stderr ends: a | b`) and the GPGPU-Sim adapter its log.

use std::fmt;

/// Characters of the normalised message kept.
pub const MESSAGE_MAX: usize = 160;

/// A crash's identity (see the module doc).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CrashSignature {
    /// `SIGABRT`, `signal 42`, `exit 1`, `internal` or `crash`.
    pub kind: String,
    /// `instructions.cc:5303`: where an assertion or message says the crash happened.
    pub location: Option<String>,
    /// The decisive line, normalised.
    pub message: String,
}

/// Source files whose `FILE:LINE` names where a crash happened.
const SOURCE_EXTS: &[&str] = &[
    "c", "cc", "cpp", "cxx", "h", "hh", "hpp", "hxx", "inl", "def", "rs", "cu", "cuh", "go", "java", "py", "l", "y",
];

/// What glibc's heap checks (`malloc_printerr`) say, by their start; each is reported as
/// [`GLIBC_HEAP`].
const GLIBC_HEAP_TEXTS: &[&str] = &[
    "double free or corruption",
    "free(): double free detected",
    "free(): invalid",
    "free(): corrupted",
    "malloc(): ",
    "realloc(): invalid",
    "munmap_chunk(): invalid pointer",
    "corrupted size vs. prev_size",
    "corrupted double-linked list",
    "malloc_consolidate(): ",
];

/// The message of every glibc heap check (`GLIBC_HEAP_TEXTS`).
pub const GLIBC_HEAP: &str = "glibc heap check failed (double free or heap corruption)";

/// Lines that name no defect: a shell's or the C library's last word after the program died.
const NOISE: &[&str] = &["Aborted", "Aborted (core dumped)", "Segmentation fault", "Killed"];

impl CrashSignature {
    /// The signature of a crash report (a [`crate::backend::Failure::Crashed`]'s text).
    pub fn of(report: &str) -> CrashSignature {
        let report = strip_kept_note(report);
        let flat = report
            .replace("; stderr ends: ", " | ")
            .replace("; stderr is empty", "");
        let lines: Vec<&str> = flat.split(" | ").map(str::trim).filter(|l| !l.is_empty()).collect();
        let decisive = lines
            .iter()
            .find(|l| is_assertion(l))
            .or_else(|| lines.iter().rev().find(|l| !NOISE.contains(l)))
            .or(lines.last())
            .copied()
            .unwrap_or("");
        let at = location(decisive);
        // An assertion's message starts at its `FILE:LINE` (what precedes it is the program's
        // name and how the report was framed).
        let from = match &at {
            Some((start, _)) if is_assertion(decisive) => *start,
            _ => 0,
        };
        let message = if GLIBC_HEAP_TEXTS.iter().any(|t| decisive.starts_with(t)) {
            GLIBC_HEAP.to_string()
        } else {
            normalise(&decisive[from..])
        };
        CrashSignature {
            kind: kind(&flat),
            location: at.map(|(_, l)| l),
            message,
        }
    }
}

impl fmt::Display for CrashSignature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.kind)?;
        if let Some(l) = &self.location {
            write!(f, " at {l}")?;
        }
        if !self.message.is_empty() {
            write!(f, ": {}", self.message)?;
        }
        Ok(())
    }
}

/// The report without the `cmd:` backend's note naming a kept launch directory.
fn strip_kept_note(s: &str) -> &str {
    match s.rfind(" (launch kept in ") {
        Some(at) if s.ends_with(')') => &s[..at],
        _ => s,
    }
}

/// A line stating a failed assertion (C's `assert`, Rust's `assert!`) or a Rust panic — not
/// one that merely mentions assertions (GPGPU-Sim's adapter says "an abort or a failed
/// assertion" of every SIGABRT).
fn is_assertion(line: &str) -> bool {
    [
        "Assertion `",
        "Assertion '",
        "assertion failed",
        "assertion `",
        "panicked at",
    ]
    .iter()
    .any(|p| line.contains(p))
}

/// The crash's kind (see the module doc).
fn kind(report: &str) -> String {
    let words = || report.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'));
    if let Some(sig) =
        words().find(|w| w.len() > 3 && w.starts_with("SIG") && w[3..].chars().all(|c| c.is_ascii_uppercase()))
    {
        return sig.to_string();
    }
    let number_after = |phrase: &str| {
        let at = report.find(phrase)? + phrase.len();
        let n: String = report[at..].chars().take_while(char::is_ascii_digit).collect();
        (!n.is_empty()).then_some(n)
    };
    if let Some(n) = number_after("killed by signal ").or_else(|| number_after("died of signal ")) {
        return format!("signal {n}");
    }
    if let Some(n) = number_after("exited with status ") {
        return format!("exit {n}");
    }
    if report.starts_with("internal error") {
        return "internal".into();
    }
    "crash".into()
}

/// A word of a path or file name.
fn path_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-' | '+' | '~' | '/')
}

/// The first `FILE.EXT:LINE` of a source file in `line`: where it starts, and the name without
/// its directory.
fn location(line: &str) -> Option<(usize, String)> {
    let b = line.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if !path_char(b[i] as char) || (i > 0 && path_char(b[i - 1] as char)) {
            i += 1;
            continue;
        }
        let end = line[i..].find(|c: char| !path_char(c)).map_or(line.len(), |n| i + n);
        let word = line[i..end].trim_end_matches('.');
        let after = &line[i + word.len()..];
        let digits: String = after
            .strip_prefix(':')
            .map(|r| r.chars().take_while(char::is_ascii_digit).collect())
            .unwrap_or_default();
        let name = word.rsplit('/').next().unwrap_or(word);
        let ext = name.rsplit_once('.').map(|(_, e)| e);
        if !digits.is_empty() && ext.is_some_and(|e| SOURCE_EXTS.contains(&e)) {
            return Some((i, format!("{name}:{digits}")));
        }
        i = end.max(i + 1);
    }
    None
}

/// `line` with what varies between runs of the same defect replaced (see the module doc).
pub fn normalise(line: &str) -> String {
    let mut out = String::new();
    let chars: Vec<char> = line.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let prev_word = i > 0 && (chars[i - 1].is_ascii_alphanumeric() || chars[i - 1] == '_');
        // A word: up to the next character that is neither alphanumeric nor `_`.
        let word_end = |from: usize| {
            (from..chars.len())
                .find(|&k| !(chars[k].is_ascii_alphanumeric() || chars[k] == '_'))
                .unwrap_or(chars.len())
        };
        if c == '%' && chars.get(i + 1).is_some_and(|n| n.is_ascii_alphabetic() || *n == '_') {
            // A register: `%r12`, `%__t3`.
            out.push_str("%_");
            i = word_end(i + 1);
        } else if c == '/' || ((c == '.' || c == '~') && chars.get(i + 1) == Some(&'/')) {
            // A directory: dropped up to the last `/` of the path, the file name kept.
            let end = (i..chars.len()).find(|&k| !path_char(chars[k])).unwrap_or(chars.len());
            let last = (i..end).rev().find(|&k| chars[k] == '/').unwrap_or(i);
            // `a/b` (a word before the slash) is a path too: drop what was written of it.
            while out.chars().last().is_some_and(|p| path_char(p) && p != '/') {
                out.pop();
            }
            i = last + 1;
        } else if !prev_word && c == '0' && matches!(chars.get(i + 1), Some('x' | 'X')) {
            let end = word_end(i + 2);
            out.push_str("0x_");
            i = end;
        } else if !prev_word && c.is_ascii_alphanumeric() {
            let end = word_end(i);
            let word: String = chars[i..end].iter().collect();
            if word.chars().all(|d| d.is_ascii_digit()) {
                out.push('N');
            } else if word.len() >= 8
                && word.chars().all(|d| d.is_ascii_hexdigit())
                && word.chars().any(|d| d.is_ascii_digit())
            {
                // An address printed without `0x`.
                out.push('_');
            } else {
                out.push_str(&word);
            }
            i = end;
        } else if c.is_whitespace() {
            if !out.ends_with(' ') && !out.is_empty() {
                out.push(' ');
            }
            i += 1;
        } else {
            out.push(c);
            i += 1;
        }
    }
    let out = out.trim_end();
    if out.chars().count() > MESSAGE_MAX {
        out.chars().take(MESSAGE_MAX).collect::<String>() + "..."
    } else {
        out.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sig(s: &str) -> String {
        CrashSignature::of(s).to_string()
    }

    #[test]
    fn glibc_assertion_keeps_file_line_and_text() {
        let a = "internal error: GPGPU-Sim died of SIGABRT (an abort or a failed assertion) while running the kernel: gpgpu-sim-ptxconf: instructions.cc:5303: void set_impl(const ptx_instruction*, ptx_thread_info*): Assertion `pI->get_num_operands() < 4' failed.";
        assert_eq!(
            sig(a),
            "SIGABRT at instructions.cc:5303: instructions.cc:N: void set_impl(const ptx_instruction*, ptx_thread_info*): Assertion `pI->get_num_operands() < N' failed."
        );
        // Another line of the same file is another crash.
        assert_ne!(CrashSignature::of(a), CrashSignature::of(&a.replace("5303", "5275")));
    }

    #[test]
    fn addresses_numbers_paths_and_registers_are_normalised() {
        let one = "killed by signal 6 (SIGABRT); stderr ends: executing kernel at 0x55c2c3b675b0 | /tmp/ptxconf-cmd-1-2-3/kernel.ptx:39: bad operand %r12 in block 7 of 12 (launch kept in /tmp/ptxconf-cmd-1-2-3)";
        let two = "killed by signal 6 (SIGABRT); stderr ends: executing kernel at 0x7fb4329b40f8 | /home/u/x/kernel.ptx:3: bad operand %rd3 in block 1 of 4";
        assert_eq!(sig(one), "SIGABRT: kernel.ptx:N: bad operand %_ in block N of N");
        assert_eq!(CrashSignature::of(one), CrashSignature::of(two));
        assert_eq!(
            normalise(
                "/tmp/ptxconf-cmd-1-2-3/kernel.ptx:39: bad operand %r12 in block 7 of 12 at 0xdeadBEEF (55c2c3b675b0)"
            ),
            "kernel.ptx:N: bad operand %_ in block N of N at 0x_ (_)"
        );
        // Digits inside a word are part of its name: `.f16` and `.f32` stay apart.
        assert_eq!(normalise("type .f16 unsupported"), "type .f16 unsupported");
        assert_ne!(normalise("type .f16 unsupported"), normalise("type .f32 unsupported"));
        assert_eq!(normalise("./ptx_ir.h:1004: src/cuda-sim/x.cc:12"), "ptx_ir.h:N: x.cc:N");
        assert_eq!(normalise("a   b\t c  "), "a b c");
    }

    #[test]
    fn gpgpu_sim_double_free() {
        // The adapter's framing mentions "a failed assertion" of every SIGABRT: not an assertion.
        let d = "internal error: GPGPU-Sim died of SIGABRT (an abort or a failed assertion) while running the kernel: GPGPU-Sim PTX: ... end of reconvergence points for f | GPGPU-Sim PTX: ... done pre-decoding instructions for 'f'. | free(): double free detected in tcache 2";
        assert_eq!(sig(d), format!("SIGABRT: {GLIBC_HEAP}"));
        // The same double free with seven threads: glibc names it after another cache.
        let seven = d.replace(
            "free(): double free detected in tcache 2",
            "double free or corruption (fasttop)",
        );
        assert_eq!(CrashSignature::of(d), CrashSignature::of(&seven));
        let parse = "internal error: GPGPU-Sim died of SIGABRT (an abort or a failed assertion) while loading the module: GPGPU-Sim: ERROR ** parsing octal not (yet) implemented";
        assert_eq!(
            sig(parse),
            "SIGABRT: internal error: GPGPU-Sim died of SIGABRT (an abort or a failed assertion) while loading the module: GPGPU-Sim: ERROR ** parsing octal not (yet) implemented"
        );
        assert_ne!(CrashSignature::of(d), CrashSignature::of(parse));
    }

    #[test]
    fn the_assertion_line_wins_over_the_last_line() {
        let s = "killed by signal 6 (SIGABRT); stderr ends: sim: ./ptx_ir.h:1004: const operand_info& ptx_instruction::src2() const: Assertion `m_operands.size() > 2' failed. | Aborted (core dumped)";
        let c = CrashSignature::of(s);
        assert_eq!(c.kind, "SIGABRT");
        assert_eq!(c.location.as_deref(), Some("ptx_ir.h:1004"));
        assert!(c.message.contains("Assertion `m_operands.size() > N' failed."), "{c}");
        // Without an assertion, the last line that is not the shell's word.
        assert_eq!(
            sig("killed by signal 11 (SIGSEGV); stderr ends: boom B | Segmentation fault"),
            "SIGSEGV: boom B"
        );
    }

    #[test]
    fn kinds() {
        assert_eq!(
            CrashSignature::of("killed by signal 42; stderr is empty").kind,
            "signal 42"
        );
        assert_eq!(
            sig("exited with status 3 without a reply on stdout; stderr ends: no such file: /a/b/c.ptx"),
            "exit 3: no such file: c.ptx"
        );
        assert_eq!(CrashSignature::of("internal error: out of memory").kind, "internal");
        assert_eq!(CrashSignature::of("cannot start ./x: busy").kind, "crash");
        // Different messages, different crashes; a signal is part of the identity.
        assert_ne!(
            CrashSignature::of("killed by signal 6 (SIGABRT); stderr ends: A"),
            CrashSignature::of("killed by signal 6 (SIGABRT); stderr ends: B")
        );
        assert_ne!(
            CrashSignature::of("killed by signal 6 (SIGABRT); stderr ends: A"),
            CrashSignature::of("killed by signal 11 (SIGSEGV); stderr ends: A")
        );
        // A `.ptx` line is never the location (it moves as the kernel shrinks).
        assert_eq!(
            CrashSignature::of("internal error: ERROR (kernel.ptx:39) bad").location,
            None
        );
    }

    #[test]
    fn long_messages_are_cut() {
        let long = "x ".repeat(400);
        assert_eq!(normalise(&long).chars().count(), MESSAGE_MAX + 3);
    }
}
