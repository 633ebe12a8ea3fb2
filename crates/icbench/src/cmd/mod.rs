//! One module per subcommand.

mod analyse;
mod bundle;
mod chip;
mod doctor;
mod effects;
mod floor;
pub(crate) mod generate;
mod import;
mod irq;
mod links;
mod merge;
mod peer;
mod plan;
mod remote;
mod rt;
mod run;
mod show;
mod site;
mod timer;
mod wakeup;

use std::process::ExitCode;

use anyhow::Result;
use icbench_engine::cpu::CpuList;

use crate::cli::{Cli, Command, CpuArgs};
use crate::error::bad;

pub fn dispatch(cli: Cli) -> Result<ExitCode> {
    let roots = icbench_link::Roots::new(&cli.sysfs_root, &cli.dev_root);
    icbench_link::Roots::set_current(roots.clone());
    match cli.command {
        Command::Rpmsg(c) => remote::rpmsg(&roots, &c),
        Command::Remote(c) => remote::remote(&roots, &c),
        Command::Run(a) => run::run(a),
        Command::Plan(crate::cli::PlanCommand::Check(a)) => plan::check(&a),
        Command::Runs(a) => show::runs(&a),
        Command::Label(a) => show::label(&a),
        Command::Show(a) => show::show(&a),
        Command::Model(a) => analyse::model(&a),
        Command::Compare(a) => analyse::compare(&a),
        Command::Effects(a) => effects::effects(&a),
        Command::Export(a) => analyse::export(&a),
        Command::Import(a) => import::import(&a),
        Command::Bundle(a) => bundle::bundle(&a),
        Command::Site(a) => site::site(&a),
        Command::Report(a) => analyse::report(&a),
        Command::Floor(a) => floor::floor(&a),
        Command::Links => links::links(&roots),
        Command::Timer(a) => timer::timer(&a),
        Command::Wakeup(a) => wakeup::wakeup(&a),
        Command::Irq(a) => irq::irq(&a),
        Command::Chip(a) => chip::chip(&a),
        Command::Doctor(a) => doctor::doctor(&a),
        Command::Merge(a) => merge::merge(&a),
        Command::Generate(a) => generate::generate(&a),
        Command::Peer(a) => peer::peer(&a),
    }
}

/// The host and peer CPUs: from `--cpus A,B`, checked against the online
/// CPUs this process may use, or the first two of them.
pub(crate) fn resolve_cpus(args: &CpuArgs) -> Result<(u32, u32, CpuList)> {
    let usable = CpuList::usable();
    let (a, b) = pair_in(args, &usable)?;
    Ok((a, b, usable))
}

/// The pair from `--cpus A,B`, or the first two of `usable`, checked
/// against `usable`.
pub(crate) fn pair_in(args: &CpuArgs, usable: &CpuList) -> Result<(u32, u32)> {
    let (a, b) = match &args.cpus {
        None => usable.default_pair().map_err(|e| bad(e.to_string()))?,
        Some(s) => {
            let parse = |v: &str| v.trim().parse::<u32>().ok();
            match s.split_once(',') {
                Some((a, b)) if parse(a).is_some() && parse(b).is_some() => {
                    (parse(a).unwrap_or(0), parse(b).unwrap_or(0))
                }
                _ => {
                    return Err(bad(format!(
                        "--cpus '{s}': write two CPU numbers, host first: --cpus 0,1"
                    )));
                }
            }
        }
    };
    if a == b {
        return Err(bad(format!("--cpus {a},{b}: the two ends need two different CPUs")));
    }
    for c in [a, b] {
        usable.check(c).map_err(|e| bad(e.to_string()))?;
    }
    Ok((a, b))
}
