import CPostgres
import SegueStore

/// The one error type of the libpq wrapper, in the style of GRDB's `DatabaseError`: the SQLSTATE,
/// the server's (or libpq's) message, and the statement that failed.
///
/// Errors libpq raises on the client side carry no SQLSTATE; they get the standard code of their
/// class (`08006` for a connection lost, `08001` for a server that cannot be reached), so callers
/// classify every error by one field. The message never holds a conninfo: libpq's messages name
/// the host and port, never the password, and this wrapper adds only `ConnectionSettings.redacted`.
package struct PostgresError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The five-character SQLSTATE (postgresql.org/docs/15/errcodes-appendix.html).
    package var sqlState: String
    package var message: String
    /// The server's DETAIL and HINT fields, when it sent them.
    package var detail: String?
    package var hint: String?
    /// The statement that failed, when there was one.
    package var statement: String?
    /// The constraint a violation names (`commands_pkey`), when the server sent one.
    package var constraint: String?
    /// True when the connection is gone (the socket closed, the server stopped or terminated the
    /// backend): the connection must be replaced, and an outcome the server did not report is unknown.
    package var connectionLost: Bool
    /// True when the server said nothing for the connection's `answerTimeout`, or the statement
    /// gave up waiting for a lock (`lock_timeout`): it may answer later, so a caller that must not
    /// wait asks again only after a pause.
    package var timedOut = false
    /// The message already says what to do (Segue's own refusals): the store adds no advice to it.
    package var saysWhatToDo = false

    package init(
        sqlState: String, message: String, detail: String? = nil, hint: String? = nil, statement: String? = nil,
        connectionLost: Bool = false
    ) {
        self.sqlState = sqlState
        self.message = message
        self.detail = detail
        self.hint = hint
        self.statement = statement
        self.connectionLost = connectionLost
    }

    /// The first two characters: the error's class (`08` connection, `23` integrity, `53` resources...).
    package var sqlStateClass: Substring { sqlState.prefix(2) }

    package var description: String {
        var text = "\(message) (SQLSTATE \(sqlState))"
        if let detail { text += " \(detail)" }
        if let hint { text += " Hint: \(hint)" }
        if let statement { text += " [\(StatementText.oneLine(statement))]" }
        return text
    }
}

/// The SQLSTATEs this package acts on, by their names in the PostgreSQL manual.
package enum SQLState {
    package static let connectionFailure = "08006"
    package static let unableToConnect = "08001"
    package static let uniqueViolation = "23505"
    package static let restrictViolation = "23001"
    package static let readOnlyTransaction = "25006"
    package static let inFailedTransaction = "25P02"
    package static let invalidPassword = "28P01"
    package static let invalidAuthorization = "28000"
    package static let invalidCatalogName = "3D000"
    package static let undefinedTable = "42P01"
    package static let insufficientPrivilege = "42501"
    package static let diskFull = "53100"
    package static let lockNotAvailable = "55P03"
    package static let queryCanceled = "57014"
    package static let adminShutdown = "57P01"
    package static let cannotConnectNow = "57P03"
    package static let invalidBinaryRepresentation = "22P03"
    package static let invalidParameterValue = "22023"
    package static let internalError = "XX000"
    /// Raised by `segue_fence`: the append's shard epoch is not the stored one (another daemon took
    /// the shard), so nothing of the batch is stored and this daemon no longer leads it.
    package static let fenced = "SG001"
    /// Raised by `segue_fence`: another daemon appended since this one last read the log's end.
    package static let logMoved = "SG002"
}

extension PostgresError {
    /// The error a failed result reports, or the connection's own message when libpq made none.
    ///
    /// An error the server did not send (no SQLSTATE: libpq's own, from a failed read or write on
    /// the socket) counts as a lost connection: what the server did is unknown.
    init(result: OpaquePointer?, connection: OpaquePointer, statement: String?, lost forced: Bool = false) {
        let field = { (code: Character) in result.flatMap { Self.field(of: $0, code) } }
        let lost = forced || field("C") == nil || PQstatus(connection) == CONNECTION_BAD
        let message = field("M") ?? Self.connectionMessage(connection)
        let fallback = lost ? SQLState.connectionFailure : SQLState.internalError
        self.init(
            sqlState: field("C") ?? fallback, message: message, detail: field("D"), hint: field("H"),
            statement: statement, connectionLost: lost)
        constraint = field("n")
    }

    /// A field of an error or notice the server sent (`PQresultErrorField`), by its one-letter code
    /// (`C` the SQLSTATE, `M` the message...); nil when it sent none.
    static func field(of result: OpaquePointer, _ code: Character) -> String? {
        guard let ascii = code.asciiValue, let value = PQresultErrorField(result, Int32(ascii)) else { return nil }
        return String(cString: value)
    }

    /// libpq's message for the connection, on one line, without its trailing newline.
    static func connectionMessage(_ connection: OpaquePointer) -> String {
        guard let text = PQerrorMessage(connection) else { return "unknown libpq error" }
        let message = oneLine(String(cString: text))
        return message.isEmpty ? "unknown libpq error" : message
    }

    /// libpq's lines as sentences on one line: its hint lines come indented with a tab after a line
    /// without a full stop ("…failed: Connection refused\n\tIs the server running…?").
    static func oneLine(_ text: String) -> String {
        let lines = text.split(separator: "\n").map { $0.split(whereSeparator: \.isWhitespace).joined(separator: " ") }
        var joined = ""
        for line in lines where !line.isEmpty {
            if let last = joined.last { joined += ".?!:;".contains(last) ? " " : ". " }
            joined += line
        }
        return joined
    }
}
