//! The reduced repros of corpus/findings/gpgpu-sim/repros/: one directory per GPGPU-Sim defect,
//! each with `kernel.ptx`, `launch.json`, `expected.json` (what the manual requires),
//! `observed.json` (what GPGPU-Sim 4.2.0 did) and `README.md` (the upstream issue).
//!
//! On the oracle (always, no GPGPU-Sim needed): every launch gives `expected.json` byte for byte,
//! and its result buffer holds the value worked out by hand below from the manual, not by the
//! oracle. On GPGPU-Sim (skipped where it cannot be built): every repro still shows the recorded
//! defect, so that a GPGPU-Sim that fixes one is noticed (then move the repro out of the list of
//! open defects and update its README).

use super::{adapter, backend_with_timeout, say_skipped};
use ptxconf::backend::{Backend, Failure, Job};
use std::path::{Path, PathBuf};

fn repros_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/findings/gpgpu-sim/repros")
}

/// Every repro directory, in order.
fn repros() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(repros_dir())
        .expect("corpus/findings/gpgpu-sim/repros")
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    v.sort();
    v
}

fn name(dir: &Path) -> String {
    dir.file_name().unwrap().to_string_lossy().to_string()
}

fn read(dir: &Path, file: &str) -> String {
    std::fs::read_to_string(dir.join(file)).unwrap_or_else(|e| panic!("{}/{file}: {e}", name(dir)))
}

fn json(dir: &Path, file: &str) -> serde_json::Value {
    serde_json::from_str(&read(dir, file)).unwrap_or_else(|e| panic!("{}/{file}: {e}", name(dir)))
}

