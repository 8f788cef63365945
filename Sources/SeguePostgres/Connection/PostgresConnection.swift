import CPostgres
import Foundation

/// One libpq connection, owned by exactly one thread at a time (GRDB's `Database`, for PostgreSQL).
///
/// `init` connects and throws, `deinit` closes (`PQfinish`), so a connection can neither leak nor be
/// used after close. libpq connections are not thread-safe ("a PGconn must not be used from two
/// threads at once"), hence not `Sendable`. A connection that lost its server stays lost: the owner
/// replaces it (`isBroken`), as libpq's own `PQreset` would, but with the owner's set-up run again.
package final class PostgresConnection {
    let handle: OpaquePointer
    package let settings: ConnectionSettings
    /// Names of the statements prepared on this connection (server-side, per session).
    private var prepared: Set<String> = []
    /// Set when libpq failed without the server's word (a read or write on the socket failed) or
    /// a pipeline could not be finished: the session's state is unknown, so it is not used again.
    private(set) var poisoned = false
    /// How long a statement may wait with nothing from the server before it fails and the
    /// connection is given up (`PostgresConnection+Deadline`); nil waits as long as the socket lives.
    package var answerTimeout: Duration?

    package init(_ settings: ConnectionSettings) throws(PostgresError) {
        var pairs = settings.keywordsAndValues()
        // Last, so they win: the store reads and writes UTF-8, and the conninfo is already expanded.
        pairs.append(("client_encoding", "UTF8"))
        let connection = Self.connect(pairs)
        guard let connection else {
            throw PostgresError(sqlState: SQLState.unableToConnect, message: "libpq is out of memory.")
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = PostgresError.connectionMessage(connection)
            PQfinish(connection)
            throw PostgresError(
                sqlState: Self.sqlState(ofConnectFailure: message),
                message: "Cannot connect to PostgreSQL (\(settings.redacted)): \(message)", connectionLost: true)
        }
        handle = connection
        self.settings = settings
        settings.notices?.install(on: connection)
    }

    deinit { PQfinish(handle) }

    private static func connect(_ pairs: [(String, String)]) -> OpaquePointer? {
        let keywords = pairs.map { strdup($0.0) }
        let values = pairs.map { strdup($0.1) }
        defer {
            for keyword in keywords { free(keyword) }
            for value in values { free(value) }
        }
        let keywordPointers = keywords.map { UnsafePointer($0) } + [nil]
        let valuePointers = values.map { UnsafePointer($0) } + [nil]
        return PQconnectdbParams(keywordPointers, valuePointers, 0)
    }

    /// A connection refused before any session exists has no SQLSTATE in libpq's API; the server's
    /// reason is in the message (in English unless the server's `lc_messages` says otherwise).
    /// Anything unrecognised counts as "cannot reach the server", which a caller may retry.
    static func sqlState(ofConnectFailure message: String) -> String {
        let rules: [(String, String)] = [
            ("password authentication failed", SQLState.invalidPassword),
            ("no password supplied", SQLState.invalidPassword),
            (
                "does not exist",
                message.contains("database") ? SQLState.invalidCatalogName : SQLState.invalidAuthorization
            ),
            ("no pg_hba.conf entry", SQLState.invalidAuthorization),
            ("permission denied", SQLState.insufficientPrivilege),
            ("the database system is", SQLState.cannotConnectNow),
        ]
        // libpq's own check of an option's value (`invalid sslmode value: "bogus"`, `invalid integer
        // value "abc" for connection option "port"`): nothing was tried, and waiting would not fix it.
        if message.hasPrefix("invalid "), message.contains(" value") { return SQLState.invalidParameterValue }
        return rules.first { message.contains($0.0) }?.1 ?? SQLState.unableToConnect
    }

    /// The server process serving this connection (`pg_backend_pid()`).
    package var backendPID: Int32 { PQbackendPID(handle) }

    /// True once the connection is lost; every later statement fails, so replace the connection.
    package var isBroken: Bool { poisoned || PQstatus(handle) != CONNECTION_OK }

    func poison() { poisoned = true }

    /// Reads, without waiting, what the server sent while no statement was in flight, so that
    /// `isBroken` knows of a session the server ended meanwhile: a restart or
    /// `pg_terminate_backend` sends a FATAL (57P01) and closes, and libpq finds out only when the
    /// next statement fails on it. The FATAL goes to the notice receiver, as libpq hands an error
    /// that arrives between statements. Costs one `poll` when nothing came.
    package func readIdleInput() {
        let socket = PQsocket(handle)
        while socket >= 0, !isBroken {
            var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 0) > 0 else { return }
            // 0 once the server has closed: libpq then marks the connection bad.
            guard PQconsumeInput(handle) != 0 else { return poison() }
            // Parses what came in: an error goes to the notice receiver, a notification is kept.
            _ = PQisBusy(handle)
        }
    }

    /// True while a transaction is open (or failed and not yet rolled back) on this connection.
    package var inTransaction: Bool {
        let status = PQtransactionStatus(handle)
        return status == PQTRANS_INTRANS || status == PQTRANS_INERROR
    }

    /// A setting the server reports to every client (`server_version`, `in_hot_standby`, ...).
    package func parameterStatus(_ name: String) -> String? {
        PQparameterStatus(handle, name).map { String(cString: $0) }
    }

    /// Frees the `LISTEN` notifications libpq has read so far and returns how many there were
    /// (libpq keeps each until it is taken, so a listening connection must take them).
    @discardableResult
    package func discardNotifications() -> Int {
        var count = 0
        while let notification = PQnotifies(handle) {
            PQfreemem(notification)
            count += 1
        }
        return count
    }

    // MARK: Running statements

    /// Runs one or more statements without parameters (the simple query protocol), for set-up and
    /// DDL; returns the last statement's rows.
    @discardableResult
    package func execute(_ sql: String) throws(PostgresError) -> PostgresResult {
        try awaitingAnswer(within: answerTimeout, statement: sql) { PQsendQuery(handle, sql) }
    }

    /// Runs one statement with parameters, unprepared; rows come back in binary format.
    @discardableResult
    package func query(_ sql: String, _ parameters: PostgresParameters = PostgresParameters()) throws(PostgresError)
        -> PostgresResult
    {
        try awaitingAnswer(within: answerTimeout, statement: sql) {
            parameters.withLibpqArrays { values, lengths, formats, types in
                PQsendQueryParams(handle, sql, Int32(parameters.count), types, values, lengths, formats, 1)
            }
        }
    }

    /// Runs a prepared statement (preparing it on this connection the first time); binary rows.
    @discardableResult
    package func execute(_ statement: PreparedStatement, _ parameters: PostgresParameters = PostgresParameters())
        throws(PostgresError) -> PostgresResult
    {
        try prepareIfNeeded(statement)
        return try awaitingAnswer(within: answerTimeout, statement: statement.sql) {
            parameters.withLibpqArrays { values, lengths, formats, _ in
                PQsendQueryPrepared(handle, statement.name, Int32(parameters.count), values, lengths, formats, 1)
            }
        }
    }

    private func prepareIfNeeded(_ statement: PreparedStatement) throws(PostgresError) {
        guard !prepared.contains(statement.name) else { return }
        let types = statement.parameterTypes.map(\.rawValue)
        try awaitingAnswer(within: answerTimeout, statement: statement.sql) {
            PQsendPrepare(handle, statement.name, statement.sql, Int32(types.count), types)
        }
        prepared.insert(statement.name)
    }

    /// Whether `statement` is prepared on this connection already; the pipeline prepares it inline.
    func isPrepared(_ statement: PreparedStatement) -> Bool { prepared.contains(statement.name) }
    func notePrepared(_ statement: PreparedStatement) { prepared.insert(statement.name) }
    func forgetPrepared(_ statement: PreparedStatement) { prepared.remove(statement.name) }

    /// Takes a result: a success becomes a `PostgresResult`, anything else the error it carries.
    @discardableResult
    func checked(_ result: OpaquePointer?, statement: String?) throws(PostgresError) -> PostgresResult {
        guard let result else {
            poison()
            throw PostgresError(result: nil, connection: handle, statement: statement, lost: true)
        }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_SINGLE_TUPLE, PGRES_EMPTY_QUERY:
            return PostgresResult(handle: result, statement: statement)
        default:
            let error = PostgresError(result: result, connection: handle, statement: statement)
            PQclear(result)
            if error.connectionLost { poison() }
            throw error
        }
    }

    // MARK: Fault injection

    /// Cuts the connection under libpq, as a network failure would: the socket is replaced by one
    /// whose peer is closed (same descriptor number, so libpq never touches a reused one), so whatever the
    /// server sent and libpq has not read yet is lost, and the next read finds the connection gone.
    /// For tests of what a store does when a commit's result never arrives.
    package func simulateConnectionLoss() {
        let socket = PQsocket(handle)
        guard socket >= 0 else { return }
        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0 else { return }
        close(pair[1])
        dup2(pair[0], socket)
        close(pair[0])
    }
}

@available(*, unavailable)
extension PostgresConnection: Sendable {}

/// A statement prepared once per connection and run by name; `parameterTypes` fixes each
/// parameter's type (so a binary `int8` is never read as another type).
package struct PreparedStatement: Sendable, Hashable {
    package let name: String
    package let sql: String
    package let parameterTypes: [PostgresType]

    package init(_ name: String, _ sql: String, _ parameterTypes: [PostgresType] = []) {
        self.name = name
        self.sql = sql
        self.parameterTypes = parameterTypes
    }
}
