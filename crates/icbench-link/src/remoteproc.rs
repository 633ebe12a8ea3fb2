//! Remote processors through the kernel's remoteproc sysfs class
//! (Documentation/ABI/testing/sysfs-class-remoteproc):
//! `<sys>/class/remoteproc/remoteprocN/{name,state,firmware}`.
//!
//! `state` reads `offline`, `suspended`, `running`, `crashed` or `invalid`
//! (newer kernels: `attached`, `detached`); writing `start` or `stop` starts
//! or stops the core. `firmware` names a file under the firmware search path
//! (normally /lib/firmware) and is writable only while the core is offline.
//!
//! This module also finds the remoteproc behind an rpmsg device (by walking
//! up its sysfs path: remoteprocN → virtioN → rpmsg channel → rpmsg char
//! device) and gives the engine's watchdog a [`Health`] check that fails a
//! cell as soon as the core is `crashed` or `offline`.

use std::path::{Path, PathBuf};

use crate::sysfs::{SysfsError, entries, read_attr, write_attr};
use crate::{Health, Roots};

/// One remote processor as sysfs shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Remoteproc {
    /// The sysfs entry's name, e.g. `remoteproc0`.
    pub id: String,
    /// Its directory (under the sysfs root).
    pub dir: PathBuf,
    /// The `name` attribute (e.g. `m4`, `r5f0_0`), when the kernel has it.
    pub name: Option<String>,
    /// The `state` attribute, or `unreadable`.
    pub state: String,
    /// The `firmware` attribute.
    pub firmware: Option<String>,
}

impl Remoteproc {
    fn read(id: String, dir: PathBuf) -> Remoteproc {
        Remoteproc {
            name: read_attr(&dir, "name"),
            state: read_attr(&dir, "state").unwrap_or_else(|| "unreadable".to_string()),
            firmware: read_attr(&dir, "firmware"),
            id,
            dir,
        }
    }

    /// `remoteproc0 (m4)`.
    pub fn label(&self) -> String {
        match &self.name {
            Some(n) => format!("{} ({n})", self.id),
            None => self.id.clone(),
        }
    }

    /// One line for a run's notes: what the core runs and its state.
    pub fn note(&self) -> String {
        format!(
            "{} firmware '{}', state {}",
            self.label(),
            self.firmware.as_deref().unwrap_or("?"),
            self.state
        )
    }
}

fn class_dir(roots: &Roots) -> PathBuf {
    roots.sys_path("class/remoteproc")
}

/// Every remoteproc, in number order. Empty when the kernel has none.
pub fn list(roots: &Roots) -> Vec<Remoteproc> {
    entries(&class_dir(roots), "remoteproc")
        .into_iter()
        .map(|(id, dir)| Remoteproc::read(id, dir))
        .collect()
}

/// Finds a remoteproc by `remoteprocN`, by `N`, or by its `name`.
pub fn find(roots: &Roots, which: &str) -> Result<Remoteproc, SysfsError> {
    let all = list(roots);
    let id = if which.chars().all(|c| c.is_ascii_digit()) && !which.is_empty() {
        format!("remoteproc{which}")
    } else {
        which.to_string()
    };
    if let Some(r) = all
        .iter()
        .find(|r| r.id == id)
        .or_else(|| all.iter().find(|r| r.name.as_deref() == Some(which)))
    {
        return Ok(r.clone());
    }
    let known: Vec<String> = all.iter().map(Remoteproc::label).collect();
    Err(SysfsError::NotFound(if known.is_empty() {
        format!(
            "no remoteproc '{which}': {} lists none (this kernel has no remote processors, or remoteproc is not loaded)",
            class_dir(roots).display()
        )
    } else {
        format!("no remoteproc '{which}': use one of {}", known.join(", "))
    }))
}

