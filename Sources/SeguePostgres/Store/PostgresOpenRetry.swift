import Foundation
import SegueStore

/// How long a store waits for its server at open: a daemon started with (or before) its database
/// keeps trying while the server comes up, and says so (`PostgresOpenAttempt`).
///
/// Only faults that may clear are retried: the server unreachable, starting up or shutting down, out
/// of connections. A wrong password, a missing database, a read-only server, a schema newer than
/// this build or another writer holding the log fail at once: waiting would not fix them.
package struct PostgresOpenRetry: Sendable {
    package var firstDelay: Duration
    package var longestDelay: Duration
    /// Gives up once this much time has passed; nil keeps trying for as long as the progress
    /// callback returns true.
    package var giveUpAfter: Duration?
    /// Asked every `stopCheck` of a pause: true ends the wait at once (a daemon told to stop while it
    /// waits 5 s for its server must not outlast systemd's `TimeoutStopSec=`).
    package var stopped: (@Sendable () -> Bool)?
    static let stopCheck = Duration.milliseconds(50)

    package init(firstDelay: Duration, longestDelay: Duration, giveUpAfter: Duration?) {
        self.firstDelay = firstDelay
        self.longestDelay = longestDelay
        self.giveUpAfter = giveUpAfter
    }

    /// One attempt: the first error is thrown.
    package static let never = PostgresOpenRetry(firstDelay: .zero, longestDelay: .zero, giveUpAfter: .zero)
    /// 250 ms doubling to 5 s, for as long as the caller wants (a daemon: until it is told to stop).
    package static let untilStopped = PostgresOpenRetry(
        firstDelay: .milliseconds(250), longestDelay: .seconds(5), giveUpAfter: nil)

    /// `untilStopped`, the pauses ended as soon as `stopped` returns true.
    package static func untilStopped(when stopped: @escaping @Sendable () -> Bool) -> PostgresOpenRetry {
        var retry = untilStopped
        retry.stopped = stopped
        return retry
    }

    /// Whether an open that failed with `error` may succeed later: the server unreachable, starting,
    /// shutting down or out of connections, or a lock the open needs held past the lock timeout
    /// (another daemon of the log migrating its schema, which may take a minute on a large log).
    static func mayClear(_ error: StoreError) -> Bool {
        guard error.kind == .postgres, let state = error.sqlState else { return false }
        return state.hasPrefix("08") || state == SQLState.cannotConnectNow || state == SQLState.adminShutdown
            || state == "53300" || state == SQLState.lockNotAvailable
    }

    /// Runs `open` until it succeeds, the error is one that does not clear, time is up or
    /// `progress` returns false; then throws the last error.
    func run(_ open: () throws(StoreError) -> Void, progress: (PostgresOpenAttempt) -> Bool) throws(StoreError) {
        let start = ContinuousClock.now
        var delay = firstDelay
        var attempt = 1
        while true {
            do throws(StoreError) {
                return try open()
            } catch {
                let waited = ContinuousClock.now - start
                let timeLeft = giveUpAfter.map { $0 - waited } ?? .seconds(Int64.max / 4)
                guard Self.mayClear(error), timeLeft > .zero else { throw error }
                let pause = min(delay, timeLeft)
                guard progress(PostgresOpenAttempt(attempt: attempt, error: error, retryIn: pause, waited: waited))
                else { throw error }
                guard wait(pause) else { throw error }
                delay = min(delay * 2, longestDelay)
                attempt += 1
            }
        }
    }

    /// Sleeps for `pause`, or says false as soon as `stopped` says true.
    private func wait(_ pause: Duration) -> Bool {
        let end = ContinuousClock.now + pause
        while true {
            if stopped?() == true { return false }
            let left = end - .now
            guard left > .zero else { return true }
            let slice = min(left, Self.stopCheck)
            Thread.sleep(
                forTimeInterval: Double(slice.components.seconds) + Double(slice.components.attoseconds) * 1e-18)
        }
    }
}

/// A failed attempt to open the store, reported before the next: for the daemon's log line and its
/// `STATUS=` to systemd ("Waiting for PostgreSQL at …: attempt 3 failed (…), next in 1 s").
package struct PostgresOpenAttempt: Sendable, CustomStringConvertible {
    package var attempt: Int
    package var error: StoreError
    package var retryIn: Duration
    /// Time since the first attempt began.
    package var waited: Duration

    package var description: String {
        "attempt \(attempt) failed (\(error.message)); trying again in \(retryIn)"
    }
}
