//! `cuda[:LIB]`: a library exposing the CUDA driver API (`libcuda.so.1`, or any library given
//! as `cuda:LIB`, such as ZLUDA's), loaded at run time. Kernels are JIT-compiled from PTX by the
//! driver (`cuModuleLoadDataEx`) and run on the first device's primary context.
//!
//! Loading: cudarc's generated loader (`cudarc::driver::sys::Lib::new`, and `culib()` behind
//! every free function) resolves all ~470 driver entry points with `.expect(...)`, so it panics
//! on a library that lacks any one of them (a driver older than the bindings' CUDA 12.8, or a
//! partial implementation such as ZLUDA), and `culib()` panics when no library is found. This
//! backend therefore resolves only the entry points it calls, through libloading, and uses
//! cudarc for the driver API's types and enum values. Nothing here panics when the library is
//! absent or incomplete: [`Cuda::open`] says why in one line.
//!
//! Launches: a job with `cluster` goes through `cuLaunchKernelEx` with a cluster-dimension
//! attribute, a tensor-map parameter is the driver's own 128-byte encoding of the launch file's
//! fields ([`tensor_map`]), and dynamic shared memory above 48 KiB is enabled per kernel first
//! ([`launch_ex`]). Those entry points are optional: a driver without one (older than CUDA 12.0;
//! 12.8 for `cuTensorMapEncodeIm2colWide`, the im2col-wide maps' encoder) still runs every
//! other job, and a job that needs it is `Unavailable`, naming it.
//!
//! Processes: [`Cuda`] runs the driver in this process, one launch at a time; a sticky error
//! (a kernel's illegal instruction or address) loses the process's context for good, and the
//! run ends as `Unavailable`. `ptxconf` itself runs `cuda` in [`pool`]: N worker processes
//! ([`worker`], the `ptxconf cuda-worker` subcommand), each with the driver opened once, a
//! poisoned, dead or hung one replaced before the next job.

use super::{Backend, Buffers, Caps, Failure, Feature, Job, JobParam};
use cudarc::driver::sys::{CUdevice_attribute, CUfunction_attribute, CUjit_option, CUlaunchConfig, CUtensorMap};
use spec::catalog::{PtxVersion, Target};
use std::ffi::{c_char, c_int, c_uint, c_void, CStr, CString};
use std::sync::Mutex;

pub mod launch_ex;
pub mod pool;
pub mod tensor_map;
pub mod worker;

/// `CUresult`, kept as a plain integer: a driver may return codes newer than the bindings' enum,
/// which would be undefined behaviour to read as a Rust enum.
type CuResult = c_int;
type CuDevice = c_int;
type CuDevicePtr = u64;
type Handle = *mut c_void;

const CUDA_SUCCESS: CuResult = 0;
/// `CUDA_ERROR_NOT_SUPPORTED` (cuda.h): what an entry point the library lacks amounts to.
const CUDA_ERROR_NOT_SUPPORTED: CuResult = 801;

/// The newest PTX ISA version the suite's vectors use: a newer driver is capped here.
const MAX_PTX: PtxVersion = PtxVersion(8, 7);

/// Size of the JIT error log buffer.
const JIT_LOG_BYTES: usize = 64 * 1024;

/// Library names tried, in order, when no `cuda:LIB` is given (those cudarc's default search
/// would find on Linux).
#[cfg(unix)]
const DEFAULT_LIBS: &[&str] = &["libcuda.so.1", "libcuda.so", "libcuda.so.12"];

macro_rules! driver_api {
    (
        required {
            $($name:ident: fn($($arg:ty),*);)*
        }
        optional {
            $($opt:ident: fn($($oarg:ty),*);)*
        }
    ) => {
        /// The driver entry points this backend calls: those every launch calls, and those only
        /// some jobs need (`None` where the library lacks them: a driver older than CUDA 12.0
        /// has no `cuLaunchKernelEx`; [`launch_ex::missing`] names it for the job).
        #[allow(non_snake_case)]
        struct Api {
            $($name: unsafe extern "C" fn($($arg),*) -> CuResult,)*
            $($opt: Option<unsafe extern "C" fn($($oarg),*) -> CuResult>,)*
        }

        impl Api {
            /// Resolves every entry point, or names the first required one missing.
            fn load(lib: &dl::Library) -> Result<Api, &'static str> {
                Ok(Api {
                    $($name: {
                        let sym = lib.sym(concat!(stringify!($name), "\0")).ok_or(stringify!($name))?;
                        // SAFETY: the symbol is the driver API function of that name, whose C
                        // signature the declaration above copies from cuda.h (12.x).
                        unsafe {
                            std::mem::transmute::<*mut c_void, unsafe extern "C" fn($($arg),*) -> CuResult>(sym)
                        }
                    },)*
                    $($opt: lib.sym(concat!(stringify!($opt), "\0")).map(|sym| {
                        // SAFETY: as above.
                        unsafe {
                            std::mem::transmute::<*mut c_void, unsafe extern "C" fn($($oarg),*) -> CuResult>(sym)
                        }
                    }),)*
                })
            }

            /// Whether the library exports the optional entry point `name`.
            fn has(&self, name: &str) -> bool {
                match name {
                    $(stringify!($opt) => self.$opt.is_some(),)*
                    _ => false,
                }
            }
        }
    };
}

