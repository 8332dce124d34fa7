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
    ptxas_accepts(&Config::default(), "ptxas_accepts_generated_programs", 500, |_| true);
}

/// ... and so it does for sm_90a with warpgroup-sized CTAs, where programs contain `wgmma`.
#[test]
fn ptxas_accepts_generated_sm_90a_programs() {
    let cfg = Config {
        target: spec::catalog::Target::parse("sm_90a").unwrap(),
        warps: 4,
        ..Config::default()
    };
    ptxas_accepts(&cfg, "ptxas_accepts_generated_sm_90a_programs", 100, |_| true);
}

/// ... and for sm_90a programs in clusters of two CTAs that contain the bulk copies, mbarrier
/// forms and distributed shared memory of issue 16 (the first `PTXCONF_PTXAS_PROGRAMS`, default
/// 50, of those that contain one).
#[test]
fn ptxas_accepts_generated_bulk_and_cluster_programs() {
    let cfg = Config {
        target: spec::catalog::Target::parse("sm_90a").unwrap(),
        ctas: 2,
        ..Config::default()
    };
    ptxas_accepts(&cfg, "ptxas_accepts_generated_bulk_and_cluster_programs", 50, |ptx| {
        [
            "cp.async.bulk",
            "cp.reduce.async.bulk",
            "mapa",
            "elect.sync",
            "pending_count",
            "st.bulk",
        ]
        .iter()
        .any(|w| ptx.contains(w))
    });
}

