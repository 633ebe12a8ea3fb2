use std::collections::BTreeMap;

use super::*;
use crate::file::parse;

fn ctx() -> Context {
    Context { online: vec![0, 1], default_cell_time: Duration::from_millis(60), seed_if_absent: 99 }
}

fn plan(src: &str) -> Result<Plan, PlanError> {
    expand(&parse(src)?, &ctx())
}

fn err(src: &str) -> PlanError {
    plan(src).expect_err("the plan is refused")
}

#[test]
fn full_factorial_times_repetitions() {
    let p = plan(
        "repetitions = 3\norder = \"listed\"\n[factors]\nlink = [\"pipe\", \"unix\"]\n\
         size = [64, \"4K\"]\nchannels = [1, 8]\n",
    )
    .unwrap();
    assert_eq!(p.cells.len(), 2 * 2 * 2 * 3);
    assert_eq!(p.varied, ["link", "size", "channels"]);
    assert_eq!(p.cell_time_ns, 60_000_000);
    assert_eq!(p.seed, 99, "no seed given: the drawn one is recorded");
    // Listed: the last factor varies fastest, repetitions innermost.
    let first: Vec<_> =
        p.cells[..6].iter().map(|c| (c.link.as_str(), c.size_bytes, c.channels, c.rep)).collect();
    assert_eq!(
        first,
        [
            ("pipe", 64, 1, 0),
            ("pipe", 64, 1, 1),
            ("pipe", 64, 1, 2),
            ("pipe", 64, 8, 0),
            ("pipe", 64, 8, 1),
            ("pipe", 64, 8, 2)
        ]
    );
    let f = &p.cells[4].factors;
    assert_eq!(f.get("channels").map(String::as_str), Some("8"));
    assert_eq!(f.get("rep").map(String::as_str), Some("1"));
    assert!(p.cells.iter().enumerate().all(|(i, c)| c.index as usize == i));
}

#[test]
fn random_order_is_a_permutation_fixed_by_the_seed() {
    let src = |seed: u64, order: &str| {
        format!(
            "seed = {seed}\norder = \"{order}\"\nrepetitions = 2\n[factors]\n\
             link = [\"pipe\", \"unix\", \"tcp\"]\nsize = [1, 64, 4096]\n"
        )
    };
    let listed = plan(&src(5, "listed")).unwrap();
    let a = plan(&src(5, "random")).unwrap();
    let b = plan(&src(5, "random")).unwrap();
    let c = plan(&src(6, "random")).unwrap();
    assert_eq!(a, b, "the same seed gives the same order");
    assert_ne!(a.cells, c.cells, "another seed, another order");
    let key = |c: &PlanCell| (c.link.clone(), c.size_bytes, c.rep);
    assert_ne!(
        a.cells.iter().map(key).collect::<Vec<_>>(),
        listed.cells.iter().map(key).collect::<Vec<_>>(),
        "shuffled"
    );
    let mut x: Vec<_> = a.cells.iter().map(key).collect();
    let mut y: Vec<_> = listed.cells.iter().map(key).collect();
    x.sort();
    y.sort();
    assert_eq!(x, y, "the same cells");
    // Known answer: pins the generator and the shuffle (ORDER_GENERATOR).
    let first: Vec<_> = a.cells[..4].iter().map(key).collect();
    let expect: Vec<(String, u64, u32)> =
        FIRST_FOUR_SEED_5.iter().map(|&(l, s, r)| (l.to_string(), s, r)).collect();
    assert_eq!(first, expect, "change ORDER_GENERATOR if the stream changes on purpose");
}

/// The first four cells of the seed-5 plan above, recorded when the order
/// generator was written.
const FIRST_FOUR_SEED_5: [(&str, u64, u32); 4] =
    [("unix", 4096, 1), ("unix", 64, 1), ("tcp", 4096, 0), ("tcp", 1, 0)];

#[test]
fn exclude_and_listed_subsets() {
    let p = plan(
        "[factors]\nlink = [\"pipe\", \"unix\"]\nsize = [64, 4096]\n\
         [[exclude]]\nlink = \"unix\"\nsize = 4096\n",
    )
    .unwrap();
    let cells: Vec<_> = p.cells.iter().map(|c| (c.link.clone(), c.size_bytes)).collect();
    assert_eq!(cells.len(), 3);
    assert!(!cells.contains(&("unix".into(), 4096)));

    let p = plan(
        "[factors]\nlink = [\"pipe\", \"unix\"]\nsize = [64, 4096]\nchannels = [1, 4]\n\
         [[cell]]\nlink = \"pipe\"\nsize = 64\n[[cell]]\nlink = \"unix\"\nchannels = 4\n",
    )
    .unwrap();
    // pipe 64 × both channel counts, and unix × both sizes at 4 channels.
    assert_eq!(p.cells.len(), 4);
    assert!(p.cells.iter().all(|c| c.link == "pipe" || c.channels == 4));
}