driver_api! {
    required {
        cuInit: fn(c_uint);
        cuDriverGetVersion: fn(*mut c_int);
        cuGetErrorName: fn(CuResult, *mut *const c_char);
        cuGetErrorString: fn(CuResult, *mut *const c_char);
        cuDeviceGetCount: fn(*mut c_int);
        cuDeviceGet: fn(*mut CuDevice, c_int);
        cuDeviceGetName: fn(*mut c_char, c_int, CuDevice);
        cuDeviceGetAttribute: fn(*mut c_int, c_int, CuDevice);
        cuDevicePrimaryCtxRetain: fn(*mut Handle, CuDevice);
        cuDevicePrimaryCtxRelease_v2: fn(CuDevice);
        cuDevicePrimaryCtxReset_v2: fn(CuDevice);
        cuCtxSetCurrent: fn(Handle);
        cuCtxSynchronize: fn();
        cuModuleLoadDataEx: fn(*mut Handle, *const c_void, c_uint, *mut c_int, *mut *mut c_void);
        cuModuleGetFunction: fn(*mut Handle, Handle, *const c_char);
        cuModuleUnload: fn(Handle);
        cuMemAlloc_v2: fn(*mut CuDevicePtr, usize);
        cuMemFree_v2: fn(CuDevicePtr);
        cuMemcpyHtoD_v2: fn(CuDevicePtr, *const c_void, usize);
        cuMemcpyDtoH_v2: fn(*mut c_void, CuDevicePtr, usize);
        cuMemsetD8_v2: fn(CuDevicePtr, u8, usize);
        cuLaunchKernel: fn(Handle, c_uint, c_uint, c_uint, c_uint, c_uint, c_uint, c_uint, Handle, *mut *mut c_void, *mut *mut c_void);
    }
    optional {
        cuFuncSetAttribute: fn(Handle, c_int, c_int);
        cuLaunchKernelEx: fn(*const CUlaunchConfig, Handle, *mut *mut c_void, *mut *mut c_void);
        // The enum arguments are `repr(u32)` C enums in cuda.h: passed as `c_uint`.
        cuTensorMapEncodeTiled: fn(*mut CUtensorMap, c_uint, c_uint, *mut c_void, *const u64, *const u64, *const u32, *const u32, c_uint, c_uint, c_uint, c_uint);
        cuTensorMapEncodeIm2col: fn(*mut CUtensorMap, c_uint, c_uint, *mut c_void, *const u64, *const u64, *const c_int, *const c_int, c_uint, c_uint, *const u32, c_uint, c_uint, c_uint, c_uint);
        // CUDA 12.8: the W corners by value, the mode between interleave and swizzle.
        cuTensorMapEncodeIm2colWide: fn(*mut CUtensorMap, c_uint, c_uint, *mut c_void, *const u64, *const u64, c_int, c_int, c_uint, c_uint, *const u32, c_uint, c_uint, c_uint, c_uint, c_uint);
    }
}

/// The library, through libloading; it stays loaded for the life of the process (a driver is
/// never worth unloading, and its function pointers must outlive every [`Cuda`]).
mod dl {
    use std::ffi::c_void;

