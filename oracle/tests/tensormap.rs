//! `tensormap.replace` (§9.7.9.26) and `tensormap.cp_fenceproxy` (§9.7.13.16) on small
//! kernels: Triton's device-side descriptor (a zeroed shared-memory template, fields replaced,
//! copied to global memory) decodes to the map its operands describe; a replace on global
//! memory edits the map in place; values outside Table 32 and malformed operands are refused.

use oracle::error::ErrorKind;
use oracle::launch::{self, Buffers, LaunchFile};
use spec::tma::*;

const HEADER: &str = ".version 8.3\n.target sm_90a\n.address_size 64\n";

/// One thread: `out` in %rd1, `A` (a 4 KiB tensor) in %rd2, the 128-byte shared `tm` in %r1.
fn kernel(body: &str) -> String {
    format!(
        "{HEADER}.shared .align 128 .b8 tm[128];\n\
         .visible .entry k(.param .u64 out, .param .u64 a)\n{{\n\
         .reg .pred %p<4>;\n.reg .b32 %r<32>;\n.reg .b64 %rd<16>;\n\
         ld.param.u64 %rd1, [out];\nld.param.u64 %rd2, [a];\nmov.u32 %r1, tm;\n{body}\n}}\n"
    )
}

fn run(body: &str) -> Result<Buffers, oracle::error::Error> {
    let l: LaunchFile = serde_json::from_value(serde_json::json!({
        "ptx": "k.ptx", "entry": "k", "grid": [1, 1, 1], "block": [1, 1, 1],
        "buffers": [{"name": "out", "size": 256}, {"name": "A", "size": 4096}],
        "params": [{"buffer": "out"}, {"buffer": "A"}],
        "limits": {"steps": 100_000},
    }))
    .unwrap();
    launch::run(&l, &kernel(body)).map(|(b, _)| b)
}

fn map_at(out: &Buffers, off: usize) -> TensorMap {
    decode(out[0].1[off..off + 128].try_into().unwrap()).unwrap()
}

/// Zeroes `tm` with 32 `st.shared.b32`.
fn zero_template() -> String {
    (0..32)
        .map(|k| format!("st.shared.b32 [%r1+{}], 0;\n", 4 * k))
        .collect()
}

#[test]
fn tritons_device_side_descriptor() {
    // corpus/ptx/triton/matmul_tma.sm90a.ptx L71-131, for a 64 × 128 f16 tensor (row pitch 128
    // bytes), box 32 × 64, 64-byte swizzle.
    let body = format!(
        "{}cvt.u64.u32 %rd7, %r1;\n\
         tensormap.replace.tile.global_address.shared::cta.b1024.b64 [%rd7+0], %rd2;\n\
         tensormap.replace.tile.rank.shared::cta.b1024.b32 [%rd7+0], 0x1;\n\
         mov.b32 %r13, 32;\nmov.b32 %r14, 64;\nmov.b32 %r15, 1;\nmov.b32 %r18, 128;\n\
         mov.u64 %rd9, 128;\n\
         tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [%rd7+0], 0x0, %r13;\n\
         tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [%rd7+0], 0x1, %r14;\n\
         tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [%rd7+0], 0x0, %r14;\n\
         tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [%rd7+0], 0x1, %r18;\n\
         tensormap.replace.tile.global_stride.shared::cta.b1024.b64 [%rd7+0], 0x0, %rd9;\n\
         tensormap.replace.tile.element_stride.shared::cta.b1024.b32 [%rd7+0], 0x0, %r15;\n\
         tensormap.replace.tile.element_stride.shared::cta.b1024.b32 [%rd7+0], 0x1, %r15;\n\
         tensormap.replace.tile.elemtype.shared::cta.b1024.b32 [%rd7+0], 0x6;\n\
         tensormap.replace.tile.swizzle_mode.shared::cta.b1024.b32 [%rd7+0], 0x2;\n\
         tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%rd1+128], [%rd7+0], 0x80;\n\
         fence.proxy.tensormap::generic.acquire.gpu [%rd1+128], 0x80;\n\
         st.global.u64 [%rd1], %rd2;\n",
        zero_template()
    );
    let out = run(&body).unwrap();
    let a = u64::from_le_bytes(out[0].1[..8].try_into().unwrap());
    let m = map_at(&out, 128);
    let want = TensorMap {
        element_strides: [1, 1, 0, 0, 0],
        swizzle: SwizzleMode::B64,
        ..TensorMap::plain(
            DataType::F16,
            2,
            a,
            [64, 128, 0, 0, 0],
            [128, 0, 0, 0],
            Mode::Tiled {
                box_dim: [32, 64, 0, 0, 0],
            },
        )
    };
    assert_eq!(m, want);
    assert_eq!(m.validate(), Ok(()));
}

#[test]
fn replace_in_global_memory_and_through_a_generic_address() {
    let body = "tensormap.replace.tile.fill_mode.global.b1024.b32 [%rd1], 1;\n\
                tensormap.replace.tile.interleave_layout.b1024.b32 [%rd1], 2;\n\
                mov.u32 %r2, 3;\n\
                tensormap.replace.tile.global_dim.global.b1024.b32 [%rd1], 4, %r2;\n";
    let out = run(body).unwrap();
    let m = map_at(&out, 0);
    assert_eq!(
        (m.oob_fill, m.interleave, m.global_dim[4]),
        (OobFill::Nan, Interleave::B32, 3)
    );
    // A generic address of shared memory.
    let body = format!(
        "{}cvta.shared.u64 %rd3, tm;\n\
         tensormap.replace.tile.swizzle_mode.b1024.b32 [%rd3], 3;\n\
         ld.shared.u8 %r2, [%r1+103];\nst.global.u8 [%rd1], %r2;\n",
        zero_template()
    );
    let out = run(&body).unwrap();
    assert_eq!(
        out[0].1[0], 3,
        "swizzle_mode's byte of the encoding (spec::tma::encoding)"
    );
}

#[test]
fn values_outside_the_manuals_tables_are_refused() {
    // An immediate outside Table 32: refused by the checker.
    let e = run("tensormap.replace.tile.fill_mode.global.b1024.b32 [%rd1], 2;").unwrap_err();
    assert_eq!(e.kind, ErrorKind::Type);
    assert!(e.message.contains("Table 32"), "{}", e.message);
    let e = run("mov.u32 %r2, 1;\ntensormap.replace.tile.box_dim.global.b1024.b32 [%rd1], 5, %r2;").unwrap_err();
    assert!(e.message.contains("L15410"), "{}", e.message);
    // A rank from a register: refused when it runs.
    let e = run("mov.u32 %r2, 5;\ntensormap.replace.tile.rank.global.b1024.b32 [%rd1], %r2;").unwrap_err();
    assert_eq!(e.kind, ErrorKind::Runtime);
    assert!(e.message.contains("L15412"), "{}", e.message);
    // A generic address outside .global and .shared::cta.
    let body = ".local .align 128 .b8 loc[128];\nmov.u64 %rd3, loc;\ncvta.local.u64 %rd3, %rd3;\n\
                tensormap.replace.tile.swizzle_mode.b1024.b32 [%rd3], 3;";
    let e = run(body).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Runtime);
    assert!(e.message.contains("L15624"), "{}", e.message);
    // cp_fenceproxy copies exactly 128 bytes (L19266: the catalog row's `size` range).
    let e = run(
        "cvt.u64.u32 %rd7, %r1;\ntensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%rd1], [%rd7], 64;",
    )
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::Type);
    assert!(
        e.message.contains("`size`") && e.message.contains("128..=128, not 64"),
        "{}",
        e.message
    );
}
