//! Cache hints shared by the `shm` ring and the engine's floor, which
//! measures the least a message hand-over can cost with the same hint.

/// Pushes the 64-byte lines of `len` bytes from `p` out of this core's
/// private caches into the cache both cores share (L3 on x86 servers), so
/// the consumer's reads are served there instead of by snoops into this
/// core. CLDEMOTE is the hint meant for this producer–consumer hand-over;
/// "on processors which do not support the CLDEMOTE instruction (including
/// legacy hardware) the instruction will be treated as a NOP" (Intel SDM
/// vol. 2A, CLDEMOTE), so no feature check is needed.
///
/// It pays from two lines up. The consumer polls the line of the sequence
/// word, then reads the next one: two misses, one after the other, and the
/// second is the cheaper for being served from the shared cache. Measured
/// on this repo's VM (2026-11-22, 8 random-order replicates; copy mode):
/// 64 B round trip 460 → 358 ns, 256 B 542 → 468 ns, 32 B unchanged.
///
/// The writer must not touch these lines again soon after: "software should
/// ensure that after issuing CLDEMOTE the line is not accessed again
/// immediately by the same core" (SDM).
///
/// # Safety
/// `p .. p + len` lies within one live mapping.
#[inline]
pub unsafe fn demote(p: *const u8, len: usize) {
    #[cfg(target_arch = "x86_64")]
    for off in (0..len).step_by(64) {
        // SAFETY: the caller's range is mapped; the hint reads and writes
        // nothing architecturally visible.
        unsafe {
            std::arch::asm!("cldemote [{}]", in(reg) p.add(off), options(nostack, preserves_flags, readonly))
        };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (p, len);
}
