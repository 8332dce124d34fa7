//! Operands and results of the semantics: bit patterns in, acceptance sets out.

use std::fmt;

/// A byte or half-word selector written on a video operand (`a.b2`, `b.h1`, `a.b3210`, `d.h10`).
/// `idx` lists the selected lanes in the order written (`.b3210` is `[3, 2, 1, 0]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Sel {
    /// `b'b'` for bytes, `b'h'` for half-words.
    pub kind: u8,
    pub idx: [u8; 4],
    pub n: u8,
}

impl Sel {
    /// Parses `b0`, `h1`, `h10`, `b3210`, `b7654` (without the dot).
    pub fn parse(s: &str) -> Option<Sel> {
        let (kind, digits) = s.split_at_checked(1)?;
        let kind = match kind {
            "b" => b'b',
            "h" => b'h',
            _ => return None,
        };
        if digits.is_empty() || digits.len() > 4 {
            return None;
        }
        let mut idx = [0u8; 4];
        for (i, c) in digits.bytes().enumerate() {
            if !c.is_ascii_digit() {
                return None;
            }
            idx[i] = c - b'0';
        }
        Some(Sel {
            kind,
            idx,
            n: digits.len() as u8,
        })
    }

    /// The selected lane indices, in the order written.
    pub fn lanes(&self) -> &[u8] {
        &self.idx[..self.n as usize]
    }
}

impl fmt::Display for Sel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.kind as char)?;
        for d in self.lanes() {
            write!(f, "{d}")?;
        }
        Ok(())
    }
}

/// A source operand: its bits plus what PTX lets one write around a register name.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Input {
    pub bits: u128,
    /// `!p` on a predicate, `-a` on a video `vmad` operand.
    pub negated: bool,
    pub sel: Option<Sel>,
}

impl Input {
    pub const fn bits(bits: u128) -> Input {
        Input {
            bits,
            negated: false,
            sel: None,
        }
    }
}

/// The source operands of one evaluation, plus the destination selector or mask (`d.b1`, `d.h10`).
#[derive(Clone, Copy, Debug)]
pub struct Args<'a> {
    pub ins: &'a [Input],
    pub dsel: Option<Sel>,
}

impl Args<'_> {
    /// Operand `i`'s bits (the front end has checked the count against the form).
    pub fn get(&self, i: usize) -> u128 {
        self.ins[i].bits
    }
    /// Operand `i`'s bits truncated to u64.
    pub fn u(&self, i: usize) -> u64 {
        self.ins[i].bits as u64
    }
    /// Predicate operand `i` with any `!` applied.
    pub fn pred(&self, i: usize) -> bool {
        (self.ins[i].bits & 1 != 0) ^ self.ins[i].negated
    }
}

/// The set of results an implementation may return, around the model value.
#[derive(Clone, Debug, PartialEq)]
pub enum Accept {
    /// Only the model value.
    Exact,
    /// Any value of the destination's width: the manual leaves the result unspecified.
    Any,
    /// The model value or any of these (`rem` of negative operands: truncating or flooring).
    OneOf(Vec<u128>),
}

/// One destination's result: the model value (what the spec prints and what NVIDIA hardware is
/// believed to return) and the set of acceptable bit patterns.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    pub model: u128,
    pub accept: Accept,
}

impl Outcome {
    pub const fn exact(model: u128) -> Outcome {
        Outcome {
            model,
            accept: Accept::Exact,
        }
    }

    /// Whether `bits` is acceptable (`bits` masked to the destination width by the caller).
    pub fn accepts(&self, bits: u128) -> bool {
        bits == self.model
            || match &self.accept {
                Accept::Exact => false,
                Accept::Any => true,
                Accept::OneOf(v) => v.contains(&bits),
            }
    }
}

/// An evaluation error (an operand the instruction cannot take, a form without semantics).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EvalError(pub String);

impl fmt::Display for EvalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for EvalError {}

/// Shorthand for an error result.
pub fn err<T>(msg: impl Into<String>) -> Result<T, EvalError> {
    Err(EvalError(msg.into()))
}

/// The result of a semantics function: one outcome per destination, in PTX order.
pub type Outcomes = Result<Vec<Outcome>, EvalError>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selectors_parse() {
        assert_eq!(Sel::parse("b3210").unwrap().lanes(), [3, 2, 1, 0]);
        assert_eq!(Sel::parse("h1").unwrap().to_string(), "h1");
        assert!(Sel::parse("x1").is_none() && Sel::parse("b").is_none() && Sel::parse("b12345").is_none());
    }

    #[test]
    fn acceptance() {
        assert!(Outcome::exact(5).accepts(5) && !Outcome::exact(5).accepts(6));
        assert!(Outcome {
            model: 1,
            accept: Accept::Any
        }
        .accepts(77));
        let o = Outcome {
            model: 1,
            accept: Accept::OneOf(vec![3]),
        };
        assert!(o.accepts(3) && o.accepts(1) && !o.accepts(2));
    }
}
