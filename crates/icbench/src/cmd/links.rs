//! `icbench links`: the link kinds this build knows and how to name them,
//! then what this machine offers for the rpmsg links (channels, devices,
//! remote processors), each with the exact `--link` spec to use.

use std::io::Write;
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

/// A kind's rows: its `--link` spec, then one row per parameter.
fn rows(k: &KindInfo) -> Vec<(String, &'static str)> {
    let head =
        if k.path.is_empty() { k.name.to_string() } else { format!("{}:{}", k.name, k.path) };
    let mut out = vec![(format!("--link {head}"), k.help)];
    for (name, values, help) in k.params {
        let v = match *values {
            [] => "N".to_string(),
            [one] if one.starts_with('<') => one.trim_matches(['<', '>']).to_uppercase(),
            _ => values.join("|"),
        };
        out.push((format!("    {}?{name}={v}", k.name), *help));
    }
    out
}

/// The kinds' rows with every description in one column, wrapped at the
/// text width (or past the longest spec, if that leaves less than 40).
fn section<'a>(kinds: impl Iterator<Item = &'a KindInfo>) -> Vec<String> {
    let rows: Vec<_> = kinds.flat_map(rows).collect();
    let left = rows.iter().map(|(l, _)| l.chars().count()).max().unwrap_or(0) + 4;
    let room = icbench_report::table::text_width().saturating_sub(left).max(40);
    let mut out = Vec::new();
    for (spec, help) in rows {
        for (i, line) in icbench_report::format::wrap(help, room).into_iter().enumerate() {
            let head = if i == 0 { spec.as_str() } else { "" };
            out.push(format!("  {head:<w$}{line}", w = left - 2).trim_end().to_string());
        }
    }
    out
}

fn kinds(out: &mut impl Write) -> std::io::Result<()> {
    writeln!(out, "local links (between two CPUs of this machine):")?;
    for l in section(KINDS.iter().filter(|k| k.path.is_empty())) {
        writeln!(out, "{l}")?;
    }
    writeln!(
        out,
        "\nremote links (a device; the peer is the core or firmware that answers on it):"
    )?;
    for l in section(KINDS.iter().filter(|k| !k.path.is_empty())) {
        writeln!(out, "{l}")?;
    }
    writeln!(out)?;
    para(
        out,
        "`icbench run` with no --link measures every local link, and shm?wait=futex besides.",
    )?;
    para(
        out,
        "Remote links need --protocol icb|dimtass|raw; `--peer-cmd` starts a peer program \
         (e.g. firmware/build/icb-peer --path {path} on a pty).",
    )
}

/// `text` wrapped to the text width.
fn para(out: &mut impl Write, text: &str) -> std::io::Result<()> {
    for l in icbench_report::format::wrap(text, icbench_report::table::text_width()) {
        writeln!(out, "{l}")?;
    }
    Ok(())
}

fn offers(out: &mut impl Write, d: &Discovery, roots: &Roots) -> std::io::Result<()> {
    if d.is_empty() {
        writeln!(out)?;
        para(
            out,
            &format!(
                "no rpmsg devices or remote processors here ({} and {} show none)",
                roots.sys_path("bus/rpmsg").display(),
                roots.sys_path("class/remoteproc").display()
            ),
        )?;
        return Ok(());
    }
    if !d.remoteprocs.is_empty() {
        writeln!(out, "\nremote processors:")?;
        for r in &d.remoteprocs {
            writeln!(
                out,
                "  {:<14} {:<10} firmware {}",
                r.label(),
                r.state,
                r.firmware.as_deref().unwrap_or("?")
            )?;
        }
    }
    if !d.channels.is_empty() {
        writeln!(out, "\nrpmsg channels (/sys/bus/rpmsg/devices):")?;
        for c in &d.channels {
            writeln!(
                out,
                "  {}  name {} src {} dst {}{}{}",
                c.device,
                c.name.as_deref().unwrap_or("?"),
                addr(c.src),
                addr(c.dst),
                c.driver.as_deref().map(|d| format!(" driver {d}")).unwrap_or_default(),
                c.remote.as_deref().map(|r| format!(" on {r}")).unwrap_or_default(),
            )?;
            if let Some(ctrl) = d.ctrl.first() {
                writeln!(out, "      --link '{}'", rpmsg::ctrl_spec(ctrl, c))?;
            } else if c.driver.is_none() {
                writeln!(out, "      icbench rpmsg bind {}", c.device)?;
            }
        }
    }
    for (title, nodes) in
        [("rpmsg_ctrl devices", &d.ctrl), ("rpmsg endpoint devices", &d.endpoints)]
    {
        if nodes.is_empty() {
            continue;
        }
        writeln!(out, "\n{title}:")?;
        for n in nodes {
            let what = match (&n.name, n.dst) {
                (Some(name), dst) => format!("  name {name} src {} dst {}", addr(n.src), addr(dst)),
                _ => String::new(),
            };
            if title.starts_with("rpmsg_ctrl") {
                writeln!(
                    out,
                    "  {}{what}  (--link 'rpmsg-ctrl:{}?name=NAME&dst=DST')",
                    n.path.display(),
                    n.path.display()
                )?;
            } else {
                writeln!(out, "  --link {}{what}", rpmsg::endpoint_spec(n))?;
            }
        }
    }
    if !d.ttys.is_empty() {
        writeln!(out, "\nrpmsg ttys (byte streams):")?;
        for n in &d.ttys {
            writeln!(out, "  --link tty:{}", n.path.display())?;
        }
    }
    Ok(())
}

pub fn links(roots: &Roots) -> Result<ExitCode> {
    // Written, not printed: `icbench links | head` ends quietly (exit 0).
    let mut out = crate::term::stdout();
    kinds(&mut out)?;
    offers(&mut out, &rpmsg::discover(roots), roots)?;
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptions_start_in_one_column_and_wrap() {
        for local in [true, false] {
            let lines = section(KINDS.iter().filter(|k| k.path.is_empty() == local));
            // The column: where the first row's description starts.
            let first = &lines[0];
            let gap = 2 + first[2..].find("  ").expect("a description");
            let col = first.len() - first[gap..].trim_start().len();
            for l in &lines {
                let width = icbench_report::table::text_width();
                assert!(l.chars().count() <= width || !l[..col].trim().is_empty(), "{l}");
                let (spec, rest) = l.split_at(col);
                assert!(spec.ends_with("  ") || spec.trim().is_empty(), "misaligned: {l}");
                assert!(!rest.starts_with(' '), "misaligned: {l}");
            }
            assert!(lines.iter().any(|l| l.trim_start().starts_with("shm?wait=")) || !local);
        }
    }
}
