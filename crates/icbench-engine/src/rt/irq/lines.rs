//! The GPIO lines of a loopback: which ones (checked before anything is
//! requested), and their requests through the GPIO character device's v2
//! uAPI (the `gpiocdev` crate; Documentation/userspace-api/gpio/chardev.rst
//! and gpio-v2-get-line-ioctl.rst), each refusal turned into one line that
//! says what to do.

use std::path::{Path, PathBuf};

use gpiocdev::line::{EdgeDetection, EventClock, Value};
use gpiocdev::{Chip, Request};

/// The wired pairs on one chip: `out` drives `input`, and optionally
/// `respond` (set by the measuring thread on each edge) drives `respond_in`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoopLines {
    pub chip: PathBuf,
    pub out: u32,
    pub input: u32,
    pub respond: Option<(u32, u32)>,
}

impl LoopLines {
    /// Every line with its role, in the order the options name them.
    fn roles(&self) -> Vec<(&'static str, u32)> {
        let mut v = vec![("--out", self.out), ("--in", self.input)];
        if let Some((r, ri)) = self.respond {
            v.push(("--respond", r));
            v.push(("--respond-in", ri));
        }
        v
    }

    /// Refuses a line named twice (an output wired to itself measures
    /// nothing: the kernel would refuse the second request as busy).
    pub fn check_distinct(&self) -> Result<(), String> {
        let roles = self.roles();
        for (i, (a, la)) in roles.iter().enumerate() {
            if let Some((b, _)) = roles[i + 1..].iter().find(|(_, lb)| lb == la) {
                return Err(format!(
                    "{a} and {b} are both line {la}: the output and the input are two lines \
                     joined by a wire; give two different lines"
                ));
            }
        }
        Ok(())
    }

    /// Refuses a line the chip does not have.
    pub fn check_range(&self, num_lines: u32) -> Result<(), String> {
        for (role, l) in self.roles() {
            if l >= num_lines {
                return Err(format!(
                    "{role} {l}: {} has {num_lines} lines (0-{}); give a line number from \
                     that range (gpioinfo lists them)",
                    self.chip.display(),
                    num_lines.saturating_sub(1)
                ));
            }
        }
        Ok(())
    }
}

/// The requests of a loopback, ready to measure.
#[derive(Debug)]
pub struct Opened {
    pub out: Request,
    pub input: Request,
    pub respond: Option<(Request, Request)>,
    /// The chip's label (e.g. `pinctrl-bcm2711`, `icb-gpio-loop`).
    pub label: String,
    /// The clock the kernel stamps edges on: `CLOCK_MONOTONIC` or `HTE`.
    pub event_clock: &'static str,
}

/// The errno inside a gpiocdev error, if it carries one.
fn errno(e: &gpiocdev::Error) -> Option<i32> {
    use gpiocdev_uapi::{Errno, Error as U};
    match e {
        gpiocdev::Error::Uapi(_, U::Os(Errno(n))) | gpiocdev::Error::Os(Errno(n)) => Some(*n),
        _ => None,
    }
}

/// The one line for a refused line request.
pub fn request_refusal(
    role: &str,
    line: u32,
    chip: &Path,
    errno: Option<i32>,
    holder: Option<&str>,
    detail: &str,
) -> String {
    let chip = chip.display();
    match errno {
        Some(libc::EBUSY) => match holder.filter(|h| !h.is_empty()) {
            Some(h) => format!(
                "{role} {line}: line {line} of {chip} is held by '{h}': stop that program \
                 (or unbind the driver) or pick a free line (gpioinfo shows the holders)"
            ),
            None => format!(
                "{role} {line}: line {line} of {chip} is in use: stop its holder or pick a \
                 free line (gpioinfo shows the holders)"
            ),
        },
        // gpiolib-cdev: edge detection needs gpiod_to_irq() to give an
        // interrupt; a line without one is refused with ENXIO.
        Some(libc::ENXIO) | Some(libc::EOPNOTSUPP) if role.ends_with("in") => format!(
            "{role} {line}: line {line} of {chip} cannot report edges (no interrupt behind it \
             on this chip): wire the output to a line that can"
        ),
        _ => format!("{role} {line}: {chip} refused the line request: {detail}"),
    }
}

fn output(
    chip: &Path,
    line: u32,
    role: &str,
    holder: &dyn Fn(u32) -> Option<String>,
) -> Result<Request, String> {
    Request::builder()
        .on_chip(chip)
        .with_consumer("icbench-irq")
        .with_line(line)
        .as_output(Value::Inactive)
        .request()
        .map_err(|e| {
            request_refusal(role, line, chip, errno(&e), holder(line).as_deref(), &e.to_string())
        })
}

fn input(
    chip: &Path,
    line: u32,
    role: &str,
    clock: EventClock,
    holder: &dyn Fn(u32) -> Option<String>,
) -> Result<Request, String> {
    Request::builder()
        .on_chip(chip)
        .with_consumer("icbench-irq")
        .with_line(line)
        .as_input()
        .with_edge_detection(EdgeDetection::BothEdges)
        .with_event_clock(clock)
        // one edge is in flight at a time; a few spare for stray ones,
        // which the sequence numbers then report
        .with_kernel_event_buffer_size(16)
        .request()
        .map_err(|e| {
            let msg = request_refusal(
                role,
                line,
                chip,
                errno(&e),
                holder(line).as_deref(),
                &e.to_string(),
            );
            if clock == EventClock::Hte && errno(&e) == Some(libc::EOPNOTSUPP) {
                format!(
                    "{role} {line}: line {line} of {} has no hardware timestamp engine: run \
                     without --hte (edges are then stamped on CLOCK_MONOTONIC)",
                    chip.display()
                )
            } else {
                msg
            }
        })
}

