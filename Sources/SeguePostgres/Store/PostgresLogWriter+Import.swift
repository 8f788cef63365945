import SegueStore

/// An import's one explicit transaction (`LogImport`): `BEGIN`, each part's inserts as a pipeline
/// (whose Sync, inside the block, commits nothing), then `COMMIT`. The import checks the numbering
/// as it reads (`LogImport.Continuity`) and the table's keys check it again.
///
/// Every step uses the session that began the transaction, never `liveSession`: after a lost
/// connection that would connect again, and the next parts would commit on their own.
extension PostgresLogWriter: ImportTransaction {
    func lastRevision(of navigator: String) throws(StoreError) -> Int64 {
        guard let session = importing?.session else { preconditionFailure("lastRevision outside an import") }
        do throws(StoreError) {
            return try lastRevisions([navigator], session)[navigator] ?? 0
        } catch {
            rollbackImport()
            throw error
        }
    }

    func beginImport() throws(StoreError) {
        let session = try liveSession()
        do throws(PostgresError) {
            try session.connection.execute("BEGIN")
        } catch {
            if session.isBroken { drop() }
            throw StoreError(error, doing: "Cannot begin the import at \(location)")
        }
        importing = (session, lastSeq, lastSeq)
    }

    func appendImportPart(_ units: [AppendUnit]) throws(StoreError) {
        guard let (session, before, start) = importing else {
            preconditionFailure("appendImportPart outside an import")
        }
        var seq = start
        var batch = PostgresBatch()
        for unit in units {
            batch.add(unit)
            seq = unit.events.last?.seq ?? seq
        }
        guard !batch.isEmpty else { return }
        if case .failure(let error) = session.connection.transaction(batch.steps(), afterSending: nil) {
            rollbackImport()
            throw StoreError(error, doing: "Not imported")
        }
        importing = (session, before, seq)
    }

    func appendImportCommands(_ records: [CommandRecord]) throws(StoreError) {
        guard let session = importing?.session else { preconditionFailure("appendImportCommands outside an import") }
        var columns = CommandColumns()
        for record in records { columns.add(record) }
        var parameters = PostgresParameters()
        columns.append(to: &parameters)
        let steps: [PipelineStep] = [.prepared(PostgresBatch.insertCommands, parameters)]
        if case .failure(let error) = session.connection.transaction(steps, afterSending: nil) {
            rollbackImport()
            if error.sqlState == SQLState.uniqueViolation {
                throw StoreError(
                    kind: .duplicateCommand,
                    message: "Not imported: a command id appears twice, or the log holds it already ("
                        + ([error.message] + (error.detail.map { [$0] } ?? [])).joined(separator: ": ") + ").")
            }
            throw StoreError(error, doing: "Not imported")
        }
    }

    func commandsSharingASeq() throws(StoreError) -> (seq: Int64, ids: (String, String))? {
        guard let session = importing?.session else { preconditionFailure("commandsSharingASeq outside an import") }
        return try mapped("Cannot check the imported command ids at \(location)") {
            () throws(PostgresError) -> (seq: Int64, ids: (String, String))? in
            let result = try session.connection.query(
                "SELECT seq, MIN(convert_from(id, 'UTF8')), MAX(convert_from(id, 'UTF8')) FROM commands "
                    + "WHERE seq IS NOT NULL GROUP BY seq HAVING COUNT(*) > 1 ORDER BY seq LIMIT 1")
            guard result.rowCount > 0, let seq = try result.int64(0, 0) else { return nil }
            return (seq, (try result.string(0, 1) ?? "", try result.string(0, 2) ?? ""))
        }
    }

    func commitImport() throws(StoreError) {
        guard let (session, before, seq) = importing else { preconditionFailure("commitImport outside an import") }
        importing = nil
        do throws(PostgresError) {
            try session.connection.execute("COMMIT")
        } catch  where error.connectionLost {
            // The new session that reads the end back is the writer's from here (`liveSession`).
            drop()
            return try settleImport(before: before, seq: seq, error)
        } catch {
            if session.isBroken { drop() }
            throw StoreError(error, doing: "Not imported")
        }
        setOpened(session, lastSeq: seq)
    }

    func rollbackImport() {
        guard let session = importing?.session else { return }
        importing = nil
        guard !session.isBroken, (try? session.connection.execute("ROLLBACK")) != nil,
            let end = try? session.lastSeq()
        else { return drop() }
        setOpened(session, lastSeq: end)
    }

    /// The connection went while `COMMIT` was on its way: reads the log's end on a new session rather
    /// than guessing. It reached the import's last seq (committed) or stayed where it was (not).
    private func settleImport(before: Int64, seq: Int64, _ error: PostgresError) throws(StoreError) {
        let end: Int64
        do throws(StoreError) {
            end = try liveSession().lastSeq()
        } catch {
            throw StoreError(
                kind: .postgres, sqlState: error.sqlState,
                message: "The connection to \(location) was lost during the import's commit, and the log could not "
                    + "be read back (\(error.message)): whether the import was kept is unknown. Check the log's end "
                    + "with segue verify before importing again.")
        }
        if end == seq && seq > before { return }
        let known = end == before && seq > before
        throw StoreError(
            kind: .postgres, sqlState: error.sqlState,
            message: known
                ? "Not imported: the connection to \(location) was lost during the commit, which did not happen "
                    + "(the log still ends at seq \(before)). Import again."
                : "The connection to \(location) was lost during the import's commit, and the log ends at seq \(end): "
                    + "check it with segue verify before importing again.")
    }
}
