//! The executable PTX ISA 8.7 specification.
//!
//! - [`catalog`]: every instruction form of §9.7 in one table, expanded from compact descriptions.
//! - [`types`]: PTX fundamental types (§5.2.1) as a kind and a width; [`float`]: every PTX
//!   floating-point format (f64 down to e2m1 and ue8m0), the rounding engine, IEEE operations
//!   and the `.ftz`/`.sat`/`.relu`/NaN rules that all float instructions share.
//! - One pure function per instruction over bit patterns, grouped by the manual's families:
//!   [`int`] (§9.7.1), [`extended`] (§9.7.2), [`compare`] (§9.7.6), [`logic`] (§9.7.8),
//!   [`fp`] (§9.7.3), [`half`] (§9.7.4, §9.7.5, §9.7.7), [`approx`] (the approximate ones of
//!   §9.7.3-9.7.4), [`data`] and [`cvt`] (§9.7.9), [`video`] (§9.7.18); the per-element
//!   arithmetic of `atom`/`red` ([`atom`]) and the warp-wide collectives (`shfl`, `vote`,
//!   `redux.sync`, `bar.red`: [`warp`]), which the oracle's interpreter calls.
//! - [`matrix`]: the tensor cores' data movement (§9.7.14): `mma`/`wmma` fragment layouts (which
//!   lane holds which matrix element in which register) and `ldmatrix`/`stmatrix`/`movmatrix`.
//! - [`tensor`]: the numerics of tensor-core multiply-accumulate (`mma`, `wmma.mma`,
//!   `wgmma.mma_async`) at matrix level: the block-FMA model per GPU generation, checked bit for
//!   bit against recorded hardware results, and the acceptance set the manual allows.
//! - [`eval`]: the dispatch from a form to its function ([`eval::eval`], [`eval::semantics`]),
//!   and the `ptxconf eval` text front end ([`eval::eval_line`]).
//! - [`value`]: operands in ([`value::Input`], [`value::Args`]), results out: each destination is
//!   a [`value::Outcome`], a model value and the acceptance set ([`value::Accept`]) of results
//!   the manual allows — exact, one of a few, any NaN, any value, within an ulp/abs/rel error
//!   bound ([`value::Bound`]), or lane by lane. [`vector`] is their text form in golden-vector
//!   files.
//!
//! # Examples
//!
//! Evaluating `add.s32` (§9.7.1.1, L5637): the form comes from the catalog by name, operands are
//! bit patterns in PTX order, and every destination comes back as an [`value::Outcome`].
//!
//! ```
//! use spec::catalog::catalog;
//! use spec::eval::eval;
//! use spec::value::{Args, Input};
//!
//! let cat = catalog();
//! let add = &cat.forms[cat.by_name("add.s32")[0]];
//! let ins = [Input::bits(0x7fff_ffff), Input::bits(1)];
//! let d = eval(add, &Args { ins: &ins, dsel: None }).unwrap();
//! assert_eq!(d.len(), 1); // one destination, `d`
//! // MAXINT + 1 wraps modulo 2^32 (L5680: only `.sat` clamps).
//! assert_eq!(d[0].model, i32::MAX.wrapping_add(1) as u32 as u128);
//! assert!(d[0].accepts(0x8000_0000) && !d[0].accepts(0x7fff_ffff));
//!
//! // The same through the text front end, with `.sat`: clamped to MAXINT.
//! assert_eq!(spec::eval::eval_line("add.sat.s32 0x7fffffff 0x1").unwrap(), "0x7fffffff");
//! ```
//!
//! Floating point: `add.rn.f32` is bit-exact (here checked against the host's IEEE addition),
//! but its NaN is "unspecified" (L7141), so a NaN result accepts every NaN; `sqrt.approx.f32`
//! accepts anything within its relative error 2^-23 (L8633) of the true square root.
//!
//! ```
//! use spec::catalog::catalog;
//! use spec::eval::eval;
//! use spec::value::{Accept, Args, Input, Outcome};
//!
//! let cat = catalog();
//! let run = |name: &str, ins: &[f32]| -> Outcome {
//!     let form = &cat.forms[cat.by_name(name)[0]];
//!     let ins: Vec<Input> = ins.iter().map(|x| Input::bits(x.to_bits() as u128)).collect();
//!     eval(form, &Args { ins: &ins, dsel: None }).unwrap().remove(0)
//! };
//!
//! let sum = run("add.rn.f32", &[0.1, 0.2]);
//! assert_eq!(sum.accept, Accept::Exact);
//! assert_eq!(sum.model, (0.1f32 + 0.2f32).to_bits() as u128);
//!
//! let nan = run("add.rn.f32", &[f32::INFINITY, f32::NEG_INFINITY]);
//! assert!(nan.accepts(f32::NAN.to_bits() as u128) && nan.accepts(0xffc0_0001));
//! assert!(!nan.accepts(0.0f32.to_bits() as u128));
//!
//! let root = run("sqrt.approx.f32", &[2.0]);
//! assert!(matches!(root.accept, Accept::Bound(_)));
//! let exact = 2f32.sqrt().to_bits() as u128; // correctly rounded
//! assert!(root.accepts(exact) && root.accepts(exact + 1) && root.accepts(exact - 1));
//! // Three ulps (3 × 2^-23 ≈ 3.6e-7) are more than 2^-23 × √2 ≈ 1.7e-7 away.
//! assert!(!root.accepts(exact + 3) && !root.accepts(1.5f32.to_bits() as u128));
//! ```
//!
//! The catalog: resolving an instruction as written to its form, and reading its operands.
//!
//! ```
//! use spec::catalog::{catalog, PtxVersion, Target};
//!
//! let cat = catalog();
//! let found = cat.lookup("setp.lt.and.s32").unwrap();
//! let form = &cat.forms[found.forms[0]];
//! assert_eq!(cat.section_of(form).id, "9.7.6.2");
//! assert_eq!(form.signature(), "setp.lt.and.s32 p:pred q?:pred = a:s32 b:s32 c:pred");
//! for o in form.outputs.iter().chain(&form.inputs) {
//!     println!("{}: .{}{}", o.name, o.ty, if o.flags.not { " (may be !c)" } else { "" });
//! }
//! assert!(form.inputs[2].flags.not);
//! assert!(form.available(PtxVersion(8, 7), Target::parse("sm_90").unwrap()));
//!
//! // A wrong modifier is named.
//! let e = cat.lookup("add.sat.u32").err().unwrap();
//! assert!(e.0.contains("`.u32` cannot follow `add.sat`"));
//! ```

#![deny(missing_docs)]

pub mod approx;
pub mod atom;
pub mod catalog;
pub mod compare;
pub mod cvt;
pub mod data;
pub mod eval;
pub mod extended;
pub mod float;
pub mod fp;
pub mod half;
pub mod int;
pub mod logic;
pub mod matrix;
pub mod sreg;
pub mod tensor;
pub mod tma;
pub mod types;
pub mod value;
pub mod vector;
pub mod video;
pub mod warp;