fn le32(words: &[u32]) -> String {
    words
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn le64(words: &[u64]) -> String {
    words
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn le16(words: &[u16]) -> String {
    words
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// What each repro's `out` buffer must hold, worked out from the manual without the oracle (the
/// README of each repro shows the same arithmetic).
fn by_hand(repro: &str) -> Option<String> {
    Some(match repro {
        // 1 + 0x8000000000000001, 1 + 4294967296: integer constants are 64-bit (L630).
        "01-u64-immediate-truncated" => le64(&[0x8000_0000_0000_0002, 0x1_0000_0001]),
        // p = (0 != 0) is false, so !p selects a = 2.
        "02-selp-negated-predicate" => le32(&[2]),
        // start 32 is beyond a .u32's msb: the field's sign, zero for .u32 (L6497).
        "03-bfe-start-beyond-msb" => le32(&[0]),
        // a zero-length field gives zero (L6495).
        "04-bfe-zero-length" => le32(&[0]),
        // 1 + 2^-24 rounded up: the next f32 after 1.0, 1 + 2^-23.
        "05-add-rp-aborts" => le32(&[0x3f80_0001]),
        // 3 * (1 + 2^-23) = 3 + 1.5 ulp (ulp 2^-22 in [2, 4)) rounded down: 3 + 1 ulp.
        "06-mul-rm-aborts" => le32(&[0x4040_0001]),
        // -(2^31 - 1) toward zero: -(2^31 - 128), sign 1, exponent 30 + 127, mantissa all ones.
        "07-cvt-rz-f32-s32" => le32(&[(1 << 31) | ((30 + 127) << 23) | 0x7f_ffff]),
        // no bit set: 0xffffffff (L6346).
        "08-bfind-zero-hangs" => le32(&[u32::MAX]),
        // 2 = bit 1.
        "09-bfind-u64-wrong-bit" => le32(&[1]),
        // bit 0 to bit 63.
        "10-brev-b64-wrong" => le64(&[1 << 63]),
        // shift amounts beyond 16 clamp to 16: both shifts give 0 (L11531, L11491).
        "11-shr-shl-16-bit-shift-amount" => le16(&[0, 0]),
        // 1 + 017 (15), 1 + 0b101 (5), 1 + 7U (L632-638).
        "12-octal-literal-aborts" => le32(&[16]),
        "13-binary-literal-aborts" => le32(&[6]),
        "14-u-suffix-literal-aborts" => le32(&[8]),
        // max(+0, -0) = +0 and min(-0, +0) = -0: +0.0 > -0.0 (L8390, L8302).
        "15-max-min-f32-signed-zeros" => le32(&[0, 0x8000_0000]),
        // (1 < 2) and p, p = (1 == 1): true, so selp picks 7.
        "16-setp-bool-op-aborts" => le32(&[7]),
        // the same as a set.u32: all ones for true.
        "17-set-bool-op-aborts" => le32(&[u32::MAX]),
        // 1.0 < 2.0.
        "18-setp-f16-aborts" => le32(&[7]),
        // 1.0 + 1.5 = 2.5: exponent 1 + 127, mantissa .01.
        "21-float-literal-with-exponent-refused" => le32(&[(128 << 23) | (1 << 21)]),
        // 1.0 - 1.5 = -0.5: sign 1, exponent -1 + 127.
        "22-negated-float-literal-refused" => le32(&[(1 << 31) | (126 << 23)]),
        // 5 + -7.
        "23-video-type-triple-refused" => le32(&[(-2i32) as u32]),
        // min(byte 1 of 0x300, byte 0 of 7) + 100 = 3 + 100.
        "24-video-operand-selector-refused" => le32(&[103]),
        // min(3, 7).
        "25-vmin-without-secondary-op-aborts" => le32(&[3]),
        // 1's top bit is bit 0; the shift that moves it to bit 31 is 31 (L6344).
        "26-bfind-shiftamt-refused" => le32(&[31]),
        // 3 = 1.1b × 2^1 in f16: exponent 1 + 15, mantissa 0x200.
        "27-cvt-f16-from-integer-aborts" => le16(&[(16 << 10) | 0x200]),
        // 0xffffffff + 1 carries: 0 + 0 + CC.CF.
        "28-addc-not-implemented" => le32(&[1]),
        _ => return None,
    })
}

/// An f16's value (every f16 is exact in f64).
fn f16_value(h: u16) -> f64 {
    let (sign, exp, man) = ((h >> 15) as i32, ((h >> 10) & 0x1f) as i32, (h & 0x3ff) as f64);
    let mag = match exp {
        0 => man * 2f64.powi(-24),
        31 => panic!("no infinities or NaNs in these inputs"),
        e => (1.0 + man / 1024.0) * 2f64.powi(e - 15),
    };
    if sign == 1 {
        -mag
    } else {
        mag
    }
}

fn buffer(launch: &serde_json::Value, name: &str) -> Vec<u8> {
    let hex = launch["buffers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["name"] == name)
        .and_then(|b| b["hex"].as_str())
        .unwrap_or_else(|| panic!("buffer {name}"));
    oracle::launch::decode_hex(hex).unwrap()
}

/// The wmma repros compute D = A·B + C for 16×16 row-major A, B (f16) and C (f32) given in the
/// launch: computed here in f64, exact for these small integers.
fn wmma_by_hand(launch: &serde_json::Value) -> String {
    let (a, b, c) = (buffer(launch, "a"), buffer(launch, "b"), buffer(launch, "c"));
    let h = |v: &[u8], i: usize| f16_value(u16::from_le_bytes([v[2 * i], v[2 * i + 1]]));
    let f = |v: &[u8], i: usize| f32::from_le_bytes(v[4 * i..4 * i + 4].try_into().unwrap()) as f64;
    let d: Vec<u32> = (0..256)
        .map(|mn| {
            let (m, n) = (mn / 16, mn % 16);
            let acc: f64 = (0..16).map(|k| h(&a, m * 16 + k) * h(&b, k * 16 + n)).sum::<f64>() + f(&c, mn);
            assert_eq!(acc, acc.round(), "the inputs keep every sum an integer");
            (acc as f32).to_bits()
        })
        .collect();
    le32(&d)
}

fn result_buffer(expected: &serde_json::Value, buffer: &str) -> String {
    expected["buffers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["name"] == buffer)
        .and_then(|b| b["hex"].as_str())
        .unwrap_or_else(|| panic!("no buffer {buffer} in {expected}"))
        .to_string()
}

#[test]
fn every_repro_gives_its_expected_bytes_on_the_oracle() {
    let all = repros();
    assert!(all.len() >= 20, "{} repros", all.len());
    for dir in &all {
        let repro = name(dir);
        let expected_text = read(dir, "expected.json");
        let (bufs, _) = oracle::launch::run_file(&dir.join("launch.json"))
            .unwrap_or_else(|(e, f)| panic!("{repro}: the oracle fails: {f}: {e}"));
        assert_eq!(oracle::launch::ok_json(&bufs), expected_text, "{repro}");

        let expected = json(dir, "expected.json");
        let launch = json(dir, "launch.json");
        let (buf, want) = match by_hand(&repro) {
            Some(w) => ("out", w),
            None if repro.contains("wmma") => ("d", wmma_by_hand(&launch)),
            None => panic!("{repro}: no value worked out by hand in tests/gpgpu_sim/repros.rs"),
        };
        assert_eq!(
            result_buffer(&expected, buf),
            want,
            "{repro}: expected.json against the hand value"
        );

        // The README states both sides: the expected bytes and what GPGPU-Sim did.
        let readme = read(dir, "README.md");
        if buf == "out" {
            assert!(
                readme.contains(&want),
                "{repro}/README.md does not quote the expected bytes {want}"
            );
        }
        let observed = json(dir, "observed.json");
        let said = match observed["outcome"].as_str().unwrap() {
            "ok" => result_buffer(&observed, buf),
            "timeout" => "timeout".to_string(),
            _ => observed["contains"].as_str().unwrap().to_string(),
        };
        if observed["outcome"] == "ok" {
            assert_ne!(said, want, "{repro}: observed.json records no defect");
        }
        if buf == "out" || observed["outcome"] != "ok" {
            assert!(
                readme.contains(&said),
                "{repro}/README.md does not quote the observation {said}"
            );
        }
        assert!(
            readme.contains(&format!("repros/{repro}/")),
            "{repro}/README.md: no command naming it"
        );
    }
}

/// What a GPGPU-Sim run of `dir` gave, in observed.json's terms.
fn observe(result: Result<ptxconf::backend::Buffers, Failure>) -> (String, String) {
    match result {
        Ok(bufs) => (
            "ok".into(),
            bufs.iter()
                .map(|(n, b)| format!("{n}={}", oracle::launch::encode_hex(b)))
                .collect::<Vec<_>>()
                .join(" "),
        ),
        Err(Failure::Crashed(m)) => ("crashed".into(), m),
        Err(Failure::Timeout { .. }) => ("timeout".into(), String::new()),
        Err(Failure::Rejected { kind, message }) => (format!("rejected:{kind}"), message),
        Err(other) => (format!("{other:?}"), String::new()),
    }
}

#[test]
fn every_repro_still_shows_its_defect_on_gpgpu_sim() {
    let adapter = match adapter() {
        Ok(p) => p,
        Err(why) => {
            say_skipped(why);
            return;
        }
    };
    // 5 s: the bfind repro hangs; every other launch takes well under a second.
    let cmd = backend_with_timeout(adapter, 5.0);
    let mut changed = Vec::new();
    for dir in repros() {
        let repro = name(&dir);
        let launch = oracle::launch::parse_launch(&read(&dir, "launch.json")).unwrap();
        let job = Job::from_launch(&launch, read(&dir, &launch.ptx));
        let (outcome, detail) = observe(cmd.run(&job));
        let observed = json(&dir, "observed.json");
        let want = observed["outcome"].as_str().unwrap();
        let same = outcome == want
            && match want {
                "ok" => {
                    let recorded: Vec<String> = observed["buffers"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|b| format!("{}={}", b["name"].as_str().unwrap(), b["hex"].as_str().unwrap()))
                        .collect();
                    detail == recorded.join(" ")
                }
                "timeout" => true,
                _ => detail.contains(observed["contains"].as_str().unwrap()),
            };
        if !same {
            changed.push(format!("{repro}: recorded {want}, now {outcome} {detail}"));
        }
    }
    assert!(
        changed.is_empty(),
        "GPGPU-Sim no longer shows these recorded defects (fixed? update observed.json and the README):\n{}",
        changed.join("\n")
    );
}

/// `ptxconf run --backend B`, the command each repro's README gives: through the oracle as a
/// backend it prints `expected.json` byte for byte; a program that dies without a reply is
/// reported as an error reply (exit 1), not as a failure to run (exit 2).
#[test]
fn run_with_a_backend_replays_a_repro() {
    let dir = repros_dir().join("03-bfe-start-beyond-msb");
    let launch = dir.join("launch.json");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ptxconf"))
        .args(["run", "--backend", "oracle"])
        .arg(&launch)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8(out.stdout).unwrap(), read(&dir, "expected.json"));

    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ptxconf"))
        .args(["run", "--timeout", "10", "--backend", "cmd:false"])
        .arg(&launch)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let reply: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(reply["status"], "error");
    assert!(
        ["crashed", "malformed"].contains(&reply["kind"].as_str().unwrap()),
        "{reply}"
    );
}
