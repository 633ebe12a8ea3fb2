//! The rpmsg bus as sysfs and /dev show it: channels, binding a channel to
//! the rpmsg_char driver, and what this machine offers as `--link` specs.
//!
//! Channels live under `<sys>/bus/rpmsg/devices/<virtioN.name.src.dst>` with
//! `name`, `src`, `dst` and `driver_override` (drivers/rpmsg/rpmsg_core.c).
//! Binding follows ADI's `rpmsg-bind-chardev` (analogdevicesinc/rpmsg-utils):
//! write the driver's name to the channel's `driver_override`, then the
//! channel's name to `<sys>/bus/rpmsg/drivers/<driver>/bind`. rpmsg_char
//! then creates, below the channel's `rpmsg/` directory, an `rpmsg_ctrlN`
//! (kernels before the v5.18 split) or an `rpmsgK` on the channel's own
//! endpoint (later kernels). Endpoint devices made by RPMSG_CREATE_EPT_IOCTL
//! appear in `<sys>/class/rpmsg/rpmsgK` with `name`, `src`, `dst`.

use std::path::{Path, PathBuf};

use crate::Roots;
use crate::remoteproc::{self, Remoteproc};
use crate::sysfs::{SysfsError, entries, read_attr, read_u32, write_attr};

/// The driver channels are bound to by default.
pub const CHARDEV_DRIVER: &str = "rpmsg_chrdev";

/// A channel on the rpmsg bus.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Channel {
    /// The bus device name, e.g. `virtio0.rpmsg-raw.-1.30`.
    pub device: String,
    pub name: Option<String>,
    pub src: Option<u32>,
    pub dst: Option<u32>,
    /// The driver it is bound to, if any.
    pub driver: Option<String>,
    /// Character devices below it (`rpmsg_ctrlN`, `rpmsgK`).
    pub chardevs: Vec<String>,
    /// The remote processor it belongs to, when sysfs shows one.
    pub remote: Option<String>,
}

fn devices_dir(roots: &Roots) -> PathBuf {
    roots.sys_path("bus/rpmsg/devices")
}

fn chardevs(dir: &Path) -> Vec<String> {
    entries(&dir.join("rpmsg"), "rpmsg").into_iter().map(|e| e.0).collect()
}

fn read_channel(device: String, dir: &Path) -> Channel {
    Channel {
        name: read_attr(dir, "name"),
        src: read_u32(dir, "src"),
        dst: read_u32(dir, "dst"),
        driver: std::fs::read_link(dir.join("driver"))
            .ok()
            .and_then(|p| p.file_name().and_then(|n| n.to_str()).map(str::to_string)),
        chardevs: chardevs(dir),
        remote: remoteproc::owning(dir).map(|r| r.id),
        device,
    }
}

/// Every channel on the bus. Empty when there is no rpmsg bus.
pub fn channels(roots: &Roots) -> Vec<Channel> {
    entries(&devices_dir(roots), "")
        .into_iter()
        .map(|(device, dir)| read_channel(device, &dir))
        .collect()
}

fn find_channel(roots: &Roots, device: &str) -> Result<PathBuf, SysfsError> {
    let dir = devices_dir(roots).join(device);
    if device.contains('/') || !dir.exists() {
        let known: Vec<String> = channels(roots).into_iter().map(|c| c.device).collect();
        return Err(SysfsError::NotFound(if known.is_empty() {
            format!("no rpmsg channel '{device}': {} lists none", devices_dir(roots).display())
        } else {
            format!("no rpmsg channel '{device}': use one of {}", known.join(", "))
        }));
    }
    Ok(dir)
}

/// Binds `device` to `driver` as rpmsg-bind-chardev does; returns the
/// channel as it is afterwards (its char devices name the spec to use).
pub fn bind(roots: &Roots, device: &str, driver: &str) -> Result<Channel, SysfsError> {
    let dir = find_channel(roots, device)?;
    let drv = roots.sys_path("bus/rpmsg/drivers").join(driver);
    if !drv.is_dir() {
        return Err(SysfsError::NotFound(format!(
            "no rpmsg driver '{driver}' in {}: load it first (modprobe rpmsg_char)",
            drv.parent().map(Path::display).map(|d| d.to_string()).unwrap_or_default()
        )));
    }
    write_attr(&dir, "driver_override", driver)?;
    write_attr(&drv, "bind", device)?;
    Ok(read_channel(device.to_string(), &dir))
}

/// Unbinds `device` from its driver (or from `driver` when sysfs does not
/// say which) and clears its `driver_override`.
pub fn unbind(roots: &Roots, device: &str, driver: &str) -> Result<Channel, SysfsError> {
    let dir = find_channel(roots, device)?;
    let bound = read_channel(device.to_string(), &dir).driver;
    let drv = roots.sys_path("bus/rpmsg/drivers").join(bound.as_deref().unwrap_or(driver));
    write_attr(&drv, "unbind", device)?;
    // An empty override (a lone newline) clears it (driver_set_override()).
    write_attr(&dir, "driver_override", "\n")?;
    Ok(read_channel(device.to_string(), &dir))
}

