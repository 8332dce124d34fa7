//! The Tensor Memory Accelerator's value-level model (§5.5 "Tensor", L2060-3052; §9.7.9.25.5
//! tensor copies, L14797-15380; §9.7.9.26 `tensormap.replace`, L15381-15640).
//!
//! - [`map`]: the tensor map's fields — those of the CUDA driver's `cuTensorMapEncodeTiled` /
//!   `cuTensorMapEncodeIm2col` — and [`TensorMap::validate`], every rule the driver documents
//!   (<https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__TENSOR__MEMORY.html>), each a
//!   [`MapError`] variant.
//! - [`encoding`]: our 128-byte encoding of a map ([`encode`], [`decode`]; the manual calls the
//!   object opaque, L3050, so the layout is this project's choice) and `tensormap.replace`
//!   ([`replace`]) on those bytes.
//! - [`swizzle`]: the shared-memory swizzle patterns (§5.5.7), the 16-byte-atomicity ones being
//!   the `wgmma` descriptors' `Swizzle<B,4,3>` ([`crate::matrix::wgmma::Swizzle`]).
//! - [`plan`](mod@plan): the exact element transfers of one tensor copy — per element of the
//!   box, its global address or "out of bounds", and its swizzled shared-memory address — for
//!   tile and im2col modes, loads and stores/reductions, with the complete-tx byte count;
//!   the sm_100 modes' element orders are [`gather`] (`.tile::gather4`/`.tile::scatter4`) and
//!   [`wide`] (`.im2col::w`/`.im2col::w::128`).
//!
//! # Example
//!
//! A 2-D f32 tensor of 8 × 8 elements (rows of 32 bytes), box 4 × 2 at coordinates (6, 7):
//! columns 8 and 9 and row 8 are outside the tensor.
//!
//! ```
//! use spec::tma::{plan, Direction, Request, TensorMap, Mode, DataType, Interleave,
//!                 SwizzleMode, Atomicity, L2Promotion, OobFill};
//! let map = TensorMap {
//!     data_type: DataType::F32, rank: 2, global_address: 0x1000,
//!     global_dim: [8, 8, 1, 1, 1], global_strides: [32, 0, 0, 0],
//!     element_strides: [1; 5], interleave: Interleave::None, swizzle: SwizzleMode::None,
//!     atomicity: Atomicity::B16, l2_promotion: L2Promotion::None, oob_fill: OobFill::Zero,
//!     mode: Mode::Tiled { box_dim: [4, 2, 1, 1, 1] },
//! };
//! let p = plan(&map, Direction::Load, &Request::Tile { coords: &[6, 7] }, 0).unwrap();
//! let g: Vec<_> = p.elements.iter().map(|e| e.global).collect();
//! // Row 7: columns 6, 7 in bounds (0x1000 + 7·32 + 6·4 = 0x10f8), 8, 9 not; row 8 not at all.
//! assert_eq!(g[..4], [Some(0x10f8), Some(0x10fc), None, None]);
//! assert!(g[4..].iter().all(|x| x.is_none()));
//! assert_eq!(p.tx_bytes, 32); // the whole box counts toward complete-tx
//! ```

pub mod encoding;
pub mod gather;
pub mod map;
pub mod plan;
pub mod swizzle;
pub mod wide;

pub use encoding::{decode, encode, replace, EncodingError, Field, ReplaceError};
pub use map::{Atomicity, DataType, Interleave, L2Promotion, MapError, Mode, OobFill, SwizzleMode, TensorMap};
pub use plan::{fill_bits, plan, Direction, Element, Plan, PlanError, Request};