    pub struct Library(&'static libloading::Library);

    impl Library {
        /// Opens `name` (a path, or a name the dynamic linker searches for), or says why not.
        pub fn open(name: &str) -> Result<Library, String> {
            // SAFETY: loading runs the library's initialisers; a CUDA driver's are what every
            // CUDA program runs.
            let lib = unsafe { libloading::Library::new(name) }.map_err(|e| match e {
                libloading::Error::DlOpen { desc } => format!("{desc:?}").trim_matches('"').to_string(),
                e => format!("{name}: {e}"),
            })?;
            Ok(Library(Box::leak(Box::new(lib))))
        }

        /// The address of `name` (NUL-terminated), if the library exports it.
        pub fn sym(&self, name: &str) -> Option<*mut c_void> {
            // SAFETY: only the address is taken; callers give it its C signature.
            let s = unsafe { self.0.get::<*mut c_void>(name.as_bytes()) }.ok()?;
            let p = *s;
            (!p.is_null()).then_some(p)
        }
    }
}

/// The driver state a launch needs; behind a mutex because a sticky error replaces the context.
struct State {
    ctx: Handle,
}

// SAFETY: a CUcontext handle may be used from any thread (each launch makes it current on its
// own thread first); the mutex serialises all use.
unsafe impl Send for State {}

/// The `cuda[:LIB]` backend in this process: the loaded driver library and the first device's
/// primary context. One launch at a time; `a`/`f` suffixed forms and those ptxas 12.9 rejects
/// are skipped. After a sticky error it runs nothing more ([`Cuda::context_error`]); [`pool`]
/// runs it in worker processes instead.
pub struct Cuda {
    api: Api,
    lib: String,
    device: CuDevice,
    name: String,
    /// `cuDriverGetVersion`: 12080 for CUDA 12.8.
    version: c_int,
    kernel_driver: Option<String>,
    state: Mutex<State>,
    caps: Caps,
}

impl Cuda {
    /// Loads the driver library (`lib`, or the default `libcuda` search), initialises it and
    /// takes the first device's primary context. `Failure::Unavailable` with a one-line reason
    /// when there is no usable driver or device.
    pub fn open(lib: Option<&str>) -> Result<Cuda, Failure> {
        let no_driver = |why: String| Failure::Unavailable(format!("no CUDA driver found: {why}"));
        let (library, lib_name) = match lib {
            Some(path) => (dl::Library::open(path).map_err(no_driver)?, path.to_string()),
            None => open_default().map_err(no_driver)?,
        };
        let api = Api::load(&library).map_err(|missing| {
            no_driver(format!(
                "{lib_name} does not export {missing} (not a CUDA driver library, or one too old)"
            ))
        })?;
        // `library` goes out of scope without closing (dl::Library has no Drop), so the function
        // pointers in `api` stay valid.
        let err = |what: &str, r: CuResult| {
            Failure::Unavailable(format!("CUDA driver {lib_name}: {what}: {}", error_text(&api, r)))
        };
        // SAFETY (all driver calls below): the pointers passed are to live locals of the types the
        // driver API declares.
        unsafe {
            let r = (api.cuInit)(0);
            if r != CUDA_SUCCESS {
                return Err(err("cuInit", r));
            }
            let mut version = 0;
            let r = (api.cuDriverGetVersion)(&mut version);
            if r != CUDA_SUCCESS {
                return Err(err("cuDriverGetVersion", r));
            }
            let mut count = 0;
            let r = (api.cuDeviceGetCount)(&mut count);
            if r != CUDA_SUCCESS {
                return Err(err("cuDeviceGetCount", r));
            }
            if count < 1 {
                return Err(Failure::Unavailable(format!("CUDA driver {lib_name}: no CUDA device")));
            }
            let mut device = 0;
            let r = (api.cuDeviceGet)(&mut device, 0);
            if r != CUDA_SUCCESS {
                return Err(err("cuDeviceGet", r));
            }
            let mut buf = [0 as c_char; 256];
            let r = (api.cuDeviceGetName)(buf.as_mut_ptr(), buf.len() as c_int - 1, device);
            let name = if r == CUDA_SUCCESS {
                CStr::from_ptr(buf.as_ptr()).to_string_lossy().trim().to_string()
            } else {
                "unnamed CUDA device".to_string()
            };
            let attr = |a: CUdevice_attribute| {
                let mut v = 0;
                let r = (api.cuDeviceGetAttribute)(&mut v, a as c_int, device);
                if r == CUDA_SUCCESS {
                    Ok(v)
                } else {
                    Err(r)
                }
            };
            let major = attr(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)
                .map_err(|r| err("compute capability", r))?;
            let minor = attr(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)
                .map_err(|r| err("compute capability", r))?;
            let Some(ptx) = max_ptx(version) else {
                return Err(Failure::Unavailable(format!(
                    "CUDA driver {lib_name}: CUDA {} is older than 8.0, which PTX ISA 5.0 needs",
                    version_text(version)
                )));
            };
            let mut ctx: Handle = std::ptr::null_mut();
            let r = (api.cuDevicePrimaryCtxRetain)(&mut ctx, device);
            if r != CUDA_SUCCESS {
                return Err(err("cuDevicePrimaryCtxRetain", r));
            }
            Ok(Cuda {
                caps: device_caps((major * 10 + minor).max(0) as u32, ptx),
                api,
                lib: lib_name,
                device,
                name,
                version,
                kernel_driver: kernel_driver_version(),
                state: Mutex::new(State { ctx }),
            })
        }
    }
}

/// What a device of compute capability `sm` (90 for 9.0) behind a driver that JIT-compiles PTX
/// up to `ptx` can run: the capabilities of [`Cuda`], and of [`pool::Pool`] from its workers'
/// answer.
pub(crate) fn device_caps(sm: u32, ptx: PtxVersion) -> Caps {
    Caps {
        // Plain `sm_XY`: the driver's JIT also accepts the device's `sm_XYa` PTX, but Caps
        // cannot say "plain and this one suffix", so `a`/`f` forms are skipped on this backend.
        target: Some(Target { sm, suffix: None }),
        ptx,
        families: None,
        rejects: Some((
            super::ptxas_rejects(),
            "ptxas 12.9 rejects this form of the PTX ISA 8.7 grammar, or the 32-bit module its kernels need (corpus/findings/ptxas-12.9-rejects.txt, ptxas-12.9-32-bit-addresses.txt)",
        )),
        // The driver's JIT compiles `brx.idx` (sm_30 and later); it refuses the selector
        // `.b1024` as ptxas does (CUDA 13.0 on an H200, 2026-11-26: corpus/findings/h200/video.md).
        lacks: [Feature::SelB1024].into(),
    }
}

fn open_default() -> Result<(dl::Library, String), String> {
    #[cfg(unix)]
    {
        let mut first_err = None;
        for name in DEFAULT_LIBS {
            match dl::Library::open(name) {
                Ok(l) => return Ok((l, name.to_string())),
                Err(e) => {
                    first_err.get_or_insert(e);
                }
            }
        }
        Err(first_err.unwrap_or_default())
    }
    #[cfg(not(unix))]
    {
        Err("the default driver search is only implemented on Unix; name the library as cuda:LIB".into())
    }
}

/// The newest PTX ISA version a driver of CUDA version `v` (`cuDriverGetVersion`, 12080 = 12.8)
/// JIT-compiles, from the release table of the PTX ISA 8.7 manual (§13, L34560-L34775), capped
/// at PTX ISA 8.7 (`MAX_PTX`). Per that table CUDA 12.6 brings no new ISA (still 8.5) and CUDA
/// 12.7 (driver r565) brings 8.6. `None`: older than CUDA 8.0.
pub fn max_ptx(v: c_int) -> Option<PtxVersion> {
    let (major, minor) = (v / 1000, (v % 1000) / 10);
    let p = match (major, minor) {
        (m, _) if m > 12 => MAX_PTX,
        (12, 0..=5) => PtxVersion(8, minor as u8),
        (12, 6) => PtxVersion(8, 5),
        (12, 7) => PtxVersion(8, 6),
        (12, _) => MAX_PTX,
        (11, n) => PtxVersion(7, n.min(8) as u8),
        (10, 0) => PtxVersion(6, 3),
        (10, 1) => PtxVersion(6, 4),
        (10, _) => PtxVersion(6, 5),
        (9, n) => PtxVersion(6, n.min(2) as u8),
        (8, _) => PtxVersion(5, 0),
        _ => return None,
    };
    Some(p.min(MAX_PTX))
}

fn version_text(v: c_int) -> String {
    format!("{}.{}", v / 1000, (v % 1000) / 10)
}

/// The kernel module's version (`570.124.06`), where the NVIDIA driver says it.
fn kernel_driver_version() -> Option<String> {
    nvrm_version(&std::fs::read_to_string("/proc/driver/nvidia/version").ok()?)
}

/// The version in the first line of `/proc/driver/nvidia/version`: `NVRM version: NVIDIA UNIX
/// x86_64 Kernel Module  570.124.06  ...` (or `... Open Kernel Module for x86_64  570.133.20 ...`):
/// the first word of digits and dots after the `NVRM version:` label.
fn nvrm_version(text: &str) -> Option<String> {
    let line = text.lines().next()?;
    let rest = line.split_once(':').map_or(line, |(_, r)| r);
    rest.split_whitespace()
        .find(|w| w.contains('.') && w.chars().all(|c| c.is_ascii_digit() || c == '.'))
        .map(str::to_string)
}

/// `CUDA_ERROR_X: description`, as the driver names code `r`.
fn error_text(api: &Api, r: CuResult) -> String {
    let mut name: *const c_char = std::ptr::null();
    let mut desc: *const c_char = std::ptr::null();
    // SAFETY: the driver writes a pointer to a static string, or leaves it null on an unknown
    // code.
    unsafe {
        let n = if (api.cuGetErrorName)(r, &mut name) == CUDA_SUCCESS && !name.is_null() {
            CStr::from_ptr(name).to_string_lossy().into_owned()
        } else {
            format!("CUDA error {r}")
        };
        if (api.cuGetErrorString)(r, &mut desc) == CUDA_SUCCESS && !desc.is_null() {
            format!("{n}: {}", CStr::from_ptr(desc).to_string_lossy())
        } else {
            n
        }
    }
}

impl Drop for Cuda {
    fn drop(&mut self) {
        // SAFETY: releases the retain taken in `open` (or in a reset).
        unsafe {
            (self.api.cuDevicePrimaryCtxRelease_v2)(self.device);
        }
    }
}

impl Backend for Cuda {
    fn name(&self) -> String {
        "cuda".into()
    }
    fn describe(&self) -> String {
        let v = version_text(self.version);
        let driver = self.kernel_driver.clone().unwrap_or_else(|| v.clone());
        let target = self.caps.target.map_or("?".to_string(), |t| t.to_string());
        format!("{} ({target}), driver {driver} (CUDA {v}), {}", self.name, self.lib)
    }
    fn caps(&self) -> &Caps {
        &self.caps
    }
    fn parallel(&self) -> usize {
        1
    }
    fn run(&self, job: &Job) -> Result<Buffers, Failure> {
        let mut st = match self.state.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        };
        // A context left unusable (a reset that did not take) is replaced before the job, so
        // that no job is judged on a dead context; one that cannot be replaced ends the run.
        if let Err(why) = self.usable(st.ctx) {
            if let Err(again) = self.reset(&mut st) {
                return Err(Failure::Unavailable(format!(
                    "CUDA driver {}: the context cannot be restored after an error ({why}; after a reset: {again})",
                    self.lib
                )));
            }
        }
        let mut launched = false;
        let res = self.launch(st.ctx, job, &mut launched);
        if res.is_err() && launched {
            // An error in or after the launch may be sticky (an illegal address poisons the
            // context for every later call): start the next job on a fresh context. A reset
            // that fails is retried, and reported, before the next job.
            let _ = self.reset(&mut st);
        }
        res
    }
}

