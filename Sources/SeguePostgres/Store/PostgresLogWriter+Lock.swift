import SegueStore

extension PostgresLogWriter {
    /// The first key of the log's advisory lock ('SEGU'); the second is the events table's OID, so
    /// every log (a database, or a schema in one) has its own.
    static let lockClass: Int32 = 0x5345_4755

    /// Takes the one-writer lock of the log (a session-level advisory lock, which the server drops
    /// when the session ends, a killed segued included), waiting up to the lock timeout: the server
    /// process of a segued killed a moment ago may take that long to notice and end, whereas a
    /// segued that is alive keeps the lock, and the wait ends in an error naming it.
    func takeWriterLock(_ session: PostgresSession) throws(StoreError) {
        var parameters = PostgresParameters()
        parameters.append(Self.lockClass)
        let sql = "SELECT true FROM pg_advisory_lock($1, 'events'::regclass::oid::int)"
        let taken: Bool
        do throws(PostgresError) {
            taken = try session.connection.query(sql, parameters).bool(0, 0) == true
        } catch  where error.sqlState == SQLState.lockNotAvailable {
            taken = false
        } catch {
            throw StoreError(error, doing: "Cannot take the log's writer lock at \(location)")
        }
        guard !taken else { return }
        throw StoreError(
            kind: .inUse,
            message: "The log at \(location) is already open for writing by another process"
                + "\(holder(session)). Stop it first: one segued (or import) appends to a log at a time.")
    }

    /// " (PostgreSQL backend pid …, application …, client …)" for the lock's holder, or "".
    private func holder(_ session: PostgresSession) -> String {
        var parameters = PostgresParameters()
        parameters.append(Int64(Self.lockClass))
        let sql = """
            SELECT a.pid, COALESCE(a.application_name, ''), COALESCE(host(a.client_addr), 'local socket')
            FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
            WHERE l.locktype = 'advisory' AND l.granted AND l.classid = $1::oid
                AND l.objid = 'events'::regclass::oid AND l.objsubid = 2
            """
        guard let result = try? session.connection.query(sql, parameters), result.rowCount > 0,
            let pid = try? result.int64(0, 0)
        else { return "" }
        let application = (try? result.string(0, 1)) ?? nil
        let client = (try? result.string(0, 2)) ?? nil
        return " (PostgreSQL backend pid \(pid), application \"\(application ?? "")\", client \(client ?? "?"))"
    }
}
