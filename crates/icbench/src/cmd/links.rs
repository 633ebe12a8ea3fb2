//! `icbench links`: the link kinds this build knows and how to name them.

use std::process::ExitCode;

use anyhow::Result;
use icbench_link::KINDS;

pub fn links() -> Result<ExitCode> {
    println!("local links (between two CPUs of this machine):");
    for k in KINDS {
        println!("  --link {:<10} {}", k.name, k.help);
        for (name, values, help) in k.params {
            let v = if values.is_empty() { "N".to_string() } else { values.join("|") };
            println!("      {}?{name}={v:<16} {help}", k.name);
        }
    }
    println!("\n`icbench run` with no --link measures all of them, and shm?wait=futex besides.");
    Ok(ExitCode::SUCCESS)
}