/// Device memory and the module of one launch, released on every path out of it.
struct Resources<'a> {
    api: &'a Api,
    module: Handle,
    allocs: Vec<(CuDevicePtr, usize)>,
}

impl Drop for Resources<'_> {
    fn drop(&mut self) {
        // SAFETY: each pointer and the module came from the driver in this launch's context.
        // Errors are ignored: after a sticky error they fail, and the reset frees everything.
        unsafe {
            for &(p, _) in &self.allocs {
                (self.api.cuMemFree_v2)(p);
            }
            if !self.module.is_null() {
                (self.api.cuModuleUnload)(self.module);
            }
        }
    }
}

impl Cuda {
    fn rejected(&self, what: &str, r: CuResult) -> Failure {
        Failure::Rejected {
            kind: "cuda".into(),
            message: format!("{what}: {}", error_text(&self.api, r)),
        }
    }

    fn check(&self, what: &str, r: CuResult) -> Result<(), Failure> {
        if r == CUDA_SUCCESS {
            Ok(())
        } else {
            Err(self.rejected(what, r))
        }
    }

    /// Replaces the primary context after a sticky error: release, reset, retain, and check the
    /// new one answers. `Err` names each driver call that failed with its code.
    fn reset(&self, st: &mut State) -> Result<(), String> {
        let api = &self.api;
        // SAFETY: `st.ctx` is this backend's retained primary context; after the release and
        // reset, a new retain gives a fresh one.
        unsafe {
            let released = (api.cuDevicePrimaryCtxRelease_v2)(self.device);
            let reset = (api.cuDevicePrimaryCtxReset_v2)(self.device);
            let mut ctx: Handle = std::ptr::null_mut();
            let retained = (api.cuDevicePrimaryCtxRetain)(&mut ctx, self.device);
            if retained == CUDA_SUCCESS {
                st.ctx = ctx;
            }
            self.usable(st.ctx).map_err(|why| {
                let call = |name: &str, r: CuResult| match r {
                    CUDA_SUCCESS => String::new(),
                    r => format!("; {name}: {}", error_text(api, r)),
                };
                format!(
                    "{why}{}{}{}",
                    call("cuDevicePrimaryCtxRelease", released),
                    call("cuDevicePrimaryCtxReset", reset),
                    call("cuDevicePrimaryCtxRetain", retained)
                )
            })
        }
    }

