//! Reading a file a user names, bounded: a FIFO, `/dev/zero` or
//! `/dev/urandom` would be read for ever and a huge file read whole into
//! memory (issue #22 for imports; issue #30 item 6 for plans, where
//! `plan check /dev/zero` reached 2.8 GB in 4 s). Every file icbench reads
//! on a user's word — a result file to import, a plan — goes through here.

use std::io::Read;
use std::path::Path;

use anyhow::Result;

use crate::error::bad;

/// The bytes of `path` if it is a regular file of at most `max` bytes; the
/// read is bounded too, for a file that grows while read. `what` names the
/// file the user meant ("result file", "plan") in the one-line errors.
pub(crate) fn read_bounded(path: &Path, max: u64, what: &str) -> Result<Vec<u8>> {
    let shown = path.display();
    let cannot = |e: std::io::Error| bad(format!("{shown}: cannot read it: {e}"));
    let f = std::fs::File::open(path).map_err(cannot)?;
    let m = f.metadata().map_err(cannot)?;
    if !m.is_file() {
        return Err(bad(format!("{shown}: not a regular file: give the {what} itself")));
    }
    let limit = if max >= 1 << 20 { format!("{} MiB", max >> 20) } else { format!("{max} B") };
    if m.len() > max {
        return Err(bad(format!(
            "{shown}: {} bytes is larger than any {what} ({limit} at most): is it the right file?",
            m.len()
        )));
    }
    let mut bytes = Vec::new();
    f.take(max + 1).read_to_end(&mut bytes).map_err(cannot)?;
    if bytes.len() as u64 > max {
        return Err(bad(format!("{shown}: grew past {limit} while read")));
    }
    Ok(bytes)
}

/// [`read_bounded`] as UTF-8 text.
pub(crate) fn read_text(path: &Path, max: u64, what: &str) -> Result<String> {
    String::from_utf8(read_bounded(path, max, what)?)
        .map_err(|_| bad(format!("{}: not UTF-8 text: is it a {what}?", path.display())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn devices_fifos_and_big_files_are_refused_in_one_line() {
        let e = read_text(Path::new("/dev/zero"), 1 << 20, "plan").unwrap_err().to_string();
        assert!(e.contains("/dev/zero: not a regular file: give the plan itself"), "{e}");
        let dir = tempfile::tempdir().unwrap();
        let big = dir.path().join("big.toml");
        std::fs::write(&big, vec![b'#'; 2 << 20]).unwrap();
        let e = read_text(&big, 1 << 20, "plan").unwrap_err().to_string();
        assert!(e.contains("2097152 bytes is larger than any plan (1 MiB at most)"), "{e}");
        let bin = dir.path().join("bin.toml");
        std::fs::write(&bin, [0xff, 0xfe, 0x00]).unwrap();
        assert!(read_text(&bin, 1 << 20, "plan").unwrap_err().to_string().contains("not UTF-8"));
        let ok = dir.path().join("ok.toml");
        std::fs::write(&ok, "seed = 1\n").unwrap();
        assert_eq!(read_text(&ok, 1 << 20, "plan").unwrap(), "seed = 1\n");
    }
}
