import SegueStore

extension StoreError {
    /// `error` as the store's error: kind `.postgres` with its SQLSTATE (which gives the wire code,
    /// `StoreError.code`), the server's message and a sentence on what to do next.
    init(_ error: PostgresError, doing action: String? = nil) {
        var message = error.message
        if let detail = error.detail { message += " (\(detail))" }
        if let action { message = "\(action): \(message)" }
        if !error.saysWhatToDo,
            let advice = Self.advice(forSQLState: error.sqlState, connectionLost: error.connectionLost)
        {
            message += (message.last.map { ".?!".contains($0) } == true ? " " : ". ") + advice
        }
        self.init(kind: .postgres, sqlState: error.sqlState, message: message, sql: error.statement)
    }

    /// What an operator does about each kind of fault; nil where the message says it already.
    /// A refused connection's own state comes first: a wrong password is not a lost connection, and
    /// segued does not wait for it to clear.
    static func advice(forSQLState sqlState: String, connectionLost: Bool) -> String? {
        switch sqlState {
        case SQLState.diskFull:
            return "Free disk space on the database server; appends resume by themselves."
        case SQLState.readOnlyTransaction:
            return "The server takes no writes (a standby, or default_transaction_read_only): "
                + "point the conninfo at the primary."
        case SQLState.invalidPassword, SQLState.invalidAuthorization:
            return "Check the role and the password file (passfile= or PGPASSFILE, mode 0600)."
        case SQLState.insufficientPrivilege:
            return "Grant the role what docs/operations.md, \"Choosing a store backend\" lists."
        case SQLState.adminShutdown, SQLState.cannotConnectNow:
            return "The server is shutting down or starting up; it takes connections again once it is up "
                + "(segued reconnects by itself)."
        case SQLState.invalidParameterValue:
            return "Correct that value in the connection string."
        case SQLState.invalidCatalogName:
            return "Create the database, or name an existing one in the conninfo (dbname=)."
        // No session was made: nothing was sent, so only the address or the server is to check. The
        // tools (segue export, migrate …) and segued's start alike; a running segued says its own
        // retrying in its log.
        case SQLState.unableToConnect:
            return "Check that the server runs and takes connections at that address (host, port, pg_hba.conf)."
        default:
            guard connectionLost || sqlState.hasPrefix("08") else { return nil }
            return "Nothing unacknowledged was kept; segued reconnects by itself once the server is reachable."
        }
    }
}

/// Runs `body`, turning a `PostgresError` into the store's error for `action` (a sentence start
/// naming what failed, "Cannot read the schema version at …").
@discardableResult
func mapped<T>(_ action: @autoclosure () -> String, _ body: () throws(PostgresError) -> T) throws(StoreError) -> T {
    do throws(PostgresError) {
        return try body()
    } catch {
        throw StoreError(error, doing: action())
    }
}
