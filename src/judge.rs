//! Comparing two implementations' results for one launch: the oracle's (expected) against a
//! backend's (observed).
//!
//! A launch without a [`Check`] is compared byte for byte, buffer by buffer. A generated program
//! carries a check — its signature layout — and is compared slot by slot: exact slots bit for bit,
//! NaN-loose slots up to the NaN payload, judged slots by the spec's acceptance set for the inputs
//! the observed record holds (an approximate result is right or wrong for the inputs the backend
//! itself computed; those inputs are compared in their own slots).

use crate::backend::Buffers;
use oracle::launch::{Check, JudgeIn, Slot};
use spec::catalog::catalog;
use spec::float::Fmt;
use spec::types::FloatFormat;
use spec::value::{Args, EvalError, Input, Sel};
use std::fmt;

/// One difference between the expected and observed results.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// The buffer's name.
    pub buffer: String,
    /// Byte offset in the buffer.
    pub offset: usize,
    /// The thread whose record differs (checked launches).
    pub thread: Option<u64>,
    /// The slot's index in the check (checked launches).
    pub slot: Option<usize>,
    /// The expected value (with its acceptance set where more than one value is accepted).
    pub expected: String,
    /// The observed value (or the observed buffer's size, when the sizes differ).
    pub observed: String,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}+{:#x}", self.buffer, self.offset)?;
        if let (Some(t), Some(s)) = (self.thread, self.slot) {
            write!(f, " (thread {t}, slot {s})")?;
        }
        write!(f, ": expected {}, observed {}", self.expected, self.observed)
    }
}

/// Why [`compare`] could not compare two results: a buffer missing, or a malformed check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JudgeError {
    /// One of the results has no buffer of this name.
    NoBuffer {
        /// The buffer's name.
        name: String,
    },
    /// The check's record stride is 0.
    ZeroStride,
    /// A check slot does not lie within the record.
    SlotOutsideStride {
        /// The slot's index.
        slot: usize,
        /// Its size in bytes.
        bytes: u32,
        /// Its offset in the record.
        offset: u32,
        /// The record's size in bytes.
        stride: u32,
    },
    /// A NaN-loose slot names no float format.
    UnknownFormat {
        /// The name written.
        format: String,
    },
    /// A NaN-loose slot's lanes do not divide it.
    LanesDoNotDivide {
        /// The lane width in bits.
        lane_bits: u32,
        /// The slot's size in bytes.
        bytes: u32,
    },
    /// A judged slot names no form.
    UnknownForm {
        /// The form key written.
        form: String,
    },
    /// The spec could not evaluate a judged slot's form on the observed inputs.
    Eval {
        /// The form key.
        form: String,
        /// The spec's error.
        source: EvalError,
    },
    /// A judged slot names a destination its form does not have.
    NoDestination {
        /// The form key.
        form: String,
        /// The destination's index.
        output: u32,
    },
    /// A judged input names a slot the check does not have.
    NoSlot {
        /// The slot's index.
        slot: u32,
    },
    /// A judged input's slot lies outside the record.
    SlotOutsideRecord {
        /// The slot's index.
        slot: u32,
    },
    /// A judged input's immediate is not hex.
    BadImmediate {
        /// The immediate as written.
        imm: String,
    },
    /// A judged input names neither or both of `slot` and `imm`.
    InputSource,
    /// A judged input's selector is not one.
    BadSelector {
        /// The selector as written.
        sel: String,
    },
}

impl fmt::Display for JudgeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JudgeError::NoBuffer { name } => write!(f, "the results have no buffer `{name}`"),
            JudgeError::ZeroStride => f.write_str("the check's stride is 0"),
            JudgeError::SlotOutsideStride {
                slot,
                bytes,
                offset,
                stride,
            } => write!(
                f,
                "check slot {slot} ({bytes} bytes at {offset}) does not fit a {stride}-byte record"
            ),
            JudgeError::UnknownFormat { format } => write!(f, "check: `{format}` is not a float format"),
            JudgeError::LanesDoNotDivide { lane_bits, bytes } => {
                write!(f, "check: lanes of {lane_bits} bits do not divide a {bytes}-byte slot")
            }
            JudgeError::UnknownForm { form } => write!(f, "check: no form `{form}`"),
            JudgeError::Eval { form, source } => write!(f, "check: `{form}` on the observed inputs: {source}"),
            JudgeError::NoDestination { form, output } => write!(f, "check: `{form}` has no destination {output}"),
            JudgeError::NoSlot { slot } => write!(f, "check: no slot {slot}"),
            JudgeError::SlotOutsideRecord { slot } => write!(f, "check: slot {slot} lies outside the record"),
            JudgeError::BadImmediate { imm } => write!(f, "check: `{imm}` is not a hex immediate"),
            JudgeError::InputSource => f.write_str("check: a judged input names exactly one of `slot` and `imm`"),
            JudgeError::BadSelector { sel } => write!(f, "check: `{sel}` is not a selector"),
        }
    }
}