/// Starts the core (`echo start > state`).
pub fn start(r: &Remoteproc) -> Result<(), SysfsError> {
    if r.state == "running" || r.state == "attached" {
        return Err(SysfsError::Failed(format!("{} is already {}", r.label(), r.state)));
    }
    write_attr(&r.dir, "state", "start").map_err(|e| {
        SysfsError::Failed(format!(
            "starting {} with firmware '{}' failed: {e} (is the file under /lib/firmware? `dmesg` says why)",
            r.label(),
            r.firmware.as_deref().unwrap_or("?")
        ))
    })
}

/// Stops the core (`echo stop > state`).
pub fn stop(r: &Remoteproc) -> Result<(), SysfsError> {
    if r.state == "offline" {
        return Err(SysfsError::Failed(format!("{} is already offline", r.label())));
    }
    write_attr(&r.dir, "state", "stop")
        .map_err(|e| SysfsError::Failed(format!("stopping {} failed: {e}", r.label())))
}

/// Sets the firmware file the next start loads. The kernel accepts this
/// only while the core is offline, so a running core is refused here with
/// what to do.
pub fn load(r: &Remoteproc, firmware: &str) -> Result<(), SysfsError> {
    if firmware.is_empty() || firmware.contains('\n') {
        return Err(SysfsError::NotFound(format!(
            "firmware '{firmware}' is not a file name: name a file under /lib/firmware"
        )));
    }
    if r.state != "offline" {
        return Err(SysfsError::Failed(format!(
            "{} is {}: the kernel changes firmware only while offline; stop it first (icbench remote stop {})",
            r.label(),
            r.state,
            r.id
        )));
    }
    write_attr(&r.dir, "firmware", firmware).map_err(|e| {
        SysfsError::Failed(format!("loading '{firmware}' into {} failed: {e}", r.label()))
    })
}

/// The remoteproc whose device tree holds `device` (any sysfs path under
/// it: a class symlink is followed). None when there is none, e.g. for a
/// local rpmsg bus or a fake tree without one.
pub fn owning(device: &Path) -> Option<Remoteproc> {
    let real = std::fs::canonicalize(device).ok()?;
    real.ancestors().find_map(|dir| {
        let name = dir.file_name()?.to_str()?;
        let is_rproc = name
            .strip_prefix("remoteproc")
            .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()));
        (is_rproc && dir.join("state").is_file())
            .then(|| Remoteproc::read(name.to_string(), dir.to_path_buf()))
    })
}

/// States in which the core cannot answer.
fn fatal(state: &str) -> bool {
    matches!(state, "crashed" | "offline" | "invalid" | "detached" | "unreadable")
}

/// The watchdog's check of a remote core: its `state` must not turn
/// crashed or offline.
#[derive(Debug)]
pub struct StateHealth {
    label: String,
    dir: PathBuf,
}

impl StateHealth {
    pub fn new(r: &Remoteproc) -> StateHealth {
        StateHealth { label: r.label(), dir: r.dir.clone() }
    }
}

impl Health for StateHealth {
    fn check(&self) -> Result<(), String> {
        let state = read_attr(&self.dir, "state").unwrap_or_else(|| "unreadable".to_string());
        if fatal(&state) {
            return Err(format!("remote core {} is {state}", self.label));
        }
        Ok(())
    }
}

#[cfg(test)]
pub(crate) mod fake {
    //! A fake sysfs tree with remoteprocs and an rpmsg bus beneath them, laid
    //! out as a real kernel lays it out (devices under /sys/devices, class
    //! and bus entries as symlinks).

    use std::path::{Path, PathBuf};

    pub(crate) fn write(p: &Path, text: &str) {
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    /// Adds `remoteproc<n>` under a platform device; returns its directory.
    pub(crate) fn remoteproc(sys: &Path, n: u32, name: &str, state: &str, fw: &str) -> PathBuf {
        let dir = sys.join(format!("devices/platform/mcu.{n}/remoteproc/remoteproc{n}"));
        write(&dir.join("name"), &format!("{name}\n"));
        write(&dir.join("state"), &format!("{state}\n"));
        write(&dir.join("firmware"), &format!("{fw}\n"));
        let class = sys.join("class/remoteproc");
        std::fs::create_dir_all(&class).unwrap();
        std::os::unix::fs::symlink(&dir, class.join(format!("remoteproc{n}"))).unwrap();
        dir
    }
}

#[cfg(test)]
mod tests {
    use super::fake::*;
    use super::*;