/// The first `PTXCONF_PTXAS_PROGRAMS` (default `default_n`) programs of `cfg` that `keep`
/// selects (by their text) pass ptxas.
fn ptxas_accepts(cfg: &Config, test: &str, default_n: u64, keep: fn(&str) -> bool) {
    let Some(ptxas) = oracle::ptxas::required(test) else {
        return;
    };
    let n: u64 = std::env::var("PTXCONF_PTXAS_PROGRAMS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default_n);
    let dir = std::env::temp_dir().join(format!("ptxconf-gen-ptxas-{}-{test}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let arch = format!("{}", cfg.target).trim_start_matches("sm_").to_string();
    let rejected = std::sync::Mutex::new(Vec::new());
    let seeds: Vec<u64> = (0..)
        .filter(|&s| keep(&from_seed(s, cfg).ptx))
        .take(n as usize)
        .collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(&seed) = seeds.get(k) else {
                    break;
                };
                let p = from_seed(seed, cfg);
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

/// The tensor-core constructs appear in programs of the default configuration — `ldmatrix`,
/// `stmatrix` (sm_90), integer and floating-point `mma` of several element types — and the
/// programs that contain them pass the oracle's checker and run clean, with the generator's
/// assumptions confirmed ([`generators::program::checked`]).
#[test]
fn programs_contain_tensor_core_constructs() {
    let cfg = Config::default();
    let want = [
        ("ldmatrix.sync.aligned", 0),
        ("stmatrix.sync.aligned", 0),
        (".f32.f16.f16.", 0),
        (".bf16.bf16.", 0),
        (".tf32.tf32.", 0),
        (".f64.f64.f64.f64", 0),
        (".e4m3.", 0),
        (".e5m2.", 0),
        (".s32.s8.", 0),
    ];
    let mut count = want;
    let mut failures = Vec::new();
    for seed in 0..400u64 {
        let p = from_seed(seed, &cfg);
        let mut any = false;
        for (w, n) in count.iter_mut() {
            let hit = p.ptx.lines().any(|l| {
                let l = l.trim_start();
                (l.starts_with("mma.sync") || l.starts_with(*w)) && l.contains(*w)
            });
            if hit {
                *n += 1;
                any = true;
            }
        }
        if any {
            if let Err(e) = generators::program::checked(seed, &cfg) {
                failures.push(format!("seed {seed}: {e}"));
            }
        }
    }
    assert!(failures.is_empty(), "{} failed; first: {}", failures.len(), failures[0]);
    for (w, n) in count {
        assert!(n > 0, "no program of 400 contains `{w}`: {count:?}");
    }
    eprintln!("programs of 400 containing each construct: {count:?}");
}

/// With an sm_90a target and warpgroup-sized CTAs, programs contain `wgmma.mma_async` with
/// its fences, and run clean on the oracle with the generator's assumptions confirmed.
#[test]
fn sm_90a_programs_contain_wgmma() {
    let cfg = Config {
        target: spec::catalog::Target::parse("sm_90a").unwrap(),
        warps: 4,
        ..Config::default()
    };
    let mut n = 0;
    for seed in 0..150u64 {
        let p = from_seed(seed, &cfg);
        if !p.ptx.contains("wgmma.mma_async") {
            continue;
        }
        n += 1;
        for w in [
            "fence.proxy.async",
            "wgmma.fence",
            "wgmma.commit_group",
            "wgmma.wait_group",
        ] {
            assert!(p.ptx.contains(w), "seed {seed}: no {w}");
        }
        if let Err(e) = generators::program::checked(seed, &cfg) {
            panic!("seed {seed}: {e}");
        }
    }
    assert!(n > 0, "no wgmma in 150 programs");
    eprintln!("programs of 150 containing wgmma.mma_async: {n}");
}

/// Asynchronous copies and mbarrier phases appear in programs of the default configuration
/// (issue 16) — `cp.async` with commit groups and waits, src-size zero fill, `wait_group N` with
/// N > 0, mbarrier phases by state and by parity, `arrive_drop`, `cp.async.mbarrier.arrive`
/// with and without `.noinc` — and the programs that contain them pass the oracle's checker and
/// run clean (no race, no mbarrier misuse), with the generator's assumptions confirmed.
#[test]
fn programs_contain_async_copies_and_mbarriers() {
    let cfg = Config::default();
    let n = 400u64;
    let want = [
        "cp.async.ca.",
        "cp.async.cg.",
        "cp.async.commit_group",
        "cp.async.wait_all",
        "cp.async.wait_group 0",
        "cp.async.wait_group 1",
        "cp.async.wait_group 2",
        "mbarrier.init.shared.b64",
        "mbarrier.arrive.shared.b64",
        "mbarrier.arrive_drop.shared.b64",
        "mbarrier.test_wait.shared.b64",
        "mbarrier.try_wait.shared.b64",
        "mbarrier.test_wait.parity.",
        "mbarrier.try_wait.parity.",
        "cp.async.mbarrier.arrive.shared.b64",
        "cp.async.mbarrier.arrive.noinc.",
        "mbarrier.inval.shared.b64",
        "mbarrier.expect_tx.",
        "mbarrier.complete_tx.",
    ];
    let mut count: Vec<(&str, u32)> = want.iter().map(|w| (*w, 0)).collect();
    let (mut src_size, mut ignore_src) = (0, 0);
    let mut failures = Vec::new();
    for seed in 0..n {
        let p = from_seed(seed, &cfg);
        let mut any = false;
        for (w, k) in count.iter_mut() {
            if p.ptx.lines().any(|l| unguarded(l).starts_with(*w)) {
                *k += 1;
                any = true;
            }
        }
        // A src-size (an immediate) or ignore-src (a predicate): a fourth operand.
        let fourth = |l: &str| l.contains("cp.async.c") && l.matches(',').count() == 3;
        if p.ptx.lines().any(|l| fourth(l) && !l.contains("%p")) {
            src_size += 1;
        }
        if p.ptx.lines().any(|l| fourth(l) && l.contains("%p")) {
            ignore_src += 1;
        }
        if any {
            if let Err(e) = generators::program::checked(seed, &cfg) {
                failures.push(format!("seed {seed}: {e}"));
            }
        }
    }
    eprintln!("programs of {n} containing each construct: {count:?}, src-size {src_size}, ignore-src {ignore_src}");
    assert!(failures.is_empty(), "{} failed; first: {}", failures.len(), failures[0]);
    for (w, k) in &count {
        assert!(*k > 0, "no program of {n} contains `{w}`: {count:?}");
    }
    assert!(src_size > 0, "no cp.async with a src-size in {n} programs");
    assert!(ignore_src > 0, "no cp.async with an ignore-src in {n} programs");
}

/// A line's instruction without its guard (`@%p1 mbarrier.init...`).
fn unguarded(line: &str) -> &str {
    let l = line.trim_start();
    match l.strip_prefix('@') {
        Some(rest) => rest.split_once(' ').map_or(l, |(_, i)| i.trim_start()),
        None => l,
    }
}

/// With CTAs of 4 warps, the mbarrier phases and `cp.async` reads cross warps (a neighbour may
/// be in another warp, which the oracle runs in its own turn): the programs still run clean.
#[test]
fn multi_warp_programs_with_async_copies_and_mbarriers_run_clean() {
    let cfg = Config {
        warps: 4,
        ..Config::default()
    };
    let (mut copies, mut phases) = (0, 0);
    for seed in 0..150u64 {
        let p = from_seed(seed, &cfg);
        let c = p.ptx.contains("cp.async.commit_group");
        let m = p.ptx.contains("mbarrier.init");
        copies += c as u32;
        phases += m as u32;
        if c || m {
            if let Err(e) = generators::program::checked(seed, &cfg) {
                panic!("seed {seed}: {e}");
            }
        }
    }
    assert!(
        copies > 0 && phases > 0,
        "cp.async in {copies}, mbarrier in {phases} of 150"
    );
    eprintln!("programs of 150 (4 warps) with cp.async groups: {copies}, with mbarrier phases: {phases}");
}

/// Bulk copies, the rest of the mbarrier machinery and distributed shared memory appear in
/// programs (issue 16) — `cp.async.bulk` global → shared through an mbarrier's tx-count (to
/// `.shared::cta` and `.shared::cluster`), shared → global through bulk groups with
/// `wait_group` and `wait_group.read`, `cp.reduce.async.bulk` to global and to shared memory,
/// `fence.proxy.async`, `elect.sync`, `fence.mbarrier_init`, `arrive.expect_tx`, counted
/// arrives, `.noComplete` with `pending_count`, `mapa`/`getctarank`, `.shared::cluster` loads
/// and stores, `barrier.cluster` — and every program that contains one passes the oracle's
/// checker and runs clean (no race: every copy awaited, every phase used correctly), with the
/// generator's assumptions confirmed. `cfg` is sm_90 with 1 warp and 2 CTAs (a cluster of two).
#[test]
fn programs_contain_bulk_copies_mbarriers_and_clusters() {
    let cfg = Config {
        ctas: 2,
        ..Config::default()
    };
    let n = 300u64;
    let want = [
        "cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes",
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes",
        "cp.async.bulk.global.shared::cta.bulk_group",
        "cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes",
        "cp.reduce.async.bulk.global.shared::cta.bulk_group",
        "cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes",
        "cp.async.bulk.commit_group",
        "cp.async.bulk.wait_group 0",
        "cp.async.bulk.wait_group.read 0",
        "fence.proxy.async.shared::cta",
        "fence.proxy.async;",
        "elect.sync",
        "fence.mbarrier_init.release.cluster",
        "mbarrier.arrive.expect_tx.",
        "mbarrier.try_wait.parity.shared::cta.b64",
        "mbarrier.test_wait.parity.shared::cta.b64",
        "mbarrier.arrive.noComplete.",
        "mbarrier.pending_count.b64",
        "mapa.shared::cluster.u64",
        "mapa.u64",
        "getctarank.shared::cluster.u64",
        "ld.shared::cluster.b64",
        "st.shared::cluster.b64",
        "barrier.cluster.arrive",
        "barrier.cluster.wait",
    ];
    let mut count: Vec<(&str, u32)> = want.iter().map(|w| (*w, 0)).collect();
    let (mut counted, mut clustered) = (0, 0);
    let mut failures = Vec::new();
    for seed in 0..n {
        let p = from_seed(seed, &cfg);
        let mut any = false;
        for (w, k) in count.iter_mut() {
            if p.ptx.lines().any(|l| format!("{};", unguarded(l)).starts_with(*w)) {
                *k += 1;
                any = true;
            }
        }
        // An arrive on sm_90 that gives its count without `.noComplete`.
        if p.ptx.lines().any(|l| {
            let l = unguarded(l);
            l.starts_with("mbarrier.arrive.shared.b64") && l.ends_with(", 1;")
        }) {
            counted += 1;
        }
        if p.ptx.contains("mapa") {
            assert_eq!(p.launch.cluster, Some([2, 1, 1]), "seed {seed}: no cluster launch");
            clustered += 1;
        }
        if any {
            // The same seed gives the same program, byte for byte.
            let again = from_seed(seed, &cfg);
            assert_eq!(
                (&again.ptx, again.launch.to_json()),
                (&p.ptx, p.launch.to_json()),
                "seed {seed}"
            );
            if let Err(e) = generators::program::checked(seed, &cfg) {
                failures.push(format!("seed {seed}: {e}"));
            }
        }
    }
    eprintln!("programs of {n} containing each construct: {count:?}, counted arrives {counted}, clustered {clustered}");
    assert!(failures.is_empty(), "{} failed; first: {}", failures.len(), failures[0]);
    for (w, k) in &count {
        assert!(*k > 0, "no program of {n} contains `{w}`: {count:?}");
    }
    assert!(counted > 0, "no counted arrive in {n} programs");
}

/// On sm_100 programs also zero shared memory with `st.bulk` (§9.7.9.13), and run clean.
#[test]
fn sm_100_programs_contain_st_bulk() {
    let cfg = Config {
        target: spec::catalog::Target::parse("sm_100a").unwrap(),
        ..Config::default()
    };
    let mut n = 0;
    for seed in 0..300u64 {
        let p = from_seed(seed, &cfg);
        if !p.ptx.contains("st.bulk.weak.shared::cta") {
            continue;
        }
        n += 1;
        if let Err(e) = generators::program::checked(seed, &cfg) {
            panic!("seed {seed}: {e}");
        }
    }
    assert!(n > 0, "no st.bulk in 300 programs");
    eprintln!("programs of 300 (sm_100a) containing st.bulk: {n}");
}

/// The clean runs above mean something: with the `fence.proxy.async` taken out of a program's
/// shared → global bulk copies (the async proxy then reads generic stores nothing orders, L17278),
/// or the leader's `cp.async.bulk.wait_group` (the threads then read a pending destination,
/// L15350), the oracle refuses the program with a runtime error.
#[test]
fn bulk_programs_without_their_fence_or_wait_are_refused() {
    let cfg = Config::default();
    let (mut fences, mut waits) = (0, 0);
    for seed in 0..300u64 {
        let p = from_seed(seed, &cfg);
        if !p.ptx.contains("cp.async.bulk.global.shared::cta") {
            continue;
        }
        for (cut, n) in [
            ("fence.proxy.async", &mut fences),
            ("cp.async.bulk.wait_group", &mut waits),
        ] {
            let ptx: String = p
                .ptx
                .lines()
                .filter(|l| !unguarded(l).starts_with(cut))
                .map(|l| format!("{l}\n"))
                .collect();
            let e = oracle::launch::run(&p.launch, &ptx).expect_err(&format!("seed {seed} without `{cut}` ran"));
            assert_eq!(
                e.kind,
                oracle::error::ErrorKind::Runtime,
                "seed {seed} without `{cut}`: {e}"
            );
            *n += 1;
        }
    }
    assert!(fences > 0 && waits > 0, "no shared → global bulk copy in 300 programs");
}

/// ... and so it does with the `barrier.cluster` pairs taken out of a program that reaches
/// the other CTA of its cluster of two: nothing then orders a peer's access to a CTA's shared memory
/// before that CTA exits (L89).
#[test]
fn cluster_programs_without_their_barriers_are_refused() {
    let cfg = Config {
        ctas: 2,
        ..Config::default()
    };
    let mut n = 0;
    for seed in 0..300u64 {
        let p = from_seed(seed, &cfg);
        // The peer is `s` ranks further (`add.u32 peer, rank, s` after the cluster size is
        // read): with an even `s` each CTA of the pair reaches its own shared memory only.
        let lines: Vec<&str> = p.ptx.lines().collect();
        let crosses = lines.windows(2).any(|w| {
            w[0].contains("%cluster_nctarank")
                && w[1]
                    .trim_end_matches(';')
                    .rsplit(", ")
                    .next()
                    .and_then(|s| s.parse::<u32>().ok())
                    .is_some_and(|s| s % 2 == 1)
        });
        if !crosses {
            continue;
        }
        let ptx: String = p
            .ptx
            .lines()
            .filter(|l| !l.trim_start().starts_with("barrier.cluster"))
            .map(|l| format!("{l}\n"))
            .collect();
        let e = oracle::launch::run(&p.launch, &ptx).expect_err(&format!("seed {seed} without barrier.cluster ran"));
        assert_eq!(e.kind, oracle::error::ErrorKind::Runtime, "seed {seed}: {e}");
        n += 1;
    }
    assert!(n > 0, "no mapa in 300 programs");
}