impl std::error::Error for JudgeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            JudgeError::Eval { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// Compares `observed` with `expected`; an error when the two cannot be compared at all (a
/// buffer missing or of another size, a malformed check).
pub fn compare(check: Option<&Check>, expected: &Buffers, observed: &Buffers) -> Result<Vec<Mismatch>, JudgeError> {
    match check {
        None => {
            let mut out = Vec::new();
            for (name, exp) in expected {
                out.extend(bytewise(name, exp, find(observed, name)?));
            }
            Ok(out)
        }
        Some(c) => {
            let exp = find(expected, &c.buffer)?;
            let obs = find(observed, &c.buffer)?;
            signature(c, exp, obs)
        }
    }
}

fn find<'a>(bufs: &'a Buffers, name: &str) -> Result<&'a [u8], JudgeError> {
    bufs.iter()
        .find(|(n, _)| n == name)
        .map(|(_, d)| d.as_slice())
        .ok_or_else(|| JudgeError::NoBuffer { name: name.to_string() })
}

/// Byte-for-byte comparison, reported per differing aligned 4-byte word.
fn bytewise(name: &str, exp: &[u8], obs: &[u8]) -> Vec<Mismatch> {
    if exp.len() != obs.len() {
        return vec![Mismatch {
            buffer: name.to_string(),
            offset: 0,
            thread: None,
            slot: None,
            expected: format!("{} bytes", exp.len()),
            observed: format!("{} bytes", obs.len()),
        }];
    }
    let mut out = Vec::new();
    for (k, (e, o)) in exp.chunks(4).zip(obs.chunks(4)).enumerate() {
        if e != o {
            out.push(Mismatch {
                buffer: name.to_string(),
                offset: k * 4,
                thread: None,
                slot: None,
                expected: hex(e),
                observed: hex(o),
            });
        }
    }
    out
}

/// Little-endian bytes as one hex number.
fn hex(b: &[u8]) -> String {
    let mut s = String::from("0x");
    for x in b.iter().rev() {
        s.push_str(&format!("{x:02x}"));
    }
    s
}

fn read(rec: &[u8], offset: u32, bytes: u32) -> Option<u128> {
    let b = rec.get(offset as usize..(offset + bytes) as usize)?;
    (bytes <= 16).then(|| b.iter().rev().fold(0u128, |v, &x| v << 8 | x as u128))
}

fn format_named(name: &str) -> Option<FloatFormat> {
    FloatFormat::NAMES.iter().find(|(n, _)| *n == name).map(|(_, f)| *f)
}

fn signature(c: &Check, exp: &[u8], obs: &[u8]) -> Result<Vec<Mismatch>, JudgeError> {
    if exp.len() != obs.len() {
        return Ok(bytewise(&c.buffer, exp, obs));
    }
    if c.stride == 0 {
        return Err(JudgeError::ZeroStride);
    }
    for (k, s) in c.slots.iter().enumerate() {
        let (off, bytes) = s.span();
        if bytes == 0 || bytes > 16 || off + bytes > c.stride {
            return Err(JudgeError::SlotOutsideStride {
                slot: k,
                bytes,
                offset: off,
                stride: c.stride,
            });
        }
    }
    let mut out = Vec::new();
    let stride = c.stride as usize;
    for (t, (e, o)) in exp.chunks_exact(stride).zip(obs.chunks_exact(stride)).enumerate() {
        for (k, s) in c.slots.iter().enumerate() {
            let (off, bytes) = s.span();
            let (ev, ov) = (
                read(e, off, bytes).expect("checked"),
                read(o, off, bytes).expect("checked"),
            );
            let verdict = judge(c, s, ev, ov, e, o)?;
            if let Some(expected) = verdict {
                out.push(Mismatch {
                    buffer: c.buffer.clone(),
                    offset: t * stride + off as usize,
                    thread: Some(t as u64),
                    slot: Some(k),
                    expected,
                    observed: format!("{ov:#0w$x}", w = 2 + 2 * bytes as usize),
                });
            }
        }
    }
    Ok(out)
}

