//! `/dev/cpu_dma_latency`: the PM QoS request that keeps every CPU out of
//! idle states whose exit latency is above the value, for as long as the
//! file stays open (Documentation/power/pm_qos_interface.rst: write a
//! 32-bit value in µs; closing the file drops the request).
//!
//! cyclictest holds it at 0 by default (its `--laptop` and
//! `--default-system` do not). A timer measured without it includes the
//! exit latency of whatever idle state the CPU reached between wake-ups,
//! which is why `icbench timer` read p50 27.7–41.8 µs where `cyclictest`
//! read 18–21 µs on the same machine (issue #15 item 11).

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::Path;

/// The kernel's device.
pub const DEVICE: &str = "/dev/cpu_dma_latency";

/// A PM QoS request held until dropped.
#[derive(Debug)]
pub struct DmaLatency {
    _file: File,
    /// The value held, µs.
    pub us: u32,
}

/// Holds the CPUs' wake-up latency at `us` µs through [`DEVICE`].
pub fn hold(us: u32) -> Result<DmaLatency, String> {
    hold_at(Path::new(DEVICE), us)
}

/// [`hold`] through `path` (tests use a plain file).
pub fn hold_at(path: &Path, us: u32) -> Result<DmaLatency, String> {
    let value = i32::try_from(us).map_err(|_| {
        format!("{us} µs: the request is a 32-bit signed value, at most {}", i32::MAX)
    })?;
    let mut file = OpenOptions::new().write(true).open(path).map_err(|e| {
        let hint = match e.kind() {
            std::io::ErrorKind::NotFound => "this kernel has no PM QoS device (CONFIG_CPU_IDLE)",
            std::io::ErrorKind::PermissionDenied => "run as root",
            _ => "check the device",
        };
        format!("cannot open {}: {e}; {hint}, or drop --dma-latency", path.display())
    })?;
    // The kernel takes the value as 4 bytes in the CPU's order (or as a
    // hex string); one write, or the request is not made.
    file.write_all(&value.to_ne_bytes())
        .map_err(|e| format!("cannot write {} µs to {}: {e}", us, path.display()))?;
    Ok(DmaLatency { _file: file, us })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_value_is_written_as_four_bytes_and_errors_say_what_to_do() {
        let dir = std::env::temp_dir().join(format!("icbench-pmqos-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("cpu_dma_latency");
        std::fs::write(&path, b"").unwrap();
        let held = hold_at(&path, 7).unwrap();
        assert_eq!(held.us, 7);
        assert_eq!(std::fs::read(&path).unwrap(), 7i32.to_ne_bytes());
        drop(held);
        let err = hold_at(&dir.join("none"), 0).unwrap_err();
        assert!(err.contains("no PM QoS device") && err.ends_with("drop --dma-latency"), "{err}");
        let err = hold_at(&path, u32::MAX).unwrap_err();
        assert!(err.contains("at most 2147483647"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
