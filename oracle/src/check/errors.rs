//! What can go wrong while checking, as values. Every checker function fails with a
//! [`CheckError`]: a location and a [`What`]. Decisions that depend on the kind of failure (an
//! instruction that is valid but not executed decodes to `Op::Unsupported`; among the forms of a
//! name, "not executed" says least) match on the variant, never on the message text. At the
//! module boundary a [`CheckError`] becomes the oracle's [`Error`] of kind `type`, with the
//! variant rendered to its message.

use crate::ast::Loc;
use crate::error::{Error, ErrorKind};
use spec::sreg::Unmodeled;
use spec::types::Type;
use std::fmt;

/// A checking failure and where in the PTX text it is.
#[derive(Clone, Debug)]
pub struct CheckError {
    /// The line and column the error names.
    pub loc: Loc,
    /// What went wrong there.
    pub what: What,
}

/// The checker's result.
pub type Result<T> = std::result::Result<T, CheckError>;

/// What went wrong.
#[derive(Clone, Debug)]
pub enum What {
    /// The module is not valid PTX (or not what ptxas 12.9 takes); the message says why.
    Invalid(String),
    /// The register `name` has a type the instruction does not take (§9.4).
    Mismatch {
        /// The register as written.
        name: String,
        /// Its type against the instruction's.
        why: Mismatch,
    },
    /// Valid PTX the oracle does not execute yet.
    NotExecuted(NotExecuted),
}

/// A register type the instruction's type does not take (§9.4: Table 23, and Tables 24/25 where
/// `relaxed`).
#[derive(Clone, Copy, Debug)]
pub struct Mismatch {
    /// The type the instruction expects.
    pub instr: Type,
    /// The register's declared type.
    pub reg: Type,
    /// Whether Tables 24/25 (registers wider than the type) applied.
    pub relaxed: bool,
}

/// Valid PTX the oracle does not execute yet.
#[derive(Clone, Debug)]
pub enum NotExecuted {
    /// A form the oracle has no semantics for (the form's name).
    Form(String),
    /// A special register the oracle does not model.
    Sreg {
        /// The register as written.
        name: String,
        /// What it belongs to.
        of: Unmodeled,
    },
}

impl CheckError {
    /// An invalid-PTX error at `loc`.
    pub fn invalid(loc: Loc, msg: impl Into<String>) -> CheckError {
        CheckError {
            loc,
            what: What::Invalid(msg.into()),
        }
    }

    /// Whether the failure is valid PTX the oracle does not execute yet.
    pub fn not_executed(&self) -> bool {
        matches!(self.what, What::NotExecuted(_))
    }
}

/// An invalid-PTX error result at `loc`.
pub fn terr<T>(loc: Loc, msg: impl Into<String>) -> Result<T> {
    Err(CheckError::invalid(loc, msg))
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "a `.{}` register cannot be used where the instruction expects `.{}`{}",
            self.reg,
            self.instr,
            if self.relaxed { "" } else { " (§9.4: types must agree)" }
        )
    }
}

impl fmt::Display for NotExecuted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NotExecuted::Form(name) => write!(f, "`{name}` is valid PTX, but the oracle does not execute it yet"),
            NotExecuted::Sreg { name, of } => write!(
                f,
                "special register `{name}` of {of} is valid PTX, but the oracle does not execute it yet"
            ),
        }
    }
}

impl fmt::Display for What {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            What::Invalid(m) => f.write_str(m),
            What::Mismatch { name, why } => write!(f, "`{name}`: {why}"),
            What::NotExecuted(n) => n.fmt(f),
        }
    }
}

impl From<CheckError> for Error {
    fn from(e: CheckError) -> Error {
        Error::at(ErrorKind::Type, e.loc, e.what.to_string())
    }
}
