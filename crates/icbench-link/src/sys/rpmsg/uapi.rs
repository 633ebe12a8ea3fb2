//! The kernel's rpmsg user-space interface, exactly as
//! `include/uapi/linux/rpmsg.h` defines it:
//!
//! ```c
//! struct rpmsg_endpoint_info { char name[32]; __u32 src; __u32 dst; };
//! #define RPMSG_CREATE_EPT_IOCTL  _IOW(0xb5, 0x1, struct rpmsg_endpoint_info)
//! #define RPMSG_DESTROY_EPT_IOCTL _IO(0xb5, 0x2)
//! #define RPMSG_ADDR_ANY          0xFFFFFFFF
//! ```
//!
//! The request numbers are built with rustix's `_IOC` encoding for the
//! target, and checked by the tests against the kernel's values
//! (0x4028b501, 0xb502) and against linux-raw-sys. arm, aarch64 and x86_64
//! all use the generic `_IOC` layout (dir in bits 30-31, size in 16-29,
//! type in 8-15, number in 0-7), so the numbers are the same on all three
//! by construction.

use std::os::fd::BorrowedFd;

use rustix::io::Errno;
use rustix::ioctl::{Ioctl, NoArg, Opcode, Setter, ioctl, opcode};

/// RPMSG_ADDR_ANY: let the kernel pick the local address.
pub(crate) const ADDR_ANY: u32 = u32::MAX;

/// `struct rpmsg_endpoint_info`: 40 bytes, no padding.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct EndpointInfo {
    pub(crate) name: [u8; 32],
    pub(crate) src: u32,
    pub(crate) dst: u32,
}

impl EndpointInfo {
    /// The name must leave room for the kernel's terminating NUL.
    pub(crate) fn new(name: &str, src: u32, dst: u32) -> Result<EndpointInfo, String> {
        if name.len() > 31 || name.is_empty() || name.contains('\0') {
            return Err(format!(
                "endpoint name '{name}' must be 1 to 31 bytes (struct rpmsg_endpoint_info.name is 32 with its NUL)"
            ));
        }
        let mut n = [0u8; 32];
        n[..name.len()].copy_from_slice(name.as_bytes());
        Ok(EndpointInfo { name: n, src, dst })
    }

    pub(crate) fn name(&self) -> &str {
        let end = self.name.iter().position(|&b| b == 0).unwrap_or(32);
        std::str::from_utf8(&self.name[..end]).unwrap_or("")
    }
}

pub(crate) const CREATE_EPT: Opcode = opcode::write::<EndpointInfo>(0xb5, 0x1);
pub(crate) const DESTROY_EPT: Opcode = opcode::none(0xb5, 0x2);

/// RPMSG_CREATE_EPT_IOCTL on an `/dev/rpmsg_ctrlN` descriptor.
pub(crate) fn create_endpoint(ctrl: BorrowedFd<'_>, info: &EndpointInfo) -> Result<(), Errno> {
    // SAFETY: CREATE_EPT is _IOW with exactly this 40-byte struct, which the
    // kernel only reads (rpmsg_ctrldev_ioctl: copy_from_user).
    let req = unsafe { Setter::<CREATE_EPT, EndpointInfo>::new(*info) };
    debug_assert_eq!(req.opcode(), CREATE_EPT);
    // SAFETY: as above; the descriptor is borrowed for the call.
    unsafe { ioctl(ctrl, req) }
}

/// RPMSG_DESTROY_EPT_IOCTL on an `/dev/rpmsgK` descriptor.
pub(crate) fn destroy_endpoint(ept: BorrowedFd<'_>) -> Result<(), Errno> {
    // SAFETY: DESTROY_EPT is _IO: no argument.
    let req = unsafe { NoArg::<DESTROY_EPT>::new() };
    // SAFETY: no memory is passed.
    unsafe { ioctl(ept, req) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{offset_of, size_of};

    #[test]
    fn struct_layout_is_the_kernels() {
        assert_eq!(size_of::<EndpointInfo>(), 40);
        assert_eq!(std::mem::align_of::<EndpointInfo>(), 4);
        assert_eq!(offset_of!(EndpointInfo, name), 0);
        assert_eq!(offset_of!(EndpointInfo, src), 32);
        assert_eq!(offset_of!(EndpointInfo, dst), 36);
    }

    #[test]
    fn request_numbers_are_the_kernels() {
        // Values from include/uapi/linux/rpmsg.h compiled on x86_64, arm and
        // arm64 (all generic _IOC): see research note §6.1.
        assert_eq!(CREATE_EPT as u64, 0x4028_b501);
        assert_eq!(DESTROY_EPT as u64, 0xb502);
        // And as linux-raw-sys generated them from the kernel headers.
        assert_eq!(CREATE_EPT as u64, u64::from(linux_raw_sys::ioctl::RPMSG_CREATE_EPT_IOCTL));
        assert_eq!(DESTROY_EPT as u64, u64::from(linux_raw_sys::ioctl::RPMSG_DESTROY_EPT_IOCTL));
    }

    #[test]
    fn generic_ioc_encoding_by_hand_gives_the_same_numbers() {
        // _IOC(dir, type, nr, size) = dir << 30 | size << 16 | type << 8 | nr
        // with _IOC_WRITE = 1 (asm-generic/ioctl.h, used by arm, arm64, x86).
        let ioc = |dir: u32, ty: u32, nr: u32, size: u32| dir << 30 | size << 16 | ty << 8 | nr;
        assert_eq!(ioc(1, 0xb5, 1, size_of::<EndpointInfo>() as u32), 0x4028_b501);
        assert_eq!(ioc(0, 0xb5, 2, 0), 0xb502);
    }

    #[test]
    fn names_fit_with_their_nul() {
        let i = EndpointInfo::new("rpmsg-client-sample", ADDR_ANY, 0x400).unwrap();
        assert_eq!(i.name(), "rpmsg-client-sample");
        assert_eq!(i.name[19], 0);
        assert!(EndpointInfo::new(&"x".repeat(31), 1, 2).is_ok());
        assert!(EndpointInfo::new(&"x".repeat(32), 1, 2).unwrap_err().contains("31 bytes"));
        assert!(EndpointInfo::new("", 1, 2).is_err());
    }

    #[test]
    fn the_ioctls_on_a_file_that_is_not_a_device_fail_with_enotty() {
        let f = tempfile::tempfile().unwrap();
        let fd = std::os::fd::AsFd::as_fd(&f);
        let info = EndpointInfo::new("x", ADDR_ANY, 1).unwrap();
        // ENOTTY from a kernel; ENOSYS from qemu-user, which does not know
        // the rpmsg ioctls.
        let refused = |r: Result<(), Errno>| matches!(r, Err(Errno::NOTTY | Errno::NOSYS));
        assert!(refused(create_endpoint(fd, &info)), "{:?}", create_endpoint(fd, &info));
        assert!(refused(destroy_endpoint(fd)), "{:?}", destroy_endpoint(fd));
    }
}