/// `None` when `ov` is acceptable for the slot; otherwise what was expected, as shown to users.
fn judge(
    c: &Check,
    s: &Slot,
    ev: u128,
    ov: u128,
    expected_record: &[u8],
    observed_record: &[u8],
) -> Result<Option<String>, JudgeError> {
    let show = |bytes: u32, v: u128| format!("{v:#0w$x}", w = 2 + 2 * bytes as usize);
    Ok(match s {
        Slot::Exact { bytes, .. } => (ev != ov).then(|| show(*bytes, ev)),
        Slot::Nan {
            bytes,
            format,
            lane_bits,
            ..
        } => {
            let f = format_named(format).ok_or_else(|| JudgeError::UnknownFormat { format: format.clone() })?;
            let fmt = Fmt::of(f);
            let lb = *lane_bits;
            if lb == 0 || lb > bytes * 8 || (bytes * 8) % lb != 0 {
                return Err(JudgeError::LanesDoNotDivide {
                    lane_bits: lb,
                    bytes: *bytes,
                });
            }
            let mask = if lb >= 128 { u128::MAX } else { (1u128 << lb) - 1 };
            let lanes = 0..bytes * 8 / lb;
            let lane = |v: u128, i: u32| (v >> (i * lb)) & mask;
            let ok = lanes.clone().all(|i| {
                let (el, ol) = (lane(ev, i), lane(ov, i));
                el == ol || (fmt.is_nan(el) && fmt.is_nan(ol))
            });
            let nan = lanes.clone().any(|i| fmt.is_nan(lane(ev, i)));
            (!ok).then(|| match nan {
                true => format!("{} (any NaN where a {format} lane is NaN)", show(*bytes, ev)),
                false => show(*bytes, ev),
            })
        }
        Slot::Judge {
            bytes,
            form,
            output,
            ins,
            ..
        } => {
            // The oracle's own value for the same inputs is in the set — and a record the
            // program never wrote (a reduced program) is zero in both results.
            let same_inputs = ins.iter().filter_map(|i| i.slot).all(|k| {
                c.slots.get(k as usize).is_some_and(|s| {
                    let (off, bytes) = s.span();
                    read(expected_record, off, bytes) == read(observed_record, off, bytes)
                })
            });
            if ev == ov && same_inputs {
                return Ok(None);
            }
            let idx = spec::vector::form_by_key(form).ok_or_else(|| JudgeError::UnknownForm { form: form.clone() })?;
            let form_ref = &catalog().forms[idx];
            let inputs = ins
                .iter()
                .map(|i| judge_input(c, i, observed_record))
                .collect::<Result<Vec<Input>, JudgeError>>()?;
            let outs = spec::eval::eval(
                form_ref,
                &Args {
                    ins: &inputs,
                    dsel: None,
                },
            )
            .map_err(|source| JudgeError::Eval {
                form: form.clone(),
                source,
            })?;
            let o = outs.get(*output as usize).ok_or_else(|| JudgeError::NoDestination {
                form: form.clone(),
                output: *output,
            })?;
            let ty = form_ref.outputs[*output as usize].ty;
            (!o.accepts(ov)).then(|| {
                format!(
                    "{} ({}, from the observed inputs)",
                    show(*bytes, o.model),
                    spec::vector::tag(o, ty)
                )
            })
        }
    })
}

