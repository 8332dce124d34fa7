//! Generated programs: deterministic, accepted by the oracle's front end, run to completion on it
//! with the same signature twice.

use generators::program::{from_seed, Config};

#[test]
fn seeds_make_runnable_programs() {
    let cfg = Config::default();
    let mut failures = Vec::new();
    for seed in 0..200u64 {
        let p = from_seed(seed, &cfg);
        if seed == 0 && std::env::var("SHOW").is_ok() {
            println!("{}\n{}", p.ptx, p.launch.to_json());
        }
        match oracle::launch::run(&p.launch, &p.ptx) {
            Ok(_) => {}
            Err(e) => failures.push(format!(
                "seed {seed}: {}\n{}",
                e.location("program.ptx") + ": " + &e.message,
                p.ptx
            )),
        }
    }
    if !failures.is_empty() {
        panic!("{} of 200 failed; first:\n{}", failures.len(), failures[0]);
    }
}

/// NVIDIA's ptxas accepts every generated program for the target it declares (issue 6: 100%).
#[test]
fn ptxas_accepts_generated_programs() {
    let Some(ptxas) = oracle::ptxas::required("ptxas_accepts_generated_programs") else {
        return;
    };
    let n: u64 = std::env::var("PTXCONF_PTXAS_PROGRAMS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(500);
    let dir = std::env::temp_dir().join(format!("ptxconf-gen-ptxas-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cfg = Config::default();
    let arch = format!("{}", cfg.target).trim_start_matches("sm_").to_string();
    let rejected = std::sync::Mutex::new(Vec::new());
    let next = std::sync::atomic::AtomicU64::new(0);
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let seed = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if seed >= n {
                    break;
                }
                let p = from_seed(seed, &cfg);
                let f = dir.join(format!("p{seed}.ptx"));
                std::fs::write(&f, &p.ptx).unwrap();
                let (ok, msg) = oracle::ptxas::accepts(&ptxas, &f, &arch);
                if ok {
                    let _ = std::fs::remove_file(&f);
                } else {
                    rejected.lock().unwrap().push((seed, msg));
                }
            });
        }
    });
    let rejected = rejected.into_inner().unwrap();
    if rejected.is_empty() {
        let _ = std::fs::remove_dir_all(&dir);
    }
    assert!(
        rejected.is_empty(),
        "ptxas rejected {} of {n} programs (kept in {}); first: seed {}: {}",
        rejected.len(),
        dir.display(),
        rejected[0].0,
        rejected[0].1
    );
}
