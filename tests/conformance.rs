//! The conformance suite on the built-in oracle under libtest-mimic: one test per form with golden
//! vectors, named by its form key, its kind the §9.7 family. The usual test-harness arguments
//! work: `cargo test --test conformance -- add.rn`, `-- --list`, `-- --format json`, `--exact`,
//! `--skip`, `--test-threads`.

use libtest_mimic::{Arguments, Failed, Trial};
use ptxconf::backend::{oracle::Oracle, Backend, Options};
use ptxconf::conform::{check_form, FormVectors, Settings, Status};
use ptxconf::vectors;
use spec::catalog::catalog;
use std::path::Path;
use std::sync::Arc;

fn main() {
    let args = Arguments::from_args();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(vectors::DEFAULT_DIR);
    let oracle: Arc<dyn Backend> = Arc::new(Oracle::new(&Options {
        jobs: 1,
        ..Options::default()
    }));
    let cat = catalog();
    let paths = vectors::list(&dir).expect("the golden vectors are readable");
    assert!(!paths.is_empty(), "no golden vectors in {}", dir.display());
    let trials = paths
        .into_iter()
        .map(|path| {
            let name = path
                .file_name()
                .unwrap()
                .to_string_lossy()
                .trim_end_matches(".vec.gz")
                .to_string();
            let family = spec::vector::form_by_key(&name)
                .map_or("?", |i| cat.family_of(&cat.forms[i]).id)
                .to_string();
            let oracle = Arc::clone(&oracle);
            Trial::test(name, move || {
                let file = vectors::load(&path).map_err(|e| Failed::from(format!("{}: {e}", path.display())))?;
                let fv = FormVectors {
                    form: file.form,
                    vectors: file.vectors,
                    source: path.display().to_string(),
                };
                let r = check_form(&*oracle, &fv, &Settings::default());
                match r.status {
                    Status::Passed => Ok(()),
                    Status::Skipped => Err(format!("skipped: {}", r.reason.unwrap_or_default()).into()),
                    Status::Failed => {
                        let mut msg = format!("{} of {} vectors wrong", r.failed, r.vectors);
                        if let Some(why) = r.reason {
                            msg.push_str(&format!("\n{why}"));
                        }
                        for m in r.mismatches {
                            msg.push_str(&format!(
                                "\nvector {}: {}\n  got {}",
                                m.index,
                                m.vector,
                                m.actual.join(" ")
                            ));
                        }
                        Err(msg.into())
                    }
                }
            })
            .with_kind(family)
        })
        .collect();
    libtest_mimic::run(&args, trials).exit();
}
