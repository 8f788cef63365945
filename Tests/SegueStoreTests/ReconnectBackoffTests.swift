import SegueStore
import Testing

@testable import SeguePostgres

/// The PostgreSQL writer's pause between connects: a failure met again during it is reported with
/// what the last connect said, and a misconfiguration exactly as it came (the daemon stops with it).
@Suite struct ReconnectBackoffTests {
    @Test(arguments: [
        (StoreError.Kind.postgres, "Not stored: the store has no PostgreSQL session; the last attempt failed: away"),
        (.misconfigured, "away"),
    ])
    func aFailureMetAgainDuringThePause(kind: StoreError.Kind, message: String) {
        var backoff = ReconnectBackoff()
        let start = ContinuousClock.now
        #expect(throws: StoreError(kind: kind, message: "away")) {
            try backoff.attempt(at: start) { () throws(StoreError) in throw StoreError(kind: kind, message: "away") }
        }
        var connected = false
        #expect(throws: StoreError(kind: kind, message: message)) {
            try backoff.attempt(at: start + ReconnectBackoff.first / 2) { connected = true }
        }
        #expect(!connected, "no connect during the pause")
        #expect(throws: Never.self) {
            try backoff.attempt(at: start + ReconnectBackoff.first) { connected = true }
        }
        #expect(connected, "the pause over, it connects")
    }
}
