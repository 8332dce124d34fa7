//! What a job needs of the driver beyond `cuLaunchKernel`, and the `cuLaunchKernelEx` launch
//! of a cluster.
//!
//! A launch with `cluster: [x, y, z]` goes through `cuLaunchKernelEx` (CUDA 12.0) with one
//! `CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION` attribute (CUDA driver API §6.22 "Execution
//! Control", `cuLaunchKernelEx`, and the CUDA Programming Guide's "Thread Block Clusters":
//! "a cluster size of 8 thread blocks is the maximum portable cluster size", larger ones need
//! `CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED`). Dynamic shared memory above 48 KiB
//! needs the kernel's `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES` raised first
//! (`cuFuncSetAttribute`; the Programming Guide's "Shared Memory": allocations above 48 KB per
//! block are architecture-specific and need an explicit opt-in).
//!
//! The structures are cudarc's bindings of `cuda.h` (`cudarc::driver::sys`, CUDA 12.8):
//! `CUlaunchConfig` (`gridDimX..blockDimZ`, `sharedMemBytes`, `hStream`, `attrs`, `numAttrs`)
//! and `CUlaunchAttribute` (`id`, 4 bytes of padding, then the 64-byte value union, 8-aligned:
//! 72 bytes), whose layouts this module's tests pin.

use super::super::{Failure, Job, JobParam};
use cudarc::driver::sys::{
    CUlaunchAttribute, CUlaunchAttributeID, CUlaunchAttributeValue,
    CUlaunchAttributeValue_union__bindgen_ty_1 as ClusterDim, CUlaunchConfig,
};
use oracle::launch::tensor_map::TensorMapSpec;

/// The most CTAs a cluster may have without the non-portable opt-in (Programming Guide,
/// "Thread Block Clusters").
pub const PORTABLE_CLUSTER_CTAS: u32 = 8;

/// Dynamic shared memory a kernel may use without raising its maximum: 48 KiB.
pub const DEFAULT_DYNAMIC_SHARED_BYTES: u32 = 48 * 1024;

/// An optional driver entry point a job needs, and what for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Need {
    /// The entry point.
    pub entry: &'static str,
    /// The CUDA version that introduced it.
    pub since: &'static str,
    /// What in the job needs it.
    pub why: String,
}

/// The optional entry points `job` calls, in the order it calls them.
pub fn needs(job: &Job) -> Vec<Need> {
    let mut v = Vec::new();
    for (k, p) in job.params.iter().enumerate() {
        if let JobParam::TensorMap { tensor_map } = p {
            let (entry, since, what) = encode_call(tensor_map);
            v.push(Need {
                entry,
                since,
                why: format!("parameter {k}, {what} tensor map"),
            });
        }
    }
    if job.shared_bytes > DEFAULT_DYNAMIC_SHARED_BYTES || job.cluster.is_some_and(|c| ctas(c) > PORTABLE_CLUSTER_CTAS) {
        v.push(Need {
            entry: "cuFuncSetAttribute",
            since: "9.0",
            why: if job.shared_bytes > DEFAULT_DYNAMIC_SHARED_BYTES {
                format!("{} bytes of dynamic shared memory (above 48 KiB)", job.shared_bytes)
            } else {
                "a cluster of more than 8 CTAs".into()
            },
        });
    }
    if let Some(c) = job.cluster {
        v.push(Need {
            entry: "cuLaunchKernelEx",
            since: "12.0",
            why: format!("a launch with clusters of {}x{}x{} CTAs", c[0], c[1], c[2]),
        });
    }
    v
}

/// The encode function of a tensor map, the CUDA version that introduced it and its mode's
/// name ("tiled", "an im2col", "an im2col-wide").
fn encode_call(m: &TensorMapSpec) -> (&'static str, &'static str, &'static str) {
    match m.encode.as_str() {
        "im2col" => ("cuTensorMapEncodeIm2col", "12.0", "an im2col"),
        "im2col_wide" => ("cuTensorMapEncodeIm2colWide", "12.8", "an im2col-wide"),
        _ => ("cuTensorMapEncodeTiled", "12.0", "a tiled"),
    }
}

/// CTAs in a cluster of `c`.
pub fn ctas(c: [u32; 3]) -> u32 {
    c.iter().fold(1u32, |a, &d| a.saturating_mul(d))
}

