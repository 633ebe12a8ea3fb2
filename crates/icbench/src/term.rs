//! Where text leaves icbench (issue #30 item 5). Everything the commands
//! write to stdout and stderr goes through [`Escaped`], which writes each
//! control character other than newline, tab and carriage return as a
//! visible escape (`\u{1b}`, as Rust's `char::escape_default` spells it).
//! A link name, a file name, an imported field or a label then reaches the
//! terminal as text: it cannot retitle the window, clear the screen or
//! move the cursor (a CSV link `e\x1b]0;pwned\x07\x1b[2J` came out raw in
//! `show`, `model`, `export` and the import message). icbench's own text
//! has no escape sequences (no colour), so nothing of its own is lost; the
//! progress bar of `run` is drawn by indicatif on stderr, outside this.
//! JSON escapes control characters itself (RFC 8259 §7) and is unchanged.
//!
//! The C1 controls U+0080–U+009F are escaped too: some terminals take
//! U+009B as CSI (ECMA-48 §5.3, "8-bit code").

use std::io::{self, Write};

/// A writer that escapes control characters (module doc).
pub struct Escaped<W: Write> {
    inner: W,
    /// The last byte written was 0xC2, the lead byte of U+0080–U+00BF,
    /// held back until the next byte says whether it is a C1 control.
    held_c2: bool,
}

impl<W: Write> Escaped<W> {
    pub fn new(inner: W) -> Self {
        Escaped { inner, held_c2: false }
    }

    fn escape(&mut self, c: u32) -> io::Result<()> {
        write!(self.inner, "\\u{{{c:x}}}")
    }
}

/// Bytes that pass as they are: everything but C0 controls (except tab,
/// newline and carriage return), DEL and the lead byte 0xC2.
fn plain(b: u8) -> bool {
    !(b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r') || b == 0x7f || b == 0xc2)
}

impl<W: Write> Write for Escaped<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut rest = buf;
        if self.held_c2 {
            let Some(&next) = rest.first() else { return Ok(0) };
            self.held_c2 = false;
            if (0x80..=0x9f).contains(&next) {
                self.escape(u32::from(next))?;
                rest = &rest[1..];
            } else {
                self.inner.write_all(&[0xc2])?;
            }
        }
        while !rest.is_empty() {
            let run = rest.iter().position(|&b| !plain(b)).unwrap_or(rest.len());
            self.inner.write_all(&rest[..run])?;
            rest = &rest[run..];
            let Some(&b) = rest.first() else { break };
            if b == 0xc2 {
                match rest.get(1) {
                    None => self.held_c2 = true,
                    Some(&c) if (0x80..=0x9f).contains(&c) => {
                        self.escape(u32::from(c))?;
                        rest = &rest[2..];
                        continue;
                    }
                    Some(_) => self.inner.write_all(&[0xc2])?,
                }
            } else {
                self.escape(u32::from(b))?;
            }
            rest = &rest[1..];
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if std::mem::take(&mut self.held_c2) {
            self.inner.write_all(&[0xc2])?;
        }
        self.inner.flush()
    }
}

impl<W: Write> Drop for Escaped<W> {
    fn drop(&mut self) {
        let _ = self.flush();
    }
}

/// Standard output, escaped.
pub fn stdout() -> Escaped<io::StdoutLock<'static>> {
    Escaped::new(io::stdout().lock())
}

/// Standard error, escaped.
pub fn stderr() -> Escaped<io::StderrLock<'static>> {
    Escaped::new(io::stderr().lock())
}

/// `println!` through [`stdout`]; a closed stdout ends the command as
/// `main` handles it.
#[macro_export]
macro_rules! outln {
    ($($arg:tt)*) => {
        ::std::io::Write::write_fmt(&mut $crate::term::stdout(), format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// `eprintln!` through [`stderr`]; an error writing to stderr is dropped,
/// as `eprintln!` would panic on it.
#[macro_export]
macro_rules! errln {
    ($($arg:tt)*) => {{
        let _ = ::std::io::Write::write_fmt(&mut $crate::term::stderr(), format_args!("{}\n", format_args!($($arg)*)));
    }};
}

/// `eprint!` through [`stderr`] (a progress line that a later one
/// overwrites with `\r`).
#[macro_export]
macro_rules! errout {
    ($($arg:tt)*) => {{
        let mut e = $crate::term::stderr();
        let _ = ::std::io::Write::write_fmt(&mut e, format_args!($($arg)*));
        let _ = ::std::io::Write::flush(&mut e);
    }};
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(parts: &[&[u8]]) -> Vec<u8> {
        let mut out = Vec::new();
        {
            let mut w = Escaped::new(&mut out);
            for p in parts {
                w.write_all(p).unwrap();
            }
        }
        out
    }

    fn escaped(parts: &[&[u8]]) -> String {
        String::from_utf8(bytes(parts)).unwrap()
    }

    #[test]
    fn control_characters_become_visible_and_text_stays() {
        let hostile = "e\x1b]0;pwned\x07\x1b[2J";
        assert_eq!(escaped(&[hostile.as_bytes()]), "e\\u{1b}]0;pwned\\u{7}\\u{1b}[2J");
        let kept = "shm 64 B │ 101 ns ±1.2 % ×/÷ 2 — ü\tx\r\n";
        assert_eq!(escaped(&[kept.as_bytes()]), kept);
        assert_eq!(escaped(&[b"a\x7fb\x00"]), "a\\u{7f}b\\u{0}");
    }

    #[test]
    fn c1_controls_are_escaped_even_split_across_writes() {
        let csi = "x\u{9b}2Jy";
        assert_eq!(escaped(&[csi.as_bytes()]), "x\\u{9b}2Jy");
        let b = csi.as_bytes();
        assert_eq!(escaped(&[&b[..2], &b[2..]]), "x\\u{9b}2Jy");
        // U+00A0 … U+00BF share the lead byte and pass, split or not.
        let nbsp = "a\u{a0}b°".as_bytes();
        assert_eq!(escaped(&[&nbsp[..2], &nbsp[2..]]), "a\u{a0}b°");
        // A lead byte left at the end is written on flush.
        assert_eq!(bytes(&[b"z\xc2"]), b"z\xc2");
    }
}
