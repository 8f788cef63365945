import Testing

@testable import SegueDaemon

/// Failed commits on a full disk: the first logged at once, the rest folded into one line a second
/// at most, the recovery once, after a second of successes.
@Suite struct CommitFailureLogTests {
    static let second: Int64 = 1_000_000_000

    @Test func aStormOfFailuresIsOneLinePerSecond() {
        var log = CommitFailureLog()
        let first = log.failed("full", now: 0)
        #expect(first == 0)
        // 1,000 failures, 2.5 ms apart: a line at 1 s and at 2 s, each counting those it folds in.
        var lines: [(at: Int, earlier: Int)] = []
        for i in 1...1_000 {
            if let earlier = log.failed("full \(i)", now: Int64(i) * Self.second / 400) { lines.append((i, earlier)) }
        }
        #expect(lines.map(\.at) == [400, 800])
        #expect(lines.map(\.earlier) == [399, 399])
        // The tail (801...1000) goes out at the next heartbeat a second after the last line.
        let early = log.pending(now: 2 * Self.second + 1)
        #expect(early == nil, "at most once a second")
        let tail = log.pending(now: 3 * Self.second)
        #expect(tail?.count == 200)
        #expect(tail?.last == "full 1000")
        let again = log.pending(now: 5 * Self.second)
        #expect(again == nil, "nothing left")
        let success = log.succeeded(now: 5 * Self.second)
        #expect(success == nil, "a recovery is said once it has lasted a second")
        let recovered = log.recovered(now: 6 * Self.second)
        #expect(recovered == 1_001)
        let twice = log.recovered(now: 7 * Self.second)
        #expect(twice == nil, "the recovery is logged once")
        let next = log.failed("full again", now: 7 * Self.second + 5)
        #expect(next == 0, "a new storm starts with a line")
    }

    /// On a full disk a small commit can fit in room the WAL already has, and the next fail: a
    /// success with a failure within the second after it is no recovery.
    @Test func aSuccessBetweenFailuresIsNoRecovery() {
        var log = CommitFailureLog()
        _ = log.failed("full", now: 0)
        #expect(log.succeeded(now: Self.second) == nil)
        #expect(log.succeeded(now: Self.second + Self.second / 2) == nil)
        _ = log.failed("full", now: Self.second + Self.second * 3 / 4)
        #expect(log.recovered(now: 3 * Self.second) == nil, "the failure undid the success before it")
        #expect(log.succeeded(now: 4 * Self.second) == nil)
        #expect(log.succeeded(now: 5 * Self.second) == 2, "a second of successes: both failures counted")
        #expect(log.succeeded(now: 6 * Self.second) == nil, "nothing to recover from")
    }

    /// The line's text for an error: its own full stop dropped (the line goes on), and the failures
    /// folded since the last line counted.
    @Test func theReasonDropsItsFullStopAndCountsTheFolded() {
        struct Failure: Error, CustomStringConvertible { var description: String }
        var log = CommitFailureLog()
        #expect(log.reason(Failure(description: "disk full."), now: 0) == "disk full")
        #expect(log.reason(Failure(description: "disk full."), now: 1) == nil)
        #expect(log.reason(Failure(description: "disk full."), now: 2) == nil)
        #expect(
            log.reason(Failure(description: "still full"), now: Self.second + 2)
                == "still full (2 more failed since the last report)")
    }
}
