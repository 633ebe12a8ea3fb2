//! Where the kernel's trees are: the sysfs root (`/sys`) and the device
//! root (`/dev`). They are parameters, never hard-coded in the code that
//! reads them, so that tests can build fake trees in temporary directories
//! and a QEMU guest's trees can be read from a mount.

use std::path::{Path, PathBuf};
use std::sync::RwLock;

/// The sysfs and /dev roots.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Roots {
    pub sys: PathBuf,
    pub dev: PathBuf,
}

static CURRENT: RwLock<Option<Roots>> = RwLock::new(None);

impl Roots {
    /// The machine's own: `/sys` and `/dev`.
    pub fn system() -> Roots {
        Roots { sys: PathBuf::from("/sys"), dev: PathBuf::from("/dev") }
    }

    pub fn new(sys: impl Into<PathBuf>, dev: impl Into<PathBuf>) -> Roots {
        Roots { sys: sys.into(), dev: dev.into() }
    }

    /// The roots of this process: [`Roots::system`] unless the command
    /// line set others with [`Roots::set_current`].
    pub fn current() -> Roots {
        CURRENT.read().ok().and_then(|r| r.clone()).unwrap_or_else(Roots::system)
    }

    /// Sets the roots [`Roots::current`] returns (`--sysfs-root`,
    /// `--dev-root`). Called once, by `main`, before anything is opened.
    pub fn set_current(roots: Roots) {
        if let Ok(mut r) = CURRENT.write() {
            *r = Some(roots);
        }
    }

    /// `<sys>/<rel>`.
    pub fn sys_path(&self, rel: &str) -> PathBuf {
        self.sys.join(rel)
    }

    /// Whether the sysfs root is the machine's own (emulations refuse to
    /// write there).
    pub fn is_system_sys(&self) -> bool {
        self.sys == Path::new("/sys")
    }
}