/// An rpmsg char device node and, when sysfs shows them, its endpoint's
/// name and addresses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    pub path: PathBuf,
    pub name: Option<String>,
    pub src: Option<u32>,
    pub dst: Option<u32>,
    pub remote: Option<String>,
}

/// The sysfs directory of a char device node in class `class`.
pub(crate) fn class_entry(roots: &Roots, class: &str, node: &Path) -> PathBuf {
    let base = node.file_name().map(|n| n.to_os_string()).unwrap_or_default();
    roots.sys_path("class").join(class).join(base)
}

fn nodes(roots: &Roots, prefix: &str, class: &str, keep: impl Fn(&str) -> bool) -> Vec<Node> {
    entries(&roots.dev, prefix)
        .into_iter()
        .filter(|(n, _)| keep(n))
        .map(|(_, path)| {
            let sys = class_entry(roots, class, &path);
            Node {
                name: read_attr(&sys, "name"),
                src: read_u32(&sys, "src"),
                dst: read_u32(&sys, "dst"),
                remote: remoteproc::owning(&sys).map(|r| r.id),
                path,
            }
        })
        .collect()
}

/// What this machine offers for the rpmsg links.
#[derive(Debug, Clone, Default)]
pub struct Discovery {
    pub channels: Vec<Channel>,
    /// `<dev>/rpmsg_ctrlN`.
    pub ctrl: Vec<Node>,
    /// `<dev>/rpmsgK` endpoint devices.
    pub endpoints: Vec<Node>,
    /// `<dev>/ttyRPMSGn`.
    pub ttys: Vec<Node>,
    pub remoteprocs: Vec<Remoteproc>,
}

impl Discovery {
    pub fn is_empty(&self) -> bool {
        self.channels.is_empty()
            && self.ctrl.is_empty()
            && self.endpoints.is_empty()
            && self.ttys.is_empty()
            && self.remoteprocs.is_empty()
    }
}

/// Looks at sysfs and /dev for rpmsg channels, devices and remoteprocs.
pub fn discover(roots: &Roots) -> Discovery {
    let digits = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_digit());
    Discovery {
        channels: channels(roots),
        ctrl: nodes(roots, "rpmsg_ctrl", "rpmsg", |n| digits(&n["rpmsg_ctrl".len()..])),
        endpoints: nodes(roots, "rpmsg", "rpmsg", |n| digits(&n["rpmsg".len()..])),
        ttys: nodes(roots, "ttyRPMSG", "tty", |n| digits(&n["ttyRPMSG".len()..])),
        remoteprocs: remoteproc::list(roots),
    }
}

/// The `--link` spec for an endpoint device.
pub fn endpoint_spec(node: &Node) -> String {
    format!("rpmsg:{}", node.path.display())
}

/// The `--link` spec that creates an endpoint for `channel` on `ctrl`.
pub fn ctrl_spec(ctrl: &Node, channel: &Channel) -> String {
    let name = channel.name.as_deref().unwrap_or("icbench");
    let dst = channel.dst.map_or("DST".to_string(), |d| d.to_string());
    format!("rpmsg-ctrl:{}?name={name}&dst={dst}", ctrl.path.display())
}

#[cfg(test)]
pub(crate) mod fake {
    //! An rpmsg bus in a fake sysfs tree, below a fake remoteproc.

    use std::path::{Path, PathBuf};

    use crate::remoteproc::fake::{remoteproc, write};

    /// Adds channel `virtio0.<name>.-1.<dst>` under remoteproc0 (made if
    /// missing) and the rpmsg_chrdev driver; returns the channel directory.
    pub(crate) fn channel(sys: &Path, name: &str, src: i64, dst: u32) -> PathBuf {
        let rproc = sys.join("devices/platform/mcu.0/remoteproc/remoteproc0");
        if !rproc.exists() {
            remoteproc(sys, 0, "m4", "running", "rproc-m4-fw.elf");
        }
        let device = format!("virtio0.{name}.-1.{dst}");
        let dir = rproc.join("remoteproc0#vdev0buffer/virtio0").join(&device);
        write(&dir.join("name"), &format!("{name}\n"));
        write(&dir.join("src"), &format!("{src}\n"));
        write(&dir.join("dst"), &format!("{dst}\n"));
        write(&dir.join("driver_override"), "(null)\n");
        let bus = sys.join("bus/rpmsg/devices");
        std::fs::create_dir_all(&bus).unwrap();
        std::os::unix::fs::symlink(&dir, bus.join(&device)).unwrap();
        let drv = sys.join("bus/rpmsg/drivers/rpmsg_chrdev");
        if !drv.exists() {
            write(&drv.join("bind"), "");
            write(&drv.join("unbind"), "");
        }
        dir
    }

