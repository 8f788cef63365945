import SegueStore

extension PostgresLogWriter {
    /// The first key of the log's advisory lock ('SEGU'); the second is the events table's OID, so
    /// every log (a database, or a schema in one) has its own.
    static let lockClass: Int32 = 0x5345_4755

    /// Takes the log's writer lock (a session-level advisory lock, which the server drops when the
    /// session ends, a killed segued included), waiting up to the lock timeout: the server process
    /// of a segued killed a moment ago may take that long to notice and end, whereas a writer that
    /// is alive keeps the lock, and the wait ends in an error naming it.
    ///
    /// One writer (`shared: false`: a segued without `cluster`, an import) holds it alone. Daemons
    /// configured with `cluster` hold it shared: they append side by side, each for the shards it
    /// leads, and keep a lone writer out as it keeps them out.
    func takeWriterLock(_ session: PostgresSession, shared: Bool = false) throws(StoreError) {
        var parameters = PostgresParameters()
        parameters.append(Self.lockClass)
        let function = shared ? "pg_advisory_lock_shared" : "pg_advisory_lock"
        let sql = "SELECT true FROM \(function)($1, 'events'::regclass::oid::int)"
        let taken: Bool
        do throws(PostgresError) {
            taken = try session.connection.query(sql, parameters).bool(0, 0) == true
        } catch  where error.sqlState == SQLState.lockNotAvailable {
            taken = false
        } catch {
            throw StoreError(error, doing: "Cannot take the log's writer lock at \(location)")
        }
        guard !taken else { return }
        let holder = holder(session)
        let message: String
        if shared {
            message =
                "The log at \(location) is open for writing by a segued without `cluster`, or an import\(holder.text): "
                + "daemons configured with `cluster` share a log only with each other. Stop it first, or give it "
                + "the same `cluster` settings."
        } else if holder.shared {
            message =
                "The log at \(location) is served by daemons configured with `cluster`\(holder.text): only they "
                + "append to it, each for the shards it leads. Stop them first, or configure this segued with the "
                + "same `cluster` settings to join them."
        } else {
            message =
                "The log at \(location) is already open for writing by another process\(holder.text). Stop it "
                + "first: one segued (or import) appends to a log at a time."
        }
        throw StoreError(kind: .inUse, message: message)
    }

    /// " (PostgreSQL backend pid …, application …, client …)" for a holder of the lock, or "", and
    /// whether it holds it shared (daemons configured with `cluster`).
    private func holder(_ session: PostgresSession) -> (text: String, shared: Bool) {
        Self.lockHolder(session.connection) ?? ("", false)
    }

    /// The session holding the log's writer lock, as " (PostgreSQL backend pid …, application …,
    /// client …)", and whether it holds it shared; nil when none does (or the look failed).
    static func lockHolder(_ connection: PostgresConnection) -> (text: String, shared: Bool)? {
        var parameters = PostgresParameters()
        parameters.append(Int64(Self.lockClass))
        let sql = """
            SELECT a.pid, COALESCE(a.application_name, ''), COALESCE(host(a.client_addr), 'local socket'),
                l.mode = 'ShareLock'
            FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
            WHERE l.locktype = 'advisory' AND l.granted AND l.classid = $1::oid
                AND l.objid = 'events'::regclass::oid AND l.objsubid = 2
                AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
            ORDER BY a.backend_start LIMIT 1
            """
        guard let result = try? connection.query(sql, parameters), result.rowCount > 0,
            let pid = try? result.int64(0, 0)
        else { return nil }
        let application = (try? result.string(0, 1)) ?? nil
        let client = (try? result.string(0, 2)) ?? nil
        let shared = (try? result.bool(0, 3)) == true
        return (
            " (PostgreSQL backend pid \(pid), application \"\(application ?? "")\", client \(client ?? "?"))", shared
        )
    }
}
