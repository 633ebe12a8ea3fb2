//! Why bytes are not a frame, and why a frame cannot be encoded: the error
//! codes and names docs/protocol.md §1.8 shares with the C library
//! (`icb_strerror`), which the golden manifest names too.

use super::{MAX_BODY, VERSION};

/// Why bytes are not a valid frame. Codes and names are shared with the C library (§1.8).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FrameError {
    /// The buffer ends inside a frame.
    #[error("truncated frame: need {needed} bytes, have {have}")]
    Truncated {
        /// Bytes needed for the frame (or its header).
        needed: usize,
        /// Bytes available.
        have: usize,
    },
    /// The bytes do not start with the magic `CB 1C`.
    #[error("bad magic {:02x} {:02x} (expected cb 1c)", got[0], got[1])]
    BadMagic {
        /// The first two bytes.
        got: [u8; 2],
    },
    /// The version byte is not 1.
    #[error("unsupported frame version {version} (this side speaks {VERSION})")]
    UnsupportedVersion {
        /// The version byte.
        version: u8,
    },
    /// A reserved flag bit is set.
    #[error("reserved flag bits set in flags {flags:#04x}")]
    ReservedFlags {
        /// The flags byte.
        flags: u8,
    },
    /// `len` exceeds the receiver's limit.
    #[error("frame body of {len} bytes exceeds the limit of {max}")]
    TooLong {
        /// The `len` field.
        len: usize,
        /// The limit.
        max: usize,
    },
    /// `len` is smaller than the extensions announced by the flags.
    #[error("frame body of {len} bytes is shorter than its {needed} bytes of extensions")]
    BadLength {
        /// The `len` field.
        len: usize,
        /// Extension bytes the flags announce.
        needed: usize,
    },
    /// The CRC in the frame differs from the one computed.
    #[error("CRC mismatch: frame says {expected:#010x}, computed {computed:#010x}")]
    CrcMismatch {
        /// CRC carried by the frame.
        expected: u32,
        /// CRC computed over header and body.
        computed: u32,
    },
    /// Bytes outside any frame were skipped while hunting for the magic.
    #[error("{bytes} bytes of garbage skipped")]
    Garbage {
        /// Number of bytes skipped.
        bytes: usize,
    },
    /// Bytes follow a complete frame where exactly one frame was expected (one message).
    #[error("{bytes} bytes after the end of the frame")]
    TrailingBytes {
        /// Number of extra bytes.
        bytes: usize,
    },
}

impl FrameError {
    /// The numeric code of docs/protocol.md §1.8 (the C library returns its negation).
    pub fn code(&self) -> u16 {
        match self {
            FrameError::Truncated { .. } => 1,
            FrameError::BadMagic { .. } => 2,
            FrameError::UnsupportedVersion { .. } => 3,
            FrameError::ReservedFlags { .. } => 4,
            FrameError::TooLong { .. } => 5,
            FrameError::BadLength { .. } => 6,
            FrameError::CrcMismatch { .. } => 7,
            FrameError::Garbage { .. } => 8,
            FrameError::TrailingBytes { .. } => 9,
        }
    }

    /// Short lower-case name, as in the golden manifest and in `icb_strerror`'s first word.
    pub fn name(&self) -> &'static str {
        match self {
            FrameError::Truncated { .. } => "trunc",
            FrameError::BadMagic { .. } => "magic",
            FrameError::UnsupportedVersion { .. } => "version",
            FrameError::ReservedFlags { .. } => "flags",
            FrameError::TooLong { .. } => "toolong",
            FrameError::BadLength { .. } => "length",
            FrameError::CrcMismatch { .. } => "crc",
            FrameError::Garbage { .. } => "garbage",
            FrameError::TrailingBytes { .. } => "trailing",
        }
    }
}

/// Why a frame cannot be encoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EncodeError {
    /// Extensions plus payload exceed [`MAX_BODY`].
    #[error("frame body of {len} bytes exceeds {MAX_BODY}")]
    BodyTooLong {
        /// The body length that was asked for.
        len: usize,
    },
    /// The output buffer is too small.
    #[error("output buffer of {have} bytes, frame needs {needed}")]
    BufferTooSmall {
        /// Bytes the frame needs.
        needed: usize,
        /// Bytes available.
        have: usize,
    },
}
