import CSystemd

/// Keeps glibc's allocator from holding on to memory the daemon has freed.
///
/// By default glibc moves its thresholds as the process runs (mallopt(3), M_MMAP_THRESHOLD: "when
/// blocks larger than the current threshold [...] are freed, the threshold is adjusted upward to the
/// size of the freed block", and the trim threshold to twice that): once a large block is freed (a
/// history page, a filter slice, an array that grew), blocks up to its size come from the arenas
/// instead of mappings of their own, and up to twice it stays at the top of each heap when freed. A
/// daemon that runs for months would keep what its largest moments left (docs/operations.md,
/// "Memory").
enum HeapTrim {
    /// glibc's own starting value for both thresholds.
    static let threshold: Int32 = 128 * 1024

    /// Fixes both thresholds at `threshold` (which also turns the moving off), unless the environment
    /// tunes glibc's allocator itself: an operator's `GLIBC_TUNABLES` or `MALLOC_*_` variables win.
    /// Before any thread starts. Returns whether it set them.
    @discardableResult
    static func fixThresholds(environment: [String: String]) -> Bool {
        guard !tunedByEnvironment(environment) else { return false }
        return mallopt(M_MMAP_THRESHOLD, threshold) == 1 && mallopt(M_TRIM_THRESHOLD, threshold) == 1
    }

    static func tunedByEnvironment(_ environment: [String: String]) -> Bool {
        environment["GLIBC_TUNABLES"]?.contains("glibc.malloc.") == true
            || environment.keys.contains { $0.hasPrefix("MALLOC_") && $0.hasSuffix("_") }
    }

    /// Hands the free pages inside the heaps back to the kernel (malloc_trim(3): "this function frees
    /// memory in all arenas and in all chunks with whole free pages"), which no threshold reaches:
    /// free memory between blocks still in use. It walks every arena under its lock, so the engine
    /// asks for it only once the daemon has gone quiet (`IdleTrim`).
    static func trim() { _ = malloc_trim(0) }
}
