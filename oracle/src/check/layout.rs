//! Where data lives: the sizes and alignments of declarations, the state space a memory form
//! accesses, and how wide values and generic accesses to named variables are laid out.

use crate::ast::{Init, VarDecl};
use crate::mem;
use crate::program::{Addr, Space};
use spec::catalog::Form;
use spec::types::{Kind, Type};

/// Size in bytes of a declared type (`.b8` … `.b128`, `.f16x2`, ...); 0 for opaque types.
pub(super) fn type_bytes(ty: &str) -> u64 {
    match Type::parse(ty) {
        Some(t) if t.kind == Kind::Pred => 1,
        Some(t) => (t.bits() as u64).div_ceil(8),
        None => 0,
    }
}

/// The element count of a vector declaration (`.v2`, `.v4`, `.v8`; 1 for a scalar).
pub(super) fn vec_len(d: &VarDecl) -> u64 {
    d.attrs
        .iter()
        .find_map(|(w, _)| match w.as_str() {
            "v2" => Some(2),
            "v4" => Some(4),
            "v8" => Some(8),
            _ => None,
        })
        .unwrap_or(1)
}

/// The alignment of a declaration: its `.align`, else its element size × vector length.
pub(super) fn align_of(d: &VarDecl) -> u64 {
    // In `.param .u64 .ptr .global .align 1 p` the `.align` after `.ptr` is the pointee's
    // (§5.1.6.3, the `.ptr` attribute), not the parameter's: Triton writes `.align 1` there.
    d.attrs
        .iter()
        .take_while(|(w, _)| w != "ptr")
        .find_map(|(w, a)| (w == "align").then_some(a.unwrap_or(1)))
        .unwrap_or_else(|| (type_bytes(&d.ty) * vec_len(d)).max(1))
}

/// Bytes of a declaration: element size × vector length × dimensions (an unsized `[]` takes its
/// size from the initializer, or is 0).
pub(super) fn decl_bytes(d: &VarDecl) -> u64 {
    let elem = type_bytes(&d.ty) * vec_len(d);
    let mut n = 1u64;
    for (i, dim) in d.dims.iter().enumerate() {
        let k = match dim {
            Some(k) => *k,
            None if i == 0 => d.init.as_ref().map_or(0, |init| match init {
                Init::List(v) => v.len() as u64,
                Init::Expr(_) => 1,
            }),
            None => 0,
        };
        n = n.saturating_mul(k);
    }
    elem.saturating_mul(n)
}

/// The bit-size type of a `size`-byte value passed in a register.
pub(super) fn bits_type(size: u32) -> Option<Type> {
    Type::parse(match size {
        1 => "b8",
        2 => "b16",
        4 => "b32",
        8 => "b64",
        _ => return None,
    })
}

/// A generic access naming a `.global`, `.const` or `.shared` variable (L3137) uses its generic
/// address.
pub(super) fn generic_var_addr(w: &mem::Windows, space: Space, sym: Option<Space>, addr: Addr) -> Addr {
    match (space, sym, addr) {
        (Space::Generic, Some(v), Addr::Abs(x)) => Addr::Abs(w.to_generic(v, x)),
        _ => addr,
    }
}

/// A `.b128` access moves the register's two 64-bit halves, low first (little-endian memory);
/// narrower types pass through.
pub(super) fn wide_as_halves<T: Copy>(v: Vec<T>, ty: Type, halves: impl Fn(T) -> [T; 2]) -> (Vec<T>, Type) {
    if ty.bits() != 128 {
        return (v, ty);
    }
    (v.into_iter().flat_map(halves).collect(), Type::parse("b64").unwrap())
}

/// The state space a memory form accesses.
pub(super) fn space_of(form: &Form) -> Space {
    // `<ss:...>`, or a space the pattern writes as a word (`ld.global.nc`).
    let word = form.mods.iter().copied().find(|m| space_named(m) != Space::Generic);
    space_named(form.var("ss").or(word).unwrap_or(""))
}

/// `shared::cta` → `.shared`; anything else not a space → generic.
pub(super) fn space_named(s: &str) -> Space {
    match s {
        "global" => Space::Global,
        "shared" | "shared::cta" => Space::Shared,
        "shared::cluster" => Space::SharedCluster,
        "local" => Space::Local,
        "const" => Space::Const,
        "param" | "param::entry" | "param::func" => Space::Param,
        _ => Space::Generic,
    }
}

/// The type a memory form moves: its `t`, else its first output's or last input's.
pub(super) fn mem_ty(form: &Form) -> Type {
    form.ty("t")
        .unwrap_or_else(|| form.outputs.first().or(form.inputs.last()).map(|o| o.ty).unwrap())
}

/// The elements a memory form moves (`.v2`, `.v4`, `.v8`; 1 without `vec`).
pub(super) fn vector_count(form: &Form) -> usize {
    match form.var("vec") {
        Some("v2") => 2,
        Some("v4") => 4,
        Some("v8") => 8,
        _ => 1,
    }
}
