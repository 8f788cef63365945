import CPostgres
import Foundation

extension PostgresConnection {
    /// Sends one statement (`send`: libpq's `PQsend…`) and takes its results as `PQexec` does (the
    /// last one), waiting at most `timeout` at a time for the server to send something: rows that
    /// stream in keep it going, a server silent for that long fails it.
    ///
    /// A server goes silent when the network to it is cut (the kernel gives up only after
    /// `tcp_user_timeout`), when its disk stalls, or when a statement waits for a lock. The
    /// connection is given up then (`poison`): the statement may still run, and its answer would
    /// arrive in the middle of the next one.
    @discardableResult
    func awaitingAnswer(within timeout: Duration, statement: String, _ send: () -> Int32) throws(PostgresError)
        -> PostgresResult
    {
        guard send() == 1 else {
            poison()
            throw PostgresError(result: nil, connection: handle, statement: statement, lost: true)
        }
        var last: OpaquePointer?
        defer { if let last { PQclear(last) } }
        while true {
            try waitWhileBusy(timeout, statement: statement)
            guard let result = PQgetResult(handle) else { break }
            if let last { PQclear(last) }
            last = result
            if PQstatus(handle) == CONNECTION_BAD { break }
        }
        let answer = last
        last = nil
        return try checked(answer, statement: statement)
    }

    /// Reads what the server sends until a whole result is in (`PQisBusy` false).
    private func waitWhileBusy(_ timeout: Duration, statement: String) throws(PostgresError) {
        let milliseconds = Int32(clamping: ConnectionSettings.milliseconds(timeout))
        while PQisBusy(handle) == 1 {
            let socket = PQsocket(handle)
            var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let ready = socket < 0 ? -1 : poll(&descriptor, 1, milliseconds)
            if ready < 0, errno == EINTR { continue }
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
