import CPostgres

/// One statement of a pipeline.
package enum PipelineStep {
    case prepared(PreparedStatement, PostgresParameters)
    case query(String, PostgresParameters)

    /// A statement without parameters, not prepared.
    package static func query(_ sql: String) -> PipelineStep { .query(sql, PostgresParameters()) }

    var sql: String {
        switch self {
        case .prepared(let statement, _): statement.sql
        case .query(let sql, _): sql
        }
    }
}

extension PostgresConnection {
    /// The steps as one transaction without `BEGIN` and `COMMIT`: the statements before a Sync
    /// form one implicit transaction, which the server commits at the Sync (or rolls back if a
    /// step failed), so the server runs two statements fewer than with them and the round trip
    /// is the same. The steps must not open or end a transaction themselves.
    ///
    /// Every step and the Sync are sent before anything is read (libpq's pipeline mode): the whole
    /// list costs one round trip instead of one per statement. After a step fails, the server skips
    /// the steps up to the Sync. `afterSending` runs once everything is sent and before any result is
    /// read (tests cut the connection there). The connection is blocking; that is safe because the
    /// statements sent here answer with a few bytes each, so the server never waits for the client
    /// to read while the client waits to write.
    ///
    /// - Returns: the steps' results once the Sync reported the commit; otherwise the first
    ///   failure. A failure with `connectionLost` means the commit's outcome is unknown: the
    ///   connection went before the Sync answered.
    package func transaction(_ steps: [PipelineStep], afterSending: (() -> Void)?) -> Result<
        [PostgresResult], PostgresError
    > {
        send(steps, afterSending: afterSending).flatMap(receive)
    }

    /// A pipeline sent whose results are not read yet (`send`, then `receive`).
    package struct SentPipeline {
        let steps: [PipelineStep]
        /// What each result read back answers: a step, or the Prepare sent ahead of one.
        let expected: [(step: Int, isPrepare: Bool)]
        let synced: Bool
    }

    /// The first half of `transaction`: every step and the Sync sent, nothing read.
    package func send(_ steps: [PipelineStep], afterSending: (() -> Void)?) -> Result<SentPipeline, PostgresError> {
        guard PQenterPipelineMode(handle) == 1 else {
            poison()
            return .failure(PostgresError(result: nil, connection: handle, statement: steps.first?.sql, lost: true))
        }
        var expected: [(step: Int, isPrepare: Bool)] = []
        expected.reserveCapacity(steps.count + 2)
        for (index, step) in steps.enumerated() {
            guard send(step, index: index, expecting: &expected) else { break }
        }
        let synced = PQpipelineSync(handle) == 1
        afterSending?()
        return .success(SentPipeline(steps: steps, expected: expected, synced: synced))
    }

    /// The second half of `transaction`: the steps' results, up to the Sync's.
    package func receive(_ sent: SentPipeline) -> Result<[PostgresResult], PostgresError> {
        let steps = sent.steps
        var results = [Result<PostgresResult, PostgresError>?](repeating: nil, count: steps.count)
        for entry in sent.expected {
            let outcome = nextResult(statement: steps[entry.step].sql)
            if entry.isPrepare {
                if case .failure = outcome {
                    results[entry.step] = outcome
                    // Not prepared after all (a step before it failed, and the server skipped it).
                    if case .prepared(let statement, _) = steps[entry.step] { forgetPrepared(statement) }
                }
                continue
            }
            if results[entry.step] == nil { results[entry.step] = outcome }
        }
        let sync: Result<Void, PostgresError>
        if sent.synced {
            sync = finishPipeline()
        } else {
            poison()
            sync = .failure(lostError(statement: "Sync"))
        }
        var rows: [PostgresResult] = []
        rows.reserveCapacity(steps.count)
        for (index, result) in results.enumerated() {
            switch result {
            case .success(let result)?: rows.append(result)
            case .failure(let error)?: return .failure(error)
            case nil: return .failure(lostError(statement: steps[index].sql))
            }
        }
        return sync.map { rows }
    }

    private func lostError(statement: String?) -> PostgresError {
        PostgresError(
            sqlState: SQLState.connectionFailure,
            message: "The connection to PostgreSQL was lost before the statement's result arrived: "
                + PostgresError.connectionMessage(handle), statement: statement, connectionLost: true)
    }

    /// Queues `step` (and its Prepare, the first time); false when libpq could not send.
    private func send(_ step: PipelineStep, index: Int, expecting expected: inout [(step: Int, isPrepare: Bool)])
        -> Bool
    {
        switch step {
        case .prepared(let statement, let parameters):
            if !isPrepared(statement) {
                let types = statement.parameterTypes.map(\.rawValue)
                guard PQsendPrepare(handle, statement.name, statement.sql, Int32(types.count), types) == 1 else {
                    return false
                }
                notePrepared(statement)
                expected.append((index, true))
            }
            let sent = parameters.withLibpqArrays { values, lengths, formats, _ in
                PQsendQueryPrepared(handle, statement.name, Int32(parameters.count), values, lengths, formats, 1)
            }
            guard sent == 1 else { return false }
        case .query(let sql, let parameters):
            let sent = parameters.withLibpqArrays { values, lengths, formats, types in
                PQsendQueryParams(handle, sql, Int32(parameters.count), types, values, lengths, formats, 1)
            }
            guard sent == 1 else { return false }
        }
        expected.append((index, false))
        return true
    }

    /// The next statement's result: its first result, the rest up to the NULL that ends it freed.
    private func nextResult(statement: String) -> Result<PostgresResult, PostgresError> {
        guard !isBroken, let first = PQgetResult(handle) else {
            poison()
            return .failure(PostgresError(result: nil, connection: handle, statement: statement, lost: true))
        }
        while let more = PQgetResult(handle) { PQclear(more) }
        if PQresultStatus(first) == PGRES_PIPELINE_ABORTED {
            PQclear(first)
            return .failure(
                PostgresError(
                    sqlState: SQLState.inFailedTransaction,
                    message: "Not run: an earlier statement of the same pipeline failed.", statement: statement))
        }
        return Result { () throws(PostgresError) in try checked(first, statement: statement) }
    }

    /// Reads up to the Sync's result and leaves pipeline mode, so the connection takes plain calls
    /// again: a failure the server sends before the Sync (the implicit transaction's commit failed),
    /// or the connection lost before it arrived.
    private func finishPipeline() -> Result<Void, PostgresError> {
        var outcome: Result<Void, PostgresError> = .success(())
        // libpq ends an error's results with a NULL, as it ends each statement's; anything else
        // that is not the Sync's result means the connection is gone.
        var afterError = false
        while true {
            guard !isBroken, let result = PQgetResult(handle) else {
                if afterError, !isBroken {
                    afterError = false
                    continue
                }
                poison()
                return .failure(lostError(statement: "Sync"))
            }
            let status = PQresultStatus(result)
            if status == PGRES_PIPELINE_SYNC {
                PQclear(result)
                break
            }
            if status == PGRES_FATAL_ERROR, case .success = outcome {
                outcome = .failure(PostgresError(result: result, connection: handle, statement: "COMMIT (Sync)"))
            }
            afterError = status == PGRES_FATAL_ERROR
            PQclear(result)
        }
        if PQexitPipelineMode(handle) != 1 {
            while let extra = PQgetResult(handle) { PQclear(extra) }
            if PQexitPipelineMode(handle) != 1 { poison() }
        }
        return outcome
    }
}