    fn tree() -> (tempfile::TempDir, Roots) {
        let d = tempfile::tempdir().unwrap();
        let roots = Roots::new(d.path().join("sys"), d.path().join("dev"));
        remoteproc(&roots.sys, 0, "m4", "running", "rproc-m4-fw.elf");
        remoteproc(&roots.sys, 1, "r5f", "offline", "am64-main-r5f0_0-fw");
        (d, roots)
    }

    #[test]
    fn lists_and_finds_by_number_id_or_name() {
        let (_d, roots) = tree();
        let all = list(&roots);
        assert_eq!(all.len(), 2);
        assert_eq!(all[0].note(), "remoteproc0 (m4) firmware 'rproc-m4-fw.elf', state running");
        assert_eq!(find(&roots, "1").unwrap().id, "remoteproc1");
        assert_eq!(find(&roots, "remoteproc1").unwrap().name.as_deref(), Some("r5f"));
        assert_eq!(find(&roots, "m4").unwrap().id, "remoteproc0");
        let e = find(&roots, "dsp").unwrap_err().to_string();
        assert_eq!(e, "no remoteproc 'dsp': use one of remoteproc0 (m4), remoteproc1 (r5f)");
        let empty = Roots::new(roots.sys.join("nothing"), "/dev");
        assert!(find(&empty, "0").unwrap_err().to_string().contains("lists none"));
    }

    #[test]
    fn start_stop_and_load_write_the_state_and_firmware_files() {
        let (_d, roots) = tree();
        let r1 = find(&roots, "1").unwrap();
        load(&r1, "echo.elf").unwrap();
        assert_eq!(std::fs::read_to_string(r1.dir.join("firmware")).unwrap(), "echo.elf");
        start(&r1).unwrap();
        assert_eq!(std::fs::read_to_string(r1.dir.join("state")).unwrap(), "start");
        let r0 = find(&roots, "0").unwrap();
        let e = load(&r0, "other.elf").unwrap_err().to_string();
        assert!(
            e.contains("remoteproc0 (m4) is running")
                && e.contains("icbench remote stop remoteproc0"),
            "{e}"
        );
        assert_eq!(start(&r0).unwrap_err().to_string(), "remoteproc0 (m4) is already running");
        stop(&r0).unwrap();
        assert_eq!(std::fs::read_to_string(r0.dir.join("state")).unwrap(), "stop");
    }

    #[test]
    fn health_fails_once_the_state_turns_crashed_or_offline() {
        let (_d, roots) = tree();
        let r0 = find(&roots, "m4").unwrap();
        let h = StateHealth::new(&r0);
        assert_eq!(h.check(), Ok(()));
        write(&r0.dir.join("state"), "crashed\n");
        assert_eq!(h.check(), Err("remote core remoteproc0 (m4) is crashed".to_string()));
        write(&r0.dir.join("state"), "offline\n");
        assert_eq!(h.check(), Err("remote core remoteproc0 (m4) is offline".to_string()));
        write(&r0.dir.join("state"), "suspended\n");
        assert_eq!(h.check(), Ok(()));
    }

    #[test]
    fn the_owning_remoteproc_is_found_from_a_device_below_it() {
        let (_d, roots) = tree();
        let r0 = find(&roots, "0").unwrap();
        let chan = r0.dir.join("remoteproc0#vdev0buffer/virtio0/virtio0.rpmsg-raw.-1.30");
        std::fs::create_dir_all(chan.join("rpmsg/rpmsg3")).unwrap();
        let class = roots.sys.join("class/rpmsg");
        std::fs::create_dir_all(&class).unwrap();
        std::os::unix::fs::symlink(chan.join("rpmsg/rpmsg3"), class.join("rpmsg3")).unwrap();
        assert_eq!(owning(&class.join("rpmsg3")).unwrap().id, "remoteproc0");
        assert_eq!(owning(&roots.sys.join("devices/platform")), None);
    }
}