    /// Whether `ctx` can run work: made current on this thread and synchronised. A context an
    /// earlier kernel poisoned, or one destroyed behind this backend's back, fails here, before
    /// a job's own error could be blamed on it.
    fn usable(&self, ctx: Handle) -> Result<(), String> {
        // SAFETY: driver calls on a context handle this backend retained.
        unsafe {
            let r = (self.api.cuCtxSetCurrent)(ctx);
            if r != CUDA_SUCCESS {
                return Err(format!("cuCtxSetCurrent: {}", error_text(&self.api, r)));
            }
            let r = (self.api.cuCtxSynchronize)();
            if r != CUDA_SUCCESS {
                return Err(format!("cuCtxSynchronize: {}", error_text(&self.api, r)));
            }
        }
        Ok(())
    }

    /// Why the context cannot run work any more, or `None` when it can (made current on this
    /// thread and synchronised). After a sticky error no reset restores it: on an H200 (driver
    /// 580.159.04) a kernel's CUDA_ERROR_ILLEGAL_INSTRUCTION made cuDevicePrimaryCtxRelease
    /// answer CUDA_ERROR_INVALID_CONTEXT and cuDevicePrimaryCtxRetain the illegal instruction
    /// again, as the CUDA documentation says of sticky errors (the process must be relaunched).
    /// A [`worker`] process asks after every failed job and retires when it gets a reason.
    pub fn context_error(&self) -> Option<String> {
        let st = match self.state.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        };
        self.usable(st.ctx).err()
    }

    fn launch(&self, ctx: Handle, job: &Job, launched: &mut bool) -> Result<Buffers, Failure> {
        let api = &self.api;
        let launch_err = |m: String| Failure::Rejected {
            kind: "launch".into(),
            message: m,
        };
        let ptx = CString::new(job.ptx.as_str()).map_err(|_| launch_err("the PTX text contains a NUL byte".into()))?;
        let entry = CString::new(job.entry.as_str())
            .map_err(|_| launch_err(format!("the entry name {:?} contains a NUL byte", job.entry)))?;
        // Inputs' bytes (`None`: a zeroed output) and sizes, checked before the device is touched.
        let mut host: Vec<(Option<Vec<u8>>, usize)> = Vec::with_capacity(job.buffers.len());
        for b in &job.buffers {
            host.push(match (&b.hex, b.size) {
                (Some(h), None) => {
                    let d = oracle::launch::decode_hex(h).ok_or_else(|| {
                        launch_err(format!(
                            "buffer `{}`: `hex` is not an even number of hex digits",
                            b.name
                        ))
                    })?;
                    let n = d.len();
                    (Some(d), n)
                }
                (None, Some(n)) => {
                    let n = usize::try_from(n).map_err(|_| launch_err(format!("buffer `{}` is too large", b.name)))?;
                    (None, n)
                }
                _ => {
                    return Err(launch_err(format!(
                        "buffer `{}` needs exactly one of `hex` and `size`",
                        b.name
                    )))
                }
            });
        }
        let mut args: Vec<Vec<u8>> = Vec::with_capacity(job.params.len());
        for (k, p) in job.params.iter().enumerate() {
            args.push(match p {
                JobParam::Buffer { buffer } => {
                    if !job.buffers.iter().any(|b| &b.name == buffer) {
                        return Err(launch_err(format!(
                            "parameter {k} names buffer `{buffer}`, which the launch does not list"
                        )));
                    }
                    Vec::new() // the device address, filled in below
                }
                JobParam::Scalar { ty, value } => {
                    scalar_bytes(ty, value).map_err(|m| launch_err(format!("parameter {k}: {m}")))?
                }
                // The driver encodes the map once the buffer has its device address (below);
                // the fields are read now, so a malformed one fails before the device is used.
                JobParam::TensorMap { tensor_map } => {
                    if !job.buffers.iter().any(|b| b.name == tensor_map.buffer) {
                        return Err(launch_err(format!(
                            "parameter {k}: the tensor map names buffer `{}`, which the launch does not list",
                            tensor_map.buffer
                        )));
                    }
                    tensor_map::encode_args(tensor_map, 0)
                        .map_err(|m| launch_err(format!("parameter {k}: tensor map: {m}")))?;
                    Vec::new()
                }
            });
        }
        if let Some(f) = launch_ex::missing(job, |n| api.has(n), &self.lib, &version_text(self.version)) {
            return Err(f);
        }

        // SAFETY (all driver calls below): handles come from the driver in this context; host
        // pointers are to live buffers of at least the sizes passed.
        unsafe {
            self.check("cuCtxSetCurrent", (api.cuCtxSetCurrent)(ctx))?;
            let mut res = Resources {
                api,
                module: std::ptr::null_mut(),
                allocs: Vec::with_capacity(host.len()),
            };
            self.load_module(&ptx, &mut res)?;
            let mut func: Handle = std::ptr::null_mut();
            let r = (api.cuModuleGetFunction)(&mut func, res.module, entry.as_ptr());
            if r != CUDA_SUCCESS {
                return Err(self.rejected(
                    &format!("no kernel `{}` in the module (cuModuleGetFunction)", job.entry),
                    r,
                ));
            }
            self.set_attributes(func, job)?;
            for (b, (data, len)) in job.buffers.iter().zip(&host) {
                let len = *len;
                let mut p: CuDevicePtr = 0;
                // A zero-byte allocation is an error; one byte keeps every buffer addressable.
                self.check(
                    &format!("cuMemAlloc of buffer `{}`", b.name),
                    (api.cuMemAlloc_v2)(&mut p, len.max(1)),
                )?;
                res.allocs.push((p, len));
                match data {
                    Some(d) if len > 0 => {
                        self.check("cuMemcpyHtoD", (api.cuMemcpyHtoD_v2)(p, d.as_ptr().cast(), len))?;
                    }
                    Some(_) => {}
                    None => self.check("cuMemsetD8", (api.cuMemsetD8_v2)(p, 0, len.max(1)))?,
                }
            }
            let address = |name: &str| {
                let k = job.buffers.iter().position(|b| b.name == name).unwrap_or(0);
                res.allocs[k].0
            };
            for (k, (p, a)) in job.params.iter().zip(args.iter_mut()).enumerate() {
                match p {
                    JobParam::Buffer { buffer } => *a = address(buffer).to_le_bytes().to_vec(),
                    JobParam::TensorMap { tensor_map } => {
                        let e = tensor_map::encode_args(tensor_map, address(&tensor_map.buffer))
                            .map_err(|m| launch_err(format!("parameter {k}: tensor map: {m}")))?;
                        *a = self.encode(&e).map_err(|r| Failure::Rejected {
                            kind: "launch".into(),
                            message: format!(
                                "parameter {k}: {} refused the tensor map: {}",
                                e.function(),
                                error_text(api, r)
                            ),
                        })?;
                    }
                    JobParam::Scalar { .. } => {}
                }
            }
            let mut ptrs: Vec<*mut c_void> = args.iter_mut().map(|a| a.as_mut_ptr().cast()).collect();
            let params = if ptrs.is_empty() {
                std::ptr::null_mut()
            } else {
                ptrs.as_mut_ptr()
            };
            *launched = true;
            match (job.cluster, api.cuLaunchKernelEx) {
                (Some(c), Some(launch_kernel_ex)) => {
                    let mut attrs = [launch_ex::cluster_attribute(c)];
                    let config = launch_ex::launch_config(job, &mut attrs);
                    let r = launch_kernel_ex(&config, func, params, std::ptr::null_mut());
                    self.check("cuLaunchKernelEx", r)?;
                }
                // `launch_ex::missing` refused the job before the device was used; a launch
                // without the clusters asked for would answer another question.
                (Some(_), None) => return Err(self.rejected("cuLaunchKernelEx", CUDA_ERROR_NOT_SUPPORTED)),
                (None, _) => {
                    let [gx, gy, gz] = job.grid;
                    let [bx, by, bz] = job.block;
                    let r = (api.cuLaunchKernel)(
                        func,
                        gx,
                        gy,
                        gz,
                        bx,
                        by,
                        bz,
                        job.shared_bytes,
                        std::ptr::null_mut(),
                        params,
                        std::ptr::null_mut(),
                    );
                    self.check("cuLaunchKernel", r)?;
                }
            }
            self.check("cuCtxSynchronize (running the kernel)", (api.cuCtxSynchronize)())?;
            let mut out = Vec::with_capacity(job.buffers.len());
            for (b, &(p, len)) in job.buffers.iter().zip(&res.allocs) {
                let mut data = vec![0u8; len];
                if len > 0 {
                    self.check(
                        &format!("cuMemcpyDtoH of buffer `{}`", b.name),
                        (api.cuMemcpyDtoH_v2)(data.as_mut_ptr().cast(), p, len),
                    )?;
                }
                out.push((b.name.clone(), data));
            }
            Ok(out)
        }
    }

    /// Raises the kernel's limits the job needs ([`launch_ex::needs`]): its dynamic shared
    /// memory above 48 KiB, a cluster above the portable 8 CTAs.
    unsafe fn set_attributes(&self, func: Handle, job: &Job) -> Result<(), Failure> {
        let Some(set) = self.api.cuFuncSetAttribute else {
            return Ok(()); // not needed: `launch_ex::missing` refused the job otherwise
        };
        if job.shared_bytes > launch_ex::DEFAULT_DYNAMIC_SHARED_BYTES {
            let r = set(
                func,
                CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES as c_int,
                job.shared_bytes.min(c_int::MAX as u32) as c_int,
            );
            self.check(
                &format!(
                    "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES, {})",
                    job.shared_bytes
                ),
                r,
            )?;
        }
        if job
            .cluster
            .is_some_and(|c| launch_ex::ctas(c) > launch_ex::PORTABLE_CLUSTER_CTAS)
        {
            let r = set(
                func,
                CUfunction_attribute::CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED as c_int,
                1,
            );
            self.check("cuFuncSetAttribute(NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1)", r)?;
        }
        Ok(())
    }

    /// The driver's 128-byte `CUtensorMap` for `e`, or its error code.
    unsafe fn encode(&self, e: &tensor_map::Encode) -> Result<Vec<u8>, CuResult> {
        // The driver requires the map's host address 64-byte aligned; `CUtensorMap` is
        // `repr(align(64))`.
        let mut map = CUtensorMap { opaque: [0; 16] };
        let address = std::ptr::without_provenance_mut(e.global_address as usize);
        let r = match e.bounds {
            tensor_map::Bounds::Tiled(box_dim) => match self.api.cuTensorMapEncodeTiled {
                Some(f) => f(
                    &mut map,
                    e.data_type,
                    e.rank,
                    address,
                    e.global_dim.as_ptr(),
                    e.global_strides.as_ptr(),
                    box_dim.as_ptr(),
                    e.element_strides.as_ptr(),
                    e.interleave,
                    e.swizzle,
                    e.l2_promotion,
                    e.oob_fill,
                ),
                None => return Err(CUDA_ERROR_NOT_SUPPORTED),
            },
            tensor_map::Bounds::Im2col {
                lower,
                upper,
                channels_per_pixel,
                pixels_per_column,
            } => match self.api.cuTensorMapEncodeIm2col {
                Some(f) => f(
                    &mut map,
                    e.data_type,
                    e.rank,
                    address,
                    e.global_dim.as_ptr(),
                    e.global_strides.as_ptr(),
                    lower.as_ptr(),
                    upper.as_ptr(),
                    channels_per_pixel,
                    pixels_per_column,
                    e.element_strides.as_ptr(),
                    e.interleave,
                    e.swizzle,
                    e.l2_promotion,
                    e.oob_fill,
                ),
                None => return Err(CUDA_ERROR_NOT_SUPPORTED),
            },
            tensor_map::Bounds::Im2colWide {
                lower_w,
                upper_w,
                channels_per_pixel,
                pixels_per_column,
                mode,
            } => match self.api.cuTensorMapEncodeIm2colWide {
                Some(f) => f(
                    &mut map,
                    e.data_type,
                    e.rank,
                    address,
                    e.global_dim.as_ptr(),
                    e.global_strides.as_ptr(),
                    lower_w,
                    upper_w,
                    channels_per_pixel,
                    pixels_per_column,
                    e.element_strides.as_ptr(),
                    e.interleave,
                    mode,
                    e.swizzle,
                    e.l2_promotion,
                    e.oob_fill,
                ),
                None => return Err(CUDA_ERROR_NOT_SUPPORTED),
            },
        };
        if r != CUDA_SUCCESS {
            return Err(r);
        }
        Ok(map.opaque.iter().flat_map(|w| w.to_ne_bytes()).collect())
    }

    /// JIT-compiles the PTX; a rejection carries the JIT's error log.
    unsafe fn load_module(&self, ptx: &CStr, res: &mut Resources) -> Result<(), Failure> {
        let mut log = vec![0u8; JIT_LOG_BYTES];
        let mut opts = [
            CUjit_option::CU_JIT_ERROR_LOG_BUFFER as c_int,
            CUjit_option::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES as c_int,
        ];
        // The size option's value is the integer itself in pointer-sized storage (cuda.h); the
        // driver overwrites it with the bytes written.
        let mut vals: [*mut c_void; 2] = [log.as_mut_ptr().cast(), std::ptr::without_provenance_mut(JIT_LOG_BYTES)];
        let r = (self.api.cuModuleLoadDataEx)(
            &mut res.module,
            ptx.as_ptr().cast(),
            opts.len() as c_uint,
            opts.as_mut_ptr(),
            vals.as_mut_ptr(),
        );
        if r == CUDA_SUCCESS {
            return Ok(());
        }
        res.module = std::ptr::null_mut();
        let end = log.iter().position(|&b| b == 0).unwrap_or(log.len());
        let text = String::from_utf8_lossy(&log[..end]).trim().to_string();
        let err = error_text(&self.api, r);
        Err(Failure::Rejected {
            kind: "jit".into(),
            message: if text.is_empty() { err } else { format!("{err}: {text}") },
        })
    }
}

