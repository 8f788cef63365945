import SegueCore
import SegueStore

/// The read side of a PostgreSQL log: a session of its own, so reads never wait behind (or fail
/// with) a batch, read-only (`default_transaction_read_only`), connected again when it was lost.
///
/// Each read is one statement, so it sees every transaction committed before it began (READ
/// COMMITTED) and never a part of one.
final class PostgresLogReader {
    let settings: ConnectionSettings
    private var session: PostgresSession?
    /// Set for the reader the frame loop reads through (`limitWaits`): its reads never wait long.
    private var bounded: BoundedReads?

    static let eventColumns = "seq, navigator, revision, type, version, frame, time, command, data"
    /// Rows per statement when walking the whole log.
    static let pageSize = 2000

    init(settings: ConnectionSettings) {
        self.settings = settings
    }

    var location: String { settings.redacted }

    /// From now on, each read waits at most `answerTimeout` for the server (`BoundedReads`). The
    /// live session is kept, bounded as a new one would be; one that cannot be is made again later.
    func limitWaits(to answerTimeout: Duration) {
        bounded = BoundedReads(settings, answerTimeout: answerTimeout)
        guard let connection = session?.connection else { return }
        do throws(PostgresError) {
            try connection.execute(PostgresSession.lockTimeout(for: answerTimeout))
            connection.answerTimeout = answerTimeout
        } catch {
            session = nil
        }
    }

    /// Runs `body` on the live connection; a read that finds the connection lost (the server
    /// restarted since the last read) is run once more on a new one, as reads change nothing. With
    /// bounded waits, a read that timed out is not run again, and starts a pause instead.
    func withConnection<T>(_ body: (PostgresConnection) throws(PostgresError) -> T) throws(StoreError) -> T {
        try bounded?.refuseWhilePaused(location)
        for attempt in 0..<2 {
            // Reads are not on a hot path: look each time for a session the server ended while idle.
            session?.connection.readIdleInput()
            if session?.isBroken ?? true { session = nil }
            let live: PostgresSession
            if let session {
                live = session
            } else {
                live = try newSession()
                session = live
            }
            do throws(PostgresError) {
                let result = try body(live.connection)
                bounded?.succeeded()
                return result
            } catch {
                if error.connectionLost || live.isBroken { session = nil }
                let timedOut = error.timedOut || (bounded != nil && error.sqlState == SQLState.lockNotAvailable)
                if timedOut { bounded?.timedOut(error) }
                if error.connectionLost, !timedOut, attempt == 0 { continue }
                throw StoreError(error, doing: "Cannot read the event store at \(location)")
            }
        }
        preconditionFailure("unreachable: the second attempt returns or throws")
    }

    /// A session made here, or with bounded waits, in the background (`BackgroundConnect`).
    private func newSession() throws(StoreError) -> PostgresSession {
        if let bounded { return try bounded.connector.session(location: location) }
        return try PostgresSession(settings, role: .reader)
    }

    func close() { session = nil }

    // MARK: Rows

    /// The events of a result selecting `eventColumns`.
    static func events(_ result: PostgresResult) throws(PostgresError) -> [EventRecord] {
        var events: [EventRecord] = []
        events.reserveCapacity(result.rowCount)
        for row in 0..<result.rowCount { events.append(try event(result, row)) }
        return events
    }

    static func event(_ result: PostgresResult, _ row: Int) throws(PostgresError) -> EventRecord {
        let seq = try result.int64(row, 0) ?? 0
        let data = try result.withBytes(row, 8) { bytes throws(PostgresError) -> JSONObject in
            guard case .object(let object)? = try? StoreJSON.decode(bytes) else {
                throw PostgresError(
                    sqlState: SQLState.invalidBinaryRepresentation,
                    message: "Event \(seq) has data that is not a JSON object.")
            }
            return object
        }
        let command =
            result.isNull(row, 7)
            ? nil : try result.withBytes(row, 7) { bytes in String(decoding: bytes, as: UTF8.self) }
        return EventRecord(
            seq: seq, navigator: try result.string(row, 1) ?? "", revision: try result.int64(row, 2) ?? 0,
            type: try result.string(row, 3) ?? "", version: Int(try result.int64(row, 4) ?? 0),
            frame: try result.int64(row, 5) ?? 0, time: try result.int64(row, 6) ?? 0, command: command, data: data)
    }

    static func snapshot(_ result: PostgresResult, _ row: Int) throws(PostgresError) -> Snapshot {
        let navigator = try result.string(row, 0) ?? ""
        let seq = try result.int64(row, 1) ?? 0
        let state = try result.withBytes(row, 3) { bytes throws(PostgresError) -> JSON in
            guard let state = try? StoreJSON.decode(bytes) else {
                throw PostgresError(
                    sqlState: SQLState.invalidBinaryRepresentation,
                    message: "The snapshot of \(navigator) at seq \(seq) has a state that is not valid JSON.")
            }
            return state
        }
        return Snapshot(navigator: navigator, seq: seq, revision: try result.int64(row, 2) ?? 0, state: state)
    }
}

@available(*, unavailable)
extension PostgresLogReader: Sendable {}
extension PostgresLogReader: PastReading {}