    /// Adds a char device `node` (rpmsgK or rpmsg_ctrlN) below `parent`,
    /// its class entry and its /dev node (a plain file).
    pub(crate) fn chardev(
        sys: &Path,
        dev: &Path,
        parent: &Path,
        node: &str,
        attrs: &[(&str, &str)],
    ) {
        let dir = parent.join("rpmsg").join(node);
        std::fs::create_dir_all(&dir).unwrap();
        for (k, v) in attrs {
            write(&dir.join(k), &format!("{v}\n"));
        }
        let class = sys.join("class/rpmsg");
        std::fs::create_dir_all(&class).unwrap();
        std::os::unix::fs::symlink(&dir, class.join(node)).unwrap();
        write(&dev.join(node), "");
    }
}

#[cfg(test)]
mod tests {
    use super::fake::*;
    use super::*;

    fn tree() -> (tempfile::TempDir, Roots) {
        let d = tempfile::tempdir().unwrap();
        let roots = Roots::new(d.path().join("sys"), d.path().join("dev"));
        std::fs::create_dir_all(&roots.dev).unwrap();
        (d, roots)
    }

    #[test]
    fn bind_writes_the_override_then_the_channel_name_and_unbind_undoes_it() {
        let (_d, roots) = tree();
        let chan = channel(&roots.sys, "sharc-echo", -1, 288);
        let dev = "virtio0.sharc-echo.-1.288";
        bind(&roots, dev, CHARDEV_DRIVER).unwrap();
        assert_eq!(std::fs::read_to_string(chan.join("driver_override")).unwrap(), "rpmsg_chrdev");
        let drv = roots.sys.join("bus/rpmsg/drivers/rpmsg_chrdev");
        assert_eq!(std::fs::read_to_string(drv.join("bind")).unwrap(), dev);
        unbind(&roots, dev, CHARDEV_DRIVER).unwrap();
        assert_eq!(std::fs::read_to_string(drv.join("unbind")).unwrap(), dev);
        assert_eq!(std::fs::read_to_string(chan.join("driver_override")).unwrap(), "\n");
    }

    #[test]
    fn unknown_channels_and_drivers_are_named_with_what_exists() {
        let (_d, roots) = tree();
        assert!(
            bind(&roots, "virtio0.x.-1.1", CHARDEV_DRIVER)
                .unwrap_err()
                .to_string()
                .contains("lists none")
        );
        channel(&roots.sys, "rpmsg-raw", -1, 30);
        let e = bind(&roots, "virtio0.x.-1.1", CHARDEV_DRIVER).unwrap_err();
        assert_eq!(
            e.to_string(),
            "no rpmsg channel 'virtio0.x.-1.1': use one of virtio0.rpmsg-raw.-1.30"
        );
        assert!(matches!(e, SysfsError::NotFound(_)));
        let e = bind(&roots, "virtio0.rpmsg-raw.-1.30", "rpmsg_tty").unwrap_err().to_string();
        assert!(e.starts_with("no rpmsg driver 'rpmsg_tty'"), "{e}");
        assert!(bind(&roots, "../../etc", CHARDEV_DRIVER).is_err());
    }

    #[test]
    fn discovery_lists_channels_devices_ttys_and_remoteprocs_with_specs() {
        let (_d, roots) = tree();
        let raw = channel(&roots.sys, "rpmsg-raw", -1, 30);
        let ctrl = channel(&roots.sys, "rpmsg_ctrl", 0, 0);
        chardev(&roots.sys, &roots.dev, &ctrl, "rpmsg_ctrl0", &[]);
        chardev(
            &roots.sys,
            &roots.dev,
            &raw,
            "rpmsg0",
            &[("name", "rpmsg-raw"), ("src", "1025"), ("dst", "30")],
        );
        crate::remoteproc::fake::write(&roots.dev.join("ttyRPMSG0"), "");
        let d = discover(&roots);
        assert_eq!(d.channels.len(), 2);
        let c = &d.channels[0];
        assert_eq!(
            (c.device.as_str(), c.src, c.dst),
            ("virtio0.rpmsg-raw.-1.30", Some(u32::MAX), Some(30))
        );
        assert_eq!(c.chardevs, ["rpmsg0"]);
        assert_eq!(c.remote.as_deref(), Some("remoteproc0"));
        assert_eq!(d.endpoints.len(), 1);
        assert_eq!(
            endpoint_spec(&d.endpoints[0]),
            format!("rpmsg:{}", roots.dev.join("rpmsg0").display())
        );
        assert_eq!((d.endpoints[0].src, d.endpoints[0].dst), (Some(1025), Some(30)));
        assert_eq!(d.ctrl.len(), 1);
        assert_eq!(
            ctrl_spec(&d.ctrl[0], c),
            format!("rpmsg-ctrl:{}?name=rpmsg-raw&dst=30", roots.dev.join("rpmsg_ctrl0").display())
        );
        assert_eq!(d.ttys.len(), 1);
        assert_eq!(d.remoteprocs[0].state, "running");
        let empty = Roots::new(roots.sys.join("none"), roots.dev.join("none"));
        assert!(discover(&empty).is_empty());
    }
}
