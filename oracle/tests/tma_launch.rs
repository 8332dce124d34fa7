//! The launch file's tensor-map parameter (`oracle::launch::tensor_map`): the kernel receives
//! `spec::tma`'s 128-byte encoding of the map the driver call's arguments describe; maps the
//! driver would refuse, and parameters that cannot hold a map, are launch errors.

use oracle::error::ErrorKind;
use oracle::launch::{self, Buffers};
use spec::tma::*;

/// Copies the 128-byte `tmap` parameter to `out[0..128]` and the `a` pointer to `out[128..136]`.
const PTX: &str = ".version 8.0\n.target sm_90\n.address_size 64\n\
    .visible .entry k(.param .u64 out, .param .u64 a, .param .align 64 .b8 tmap[128])\n{\n\
    .reg .b64 %rd<8>;\n.reg .pred %p<2>;\n\
    ld.param.u64 %rd1, [out];\nld.param.u64 %rd2, [a];\nst.global.b64 [%rd1+128], %rd2;\n\
    mov.u64 %rd3, 0;\n\
    LOOP:\n\
    mov.u64 %rd4, tmap;\nadd.u64 %rd4, %rd4, %rd3;\nld.param.b64 %rd5, [%rd4];\n\
    add.u64 %rd6, %rd1, %rd3;\nst.global.b64 [%rd6], %rd5;\n\
    add.u64 %rd3, %rd3, 8;\nsetp.lt.u64 %p1, %rd3, 128;\n@%p1 bra LOOP;\n\
    ret;\n}\n";

fn run(tmap: serde_json::Value, ptx: &str) -> Result<Buffers, oracle::error::Error> {
    let l = serde_json::from_value(serde_json::json!({
        "ptx": "k.ptx", "entry": "k", "grid": [1, 1, 1], "block": [1, 1, 1],
        "buffers": [{"name": "out", "size": 136}, {"name": "A", "size": 4096}],
        "params": [{"buffer": "out"}, {"buffer": "A"}, {"tensor_map": tmap}],
        "limits": {"steps": 10_000},
    }))
    .unwrap();
    launch::run(&l, ptx).map(|(b, _)| b)
}

#[test]
fn a_tiled_map_arrives_as_our_encoding() {
    let out = run(
        serde_json::json!({
            "encode": "tiled", "data_type": "f32", "buffer": "A", "offset": 256,
            "global_dim": [16, 8], "global_strides": [64], "box_dim": [8, 4],
            "element_strides": [1, 2], "swizzle": "32B", "oob_fill": "nan_request_zero_fma"
        }),
        PTX,
    )
    .unwrap();
    let bytes = &out[0].1;
    let a = u64::from_le_bytes(bytes[128..136].try_into().unwrap());
    let map = decode(bytes[..128].try_into().unwrap()).unwrap();
    let want = TensorMap {
        element_strides: [1, 2, 1, 1, 1],
        swizzle: SwizzleMode::B32,
        oob_fill: OobFill::Nan,
        ..TensorMap::plain(
            DataType::F32,
            2,
            a + 256,
            [16, 8, 1, 1, 1],
            [64, 0, 0, 0],
            Mode::Tiled {
                box_dim: [8, 4, 1, 1, 1],
            },
        )
    };
    assert_eq!(map, want);
}

#[test]
fn an_im2col_map_arrives_as_our_encoding() {
    let out = run(
        serde_json::json!({
            "encode": "im2col", "data_type": "f16", "buffer": "A",
            "global_dim": [8, 4, 4, 2], "global_strides": [16, 64, 256],
            "pixel_box_lower_corner": [-1, -1], "pixel_box_upper_corner": [-1, -1],
            "channels_per_pixel": 8, "pixels_per_column": 16, "swizzle": "128B_atom_64B"
        }),
        PTX,
    )
    .unwrap();
    let map = decode(out[0].1[..128].try_into().unwrap()).unwrap();
    assert_eq!(
        map.mode,
        Mode::Im2col {
            lower: [-1, -1, 0],
            upper: [-1, -1, 0],
            channels_per_pixel: 8,
            pixels_per_column: 16
        }
    );
    assert_eq!(
        (map.rank, map.swizzle, map.atomicity),
        (4, SwizzleMode::B128, Atomicity::B64)
    );
}

#[test]
fn maps_the_driver_refuses_are_launch_errors() {
    let base = serde_json::json!({
        "encode": "tiled", "data_type": "f32", "buffer": "A",
        "global_dim": [16, 8], "global_strides": [64], "box_dim": [8, 4]
    });
    let ptx = PTX;
    assert!(run(base.clone(), ptx).is_ok());
    let with = |k: &str, v: serde_json::Value| {
        let mut m = base.clone();
        m[k] = v;
        m
    };
    for (m, needle) in [
        (
            with("global_strides", serde_json::json!([40])),
            "globalStrides[0] must be a multiple of 16",
        ),
        (with("box_dim", serde_json::json!([8, 300])), "boxDim[1]"),
        (with("swizzle", serde_json::json!("16B")), "`swizzle` is \"16B\""),
    ] {
        let e = run(m, ptx).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Launch);
        assert!(e.message.contains(needle), "{}", e.message);
    }
    let mut nan_int = with("data_type", serde_json::json!("s32"));
    nan_int["oob_fill"] = serde_json::json!("nan_request_zero_fma");
    let e = run(nan_int, ptx).unwrap_err();
    assert!(e.message.contains("OOB-NaN fill"), "{}", e.message);
    // A parameter without room for a map.
    let small = ptx.replace(".param .align 64 .b8 tmap[128]", ".param .align 64 .b8 tmap[64]");
    let e = run(base, &small).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Launch);
    assert!(e.message.contains("needs 128 bytes, 64-byte aligned"), "{}", e.message);
}