/// The first of `job`'s needs the driver `lib` (CUDA `version`) lacks (`has` says which it
/// exports), as the failure the job gets: `Unavailable`, since no kernel needing it can run on
/// this driver (the form is skipped, not failed).
pub fn missing(job: &Job, has: impl Fn(&str) -> bool, lib: &str, version: &str) -> Option<Failure> {
    needs(job).into_iter().find(|n| !has(n.entry)).map(|n| {
        Failure::Unavailable(format!(
            "CUDA driver {lib} (CUDA {version}) does not export {} (CUDA {}), which {} needs",
            n.entry, n.since, n.why
        ))
    })
}

/// The `CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION` attribute of clusters of `c` CTAs; the value
/// union's other bytes are zero.
pub fn cluster_attribute(c: [u32; 3]) -> CUlaunchAttribute {
    let mut value = CUlaunchAttributeValue { pad: [0; 64] };
    value.clusterDim = ClusterDim {
        x: c[0],
        y: c[1],
        z: c[2],
    };
    CUlaunchAttribute {
        id: CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION,
        pad: [0; 4],
        value,
    }
}

/// The launch configuration of `job` on the default stream, with `attrs`.
pub fn launch_config(job: &Job, attrs: &mut [CUlaunchAttribute]) -> CUlaunchConfig {
    CUlaunchConfig {
        gridDimX: job.grid[0],
        gridDimY: job.grid[1],
        gridDimZ: job.grid[2],
        blockDimX: job.block[0],
        blockDimY: job.block[1],
        blockDimZ: job.block[2],
        sharedMemBytes: job.shared_bytes,
        hStream: std::ptr::null_mut(),
        attrs: if attrs.is_empty() {
            std::ptr::null_mut()
        } else {
            attrs.as_mut_ptr()
        },
        numAttrs: attrs.len() as u32,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cudarc::driver::sys::CUtensorMap;
    use std::mem::{align_of, offset_of, size_of};

    /// cuda.h: `struct CUlaunchAttribute_st { CUlaunchAttributeID id; char pad[8 -
    /// sizeof(CUlaunchAttributeID)]; CUlaunchAttributeValue value; }`, the value a union whose
    /// first member is `char pad[64]` and which holds pointers (8-aligned): 4 + 4 + 64 bytes.
    /// `CUlaunchConfig`: seven `unsigned int`s (28 bytes, padded to 32), `hStream` at 32,
    /// `attrs` at 40, `numAttrs` at 48, 56 bytes in all. `CUtensorMap`: `alignas(64)
    /// cuuint64_t opaque[16]`.
    #[test]
    fn layouts_are_those_of_the_header() {
        assert_eq!(size_of::<CUlaunchAttribute>(), 72);
        assert_eq!(align_of::<CUlaunchAttribute>(), 8);
        assert_eq!(offset_of!(CUlaunchAttribute, value), 8);
        assert_eq!(size_of::<CUlaunchAttributeValue>(), 64);
        assert_eq!(size_of::<CUlaunchConfig>(), 56);
        assert_eq!(offset_of!(CUlaunchConfig, sharedMemBytes), 24);
        assert_eq!(offset_of!(CUlaunchConfig, hStream), 32);
        assert_eq!(offset_of!(CUlaunchConfig, attrs), 40);
        assert_eq!(offset_of!(CUlaunchConfig, numAttrs), 48);
        assert_eq!(size_of::<CUtensorMap>(), 128);
        assert_eq!(align_of::<CUtensorMap>(), 64);
    }

    /// The attribute's bytes: id 4 (`CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION`), padding, then
    /// `clusterDim.x, y, z` as the value's first three `unsigned int`s, the rest zero.
    #[test]
    fn the_cluster_attribute_bytes() {
        let a = cluster_attribute([2, 3, 1]);
        // SAFETY: every byte of `a` is initialized (`pad` zeroed, the value's 64 bytes zeroed
        // before its first 12 were written).
        let bytes: [u8; 72] = unsafe { std::mem::transmute(a) };
        let mut want = [0u8; 72];
        want[0] = 4;
        want[8] = 2;
        want[12] = 3;
        want[16] = 1;
        assert_eq!(bytes, want);
    }

    fn job(cluster: Option<[u32; 3]>, shared_bytes: u32, params: serde_json::Value) -> Job {
        Job {
            ptx: String::new(),
            entry: "k".into(),
            grid: [4, 2, 1],
            block: [128, 1, 1],
            buffers: serde_json::from_value(serde_json::json!([{"name": "A", "size": 4096}])).unwrap(),
            params: serde_json::from_value(params).unwrap(),
            shared_bytes,
            cluster,
        }
    }

    #[test]
    fn the_launch_config_carries_the_geometry_and_the_attribute() {
        let j = job(Some([2, 1, 1]), 1024, serde_json::json!([]));
        let mut attrs = [cluster_attribute([2, 1, 1])];
        let c = launch_config(&j, &mut attrs);
        assert_eq!(
            [
                c.gridDimX,
                c.gridDimY,
                c.gridDimZ,
                c.blockDimX,
                c.blockDimY,
                c.blockDimZ,
                c.sharedMemBytes,
                c.numAttrs
            ],
            [4, 2, 1, 128, 1, 1, 1024, 1]
        );
        assert!(c.hStream.is_null());
        assert_eq!(c.attrs, attrs.as_mut_ptr());
        assert!(launch_config(&j, &mut []).attrs.is_null());
    }

    fn tmap(encode: &str) -> serde_json::Value {
        serde_json::json!({"tensor_map": {"encode": encode, "data_type": "f32", "buffer": "A",
            "global_dim": [64, 16], "global_strides": [256], "box_dim": [32, 8]}})
    }

    #[test]
    fn a_plain_launch_needs_nothing_more() {
        let j = job(None, 48 * 1024, serde_json::json!([{"buffer": "A"}]));
        assert_eq!(needs(&j), []);
        assert_eq!(missing(&j, |_| false, "libcuda.so.1", "11.8"), None);
    }

    /// A driver older than CUDA 12.0 has no `cuLaunchKernelEx` nor tensor-map encoding: each
    /// job needing one is `Unavailable` (skipped), naming the entry point and what needs it.
    #[test]
    fn a_driver_without_the_entry_points_is_named_for_the_job() {
        let none = |_: &str| false;
        let cluster = job(Some([2, 1, 1]), 0, serde_json::json!([]));
        assert_eq!(
            missing(&cluster, none, "libcuda.so.1", "11.8"),
            Some(Failure::Unavailable(
                "CUDA driver libcuda.so.1 (CUDA 11.8) does not export cuLaunchKernelEx (CUDA 12.0), which a launch with clusters of 2x1x1 CTAs needs".into()
            ))
        );
        let tiled = job(None, 0, serde_json::json!([{"buffer": "A"}, tmap("tiled")]));
        assert_eq!(
            missing(&tiled, none, "libcuda.so.1", "11.8"),
            Some(Failure::Unavailable(
                "CUDA driver libcuda.so.1 (CUDA 11.8) does not export cuTensorMapEncodeTiled (CUDA 12.0), which parameter 1, a tiled tensor map needs".into()
            ))
        );
        let j = job(None, 0, serde_json::json!([tmap("im2col")]));
        assert_eq!(needs(&j)[0].entry, "cuTensorMapEncodeIm2col");
        // The wide maps' entry point came with CUDA 12.8: a 12.0-12.7 driver skips them.
        let w = job(None, 0, serde_json::json!([tmap("im2col_wide")]));
        assert_eq!(
            missing(&w, |n| n != "cuTensorMapEncodeIm2colWide", "libcuda.so.1", "12.4"),
            Some(Failure::Unavailable(
                "CUDA driver libcuda.so.1 (CUDA 12.4) does not export cuTensorMapEncodeIm2colWide (CUDA 12.8), which parameter 0, an im2col-wide tensor map needs".into()
            ))
        );
        let big = job(Some([4, 2, 2]), 100_000, serde_json::json!([]));
        let entries: Vec<_> = needs(&big).iter().map(|n| n.entry).collect();
        assert_eq!(entries, ["cuFuncSetAttribute", "cuLaunchKernelEx"]);
        let wide = job(Some([16, 1, 1]), 0, serde_json::json!([]));
        assert_eq!(needs(&wide)[0].why, "a cluster of more than 8 CTAs");
        // A driver that has them all runs every one.
        for j in [&cluster, &tiled, &big, &wide] {
            assert_eq!(missing(j, |_| true, "libcuda.so.1", "12.8"), None);
        }
    }
}
