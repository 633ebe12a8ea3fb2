//! `icbench links`: the link kinds this build knows and how to name them.

use std::process::ExitCode;

use anyhow::Result;
use icbench_link::{KINDS, KindInfo};

fn print_kind(k: &KindInfo) {
    let name = if k.path { format!("{}:PATH", k.name) } else { k.name.to_string() };
    println!("  --link {name:<12} {}", k.help);
    for (p, values, help) in k.params {
        let v = if values.is_empty() { "N".to_string() } else { values.join("|") };
        println!("      {}?{p}={v:<16} {help}", k.name);
    }
}

pub fn links() -> Result<ExitCode> {
    println!("local links (between two CPUs of this machine):");
    KINDS.iter().filter(|k| !k.path).for_each(print_kind);
    println!("\nremote links (a device; the peer is the firmware that answers on it):");
    KINDS.iter().filter(|k| k.path).for_each(print_kind);
    println!(
        "\n`icbench run` with no --link measures all local links, and shm?wait=futex besides."
    );
    println!(
        "Remote links need --protocol icb|dimtass|raw; `--peer-cmd` starts a peer program \
         (e.g. firmware/build/icb-peer --path {{path}} on a pty)."
    );
    Ok(ExitCode::SUCCESS)
}
