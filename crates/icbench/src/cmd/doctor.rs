//! `icbench doctor`: examine the machine (crate::doctor) and render it.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Result;
use icbench_engine::cpu::CpuList;

use crate::cli::DoctorArgs;
use crate::doctor::{self, Roots};
use crate::error::bad;

pub fn doctor(a: &DoctorArgs) -> Result<ExitCode> {
    let roots = Roots::under(&a.root);
    let online = roots
        .sys("devices/system/cpu/online")
        .and_then(|t| CpuList::parse(&t))
        .ok_or_else(|| {
            bad(format!(
                "--root {}: no {} (the list of online CPUs); give the directory that holds sys/",
                a.root.display(),
                roots.sys.join("devices/system/cpu/online").display()
            ))
        })?;
    let (host, peer) = super::pair_in(&a.cpus, &online)?;
    // The counter is read live: only meaningful when the tree is this machine's.
    let live = a.root == std::path::Path::new("/");
    let counter = live.then(|| icbench_engine::counter::probe(host, peer));
    let report = doctor::examine(&roots, host, peer, &doctor::permit::probe(), counter.as_ref());
    let mut out = crate::term::stdout();
    if a.json {
        doctor::render::json(&report, &mut out)?;
    } else {
        doctor::render::text(&report, &mut out)?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
