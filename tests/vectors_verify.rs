//! The committed golden vectors are exactly what the spec and the generator produce from the seed
//! and level in each file's header (`ptxconf vectors verify`), every form with semantics has a
//! file, and no file is stale: a spec change that forgot `ptxconf vectors generate` fails here.

use std::path::Path;

#[test]
fn committed_vectors_regenerate_byte_for_byte() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(ptxconf::vectors::DEFAULT_DIR);
    let jobs = std::thread::available_parallelism().map_or(1, |n| n.get());
    let r = ptxconf::vectors::verify(&dir, &[], jobs).unwrap();
    assert!(r.checked >= 7801, "{} files checked", r.checked);
    let first: Vec<String> = r
        .mismatched
        .iter()
        .take(5)
        .map(|m| {
            format!(
                "{} line {}:\n  file:        {}\n  regenerated: {}",
                m.key, m.line, m.found, m.expected
            )
        })
        .collect();
    assert!(
        r.mismatched.is_empty(),
        "{} files differ (run `ptxconf vectors generate`):\n{}",
        r.mismatched.len(),
        first.join("\n")
    );
    assert!(r.missing.is_empty(), "missing: {:?}", r.missing);
    assert!(r.errors.is_empty(), "unreadable: {:?}", r.errors);
    // No stale files: every file names a form with semantics.
    let files = ptxconf::vectors::list(&dir).unwrap();
    assert_eq!(
        files.len(),
        ptxconf::vectors::selected(&[]).len(),
        "files that are not forms with semantics"
    );
}
