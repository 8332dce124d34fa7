//! The `ptxconf` binary as a user runs it: exit codes, output lines, batch mode, coverage JSON.

use std::io::Write;
use std::process::{Command, Stdio};

fn ptxconf(args: &[&str], stdin: Option<&str>) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ptxconf"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run ptxconf");
    if let Some(s) = stdin {
        child.stdin.take().unwrap().write_all(s.as_bytes()).unwrap();
    } else {
        drop(child.stdin.take());
    }
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn eval_prints_the_destination() {
    assert_eq!(
        ptxconf(&["eval", "add.sat.s32", "0x7fffffff", "0x1"], None),
        (0, "0x7fffffff\n".into(), String::new())
    );
    // Negative decimal operands are not mistaken for flags.
    let (code, out, _) = ptxconf(&["eval", "fns.b32", "0xaaaaaaaa", "2", "-1"], None);
    assert_eq!((code, out.as_str()), (0, "0x00000001\n"));
}

#[test]
fn invalid_forms_exit_2_with_a_reason() {
    let (code, out, err) = ptxconf(&["eval", "add.sat.u32", "0x1", "0x2"], None);
    assert_eq!((code, out.as_str()), (2, ""));
    assert!(err.contains("`.u32` cannot follow `add.sat`"), "{err}");
    let (code, _, err) = ptxconf(&["eval", "bfe.b16", "0x1", "0", "1"], None);
    assert_eq!(code, 2);
    assert!(err.contains("`.b16` cannot follow `bfe`"), "{err}");
    let (code, _, err) = ptxconf(&["eval", "add.s32", "0x1"], None);
    assert_eq!(code, 2);
    assert!(err.contains("takes 2 source operands"), "{err}");
}

#[test]
fn batch_answers_every_line_in_order() {
    let input = "add.s32 1 2\nbfe.b16 1 2 3\n\naddc.cc.u32 0xffffffff 0 cf=1\n";
    let (code, out, _) = ptxconf(&["eval", "--batch"], Some(input));
    assert_eq!(code, 0);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 4, "{out}");
    assert_eq!(lines[0], "0x00000003");
    assert!(lines[1].starts_with("error: `bfe.b16`"), "{}", lines[1]);
    assert!(lines[2].starts_with("error: empty line"), "{}", lines[2]);
    assert_eq!(lines[3], "0x00000000 cf=1");
}

#[test]
fn coverage_json_has_families_totals_and_forms() {
    let (code, out, _) = ptxconf(&["coverage", "--json"], None);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let fam = v["families"].as_array().unwrap();
    let int = fam.iter().find(|f| f["id"] == "9.7.1").expect("9.7.1 reported");
    assert_eq!(int["forms"], int["semantics"]);
    assert!(int["forms"].as_u64().unwrap() > 100);
    let secs = v["sections"].as_array().unwrap();
    assert_eq!(secs.len(), 196);
    let prmt = secs
        .iter()
        .find(|s| s["id"] == "9.7.9.7")
        .expect("prmt section reported");
    assert_eq!(prmt["forms"], prmt["semantics"]);
    assert_eq!(prmt["line"], 12087);
    let forms = v["forms"].as_array().unwrap();
    assert_eq!(forms.len() as u64, v["total"]["forms"].as_u64().unwrap());
    let add = forms.iter().find(|f| f["name"] == "add.sat.s32").unwrap();
    assert_eq!(add["section"], "9.7.1.1");
    assert_eq!(add["class"], "bit-exact");
    assert_eq!(add["semantics"], true);
    let (code, table, _) = ptxconf(&["coverage"], None);
    assert_eq!(code, 0);
    assert!(table.lines().any(|l| l.starts_with("total")), "{table}");
}

/// The README's floating-point examples, with values derived by hand: each tag is one token.
#[test]
fn eval_prints_float_results_and_their_acceptance_tags() {
    let cases = [
        // 1 + 2^-24 truncated toward zero is 1.0.
        (&["add.rz.f32", "1.0", "0x33800000"][..], "0x3f800000"),
        // ∞ − ∞: an unspecified f32 NaN, modelled by the canonical 0x7fffffff.
        (&["add.f32", "inf", "-inf"][..], "0x7fffffff nan"),
        // e4m3 1.0 = 0x38 in d[15:8] (from a), 2.0 = 0x40 in d[7:0] (from b), L13709-13744.
        (
            &["cvt.rn.satfinite.e4m3x2.f32", "0x3f800000", "0x40000000"][..],
            "0x3840",
        ),
        // f16x2 lanes: NaN + 0 in the high lane, 1 + 1 = 2.0 (0x4000) in the low one.
        (
            &["add.rn.f16x2", "0x7e003c00", "0x00003c00"][..],
            "0x7fff4000 lanes:nan/-",
        ),
        // 1/3: RN(1/3) in f32 is 0x3eaaaaab; the reference is 1/3 in f64, 1 ulp allowed (L8445).
        (&["rcp.approx.f32", "3.0"][..], "0x3eaaaaab ulp:1@3fd5555555555555"),
        // PTX's bit literal for f32, and testp's "zero is normal" (L7472).
        (&["testp.normal.f32", "0f80000000"][..], "1"),
    ];
    for (args, want) in cases {
        let mut v = vec!["eval"];
        v.extend_from_slice(args);
        let (code, out, err) = ptxconf(&v, None);
        assert_eq!((code, out.trim_end()), (0, want), "{args:?}: {err}");
    }
    // A literal of the wrong width is refused, not reinterpreted.
    let (code, _, err) = ptxconf(&["eval", "add.rn.f32", "0d3ff0000000000000", "1.0"], None);
    assert_eq!(code, 2);
    assert!(err.contains("not a float literal of this type"), "{err}");
}
