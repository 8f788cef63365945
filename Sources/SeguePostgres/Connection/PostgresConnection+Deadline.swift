import CPostgres
import Foundation

extension PostgresConnection {
    /// Sends one statement (`send`: libpq's `PQsend…`) and takes its results as `PQexec` does (the
    /// last one). With a `timeout`, it waits at most that long at a time for the server to send
    /// something: rows that stream in keep it going, a server silent for that long fails it.
    ///
    /// A server goes silent when the network to it is cut (the kernel gives up only after
    /// `tcp_user_timeout`), when its disk stalls, or when a statement waits for a lock. The
    /// connection is given up then (`poison`): the statement may still run, and its answer would
    /// arrive in the middle of the next one.
    @discardableResult
    func awaitingAnswer(within timeout: Duration?, statement: String, _ send: () -> Int32) throws(PostgresError)
        -> PostgresResult
    {
        guard send() == 1 else {
            poison()
            throw PostgresError(result: nil, connection: handle, statement: statement, lost: true)
        }
        var last: OpaquePointer?
        defer { if let last { PQclear(last) } }
        while true {
            if let timeout { try waitWhileBusy(timeout, statement: statement) }
            guard let result = PQgetResult(handle) else { break }
            if let last { PQclear(last) }
            last = result
            if PQstatus(handle) == CONNECTION_BAD { break }
        }
        let answer = last
        last = nil
        return try checked(answer, statement: statement)
    }

    /// Whether the server has begun to answer within `milliseconds` (or the connection failed,
    /// which the next read reports): false when it was silent that long, and reading would block.
    /// What arrived is read into libpq's buffer, so the results are parsed without another `poll`.
    package func answerArrives(withinMilliseconds milliseconds: Int32) -> Bool {
        guard PQisBusy(handle) == 1 else { return true }
        guard readable(withinMilliseconds: milliseconds) != 0 else { return false }
        // A failure shows when the results are read.
        _ = PQconsumeInput(handle)
        return true
    }

    /// `poll` for input on the socket: 1 when there is some, 0 after the wait without, -1 on failure.
    private func readable(withinMilliseconds milliseconds: Int32) -> Int32 {
        let socket = PQsocket(handle)
        guard socket >= 0 else { return -1 }
        var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        while true {
            let ready = poll(&descriptor, 1, milliseconds)
            if ready < 0, errno == EINTR { continue }
            return ready
        }
    }

    /// Reads what the server sends until a whole result is in (`PQisBusy` false).
    private func waitWhileBusy(_ timeout: Duration, statement: String) throws(PostgresError) {
        let milliseconds = Int32(clamping: ConnectionSettings.milliseconds(timeout))
        while PQisBusy(handle) == 1 {
            let ready = readable(withinMilliseconds: milliseconds)
            if ready == 0 {
                poison()
                var error = PostgresError(
                    sqlState: SQLState.connectionFailure,
                    message: "PostgreSQL sent nothing for \(milliseconds) ms while a statement ran (the server is cut "
                        + "off, stalled, or the statement waits for a lock); the session is given up",
                    statement: statement, connectionLost: true)
                error.timedOut = true
                throw error
            }
            guard ready > 0, PQconsumeInput(handle) == 1 else {
                poison()
                throw PostgresError(result: nil, connection: handle, statement: statement, lost: true)
            }
        }
    }
}
