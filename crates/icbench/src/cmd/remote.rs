//! `icbench rpmsg bind|unbind` and `icbench remote list|status|start|stop|
//! load`: thin wrappers over the sysfs code in icbench-link, printing what
//! changed and the `--link` spec to use next.

use std::process::ExitCode;

use anyhow::{Result, anyhow};
use icbench_link::remoteproc::{self, Remoteproc};
use icbench_link::{Roots, SysfsError, rpmsg};

use crate::cli::{RemoteCommand, RpmsgCommand, RprocArg};
use crate::error::bad;

fn sysfs_err(e: SysfsError) -> anyhow::Error {
    match e {
        SysfsError::NotFound(m) => bad(m),
        SysfsError::Failed(m) => anyhow!(m),
    }
}

pub fn rpmsg(roots: &Roots, c: &RpmsgCommand) -> Result<ExitCode> {
    let (verb, ch) = match c {
        RpmsgCommand::Bind(a) => ("bound to", rpmsg::bind(roots, &a.channel, &a.driver)),
        RpmsgCommand::Unbind(a) => ("unbound from", rpmsg::unbind(roots, &a.channel, &a.driver)),
    };
    let ch = ch.map_err(sysfs_err)?;
    let driver = match c {
        RpmsgCommand::Bind(a) | RpmsgCommand::Unbind(a) => &a.driver,
    };
    crate::outln!("{} {verb} {driver}", ch.device)?;
    for dev in &ch.chardevs {
        let path = roots.dev.join(dev);
        if dev.starts_with("rpmsg_ctrl") {
            let dst = ch.dst.map_or("DST".into(), |d| d.to_string());
            let name = ch.name.as_deref().unwrap_or("icbench");
            crate::outln!("  --link 'rpmsg-ctrl:{}?name={name}&dst={dst}'", path.display())?;
        } else {
            crate::outln!("  --link rpmsg:{}", path.display())?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The remoteproc named, or the only one.
fn pick(roots: &Roots, which: &RprocArg) -> Result<Remoteproc> {
    if let Some(w) = &which.rproc {
        return remoteproc::find(roots, w).map_err(sysfs_err);
    }
    let all = remoteproc::list(roots);
    match all.len() {
        1 => Ok(all.into_iter().next().expect("one")),
        0 => Err(bad(format!(
            "no remote processors: {} lists none",
            roots.sys_path("class/remoteproc").display()
        ))),
        _ => Err(bad(format!(
            "there are {} remote processors: name one with --rproc ({})",
            all.len(),
            all.iter().map(Remoteproc::label).collect::<Vec<_>>().join(", ")
        ))),
    }
}

fn print(r: &Remoteproc) -> std::io::Result<()> {
    crate::outln!(
        "{:<14} {:<12} {:<10} {}",
        r.id,
        r.name.as_deref().unwrap_or("–"),
        r.state,
        r.firmware.as_deref().unwrap_or("–")
    )
}

pub fn remote(roots: &Roots, c: &RemoteCommand) -> Result<ExitCode> {
    match c {
        RemoteCommand::List => {
            let all = remoteproc::list(roots);
            if all.is_empty() {
                crate::outln!(
                    "no remote processors ({} lists none)",
                    roots.sys_path("class/remoteproc").display()
                )?;
            } else {
                crate::outln!("{:<14} {:<12} {:<10} firmware", "remoteproc", "name", "state")?;
                all.iter().try_for_each(print)?;
            }
        }
        RemoteCommand::Status(w) => print(&pick(roots, w)?)?,
        RemoteCommand::Start(w) => {
            let r = pick(roots, w)?;
            remoteproc::start(&r).map_err(sysfs_err)?;
            crate::outln!(
                "{}: start requested (firmware '{}')",
                r.label(),
                r.firmware.as_deref().unwrap_or("?")
            )?;
        }
        RemoteCommand::Stop(w) => {
            let r = pick(roots, w)?;
            remoteproc::stop(&r).map_err(sysfs_err)?;
            crate::outln!("{}: stop requested", r.label())?;
        }
        RemoteCommand::Load(a) => {
            let r = pick(roots, &a.which)?;
            remoteproc::load(&r, &a.firmware).map_err(sysfs_err)?;
            crate::outln!(
                "{}: firmware set to '{}'; `icbench remote start -r {}` runs it",
                r.label(),
                a.firmware,
                r.id
            )?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
