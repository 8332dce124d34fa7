//! `ptxconf run --workers N`: the launch's CTAs on N host threads, the reply and the counts
//! the same for every N (issue 18); 0 is refused.

mod common;
use common::ptxconf;

#[test]
fn run_gives_the_same_reply_on_any_number_of_workers() {
    // 4×3 CTAs in x and y, and 4 clusters of 2 CTAs.
    for launch in [
        "corpus/ptx/llvm/transpose2d.launch.json",
        "corpus/ptx/nvrtc/cluster_2d.launch.json",
    ] {
        let out = |workers: &str| {
            let o = ptxconf()
                .args(["run", "--stats", "--workers", workers, launch])
                .output()
                .unwrap();
            assert!(
                o.status.success(),
                "{launch} on {workers}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
            (o.stdout, o.stderr)
        };
        let one = out("1");
        assert!(
            String::from_utf8_lossy(&one.0).contains("\"status\": \"ok\""),
            "{launch}"
        );
        for workers in ["2", "4"] {
            assert_eq!(out(workers), one, "{launch} on {workers} workers");
        }
    }
    let o = ptxconf()
        .args(["run", "--workers", "0", "corpus/ptx/llvm/transpose2d.launch.json"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
}
