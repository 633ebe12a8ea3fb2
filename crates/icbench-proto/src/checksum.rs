//! The two CRCs on the wire.
//!
//! - Frames: CRC-32/MPEG-2 (poly 0x04C11DB7, init 0xFFFFFFFF, no reflection, no final XOR),
//!   the reset configuration of the STM32 CRC unit; see docs/protocol.md §1.9 for the choice.
//! - The dimtass seed: a CRC-16 with polynomial 0x8006 (the seed names it `CRC16_INIT_VAL`),
//!   reflected, init 0 — [`SEED_CRC16`].

use crc::{Algorithm, CRC_32_MPEG_2, Crc, Table};

/// The CRC of every `icb` frame, slice-by-16 (rust-ecosystem.md pitfall 14: `Table<1>` is ~8×
/// slower on payload-sized buffers).
pub static FRAME_CRC: Crc<u32, Table<16>> = Crc::<u32, Table<16>>::new(&CRC_32_MPEG_2);

/// CRC-32/MPEG-2 of `bytes`.
pub fn frame_crc32(bytes: &[u8]) -> u32 {
    FRAME_CRC.checksum(bytes)
}

/// The seed's CRC-16 (`dimtass/stm32mp1-rpmsg-test: CA-source/tty_tester.cpp`, `crc16()`).
///
/// The seed shifts message bits in LSB first, XORs `0x8006` into the register when a 1 falls
/// out, pushes 16 zero bits through at the end and reverses the result: the augmented form of
/// a reflected CRC with init 0 and no final XOR. `0x8006` is most likely a typo of the
/// ARC/IBM polynomial `0x8005`; the value is kept because the seed's logs were made with it.
/// Check value over `"123456789"`: `0x3D56`; over the seed's 32 KiB buffer `i & 0xff`:
/// `0x1818`, the value its log prints.
pub const SEED_CRC16: Algorithm<u16> = Algorithm {
    width: 16,
    poly: 0x8006,
    init: 0x0000,
    refin: true,
    refout: true,
    xorout: 0x0000,
    check: 0x3d56,
    residue: 0x0000,
};

static SEED_CRC: Crc<u16, Table<1>> = Crc::<u16, Table<1>>::new(&SEED_CRC16);

/// The seed's CRC-16 of `bytes` ([`SEED_CRC16`]).
pub fn seed_crc16(bytes: &[u8]) -> u16 {
    SEED_CRC.checksum(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The seed's routine, transcribed bit for bit, as the reference for [`SEED_CRC16`].
    fn seed_bitwise(buffer: &[u8]) -> u16 {
        let mut out: u16 = 0;
        for &byte in buffer {
            for bit in 0..8 {
                let flag = out >> 15;
                out = (out << 1) | u16::from((byte >> bit) & 1);
                if flag != 0 {
                    out ^= 0x8006;
                }
            }
        }
        for _ in 0..16 {
            let flag = out >> 15;
            out <<= 1;
            if flag != 0 {
                out ^= 0x8006;
            }
        }
        out.reverse_bits()
    }

    #[test]
    fn frame_crc_check_value() {
        assert_eq!(frame_crc32(b"123456789"), 0x0376_E6E7);
    }

    #[test]
    fn seed_crc_check_value() {
        assert_eq!(seed_crc16(b"123456789"), SEED_CRC16.check);
        assert_eq!(seed_bitwise(b"123456789"), SEED_CRC16.check);
    }

    #[test]
    fn seed_crc_reproduces_logged_value() {
        // tty_tester.cpp: COM_BUFFER_SIZE = 32768, buffer[i] = 0xff & i, logs
        // "Initialized buffer with CRC16: 0x1818".
        let buf: Vec<u8> = (0..32768u32).map(|i| (i & 0xff) as u8).collect();
        assert_eq!(seed_crc16(&buf), 0x1818);
        assert_eq!(seed_bitwise(&buf), 0x1818);
    }

    #[test]
    fn seed_crc_matches_bitwise_on_odd_lengths() {
        for n in 0..300usize {
            let buf: Vec<u8> = (0..n).map(|i| (i * 31 + 7) as u8).collect();
            assert_eq!(seed_crc16(&buf), seed_bitwise(&buf), "length {n}");
        }
    }
}
