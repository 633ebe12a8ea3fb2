//! Tests of the sdb link: parameters, commands, reports and ioctl numbers
//! without a device; the real module (kernel/sdb) in the VM rig, skipped
//! elsewhere.

use super::*;
use crate::buffers::{fill_pattern as fill, first_bad, pattern_byte};
use std::time::{Duration, Instant};

fn params(s: &str) -> Result<Params, String> {
    let spec = LinkSpec::parse(s).map_err(|e| e.to_string())?;
    Params::of(&spec).map_err(|e| e.to_string())
}

#[test]
fn parameters_are_checked_with_what_is_allowed() {
    let p = params("sdb:/dev/rpmsg-sdb").unwrap();
    assert_eq!((p.buffers, p.size, p.cmd), (2, 1 << 20, None));
    let p = params("sdb:/dev/rpmsg-sdb?buffers=4&size=64K&cmd=/dev/ttyRPMSG1").unwrap();
    assert_eq!((p.buffers, p.size, p.cmd.as_deref()), (4, 65536, Some("/dev/ttyRPMSG1")));
    // a size is rounded up to whole pages (the driver maps pages)
    let p = params("sdb:/dev/rpmsg-sdb?size=5000").unwrap();
    assert_eq!(p.size % page_size(), 0);
    assert!(p.size >= 5000);
    for (spec, want) in [
        ("sdb:/dev/x?buffers=3", "buffers=3: use an even count from 2 to 32"),
        ("sdb:/dev/x?buffers=64", "buffers=64: use an even count from 2 to 32"),
        ("sdb:/dev/x?size=100", "size=100: use 4096 B to 1 GiB per buffer"),
        ("sdb:/dev/x?size=2G", "size=2147483648: use 4096 B to 1 GiB per buffer"),
        ("sdb:/dev/x?size=1Q", "size=1Q is not a number of bytes"),
    ] {
        let e = params(spec).unwrap_err();
        assert!(e.contains(want), "{spec}: {e}");
    }
    assert!(params("sdb:/dev/x?buffer=2").unwrap_err().contains("has no parameter 'buffer'"));
    assert!(params("sdb").unwrap_err().contains("needs a path: write sdb:/dev/rpmsg-sdb"));
    assert_eq!(parse_size("16MiB"), Some(16 << 20));
    assert_eq!(parse_size("4096"), Some(4096));
    assert_eq!(parse_size(""), None);
    assert_eq!(parse_size("99999999999999999999G"), None);
}

#[test]
fn commands_are_the_firmware_formats() {
    let mut b = [0u8; CMD_MAX];
    let n = cmd_fill(&mut b, 0, 0x800, 7);
    assert_eq!(&b[..n], b"F0L800S7");
    let n = cmd_check(&mut b, 31, 0x0400_0000, 0xdead_beef);
    assert_eq!(&b[..n], b"C31L4000000Sdeadbeef");
    let n = cmd_copy(&mut b, 12, 13, 0);
    assert_eq!(&b[..n], b"E12T13L0");
    let n = cmd_copy(&mut b, u32::MAX, u32::MAX, u32::MAX);
    assert_eq!(&b[..n], b"E4294967295T4294967295Lffffffff");
}

#[test]
fn the_pattern_is_the_firmware_pattern_and_every_byte_is_checked() {
    // icb_sdb_byte(seed, i) = seed + i + 7 (i >> 8) + 13 (i >> 16), mod 256
    assert_eq!(pattern_byte(0, 0), 0);
    assert_eq!(pattern_byte(0x42, 1), 0x43);
    assert_eq!(pattern_byte(0, 256), (256u32 + 7) as u8);
    assert_eq!(pattern_byte(1, 65536), (1u32 + 65536 + 7 * 256 + 13) as u8);
    let mut buf = vec![0u8; 200_000];
    fill(&mut buf, 9);
    assert_eq!(first_bad(&buf, 9), None);
    assert_eq!(first_bad(&buf, 10), Some(0));
    buf[123_456] ^= 1;
    assert_eq!(first_bad(&buf, 9), Some(123_456));
    // two 256-byte blocks of one buffer differ (a swapped page shows)
    assert_ne!(buf[..256], buf[256..512]);
}

#[test]
fn reports_past_the_buffer_or_without_a_length_are_refused() {
    assert_eq!(check_report(1, 4096, 4096).unwrap(), 4096);
    assert_eq!(check_report(1, 0, 4096).unwrap(), 0);
    let e = check_report(3, 4097, 4096).unwrap_err().to_string();
    assert_eq!(e, "the remote reported 4097 B in buffer 3, which holds 4096 B");
    let e = check_report(0, NO_DATA, 4096).unwrap_err().to_string();
    assert!(e.contains("no length"), "{e}");
}

