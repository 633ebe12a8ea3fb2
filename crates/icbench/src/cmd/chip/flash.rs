//! Firmware images as a factor (issue #16 item 3): what a chip cannot
//! change at run time — core clocks, caches, the -O level — is built into
//! its image, so `icbench chip --image A.elf,B.elf --flash-cmd '…{image}…'`
//! puts each image on the chip between cells with the user's own command
//! (openocd, pyocd, STM32_Programmer_CLI, picotool) and stores `image` as a
//! cell factor. The command runs without a shell, its words split on
//! spaces, `{image}` replaced by the path, and is bounded in time.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::Result;

use crate::error::bad;

/// The longest a flash command may take.
const LIMIT: Duration = Duration::from_secs(300);

/// The images (checked to be files) and the command, or neither.
pub(super) fn check(images: &[String], cmd: Option<&str>) -> Result<Option<Vec<String>>> {
    let argv: Option<Vec<String>> = cmd.map(|c| c.split_whitespace().map(str::to_string).collect());
    match (images.is_empty(), &argv) {
        (true, None) => return Ok(None),
        (true, Some(_)) => {
            return Err(bad("--flash-cmd without --image: name the images to put on the chip"));
        }
        (false, None) => {
            return Err(bad(
                "--image needs --flash-cmd, the command that puts an image on the chip, e.g. \
                 --flash-cmd 'openocd -f board.cfg -c program {image} verify reset exit'",
            ));
        }
        (false, Some(a)) if a.is_empty() || !a.iter().any(|w| w.contains("{image}")) => {
            return Err(bad("--flash-cmd: give the program and {image} where the path goes"));
        }
        _ => {}
    }
    for i in images {
        if !Path::new(i).is_file() {
            return Err(bad(format!("--image {i}: no such file")));
        }
    }
    Ok(argv)
}

/// Runs the flash command for `image`; the reason when it fails.
pub(super) fn flash(argv: &[String], image: &str) -> Result<(), String> {
    let words: Vec<String> = argv.iter().map(|w| w.replace("{image}", image)).collect();
    let mut child = Command::new(&words[0])
        .args(&words[1..])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", words[0]))?;
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break s,
            Ok(None) if start.elapsed() > LIMIT => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("{} did not finish within {} s", words[0], LIMIT.as_secs()));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => return Err(format!("waiting for {}: {e}", words[0])),
        }
    };
    if status.success() {
        return Ok(());
    }
    let mut err = String::new();
    if let Some(mut e) = child.stderr.take() {
        use std::io::Read;
        let _ = e.by_ref().take(4096).read_to_string(&mut err);
    }
    let last = err.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("").trim();
    Err(format!(
        "{} ended with {status}{}",
        words[0],
        if last.is_empty() { String::new() } else { format!(": {last}") }
    ))
}
