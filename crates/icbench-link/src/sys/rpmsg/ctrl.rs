//! `rpmsg-ctrl:/dev/rpmsg_ctrlN?name=…&src=…&dst=…`: an endpoint made for
//! the session and destroyed after it (drivers/rpmsg/rpmsg_ctrl.c,
//! rpmsg_char.c).
//!
//! 1. RPMSG_CREATE_EPT_IOCTL on the control device creates `/dev/rpmsgK`
//!    (class `rpmsg`, attributes `name`, `src`, `dst`).
//! 2. The new device is found in `<sys>/class/rpmsg` by its name and
//!    addresses (it was not there before the ioctl), and its node is opened
//!    in the control device's directory once udev has made it.
//! 3. The descriptor stays open for the whole session (closing it drops the
//!    queued messages), and when the link is dropped — at the end, after a
//!    failed cell, or on Ctrl-C, all of which drop the session —
//!    RPMSG_DESTROY_EPT_IOCTL on it removes the device.
//!
//! The ioctls go through [`EptOps`] so that the stand-in (`emulate=
//! seqpacket`) can play the kernel's part in a fake sysfs tree: it writes
//! the class entry and the node the kernel would, hands out a seqpacket
//! pair instead of the device, and removes both on destroy.

use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use rustix::io::Errno;

use super::chardev::open_device;
use super::uapi::{self, ADDR_ANY, EndpointInfo};
use crate::rpmsg::class_entry;
use crate::sysfs::{entries, read_attr, read_u32};
use crate::{LinkError, Roots};

/// How long udev gets to make the node of a new endpoint device.
const NODE_WAIT: Duration = Duration::from_secs(2);

/// Held while an endpoint is created and its device found, and while one
/// is destroyed. The channels of a cell (`icbench run -P N`) create their
/// endpoints at once, all with the same name and dst, and a new device is
/// known only as one that was not there before the ioctl: without it two
/// channels could take the same device, and an index freed by a destroy
/// and reused by a create would hide the new device.
static ENDPOINTS: Mutex<()> = Mutex::new(());

/// [`ENDPOINTS`], whatever a panic left behind (it guards no data).
pub(crate) fn endpoints_locked() -> MutexGuard<'static, ()> {
    ENDPOINTS.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The kernel's part: create, open and destroy an endpoint device.
