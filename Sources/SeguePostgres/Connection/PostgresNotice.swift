import CPostgres

/// What the server says outside any statement's result, libpq's "notices": the WARNING every
/// session gets as the server shuts down, a NOTICE raised by a function.
///
/// libpq's default prints each on stderr ("the default notice processor … prints the message on
/// stderr"). In segued that is a line without its journald priority, written past the logger, so a
/// connection whose settings carry a `PostgresNoticeHandler` hands its notices to it instead.
package struct PostgresNotice: Sendable, Equatable, CustomStringConvertible {
    /// In English whatever the server's language (`PG_DIAG_SEVERITY_NONLOCALIZED`): WARNING,
    /// NOTICE, INFO, LOG or DEBUG, or FATAL for an error that reaches a session between statements
    /// (libpq hands those to the notice receiver too).
    package var severity: String
    package var sqlState: String
    package var message: String
    package var detail: String?
    package var hint: String?

    package init(severity: String, sqlState: String, message: String, detail: String? = nil, hint: String? = nil) {
        self.severity = severity
        self.sqlState = sqlState
        self.message = message
        self.detail = detail
        self.hint = hint
    }

    init(result: OpaquePointer) {
        let field = { (code: Character) in PostgresError.field(of: result, code) }
        self.init(
            severity: field("V") ?? field("S") ?? "NOTICE", sqlState: field("C") ?? "00000",
            message: field("M") ?? "(no message)", detail: field("D"), hint: field("H"))
    }

    /// The message with its SQLSTATE, detail and hint; the severity is the reader's to show.
    package var description: String {
        var text = "\(message) (SQLSTATE \(sqlState))"
        if let detail { text += " \(detail)" }
        if let hint { text += " Hint: \(hint)" }
        return text
    }
}

/// Where the notices of connections made with these settings go (`ConnectionSettings.notices`).
/// Called on the thread that uses the connection, while libpq reads the server's messages.
package final class PostgresNoticeHandler: Sendable {
    package let receive: @Sendable (PostgresNotice) -> Void

    package init(_ receive: @escaping @Sendable (PostgresNotice) -> Void) {
        self.receive = receive
    }

    /// Makes this handler `connection`'s notice receiver. Not retained by libpq: the connection's
    /// settings hold it for as long as the connection lives.
    func install(on connection: OpaquePointer) {
        PQsetNoticeReceiver(
            connection,
            { context, result in
                guard let context, let result else { return }
                let handler = Unmanaged<PostgresNoticeHandler>.fromOpaque(context).takeUnretainedValue()
                handler.receive(PostgresNotice(result: result))
            }, Unmanaged.passUnretained(self).toOpaque())
    }
}