#[test]
fn a_factor_applies_only_where_it_means_something() {
    let p = plan(
        "order = \"listed\"\n[factors]\nlink = [\"shm\", \"pipe\"]\nwait = [\"spin\", \"futex\"]\n",
    )
    .unwrap();
    let links: Vec<_> = p.cells.iter().map(|c| c.link.as_str()).collect();
    assert_eq!(links, ["shm?wait=spin", "shm?wait=futex", "pipe"], "pipe once, not per wait");
    let shm = &p.cells[0].factors;
    assert_eq!(
        shm,
        &BTreeMap::from([("link".to_string(), "shm".to_string()), ("wait".into(), "spin".into())])
    );
    assert!(p.cells[2].factors.is_empty());
}

#[test]
fn cpu_pairs_and_scheduling() {
    let mut c = ctx();
    c.online = vec![0, 1, 2];
    let src =
        "[factors]\nlink = \"pipe\"\ncpus = \"all-pairs\"\nsched = [\"other\", \"fifo:50\"]\n";
    let p = expand(&parse(src).unwrap(), &c).unwrap();
    assert_eq!(p.cells.len(), 6 * 2);
    assert!(
        p.cells.iter().any(|x| x.cpus == Some((2, 1)) && x.sched == Some(SchedLevel::Fifo(50)))
    );
    assert!(p.cells.iter().all(|x| x.cpus.is_some_and(|(h, p)| h != p)));
    assert_eq!(p.cells[0].factors.len(), 2, "cpus and sched are stored with each cell");
}

#[test]
fn the_example_plans_expand() {
    let p = plan(include_str!("../../../../plans/003-matrix.toml")).unwrap();
    // 5 sizes × 3 channel counts × 4 transfers, minus one, × 3 repetitions.
    assert_eq!(p.cells.len(), (5 * 3 * 4 - 1) * 3);
    assert_eq!(p.varied, ["size", "channels", "transfer"]);
    assert!(p.cells.iter().all(|c| c.transfer_bytes.is_some()));
    let p = plan(include_str!("../../../../plans/002-factors.toml")).unwrap();
    // shm × 2 waits + unix, × 3 sizes × 2 CPU pairs (two CPUs here), × 5.
    assert_eq!(p.cells.len(), 3 * 3 * 2 * 5);
}

#[test]
fn bad_plans_name_the_line_and_the_way_out() {
    let e = err("[factors]\nlink = [\"pipe\"]\nwait = [\"spin\"]\n");
    assert_eq!(e.line, Some(3));
    assert!(e.message.contains("applies to no cell") && e.message.contains("shm"), "{e}");

    let e = err("[factors]\nlink = \"pipe\"\ndirection = \"h2p\"\n");
    assert_eq!(e.line, Some(3));
    assert!(e.message.contains("only the oneway and stream patterns"), "{e}");

    let e = err("[factors]\nlink = [\"shm?wait=spin\"]\nwait = [\"futex\"]\n");
    assert!(e.message.contains("already sets wait"), "{e}");

    let e = err("[factors]\nlink = \"pipe\"\npattern = [\"pingpong\", \"bulk\"]\n");
    assert_eq!(e.line, Some(3));
    assert!(e.message.contains("bulk needs a wire protocol"), "{e}");

    let e = err("[factors]\nlink = \"tty:/dev/ttyRPMSG0\"\n");
    assert!(e.message.contains("local links"), "{e}");

    let e = err("[factors]\nlink = \"pipe\"\nchannels = [1, 64]\n");
    assert!(e.message.contains("1 to 32"), "{e}");

    let e = err("[factors]\nlink = \"pipe\"\ncpus = \"0,7\"\n");
    assert!(e.message.contains("CPU 7 is not online"), "{e}");

    let e = err("[factors]\nlink = \"pipe\"\ncpus = \"1,1\"\n");
    assert!(e.message.contains("two different CPUs"), "{e}");

    let e = err("[factors]\nlink = \"pipe\"\nsize = [64]\n[[exclude]]\nsize = 65\n");
    assert_eq!(e.line, Some(5));
    assert!(e.message.contains("not one of its levels (64)"), "{e}");

    let e = err("[factors]\nlink = \"pipe\"\n[[exclude]]\nchannels = 2\n");
    assert!(e.message.contains("does not declare"), "{e}");

    let e = err("[factors]\nlink = \"pipe\"\n[[exclude]]\nlink = \"pipe\"\n");
    assert!(e.message.contains("no cell is left"), "{e}");

    let e = err("[factors]\nsize = 64\n");
    assert!(e.message.contains("no link"), "{e}");

    let e = err("[factors]\nlink = \"pipe\"\npattern = \"timer\"\n");
    assert!(e.message.contains("icbench timer"), "{e}");

    let e = err("[factors]\nlink = \"pipe?colour=red\"\n");
    assert_eq!(e.line, Some(2));
}