pub(crate) trait EptOps: Send + std::fmt::Debug {
    fn create(&mut self, ctrl: BorrowedFd<'_>, info: &EndpointInfo) -> Result<(), Errno>;
    /// Opens the endpoint's node; the second descriptor is the far end of a
    /// stand-in, for the local peer.
    fn open(&mut self, node: &Path) -> Result<(OwnedFd, Option<OwnedFd>), LinkError>;
    fn destroy(&mut self, ept: BorrowedFd<'_>) -> Result<(), Errno>;
}

/// The real ioctls.
#[derive(Debug)]
pub(crate) struct KernelEpt;

impl EptOps for KernelEpt {
    fn create(&mut self, ctrl: BorrowedFd<'_>, info: &EndpointInfo) -> Result<(), Errno> {
        uapi::create_endpoint(ctrl, info)
    }

    fn open(&mut self, node: &Path) -> Result<(OwnedFd, Option<OwnedFd>), LinkError> {
        Ok((open_device(&node.to_string_lossy())?, None))
    }

    fn destroy(&mut self, ept: BorrowedFd<'_>) -> Result<(), Errno> {
        uapi::destroy_endpoint(ept)
    }
}

/// The stand-in: plays rpmsg_ctrl in a fake sysfs tree.
#[derive(Debug)]
pub(crate) struct EmulatedEpt {
    roots: Roots,
    dev_dir: PathBuf,
    sndbuf: Option<usize>,
    made: Option<(PathBuf, PathBuf)>,
}

impl EmulatedEpt {
    pub(crate) fn new(
        roots: &Roots,
        dev_dir: &Path,
        sndbuf: Option<usize>,
    ) -> Result<EmulatedEpt, LinkError> {
        if roots.is_system_sys() {
            return Err(LinkError::Setup(
                "emulate=seqpacket writes a fake sysfs tree: give --sysfs-root a scratch directory, not /sys"
                    .into(),
            ));
        }
        Ok(EmulatedEpt { roots: roots.clone(), dev_dir: dev_dir.to_path_buf(), sndbuf, made: None })
    }
}

impl EptOps for EmulatedEpt {
    fn create(&mut self, _ctrl: BorrowedFd<'_>, info: &EndpointInfo) -> Result<(), Errno> {
        let class = self.roots.sys_path("class/rpmsg");
        let k = (0..).find(|k| !class.join(format!("rpmsg{k}")).exists()).unwrap_or(0);
        let dir = class.join(format!("rpmsg{k}"));
        let io = |_| Errno::IO;
        std::fs::create_dir_all(&dir).map_err(io)?;
        // rpmsg_char prints addresses with %d: RPMSG_ADDR_ANY shows as -1.
        std::fs::write(dir.join("name"), format!("{}\n", info.name())).map_err(io)?;
        std::fs::write(dir.join("src"), format!("{}\n", info.src as i32)).map_err(io)?;
        std::fs::write(dir.join("dst"), format!("{}\n", info.dst as i32)).map_err(io)?;
        let node = self.dev_dir.join(format!("rpmsg{k}"));
        std::fs::write(&node, "").map_err(io)?;
        self.made = Some((dir, node));
        Ok(())
    }

    fn open(&mut self, _node: &Path) -> Result<(OwnedFd, Option<OwnedFd>), LinkError> {
        let (a, b) = super::seqpacket_pair(self.sndbuf)?;
        Ok((a, Some(b)))
    }

    fn destroy(&mut self, _ept: BorrowedFd<'_>) -> Result<(), Errno> {
        if let Some((dir, node)) = self.made.take() {
            let _ = std::fs::remove_dir_all(dir);
            let _ = std::fs::remove_file(node);
        }
        Ok(())
    }
}

/// An endpoint device as sysfs lists it.
fn endpoint_devices(roots: &Roots) -> Vec<(String, PathBuf)> {
    entries(&roots.sys_path("class/rpmsg"), "rpmsg")
        .into_iter()
        .filter(|(n, _)| n["rpmsg".len()..].chars().all(|c| c.is_ascii_digit()) && n.len() > 5)
        .collect()
}

fn matches(dir: &Path, info: &EndpointInfo) -> bool {
    read_attr(dir, "name").as_deref() == Some(info.name())
        && read_u32(dir, "dst") == Some(info.dst)
        && (info.src == ADDR_ANY || read_u32(dir, "src") == Some(info.src))
}

/// What creating an endpoint yields: the open descriptor, the stand-in's
/// far end, and the node's path.
pub(crate) struct Created {
    pub(crate) fd: OwnedFd,
    pub(crate) peer: Option<OwnedFd>,
    /// The node opened (`<dev>/rpmsgK`).
    #[allow(dead_code)] // for tests and diagnostics
    pub(crate) node: PathBuf,
}

/// Creates the endpoint on `ctrl_path` and opens it. On failure after the
/// ioctl, the device that could be opened is destroyed again; one that
/// could not is named in the error.
pub(crate) fn create(
    roots: &Roots,
    ctrl_path: &str,
    info: &EndpointInfo,
    ops: &mut dyn EptOps,
) -> Result<Created, LinkError> {
    let ctrl = open_device(ctrl_path)?;
    let _one_at_a_time = endpoints_locked();
    let before: Vec<String> = endpoint_devices(roots).into_iter().map(|e| e.0).collect();
    ops.create(ctrl.as_fd(), info)
        .map_err(|e| LinkError::Setup(explain_create(ctrl_path, info, e)))?;
    drop(ctrl);
    let dev_dir = Path::new(ctrl_path).parent().unwrap_or(Path::new("/dev")).to_path_buf();
    let deadline = Instant::now() + NODE_WAIT;
    let node = loop {
        let found = endpoint_devices(roots)
            .into_iter()
            .find(|(n, dir)| !before.contains(n) && matches(dir, info))
            .map(|(n, _)| dev_dir.join(n));
        match found {
            Some(node) if node.exists() => break node,
            _ if Instant::now() >= deadline => {
                return Err(LinkError::Setup(format!(
                    "RPMSG_CREATE_EPT_IOCTL on {ctrl_path} succeeded but no new device named '{}' \
                     (dst {}) appeared in {} with a node in {}",
                    info.name(),
                    info.dst,
                    roots.sys_path("class/rpmsg").display(),
                    dev_dir.display()
                )));
            }
            _ => std::thread::sleep(Duration::from_millis(10)),
        }
    };
    let (fd, peer) = ops.open(&node).map_err(|e| {
        LinkError::Setup(format!("{e} (the endpoint device stays until its channel goes away)"))
    })?;
    Ok(Created { fd, peer, node })
}

fn explain_create(ctrl: &str, info: &EndpointInfo, e: Errno) -> String {
    let what = format!(
        "{ctrl} refused to create endpoint '{}' src {} dst {} (RPMSG_CREATE_EPT_IOCTL: {e})",
        info.name(),
        if info.src == ADDR_ANY { "any".to_string() } else { info.src.to_string() },
        info.dst
    );
    match e {
        // ENOSYS: what qemu-user answers for an ioctl it does not know.
        Errno::NOTTY | Errno::NOSYS => format!("{what}: {ctrl} is not an rpmsg_ctrl device"),
        Errno::ACCESS | Errno::PERM => format!("{what}: run as root"),
        Errno::INVAL => {
            format!("{what}: check the name and addresses (fixed src addresses are >= 1024)")
        }
        _ => what,
    }
}

/// Class entry of a char device node (for the remoteproc lookup).
pub(crate) fn sysfs_of(roots: &Roots, node: &Path) -> PathBuf {
    class_entry(roots, "rpmsg", node)
}

#[cfg(test)]
mod tests {
    use super::super::chardev::{IoMode, RpmsgLink};
    use super::*;
    use std::sync::{Arc, Mutex};

    /// Records the calls; create refuses when told to.
    #[derive(Debug, Clone, Default)]
    struct Recorder {
        calls: Arc<Mutex<Vec<String>>>,
        refuse: Option<Errno>,
        /// The class entry the "kernel" makes on create.
        make: Option<PathBuf>,
    }

    impl EptOps for Recorder {
        fn create(&mut self, _c: BorrowedFd<'_>, info: &EndpointInfo) -> Result<(), Errno> {
            self.calls.lock().unwrap().push(format!(
                "create {} {} {}",
                info.name(),
                info.src,
                info.dst
            ));
            if let Some(dir) = &self.make {
                crate::remoteproc::fake::write(&dir.join("name"), &format!("{}\n", info.name()));
                crate::remoteproc::fake::write(&dir.join("dst"), &format!("{}\n", info.dst));
            }
            self.refuse.map_or(Ok(()), Err)
        }
        fn open(&mut self, node: &Path) -> Result<(OwnedFd, Option<OwnedFd>), LinkError> {
            self.calls
                .lock()
                .unwrap()
                .push(format!("open {}", node.file_name().unwrap().to_string_lossy()));
            let (a, b) = super::super::seqpacket_pair(None)?;
            Ok((a, Some(b)))
        }
        fn destroy(&mut self, _e: BorrowedFd<'_>) -> Result<(), Errno> {
            self.calls.lock().unwrap().push("destroy".into());
            Ok(())
        }
    }

    fn tree() -> (tempfile::TempDir, Roots, String) {
        let d = tempfile::tempdir().unwrap();
        let roots = Roots::new(d.path().join("sys"), d.path().join("dev"));
        std::fs::create_dir_all(&roots.dev).unwrap();
        let ctrl = roots.dev.join("rpmsg_ctrl0");
        std::fs::write(&ctrl, "").unwrap();
        (d, roots, ctrl.to_string_lossy().into_owned())
    }

    #[test]
    fn the_emulated_kernel_makes_a_device_that_is_found_opened_and_destroyed() {
        let (_d, roots, ctrl) = tree();
        // An older endpoint with the same name must not be taken for the new one.
        crate::rpmsg::fake::chardev(
            &roots.sys,
            &roots.dev,
            &roots.sys.join("devices/x"),
            "rpmsg0",
            &[("name", "echo"), ("src", "-1"), ("dst", "30")],
        );
        let info = EndpointInfo::new("echo", ADDR_ANY, 30).unwrap();
        let mut ops = EmulatedEpt::new(&roots, &roots.dev, None).unwrap();
        let c = create(&roots, &ctrl, &info, &mut ops).unwrap();
        assert_eq!(c.node, roots.dev.join("rpmsg1"));
        assert_eq!(
            std::fs::read_to_string(roots.sys.join("class/rpmsg/rpmsg1/src")).unwrap(),
            "-1\n"
        );
        ops.destroy(c.fd.as_fd()).unwrap();
        assert!(!roots.sys.join("class/rpmsg/rpmsg1").exists());
        assert!(!c.node.exists());
    }

    #[test]
    fn a_refused_creation_is_one_line_naming_the_request() {
        let (_d, roots, ctrl) = tree();
        let mut ops = Recorder { refuse: Some(Errno::INVAL), ..Recorder::default() };
        let info = EndpointInfo::new("echo", 1024, 30).unwrap();
        let e = create(&roots, &ctrl, &info, &mut ops).err().unwrap().to_string();
        assert!(e.contains("refused to create endpoint 'echo' src 1024 dst 30"), "{e}");
        assert!(e.contains(">= 1024") && !e.contains('\n'), "{e}");
        assert_eq!(*ops.calls.lock().unwrap(), ["create echo 1024 30"]);
    }

    #[test]
    fn the_real_ioctl_on_something_else_says_it_is_not_a_ctrl_device() {
        let (_d, roots, ctrl) = tree();
        let info = EndpointInfo::new("echo", ADDR_ANY, 30).unwrap();
        let e = create(&roots, &ctrl, &info, &mut KernelEpt).err().unwrap().to_string();
        assert!(e.ends_with("is not an rpmsg_ctrl device"), "{e}");
    }

    #[test]
    fn dropping_the_link_destroys_the_endpoint_on_its_descriptor() {
        use crate::Link;
        let (_d, roots, ctrl) = tree();
        let rec =
            Recorder { make: Some(roots.sys.join("class/rpmsg/rpmsg4")), ..Recorder::default() };
        let calls = rec.calls.clone();
        let info = EndpointInfo::new("echo", ADDR_ANY, 30).unwrap();
        std::fs::write(roots.dev.join("rpmsg4"), "").unwrap();
        let mut ops = rec;
        let c = create(&roots, &ctrl, &info, &mut ops).unwrap();
        let mut link = RpmsgLink::new(c.fd, 496, IoMode::Auto, crate::Abort::new())
            .unwrap()
            .with_endpoint(Box::new(ops));
        let _ = link.send(&[0; 1000]); // a failed cell
        drop(link);
        assert_eq!(*calls.lock().unwrap(), ["create echo 4294967295 30", "open rpmsg4", "destroy"]);
    }
}
