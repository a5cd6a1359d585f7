//! How the process gives its heap back to the system. A reduction's largest blocks are the size
//! of the input (the text, a configuration, a rendered candidate, a parse tree) and live for one
//! test or one round; peak resident memory is what decides whether a large input runs at all.

/// Blocks from this size up get pages of their own, handed back when they are freed.
const OWN_PAGES_FROM: usize = 1 << 20;

/// Makes every block of a megabyte or more a mapping of its own, given back when it is freed.
/// glibc's default moves that threshold up to the largest block freed so far (up to 32 MB):
/// after one candidate of a 30 MB input, the next ones come from the heap, whose freed pages
/// stay resident between them. Call once, before the run allocates.
pub fn give_back_large_blocks() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets a parameter of the allocator; it takes no pointers
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, OWN_PAGES_FROM as libc::c_int);
    }
}

/// Hands the heap's free pages back to the system. A large file's tree is tens of bytes per
/// byte of text, in many small blocks, parsed on one thread and freed on another: glibc keeps
/// what a tree freed in that thread's arena, and the resident size would stay at the largest
/// tree's for the rest of the run. Worth a call after dropping a large tree, not after every
/// small free.
pub fn return_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only walks the allocator's own free lists; it takes no pointers
    unsafe {
        libc::malloc_trim(0);
    }
}