#[test]
fn direction_applies_to_oneway_and_oneway_cannot_take_channels() {
    let p = plan(
        "order = \"listed\"\n[factors]\nlink = \"unix\"\npattern = [\"oneway\", \"pingpong\"]\n\
         direction = [\"h2p\", \"p2h\"]\n",
    )
    .unwrap();
    let cells: Vec<_> = p.cells.iter().map(|c| (c.pattern, c.direction.as_deref())).collect();
    assert_eq!(
        cells,
        [(Pattern::OneWay, Some("h2p")), (Pattern::OneWay, Some("p2h")), (Pattern::PingPong, None)]
    );
    assert_eq!(p.cells[0].factors.get("direction").map(String::as_str), Some("h2p"));
    let both =
        plan("[factors]\nlink = \"unix\"\npattern = \"oneway\"\ndirection = \"both\"\n").unwrap();
    assert_eq!(both.cells.len(), 2, "both: one cell per direction");

    let e = err("[factors]\nlink = \"unix\"\npattern = \"oneway\"\nchannels = [1, 8]\n");
    assert_eq!(e.line, Some(4));
    assert!(e.message.contains("cannot be measured") && e.message.contains("[[exclude]]"), "{e}");
    // Excluding the impossible combination makes the plan good.
    plan(
        "[factors]\nlink = \"unix\"\npattern = [\"oneway\", \"stream\"]\nchannels = [1, 8]\n\
         [[exclude]]\npattern = \"oneway\"\nchannels = 8\n",
    )
    .unwrap();
}

#[test]
fn direction_applies_to_stream_which_streams_peer_to_host_on_one_link_only() {
    let p = plan(
        "order = \"listed\"\n[factors]\nlink = \"unix\"\npattern = [\"stream\", \"pingpong\"]\n\
         direction = [\"h2p\", \"p2h\"]\n",
    )
    .unwrap();
    let cells: Vec<_> = p.cells.iter().map(|c| (c.pattern, c.direction.as_deref())).collect();
    assert_eq!(
        cells,
        [(Pattern::Stream, Some("h2p")), (Pattern::Stream, Some("p2h")), (Pattern::PingPong, None)]
    );
    assert_eq!(p.cells[1].factors.get("direction").map(String::as_str), Some("p2h"));
    assert!(p.cells[2].factors.is_empty(), "pingpong is directionless: {:?}", p.cells[2]);
    assert_eq!(p.varied, ["pattern", "direction"]);

    // Peer → host runs neither on several channels nor with a transfer
    // size; the error names the line and the exclude that drops it.
    let e = err("[factors]\nlink = \"unix\"\npattern = \"stream\"\ndirection = \"both\"\n\
                 channels = [1, 4]\n");
    assert_eq!(e.line, Some(5));
    assert!(e.message.contains("direction = p2h with channels = 4 cannot be measured"), "{e}");
    assert!(e.message.contains("[[exclude]] direction = \"p2h\" and channels = \"4\""), "{e}");
    let e = err("[factors]\nlink = \"unix\"\npattern = \"stream\"\ndirection = \"p2h\"\n\
                 transfer = \"1M\"\n");
    assert_eq!(e.line, Some(5));
    assert!(e.message.contains("with transfer = 1048576 cannot be measured"), "{e}");
    // Excluding it leaves host → peer on channels, peer → host on one link.
    let p = plan(
        "[factors]\nlink = \"unix\"\npattern = \"stream\"\ndirection = \"both\"\n\
         channels = [1, 4]\n[[exclude]]\ndirection = \"p2h\"\nchannels = 4\n",
    )
    .unwrap();
    assert_eq!(p.cells.len(), 3);
}

/// Issue #30 item 6: 216 treatments × 100 000 repetitions is refused in one
/// line that says the count, before a cell is built (it built 21.6 million
/// and 4.9 GB); 1 000 000 exactly is allowed.
#[test]
fn repetitions_times_treatments_past_the_cap_are_refused_before_building() {
    let src = |reps: u32| {
        format!(
            "repetitions = {reps}\n[factors]\nlink = [\"pipe\", \"unix\"]\nsize = [1, 2, 4, 8, \
             16, 32, 64, 128, 256, 512]\n"
        )
    };
    let e = err(&src(100_000)).to_string();
    assert!(e.contains("20 cells × 100000 repetitions is more than 1000000 blocks"), "{e}");
    assert_eq!(plan(&src(50_000)).unwrap().cells.len(), 1_000_000);
}
