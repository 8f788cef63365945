import Foundation
import SegueStore

/// The waiting a reader on the frame loop may do (`PostgresEventStore.limitReadWaits`): each
/// statement at most `answerTimeout` of silence from the server, the session made again on a thread
/// of its own, and after a read that timed out a pause in which reads fail at once.
///
/// Without it, the loop's reads (command ids, a shared log's new events, `state` of a navigator led
/// elsewhere) waited as long as the socket lived: up to `tcp_user_timeout` on a cut network, for
/// ever behind an operator's `LOCK TABLE`, and `connect_timeout` more to connect again. No tick,
/// heartbeat or reply went out meanwhile.
final class BoundedReads {
    let answerTimeout: Duration
    let connector: BackgroundConnect
    /// While it runs, reads fail without asking the server: after one timed out.
    private var pause = DoublingPause(first: .seconds(1), longest: .seconds(8))
    private var pauseReason = ""

    init(_ settings: ConnectionSettings, answerTimeout: Duration) {
        self.answerTimeout = answerTimeout
        connector = BackgroundConnect(settings, answerTimeout: answerTimeout)
    }

    /// Throws while a pause after a timed-out read runs.
    func refuseWhilePaused(_ location: String) throws(StoreError) {
        guard let left = pause.left() else { return }
        throw StoreError(
            kind: .postgres, sqlState: SQLState.connectionFailure,
            message: "Cannot read the event store at \(location) now: a read \(pauseReason) moments ago, so reads "
                + "wait \(Self.milliseconds(left)) ms more before asking it again. Nothing unacknowledged was kept.")
    }

    /// A read succeeded: the next timeout pauses for the shortest time again.
    func succeeded() { pause.succeeded() }

    /// A read timed out (`error`): reads pause, twice as long as the last time, up to 8 s.
    func timedOut(_ error: PostgresError) {
        pause.failed()
        pauseReason =
            error.sqlState == SQLState.lockNotAvailable
            ? "waited \(Self.milliseconds(answerTimeout) * 4 / 5) ms for a lock on the log's tables"
            : "got no answer within \(Self.milliseconds(answerTimeout)) ms"
    }

    static func milliseconds(_ duration: Duration) -> Int64 { ConnectionSettings.milliseconds(duration) }
}

/// Makes a reader's session on a thread of its own: libpq's connect blocks up to `connect_timeout`
/// (a server cut off by the network answers no SYN), which a caller on the frame loop must not pay.
/// One attempt at a time; after a failure the next waits 50 ms, doubling to 2 s (`ReconnectBackoff`'s
/// pace).
final class BackgroundConnect: @unchecked Sendable {
    private let settings: ConnectionSettings
    private let answerTimeout: Duration
    private let condition = NSCondition()
    // Guarded by `condition`.
    private var connecting = false
    private var made: PostgresSession?
    private var lastFailure: StoreError?
    private var retry = DoublingPause(first: ReconnectBackoff.first, longest: ReconnectBackoff.longest)

    init(_ settings: ConnectionSettings, answerTimeout: Duration) {
        self.settings = settings
        self.answerTimeout = answerTimeout
    }

    /// A new session: the one made in the background if it is ready; else a new attempt starts
    /// (unless the pause after a failed one runs) and the caller waits up to `answerTimeout` for it.
    /// An attempt another call started is not waited for: an outage costs one wait, not one per read.
    func session(location: String) throws(StoreError) -> PostgresSession {
        condition.lock()
        defer { condition.unlock() }
        if made == nil, !connecting {
            if retry.left() != nil, let lastFailure {
                throw Self.noSession(lastFailure, location)
            }
            start()
            let deadline = Date(timeIntervalSinceNow: Double(BoundedReads.milliseconds(answerTimeout)) / 1000)
            while made == nil, connecting, condition.wait(until: deadline) {}
        }
        if let session = made {
            made = nil
            // Made a while ago perhaps (its caller had given up waiting): the server may have ended it.
            session.connection.readIdleInput()
            if !session.isBroken { return session }
        }
        if let lastFailure, !connecting { throw Self.noSession(lastFailure, location) }
        throw StoreError(
            kind: .postgres, sqlState: SQLState.unableToConnect,
            message: "Cannot read the event store at \(location) now: the connection to it is being made again "
                + "and the server has not answered yet. Nothing unacknowledged was kept; segued reconnects by itself.")
    }

    private static func noSession(_ failure: StoreError, _ location: String) -> StoreError {
        var error = failure
        error.message =
            "Cannot read the event store at \(location) now: the last attempt to connect failed (\(failure.message))"
        return error
    }

    /// Called with `condition` held.
    private func start() {
        connecting = true
        let settings = settings
        let answerTimeout = answerTimeout
        Thread(named: "segue-pg-read") { [self] in
            BackgroundThread.leaveRealtimePolicy()
            var session: PostgresSession?
            var failure: StoreError?
            do throws(StoreError) {
                session = try PostgresSession(settings, role: .reader, answerTimeout: answerTimeout)
            } catch {
                failure = error
            }
            condition.lock()
            connecting = false
            made = session
            lastFailure = failure
            if failure != nil { retry.failed() } else { retry.succeeded() }
            condition.broadcast()
            condition.unlock()
        }.start()
    }
}