fn judge_input(c: &Check, i: &JudgeIn, rec: &[u8]) -> Result<Input, JudgeError> {
    let bits = match (i.slot, &i.imm) {
        (Some(k), None) => {
            let s = c.slots.get(k as usize).ok_or(JudgeError::NoSlot { slot: k })?;
            let (off, bytes) = s.span();
            read(rec, off, bytes).ok_or(JudgeError::SlotOutsideRecord { slot: k })?
        }
        (None, Some(h)) => {
            let t = h.strip_prefix("0x").unwrap_or(h);
            u128::from_str_radix(t, 16).map_err(|_| JudgeError::BadImmediate { imm: h.clone() })?
        }
        _ => return Err(JudgeError::InputSource),
    };
    let sel = match &i.sel {
        None => None,
        Some(s) => Some(Sel::parse(s).ok_or_else(|| JudgeError::BadSelector { sel: s.clone() })?),
    };
    Ok(Input {
        bits,
        negated: i.neg,
        sel,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bufs(words: &[u32]) -> Buffers {
        vec![("sig".into(), words.iter().flat_map(|w| w.to_le_bytes()).collect())]
    }

    fn check(slots: Vec<Slot>) -> Check {
        Check {
            buffer: "sig".into(),
            stride: 4 * slots.len() as u32,
            slots,
        }
    }

    #[test]
    fn nan_slots_accept_any_nan_only_where_expected_is_nan() {
        let c = check(vec![Slot::Nan {
            offset: 0,
            bytes: 4,
            format: "f32".into(),
            lane_bits: 32,
        }]);
        let (canonical, other_nan, one) = (0x7fff_ffff, 0xffc0_0001, 0x3f80_0000);
        assert!(compare(Some(&c), &bufs(&[canonical]), &bufs(&[other_nan]))
            .unwrap()
            .is_empty());
        assert_eq!(compare(Some(&c), &bufs(&[canonical]), &bufs(&[one])).unwrap().len(), 1);
        assert_eq!(compare(Some(&c), &bufs(&[one]), &bufs(&[other_nan])).unwrap().len(), 1);
        // Without the check the same results are compared byte for byte.
        assert_eq!(
            compare(None, &bufs(&[canonical]), &bufs(&[other_nan])).unwrap().len(),
            1
        );
    }

    #[test]
    fn judged_slots_use_the_spec_on_the_observed_inputs() {
        // Slot 0: the input 2.0f; slot 1: sqrt.approx.f32 of it (relative error 2^-23, L8633).
        let c = check(vec![
            Slot::Exact { offset: 0, bytes: 4 },
            Slot::Judge {
                offset: 4,
                bytes: 4,
                form: "sqrt.approx.f32".into(),
                output: 0,
                ins: vec![JudgeIn {
                    slot: Some(0),
                    imm: None,
                    neg: false,
                    sel: None,
                }],
            },
        ]);
        let two = 0x4000_0000;
        let sqrt2 = 0x3fb5_04f3; // √2 rounded to nearest
        let expected = bufs(&[two, sqrt2]);
        assert!(compare(Some(&c), &expected, &bufs(&[two, sqrt2 + 1]))
            .unwrap()
            .is_empty());
        assert!(compare(Some(&c), &expected, &bufs(&[two, sqrt2 - 1]))
            .unwrap()
            .is_empty());
        let far = compare(Some(&c), &expected, &bufs(&[two, sqrt2 + 8])).unwrap();
        assert_eq!(far.len(), 1);
        assert!(far[0].expected.contains("rel:2^-23"), "{}", far[0]);
        // Another input is judged on its own terms (and fails its exact slot).
        let four = 0x4080_0000;
        let m = compare(Some(&c), &expected, &bufs(&[four, 0x4000_0000])).unwrap();
        assert_eq!(m.len(), 1);
        assert_eq!(m[0].slot, Some(0));
    }

    #[test]
    fn malformed_checks_are_errors() {
        let c = check(vec![Slot::Exact { offset: 2, bytes: 4 }]);
        let e = compare(Some(&c), &bufs(&[0]), &bufs(&[0])).unwrap_err();
        assert_eq!(
            e,
            JudgeError::SlotOutsideStride {
                slot: 0,
                bytes: 4,
                offset: 2,
                stride: 4
            }
        );
        assert_eq!(
            e.to_string(),
            "check slot 0 (4 bytes at 2) does not fit a 4-byte record"
        );
        let c = check(vec![Slot::Exact { offset: 0, bytes: 4 }]);
        let e = compare(Some(&c), &bufs(&[0]), &vec![]).unwrap_err();
        assert_eq!(e.to_string(), "the results have no buffer `sig`");
    }
}
