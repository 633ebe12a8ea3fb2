//! `icbench links`: the link kinds this build knows and how to name them,
//! then what this machine offers for the rpmsg links (channels, devices,
//! remote processors), each with the exact `--link` spec to use.

use std::process::ExitCode;

use anyhow::Result;
use icbench_link::rpmsg::{self, Discovery};
use icbench_link::{KINDS, KindInfo, Roots};

fn addr(a: Option<u32>) -> String {
    match a {
        Some(u32::MAX) => "any".to_string(),
        Some(a) => a.to_string(),
        None => "?".to_string(),
    }
}

fn print_kind(k: &KindInfo) {
    let head =
        if k.path.is_empty() { k.name.to_string() } else { format!("{}:{}", k.name, k.path) };
    println!("  --link {head:<18} {}", k.help);
    for (name, values, help) in k.params {
        let v = match *values {
            [] => "N".to_string(),
            [one] if one.starts_with('<') => one.trim_matches(['<', '>']).to_uppercase(),
            _ => values.join("|"),
        };
        println!("      {}?{name}={v:<16} {help}", k.name);
    }
}

fn kinds() {
    println!("local links (between two CPUs of this machine):");
    KINDS.iter().filter(|k| k.path.is_empty()).for_each(print_kind);
    println!("\nremote links (a device; the peer is the core or firmware that answers on it):");
    KINDS.iter().filter(|k| !k.path.is_empty()).for_each(print_kind);
    println!(
        "\n`icbench run` with no --link measures every local link, and shm?wait=futex besides."
    );
    println!(
        "Remote links need --protocol icb|dimtass|raw; `--peer-cmd` starts a peer program \
         (e.g. firmware/build/icb-peer --path {{path}} on a pty)."
    );
}

fn offers(d: &Discovery, roots: &Roots) {
    if d.is_empty() {
        println!(
            "\nno rpmsg devices or remote processors here ({} and {} show none)",
            roots.sys_path("bus/rpmsg").display(),
            roots.sys_path("class/remoteproc").display()
        );
        return;
    }
    if !d.remoteprocs.is_empty() {
        println!("\nremote processors:");
        for r in &d.remoteprocs {
            println!(
                "  {:<14} {:<10} firmware {}",
                r.label(),
                r.state,
                r.firmware.as_deref().unwrap_or("?")
            );
        }
    }
    if !d.channels.is_empty() {
        println!("\nrpmsg channels (/sys/bus/rpmsg/devices):");
        for c in &d.channels {
            println!(
                "  {}  name {} src {} dst {}{}{}",
                c.device,
                c.name.as_deref().unwrap_or("?"),
                addr(c.src),
                addr(c.dst),
                c.driver.as_deref().map(|d| format!(" driver {d}")).unwrap_or_default(),
                c.remote.as_deref().map(|r| format!(" on {r}")).unwrap_or_default(),
            );
            if let Some(ctrl) = d.ctrl.first() {
                println!("      --link '{}'", rpmsg::ctrl_spec(ctrl, c));
            } else if c.driver.is_none() {
                println!("      icbench rpmsg bind {}", c.device);
            }
        }
    }
    for (title, nodes) in
        [("rpmsg_ctrl devices", &d.ctrl), ("rpmsg endpoint devices", &d.endpoints)]
    {
        if nodes.is_empty() {
            continue;
        }
        println!("\n{title}:");
        for n in nodes {
            let what = match (&n.name, n.dst) {
                (Some(name), dst) => format!("  name {name} src {} dst {}", addr(n.src), addr(dst)),
                _ => String::new(),
            };
            if title.starts_with("rpmsg_ctrl") {
                println!(
                    "  {}{what}  (--link 'rpmsg-ctrl:{}?name=NAME&dst=DST')",
                    n.path.display(),
                    n.path.display()
                );
            } else {
                println!("  --link {}{what}", rpmsg::endpoint_spec(n));
            }
        }
    }
    if !d.ttys.is_empty() {
        println!("\nrpmsg ttys (byte streams):");
        for n in &d.ttys {
            println!("  --link tty:{}", n.path.display());
        }
    }
}

pub fn links(roots: &Roots) -> Result<ExitCode> {
    kinds();
    offers(&rpmsg::discover(roots), roots);
    Ok(ExitCode::SUCCESS)
}
