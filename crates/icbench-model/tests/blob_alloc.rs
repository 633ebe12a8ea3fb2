//! A damaged histogram blob must not make icbench allocate what the blob
//! says it holds (issue #30: the store fuzz target's third find, an
//! out-of-memory at 4 GiB). hdrhistogram 7.6's V2 decoder sizes its
//! buffer by the payload length in the blob's header before it has read
//! a byte of the payload (deserializer.rs, `payload_buf.resize`), and that
//! length is a u32: up to 4 GiB zeroed for a blob of a few bytes.
//!
//! The largest single allocation is measured by a counting allocator, so
//! this test is a binary of its own.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use icbench_model::LatencyHistogram;

struct Largest;

static LARGEST: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Largest {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        LARGEST.fetch_max(l.size(), Ordering::Relaxed);
        unsafe { System.alloc(l) }
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        LARGEST.fetch_max(l.size(), Ordering::Relaxed);
        unsafe { System.alloc_zeroed(l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        LARGEST.fetch_max(new, Ordering::Relaxed);
        unsafe { System.realloc(p, l, new) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) }
    }
}

#[global_allocator]
static ALLOC: Largest = Largest;

/// One test measures at a time: the allocator counts every thread's
/// allocations, and the test harness runs tests on threads side by side.
static MEASURING: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// An uncompressed V2 header (cookie 0x1c849313) for icbench's bounds,
/// declaring `payload_len` bytes of counts, followed by `have` of them.
fn v2(payload_len: u32, have: usize) -> Vec<u8> {
    let mut b = Vec::new();
    b.extend_from_slice(&0x1c84_9313u32.to_be_bytes());
    b.extend_from_slice(&payload_len.to_be_bytes());
    b.extend_from_slice(&0u32.to_be_bytes()); // normalizing offset
    b.extend_from_slice(&3u32.to_be_bytes()); // significant digits
    b.extend_from_slice(&1u64.to_be_bytes()); // lowest discernible value
    b.extend_from_slice(&3_600_000_000_000u64.to_be_bytes()); // highest
    b.extend_from_slice(&1.0f64.to_be_bytes()); // integer to double ratio
    b.extend(std::iter::repeat_n(0x02u8, have)); // counts of 1
    b
}

/// The same bytes deflated behind the compressed cookie (0x1c849314),
/// followed by `zeros` zero bytes (written a mebibyte at a time, so that
/// the test itself allocates no more than that).
fn compressed(inner: &[u8], zeros: usize) -> Vec<u8> {
    use std::io::Write;
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    z.write_all(inner).unwrap();
    let chunk = vec![0u8; 1 << 20];
    for _ in 0..zeros / chunk.len() {
        z.write_all(&chunk).unwrap();
    }
    let z = z.finish().unwrap();
    let mut b = Vec::new();
    b.extend_from_slice(&0x1c84_9314u32.to_be_bytes());
    b.extend_from_slice(&(z.len() as u32).to_be_bytes());
    b.extend_from_slice(&z);
    b
}

#[test]
fn a_blob_declaring_more_counts_than_it_holds_is_corrupt_and_not_allocated() {
    let _one = MEASURING.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    // The honest blobs decode (so the header above is the real format).
    let h = LatencyHistogram::from_blob(&v2(4, 4), 0).expect("four counts of 1");
    assert_eq!(h.len(), 4);
    assert_eq!(LatencyHistogram::from_blob(&compressed(&v2(4, 4), 0), 0).unwrap().len(), 4);
    LARGEST.store(0, Ordering::Relaxed);
    for blob in [v2(u32::MAX - 7, 4), compressed(&v2(u32::MAX - 7, 4), 0), v2(1 << 30, 64)] {
        let e = LatencyHistogram::from_blob(&blob, 0).expect_err("a payload it does not hold");
        assert!(e.to_string().contains("corrupt"), "{e}");
    }
    let largest = LARGEST.load(Ordering::Relaxed);
    assert!(largest < 64 << 20, "a 4 GiB claim allocated {largest} bytes at once");
}

/// A deflate stream that inflates far past any histogram's counts (a
/// "zip bomb" of a few kilobytes) is refused once past the bound, not
/// inflated whole.
#[test]
fn a_blob_that_inflates_without_end_is_corrupt() {
    let _one = MEASURING.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let blob = compressed(&v2(200 << 20, 0), 200 << 20);
    assert!(blob.len() < 1 << 20, "{} bytes deflated", blob.len());
    LARGEST.store(0, Ordering::Relaxed);
    let e = LatencyHistogram::from_blob(&blob, 0).expect_err("too large once inflated");
    assert!(e.to_string().contains("corrupt"), "{e}");
    let largest = LARGEST.load(Ordering::Relaxed);
    assert!(largest < 64 << 20, "{largest} bytes at once");
}
