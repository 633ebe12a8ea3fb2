//! Reading and writing sysfs attributes, with the errors a user can act on.
//!
//! An attribute is a small text file; reads are trimmed. A write is one
//! `write(2)` of the whole value, as `echo value > attr` does (sysfs hands a
//! store callback one buffer per write).

use std::io::Write;
use std::path::{Path, PathBuf};

/// A sysfs operation failed; the text says what to do about it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SysfsError {
    /// The thing named does not exist (a bad name: exit 2).
    #[error("{0}")]
    NotFound(String),
    /// The kernel refused or the tree is unreadable.
    #[error("{0}")]
    Failed(String),
}

/// The longest attribute read, bytes: sysfs gives at most a page
/// (Documentation/filesystems/sysfs.rst), and the procfs files icbench
/// reads are shorter.
const MAX_ATTR: u64 = 64 << 10;

/// `<dir>/<attr>`, trimmed; None when absent or unreadable.
pub(crate) fn read_attr(dir: &Path, attr: &str) -> Option<String> {
    read_small(&dir.join(attr))
}

/// A sysfs or procfs file, trimmed; None when absent, unreadable or longer
/// than a sysfs attribute can be (64 KiB). Under `--sysfs-root` or `doctor
/// --root` a "file" may be anything: a link to /dev/zero took 2 GB before
/// a word was said.
pub fn read_small(path: &Path) -> Option<String> {
    use std::io::Read;
    let mut text = String::new();
    std::fs::File::open(path).ok()?.take(MAX_ATTR + 1).read_to_string(&mut text).ok()?;
    (text.len() as u64 <= MAX_ATTR).then(|| text.trim().to_string())
}

/// A numeric attribute as the kernel prints it: decimal (rpmsg_char prints
/// its addresses with %d, so RPMSG_ADDR_ANY reads as -1) or 0x hex.
pub(crate) fn read_u32(dir: &Path, attr: &str) -> Option<u32> {
    let v = read_attr(dir, attr)?;
    if let Some(h) = v.strip_prefix("0x") {
        return u32::from_str_radix(h, 16).ok();
    }
    v.parse::<i64>().ok().and_then(|n| {
        if n < 0 { u32::try_from(n & 0xffff_ffff).ok() } else { u32::try_from(n).ok() }
    })
}

/// Writes `value` to `<dir>/<attr>` in one write. The attribute must exist
/// (sysfs attributes are never created by writing).
pub(crate) fn write_attr(dir: &Path, attr: &str, value: &str) -> Result<(), SysfsError> {
    let path = dir.join(attr);
    let mut f =
        std::fs::OpenOptions::new().write(true).truncate(true).open(&path).map_err(|e| match e
            .kind()
        {
            std::io::ErrorKind::NotFound => {
                SysfsError::NotFound(format!("{} does not exist", path.display()))
            }
            _ => SysfsError::Failed(explain_write(&path, value, &e)),
        })?;
    f.write_all(value.as_bytes()).map_err(|e| SysfsError::Failed(explain_write(&path, value, &e)))
}

fn explain_write(path: &Path, value: &str, e: &std::io::Error) -> String {
    let v = value.trim();
    match e.raw_os_error() {
        Some(libc::EACCES) | Some(libc::EPERM) => format!(
            "writing '{v}' to {} was denied: sysfs writes need root (run with sudo)",
            path.display()
        ),
        Some(libc::EBUSY) => {
            format!("writing '{v}' to {}: the kernel says busy (EBUSY)", path.display())
        }
        Some(libc::EINVAL) => {
            format!("writing '{v}' to {}: the kernel refused the value (EINVAL)", path.display())
        }
        Some(libc::ENODEV) => {
            format!("writing '{v}' to {}: no such device (ENODEV)", path.display())
        }
        _ => format!("writing '{v}' to {}: {e}", path.display()),
    }
}

/// Entries of a directory whose names start with `prefix`, sorted by name
/// with numbers in numeric order (rpmsg2 before rpmsg10).
pub(crate) fn entries(dir: &Path, prefix: &str) -> Vec<(String, PathBuf)> {
    let Ok(rd) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut v: Vec<(String, PathBuf)> = rd
        .filter_map(Result::ok)
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            name.starts_with(prefix).then(|| (name, e.path()))
        })
        .collect();
    v.sort_by_key(|a| natural_key(&a.0));
    v
}

fn natural_key(s: &str) -> (String, u64) {
    let digits = s.len() - s.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    let (head, tail) = s.split_at(s.len() - digits);
    (head.to_string(), tail.parse().unwrap_or(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An endless "attribute" (a fake tree's link to /dev/zero) is read
    /// no further than an attribute can be, and counts as unreadable; one
    /// page exactly is read whole.
    #[test]
    fn an_endless_file_is_not_read_to_its_end() {
        let d = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink("/dev/zero", d.path().join("state")).unwrap();
        assert_eq!(read_attr(d.path(), "state"), None);
        let page = "x".repeat(MAX_ATTR as usize);
        std::fs::write(d.path().join("big"), &page).unwrap();
        assert_eq!(read_attr(d.path(), "big").map(|s| s.len()), Some(page.len()));
        std::fs::write(d.path().join("bigger"), format!("{page}y")).unwrap();
        assert_eq!(read_attr(d.path(), "bigger"), None);
    }

    #[test]
    fn numbers_read_as_the_kernel_prints_them() {
        let d = tempfile::tempdir().unwrap();
        for (name, text, want) in [
            ("a", "1024\n", Some(1024)),
            ("b", "-1\n", Some(u32::MAX)),
            ("c", "0x35", Some(53)),
            ("d", "x", None),
        ] {
            std::fs::write(d.path().join(name), text).unwrap();
            assert_eq!(read_u32(d.path(), name), want, "{text}");
        }
        assert_eq!(read_u32(d.path(), "missing"), None);
    }

    #[test]
    fn writes_replace_the_value_and_a_missing_attribute_is_named() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("state"), "offline-and-longer\n").unwrap();
        write_attr(d.path(), "state", "start").unwrap();
        assert_eq!(std::fs::read_to_string(d.path().join("state")).unwrap(), "start");
        let e = write_attr(d.path(), "nope", "x").unwrap_err();
        assert!(
            matches!(e, SysfsError::NotFound(ref m) if m.ends_with("nope does not exist")),
            "{e}"
        );
    }

    #[test]
    fn entries_sort_numbers_numerically() {
        let d = tempfile::tempdir().unwrap();
        for n in ["rpmsg10", "rpmsg2", "rpmsg_ctrl0", "other"] {
            std::fs::write(d.path().join(n), "").unwrap();
        }
        let names: Vec<String> = entries(d.path(), "rpmsg").into_iter().map(|e| e.0).collect();
        assert_eq!(names, ["rpmsg2", "rpmsg10", "rpmsg_ctrl0"]);
    }
}
