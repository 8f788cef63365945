import Testing

@testable import SegueDaemon

/// What keeps the daemon's resident size from creeping: glibc's thresholds held fixed (`HeapTrim`).
@Suite struct HeapTrimTests {
    static let environments: [([String: String], Bool)] = [
        ([:], false),
        (["MALLOC_ARENA_MAX": "2"], false),
        (["GLIBC_TUNABLES": "glibc.pthread.rseq=0"], false),
        (["GLIBC_TUNABLES": "glibc.malloc.trim_threshold=65536"], true),
        (["MALLOC_TRIM_THRESHOLD_": "65536"], true),
        (["MALLOC_MMAP_THRESHOLD_": "1048576"], true),
    ]

    @Test(arguments: environments)
    func anOperatorsMallocTuningWins(environment: [String: String], tuned: Bool) {
        #expect(HeapTrim.tunedByEnvironment(environment) == tuned)
    }

    /// The thresholds are set unless the environment tuned malloc. Where a block then lands depends on
    /// what every other test left free in the arenas, so the effect is measured on the daemon instead
    /// (docs/operations.md, "Memory").
    @Test func theThresholdsAreFixedUnlessTuned() {
        #expect(HeapTrim.fixThresholds(environment: [:]))
        #expect(!HeapTrim.fixThresholds(environment: ["MALLOC_TRIM_THRESHOLD_": "65536"]))
    }
}
