import Testing

@testable import SegueDaemon

/// A flood of refused handshakes makes a line per 10 s, not a line per connection.
@Suite struct RefusalLogTests {
    static let second: Int64 = 1_000_000_000

    @Test func aFloodIsCountedAndSaidOnceTheIntervalHasPassed() {
        var log = RefusalLog()
        #expect(log.refused("Refused CURVE client key A.", key: "A", now: 0) == "Refused CURVE client key A.")
        for index in 1...4_599 {
            #expect(
                log.refused("Refused CURVE client key K\(index).", key: "K\(index % 3)", now: Int64(index) * 1_000_000)
                    == nil)
        }
        #expect(log.flush(now: 9 * Self.second) == nil, "within the interval")
        #expect(log.flush(now: 10 * Self.second) == "Refused more clients: 4599 more refusals in 10 s, from 3 keys.")
        #expect(log.flush(now: 30 * Self.second) == nil, "nothing held back")
        #expect(
            log.refused("Refused CURVE client key B.", key: "B", now: 41 * Self.second) == "Refused CURVE client key B."
        )
    }

    @Test func aRefusalAfterTheIntervalCarriesTheCountBeforeIt() {
        var log = RefusalLog()
        _ = log.refused("Refused a client that did not authenticate with CURVE (mechanism NULL).", key: nil, now: 0)
        _ = log.refused(
            "Refused a client that did not authenticate with CURVE (mechanism NULL).", key: nil, now: Self.second)
        #expect(
            log.refused("Refused CURVE client key C.", key: "C", now: 11 * Self.second)
                == "Refused CURVE client key C. Before it, 1 more refusal in 10 s.")
    }

    @Test func distinctKeysAreCountedUpToALimit() {
        var log = RefusalLog()
        _ = log.refused("first", key: "first", now: 0)
        for index in 0..<(RefusalLog.keysCounted + 500) { _ = log.refused("k", key: "k\(index)", now: 1) }
        #expect(
            log.flush(now: 10 * Self.second)
                == "Refused more clients: 1500 more refusals in 10 s, from 1000 keys or more.")
    }
}