#[test]
fn ioctl_numbers_are_sts_with_a_pointer_sized_argument() {
    // _IOW('R', 0, ptr) / _IOWR('R', 1, ptr): 0x40085200 / 0xc0085201 on
    // 64-bit, 0x40045200 / 0xc0045201 on the STM32MP1's 32-bit kernel
    let ptr = std::mem::size_of::<usize>() as u32;
    assert_eq!(SET_EFD, 0x4000_5200 | (ptr << 16));
    assert_eq!(GET_DATA_SIZE, 0xc000_5201 | (ptr << 16));
    assert_eq!(std::mem::size_of::<SetEfd>(), 8);
    assert_eq!(std::mem::size_of::<GetDataSize>(), 8);
}

#[test]
fn what_is_not_an_sdb_device_is_one_line() {
    let p = Params { buffers: 2, size: 4096, cmd: None };
    let e = SdbLink::open("/dev/null", &p, Abort::new()).err().unwrap().to_string();
    assert!(
        e.starts_with("/dev/null is not an stm32-rpmsg-sdb device (RPMSG_SDB_IOCTL_SET_EFD"),
        "{e}"
    );
    let f = tempfile::NamedTempFile::new().unwrap();
    let path = f.path().to_str().unwrap();
    let e = SdbLink::open(path, &p, Abort::new()).err().unwrap().to_string();
    assert!(e.contains("is not an stm32-rpmsg-sdb device (not a character device)"), "{e}");
    let e = SdbLink::open("/dev/rpmsg-sdb-none", &p, Abort::new()).err().unwrap().to_string();
    assert!(e.starts_with("cannot open /dev/rpmsg-sdb-none"), "{e}");
    assert!(!e.contains('\n'));
}

/// Against kernel/sdb and the virtual remote (scripts/vm-rig runs it in
/// the guest): remote fills → every byte checked here; Linux fills → the
/// remote checks; a corrupted byte is reported with its offset; a command
/// for a buffer this process does not hold is refused by the driver; a
/// message the remote ignores gets no report, and the wait ends on the
/// abort flag (what the watchdog's timeout sets). Skips elsewhere.
#[test]
fn fill_and_check_through_the_real_module() {
    const DEV: &str = "/dev/rpmsg-sdb";
    if !std::path::Path::new(DEV).exists() {
        println!("sdb: no {DEV} here; skipped (scripts/vm-rig runs it)");
        return;
    }
    let abort = Abort::new();
    let p = Params { buffers: 2, size: 4 << 20, cmd: None };
    let mut link = SdbLink::open(DEV, &p, abort.clone()).unwrap();
    assert_eq!(link.buffers(), 2);
    for (k, len) in [4096usize, 65536, 1 << 20, 4 << 20].into_iter().enumerate() {
        let seed = 0x100 + k as u32;
        let t0 = Instant::now();
        link.remote_fill(1, len, seed).unwrap();
        let fill_ns = t0.elapsed().as_nanos().max(1);
        assert_eq!(first_bad(&link.buf(1)[..len], seed), None, "remote fill of {len} B");
        fill(&mut link.buf_mut(0)[..len], seed ^ 0x55);
        let t0 = Instant::now();
        assert_eq!(link.remote_check(0, len, seed ^ 0x55).unwrap(), None, "check of {len} B");
        let check_ns = t0.elapsed().as_nanos().max(1);
        println!(
            "sdb: {len} B remote fills → Linux checked every byte ({} MB/s); Linux fills → \
             remote checked ({} MB/s)",
            len as u128 * 1000 / fill_ns,
            len as u128 * 1000 / check_ns
        );
    }
    // one byte wrong: the remote names its offset
    fill(&mut link.buf_mut(0)[..65536], 3);
    link.buf_mut(0)[12_345] ^= 0x80;
    assert_eq!(link.remote_check(0, 65536, 3).unwrap(), Some(12_345));
    println!("sdb: corrupted byte reported at offset 12345");
    // a command for a buffer this process does not hold: the driver refuses it
    let e = link.raw_command(b"F9L10S0").unwrap_err().to_string();
    assert!(e.contains("Invalid argument"), "{e}");
    let e = link.raw_command(b"F1L400001S0").unwrap_err().to_string();
    assert!(e.contains("Invalid argument"), "{e}");
    // a message the remote does not know: no report; the abort ends the wait
    link.raw_command(b"X1").unwrap();
    let setter = {
        let abort = abort.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(300));
            abort.set();
        })
    };
    let t0 = Instant::now();
    let e = link.wait(1).unwrap_err();
    setter.join().unwrap();
    assert!(matches!(e, LinkError::Aborted), "{e}");
    assert!(t0.elapsed() < Duration::from_secs(10));
    assert!(link.stalled_in().unwrap().contains("never reported buffer 1"));
    abort.clear();
    // and the link still works
    link.remote_fill(1, 4096, 1).unwrap();
    assert_eq!(first_bad(&link.buf(1)[..4096], 1), None);
    println!("sdb: unknown buffer refused by the driver, no report ended by the abort; checked");
}
