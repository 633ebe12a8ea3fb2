//! Property tests over generated argument vectors and plan files (issue
//! #22): whatever a careless or hostile user types, `icbench run`'s parsing
//! and validation end in a value or one error (a one-line message with exit
//! 2 at the CLI), never a panic. cargo-fuzz needs nightly Rust, which CI
//! does not have; these run with every `cargo test` (PROPTEST_CASES sets
//! how many; the ARM runs under qemu take 32).

use clap::Parser;
use proptest::prelude::*;

use crate::cli::{Cli, Command};

/// A value for a flag: plausible (numbers with units, link specs, lists)
/// or arbitrary text.
fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        "[0-9]{1,25}(\\.[0-9]{1,5})?(|s|ms|us|h|min|K|M|G|B|KiB|%)",
        "(shm|pipe|unix|tcp|pty|mq|netlink|tty|rpmsg|rpmsg-ctrl)(:[a-z/0-9]{0,8})?(\\?[a-z]{1,6}=[a-z0-9]{0,6}(&[a-z]{1,6}=[a-z0-9]{0,4})?)?",
        "[0-9KM,-]{1,12}",
        "(pingpong|stream|oneway|bulk|h2p|p2h|both|icb|raw|dimtass|process|thread|latest)",
        "\\PC{0,16}",
    ]
}

fn flag() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "-L",
        "-s",
        "-p",
        "--cpus",
        "--timeout",
        "--cell-time",
        "--window",
        "--fifo",
        "--channels",
        "--direction",
        "--blocks",
        "--protocol",
        "--ci",
        "--ci-max-time",
        "--peer",
        "--peer-fault",
        "--transfer",
        "--peer-cmd",
    ])
}

proptest! {
    #[test]
    fn any_run_arguments_parse_to_a_plan_or_an_error(
        args in prop::collection::vec((flag(), value()), 0..6)
    ) {
        let mut argv = vec!["icbench".to_string(), "run".to_string(), "--dry-run".to_string()];
        for (f, v) in args {
            argv.push(f.to_string());
            argv.push(v);
        }
        if let Ok(Cli { command: Command::Run(a), .. }) = Cli::try_parse_from(&argv) {
            // Ok or Err; a panic fails the property.
            let _ = super::flags::resolve(&a);
        }
    }

    #[test]
    fn any_plan_text_parses_or_is_refused(src in plan_text()) {
        let _ = icbench_plan::file::parse(&src);
    }
}

/// Plan files: TOML of the plan's own keys and factors with generated
/// values, or arbitrary text.
fn plan_text() -> impl Strategy<Value = String> {
    let key = prop::sample::select(vec![
        "seed",
        "cell_time",
        "budget",
        "order",
        "repetitions",
        "cpus",
        "timeout",
    ]);
    let factor = prop::sample::select(vec![
        "link",
        "size",
        "pattern",
        "protocol",
        "blocks",
        "channels",
        "sched",
        "direction",
        "cpus",
    ]);
    let scalar = prop_oneof![
        "\"[0-9]{1,22}(\\.[0-9])?(s|ms|us|h|min)?\"",
        "-?[0-9]{1,21}",
        "\"\\PC{0,10}\"",
        "\"(all-pairs|listed|random|shm|pipe|shm\\?slots=[0-9]{1,4})\"",
    ];
    let list =
        prop::collection::vec(scalar.clone(), 0..4).prop_map(|v| format!("[{}]", v.join(", ")));
    let top = prop::collection::vec((key, scalar.clone()), 0..4);
    let factors = prop::collection::vec((factor, prop_oneof![scalar, list]), 0..4);
    prop_oneof![
        (top, factors).prop_map(|(top, factors)| {
            let mut s: String = top.iter().map(|(k, v)| format!("{k} = {v}\n")).collect();
            s.push_str("[factors]\n");
            s.extend(factors.iter().map(|(k, v)| format!("{k} = {v}\n")));
            s
        }),
        "\\PC{0,80}",
    ]
}
