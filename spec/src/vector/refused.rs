//! Golden vectors of the forms the manual forbids: the grammar spells them, the text rules them
//! out ([`crate::matrix::wide::forbidden`]: `ldmatrix .m16n16` without `.trans` or with `.x4`,
//! `stmatrix .m16n8` without `.trans`). Their defined behaviour is that a module holding one is
//! not valid PTX, so their one vector says so:
//!
//! ```text
//! # form: ldmatrix.sync.aligned.m16n16.x1.shared.b8~o1
//! # columns: refused (.trans is mandatory for 16x16 matrices (L23499))
//! refused
//! ```
//!
//! The line is the single word `refused`: no operands, no results. The conformance kernel is an
//! ordinary use of the form (`src/kernel/refused.rs`); an implementation passes the vector when
//! it refuses that kernel at load time (a parse or type error, a JIT/ptxas error), and fails it
//! when the kernel runs, whatever it computes — or when it fails otherwise (at launch, at run
//! time: the form was accepted). `spec/INTERPRETATIONS.md` says why these forms count as having
//! semantics.

use super::{LineError, Vector};
use crate::catalog::Form;
use crate::matrix::wide::{forbidden, Forbidden};

/// The word of a refused form's only line.
pub const WORD: &str = "refused";

/// The columns of a refused form's lines: the rule it breaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Columns {
    /// The manual's rule.
    pub rule: Forbidden,
}

/// The columns of `form` when the manual forbids it; `None` for every other form.
pub fn columns(form: &Form) -> Option<Columns> {
    forbidden(form).map(|rule| Columns { rule })
}

impl Columns {
    /// The `# columns:` header value: `refused (RULE)`.
    pub fn header(&self) -> String {
        format!("{WORD} ({})", self.rule.message)
    }

    /// The form's one vector: no operands, no results.
    pub fn vector(&self) -> Vector {
        Vector {
            dsel: None,
            ins: Vec::new(),
            outs: Vec::new(),
        }
    }
}

/// Formats a refused form's line (every vector of such a form reads the same).
pub fn format_line(_: &Columns, _: &Vector) -> String {
    WORD.to_string()
}

/// Parses a refused form's line: exactly `refused`.
pub fn parse_line(c: &Columns, line: &str) -> Result<Vector, LineError> {
    match line.trim() {
        WORD => Ok(c.vector()),
        other => Err(LineError::NotRefused {
            found: other.to_string(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{catalog, Exec};

    fn form(key: &str) -> &'static Form {
        &catalog().forms[crate::vector::form_by_key(key).expect(key)]
    }

    /// The 27 forbidden forms have refused columns, every other data-movement form has none;
    /// the line round-trips and nothing else parses.
    #[test]
    fn forbidden_forms_have_refused_lines() {
        let cat = catalog();
        let n = cat
            .forms
            .iter()
            .filter(|f| matches!(f.exec(), Some(Exec::Ldmatrix | Exec::Stmatrix)))
            .filter(|f| columns(f).is_some())
            .count();
        assert_eq!(n, 27);
        let f = form("ldmatrix.sync.aligned.m16n16.x1.shared.b8~o1");
        let c = columns(f).unwrap();
        assert_eq!(c.rule.line, 23499);
        let v = c.vector();
        assert_eq!(crate::vector::format_line(f, &v), "refused");
        assert_eq!(crate::vector::parse_line(f, "refused").unwrap(), v);
        assert!(crate::vector::parse_line(f, "00 exact").is_err());
        assert!(columns(form("ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8~o1")).is_none());
        assert_eq!(
            columns(form("stmatrix.sync.aligned.m16n8.x2.b8~i1")).unwrap().rule.line,
            23659
        );
        assert_eq!(
            columns(form("ldmatrix.sync.aligned.m16n16.x4.trans.b8~o1"))
                .unwrap()
                .rule
                .line,
            23425
        );
    }
}
