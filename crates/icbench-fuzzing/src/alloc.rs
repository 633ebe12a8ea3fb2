//! A bound on every single allocation, for the fuzz targets' global
//! allocator: one allocation past it aborts the process with its size on
//! stderr, and libFuzzer keeps the input that made it as a crash.
//!
//! Why not libFuzzer's own `-malloc_limit_mb`: libFuzzer sees allocations
//! only through the hooks a sanitizer's allocator calls
//! (`__sanitizer_install_malloc_and_free_hooks`, FuzzerLoop.cpp in
//! libfuzzer-sys 0.4), and the campaigns run without a sanitizer
//! (docs/results.md), so there the flag is accepted and does nothing. Its
//! RSS limit does not stand in for it either: a zeroed allocation is mapped
//! lazily, so hdrhistogram 7.6 zeroing 4 GiB for a damaged 44-byte blob
//! (issue #30, the `store` target's third find) grows the RSS only as far
//! as the decoder writes.

use std::alloc::{GlobalAlloc, Layout, System};

/// The system allocator, refusing by abort any one allocation (or
/// reallocation) of more than `limit` bytes.
#[derive(Debug)]
pub struct Bounded {
    limit: usize,
}

impl Bounded {
    /// The fuzz targets' bound, 1 GiB: far above anything an input of the
    /// corpora needs (a plan's 10⁶ cells in one vector are 143 MB, a
    /// stored histogram's counts at most 8 MiB) and below what would make
    /// a user's machine swap.
    pub const FUZZ: Bounded = Bounded::new(1 << 30);

    /// A bound of `limit` bytes.
    pub const fn new(limit: usize) -> Bounded {
        Bounded { limit }
    }

    /// Aborts if `size` is past the bound.
    fn check(&self, size: usize) {
        if size > self.limit {
            too_large(size, self.limit);
        }
    }
}

// SAFETY: every call goes to `System` with the caller's arguments, after a
// check that does not allocate.
unsafe impl GlobalAlloc for Bounded {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        self.check(layout.size());
        // SAFETY: the caller's contract, passed on.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        self.check(layout.size());
        // SAFETY: the caller's contract, passed on.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        self.check(new_size);
        // SAFETY: the caller's contract, passed on.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract, passed on.
        unsafe { System.dealloc(ptr, layout) }
    }
}

/// Says the size on stderr and aborts, without allocating: the message is
/// formatted on the stack and written to descriptor 2 directly (the
/// allocator must not call itself).
#[cold]
fn too_large(size: usize, limit: usize) -> ! {
    use std::io::Write;
    use std::os::fd::FromRawFd;
    let mut buf = [0u8; 160];
    let mut rest = &mut buf[..];
    let _ = writeln!(
        rest,
        "icbench-fuzzing: one allocation of {size} bytes, past the bound of {limit}"
    );
    let n = 160 - rest.len();
    // SAFETY: descriptor 2 is the process's stderr; ManuallyDrop keeps it open.
    let mut err = std::mem::ManuallyDrop::new(unsafe { std::fs::File::from_raw_fd(2) });
    let _ = err.write_all(&buf[..n]);
    std::process::abort()
}
