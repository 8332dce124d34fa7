//! The oracle's errors: what went wrong, at which stage, and where in the PTX text.

use crate::ast::Loc;
use std::fmt;

/// The stage that failed, as the launch contract names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// The text is not PTX the parser reads.
    Parse,
    /// The module is not valid PTX (the type checker's errors).
    Type,
    /// The launch file does not fit the module (entry, grid, buffers, parameters).
    Launch,
    /// The program trapped or did what the manual leaves undefined (an access out of bounds,
    /// `trap`, a deadlock, collective misuse), broke an operand rule the manual states that the
    /// checker does not (`vmad` negating both `a*b` and `c`, L31056), or reached an instruction
    /// the oracle does not execute yet.
    Runtime,
    /// A limit of the launch was reached (steps, memory, stack).
    Limit,
    /// A defect of the oracle itself, not of the program: an invariant of the interpreter broke,
    /// or the spec could not evaluate a form the checker accepted. Its message says to report it.
    Internal,
}

impl ErrorKind {
    /// The kind's name in the launch contract (`"kind"` of an error reply).
    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::Parse => "parse",
            ErrorKind::Type => "type",
            ErrorKind::Launch => "launch",
            ErrorKind::Runtime => "runtime",
            ErrorKind::Limit => "limit",
            ErrorKind::Internal => "internal",
        }
    }
}

/// An error of the oracle: its stage, its message and, where it has one, its position (in the PTX
/// text; in the launch file when [`crate::launch::parse_launch`] refuses the file).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    /// The stage that failed.
    pub kind: ErrorKind,
    /// What went wrong.
    pub message: String,
    /// Line and column in the PTX text, where the error has one.
    pub loc: Option<(u32, u32)>,
}

impl Error {
    /// An error without a position.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Error {
        Error {
            kind,
            message: message.into(),
            loc: None,
        }
    }

    /// An error at `loc`.
    pub fn at(kind: ErrorKind, loc: Loc, message: impl Into<String>) -> Error {
        Error {
            kind,
            message: message.into(),
            loc: Some((loc.line, loc.col)),
        }
    }

    /// `file:line:col` (or just `file` when the error has no position).
    pub fn location(&self, file: &str) -> String {
        match self.loc {
            Some((l, c)) => format!("{file}:{l}:{c}"),
            None => file.to_string(),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.loc {
            Some((l, c)) => write!(f, "{l}:{c}: {} error: {}", self.kind.name(), self.message),
            None => write!(f, "{} error: {}", self.kind.name(), self.message),
        }
    }
}

impl std::error::Error for Error {}

impl From<crate::parse::ParseError> for Error {
    fn from(e: crate::parse::ParseError) -> Error {
        Error {
            kind: ErrorKind::Parse,
            message: e.message,
            loc: Some((e.line, e.col)),
        }
    }
}

/// A result whose error is the oracle's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;