/// Opens the chip, checks the lines and requests them: outputs low, inputs
/// with both edges detected and stamped on CLOCK_MONOTONIC (or by the
/// hardware timestamp engine with `hte`).
pub fn open(lines: &LoopLines, hte: bool) -> Result<Opened, String> {
    lines.check_distinct()?;
    let path = &lines.chip;
    if !path.exists() {
        return Err(format!("--chip {}: no such device; {}", path.display(), which_chips()));
    }
    let chip = Chip::from_path(path).map_err(|e| {
        format!(
            "--chip {}: {}; {}",
            path.display(),
            e.to_string().trim_end_matches('.'),
            which_chips()
        )
    })?;
    let info = chip.info().map_err(|e| format!("--chip {}: {e}", path.display()))?;
    lines.check_range(info.num_lines)?;
    let holder = |l: u32| chip.line_info(l).ok().filter(|i| i.used).map(|i| i.consumer);
    let clock = if hte { EventClock::Hte } else { EventClock::Monotonic };
    let out = output(path, lines.out, "--out", &holder)?;
    let input_req = input(path, lines.input, "--in", clock, &holder)?;
    let respond = match lines.respond {
        None => None,
        Some((r, ri)) => Some((
            output(path, r, "--respond", &holder)?,
            input(path, ri, "--respond-in", clock, &holder)?,
        )),
    };
    Ok(Opened {
        out,
        input: input_req,
        respond,
        label: info.label,
        event_clock: if hte { "HTE" } else { "CLOCK_MONOTONIC" },
    })
}

/// The advice after a chip that is not one: the chips there are.
fn which_chips() -> String {
    match gpiocdev::chip::chips() {
        Ok(c) if !c.is_empty() => format!(
            "give one of {} (gpiodetect names them)",
            c.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
        ),
        _ => "this machine has no GPIO chip at all (no /dev/gpiochip*: the kernel needs \
              CONFIG_GPIO_CDEV and a GPIO driver)"
            .to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(out: u32, input: u32, respond: Option<(u32, u32)>) -> LoopLines {
        LoopLines { chip: "/dev/gpiochip0".into(), out, input, respond }
    }

    #[test]
    fn a_line_named_twice_is_refused_with_both_options() {
        assert_eq!(lines(17, 27, None).check_distinct(), Ok(()));
        assert_eq!(lines(17, 27, Some((22, 23))).check_distinct(), Ok(()));
        let e = lines(17, 17, None).check_distinct().unwrap_err();
        assert!(e.starts_with("--out and --in are both line 17"), "{e}");
        let e = lines(17, 27, Some((22, 27))).check_distinct().unwrap_err();
        assert!(e.starts_with("--in and --respond-in are both line 27"), "{e}");
    }

    #[test]
    fn a_line_past_the_chip_is_refused_with_the_range() {
        assert_eq!(lines(0, 7, None).check_range(8), Ok(()));
        let e = lines(0, 8, None).check_range(8).unwrap_err();
        assert_eq!(
            e,
            "--in 8: /dev/gpiochip0 has 8 lines (0-7); give a line number from that range \
             (gpioinfo lists them)"
        );
        let e = lines(0, 1, Some((2, 40))).check_range(8).unwrap_err();
        assert!(e.starts_with("--respond-in 40:"), "{e}");
    }

    #[test]
    fn refusals_name_the_holder_or_the_missing_interrupt() {
        let chip = Path::new("/dev/gpiochip0");
        let busy = request_refusal("--out", 17, chip, Some(libc::EBUSY), Some("gpio-fan"), "x");
        assert!(
            busy.contains("is held by 'gpio-fan'") && busy.contains("pick a free line"),
            "{busy}"
        );
        let busy = request_refusal("--out", 17, chip, Some(libc::EBUSY), Some(""), "x");
        assert!(busy.contains("is in use"), "{busy}");
        let noirq = request_refusal("--in", 27, chip, Some(libc::ENXIO), None, "x");
        assert!(noirq.contains("cannot report edges"), "{noirq}");
        // an output line without an interrupt is no reason to refuse it
        let other = request_refusal("--out", 17, chip, Some(libc::ENXIO), None, "No such device");
        assert!(other.ends_with("refused the line request: No such device"), "{other}");
        for m in [busy, noirq, other] {
            assert!(!m.contains('\n'), "one line: {m}");
        }
    }

    #[test]
    fn a_missing_chip_is_refused_before_any_request() {
        let l = LoopLines {
            chip: "/dev/gpiochip-icbench-none".into(),
            out: 0,
            input: 1,
            respond: None,
        };
        let e = open(&l, false).unwrap_err();
        assert!(e.starts_with("--chip /dev/gpiochip-icbench-none: no such device"), "{e}");
        let same = LoopLines { input: 0, ..l };
        assert!(open(&same, false).unwrap_err().contains("both line 0"));
    }
}