/// A scalar parameter's bytes (little-endian, the type's size): decimal (negative as two's
/// complement) or `0x` hex, as the launch protocol reads it (`oracle/src/launch.rs`).
pub fn scalar_bytes(ty: &str, value: &str) -> Result<Vec<u8>, ScalarError> {
    let Some(t) = spec::types::Type::parse(ty) else {
        return Err(ScalarError::NotAType(ty.to_string()));
    };
    let bytes = (t.bits() as usize).div_ceil(8);
    // The launch file's one rule for integer text (`spec::value::parse_integer`), as the oracle
    // reads the same parameter.
    let v = spec::value::parse_integer(value, bytes as u32 * 8).map_err(|why| ScalarError::Value {
        value: value.to_string(),
        ty: ty.to_string(),
        why,
    })?;
    Ok(v.to_le_bytes()[..bytes].to_vec())
}

/// Why a scalar parameter has no bytes ([`scalar_bytes`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ScalarError {
    /// The launch file's type is not a PTX type.
    NotAType(String),
    /// The value is not integer text that fits the type.
    Value {
        /// The text.
        value: String,
        /// The type it was given for.
        ty: String,
        /// What `spec::value::parse_integer` found.
        why: spec::value::IntegerError,
    },
}

impl std::fmt::Display for ScalarError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ScalarError::NotAType(ty) => write!(f, "`{ty}` is not a PTX type"),
            ScalarError::Value { value, ty, .. } => {
                write!(f, "`{value}` is not a decimal or 0x-hex value that fits `{ty}`")
            }
        }
    }
}

impl std::error::Error for ScalarError {}

#[cfg(test)]
mod tests {
    use super::nvrm_version;

    #[test]
    fn nvrm_version_reads_both_module_flavours() {
        let closed = "NVRM version: NVIDIA UNIX x86_64 Kernel Module  570.124.06  Wed Feb 26 01:25:42 UTC 2025\nGCC version: gcc version 12.2.0\n";
        let open = "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.133.20  Release Build  (dvs-builder@U16-I2-C03-12-4)  Fri Mar 14 04:47:22 UTC 2025\n";
        assert_eq!(nvrm_version(closed).as_deref(), Some("570.124.06"));
        assert_eq!(nvrm_version(open).as_deref(), Some("570.133.20"));
        assert_eq!(nvrm_version("something else\n"), None);
        assert_eq!(nvrm_version(""), None);
    }
}
