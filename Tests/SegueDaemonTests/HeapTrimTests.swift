import Testing

@testable import SegueDaemon

/// What keeps the daemon's resident size from creeping: glibc's thresholds held fixed (`HeapTrim`)
/// and the heap's free pages given back once requests stop (`IdleTrim`), with time moved by hand.
@Suite struct HeapTrimTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        /// The request count at each housekeeping pass, one a second.
        var requests: [Int64]
        /// The seconds at which a trim is due.
        var trims: [Int]
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "start-up is work: quiet from the first pass", requests: Array(repeating: 0, count: 8), trims: [5]),
        Case(name: "once per quiet spell", requests: Array(repeating: 3, count: 20), trims: [5]),
        Case(name: "a busy daemon never", requests: Array(0..<20), trims: []),
        Case(name: "a request restarts the wait", requests: [1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2], trims: [9]),
        Case(
            name: "a new spell after more work", requests: [1, 1, 1, 1, 1, 1, 1, 5, 5, 5, 5, 5, 5, 5],
            trims: [5, 12]),
    ]

    @Test(arguments: cases)
    func aTrimIsDueOnceFiveSecondsAfterTheLastRequest(_ c: Case) {
        var idle = IdleTrim()
        var trims: [Int] = []
        for (second, count) in c.requests.enumerated()
        where idle.isDue(requests: count, now: 7_000_000_000 + Int64(second) * 1_000_000_000) {
            trims.append(second)
        }
        #expect(trims == c.trims)
    }

    /// The engine asks for the trim from housekeeping, as an action the loop performs off its thread.
    @Test func theEngineAsksForATrimWhenRequestsStop() throws {
        let h = try EngineHarness()
        _ = h.call(EngineCoreRequestTests.create)
        var trims: [Int] = []
        for second in 0..<13 {
            if second == 7 { _ = h.call(#"{"cmd":"ping"}"#) }
            if h.core.step(.housekeeping(now: h.now)).contains(.trimHeap) { trims.append(second) }
            h.timer.advance(by: 1_000_000_000)
        }
        #expect(trims == [5, 12])
    }

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
