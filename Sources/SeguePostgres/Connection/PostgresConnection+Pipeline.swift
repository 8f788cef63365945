import CPostgres

/// One statement of a pipeline.
package enum PipelineStep {
    case prepared(PreparedStatement, PostgresParameters)
    case query(String, PostgresParameters)

    /// A statement without parameters (`BEGIN`, `COMMIT`).
    package static func query(_ sql: String) -> PipelineStep { .query(sql, PostgresParameters()) }

    var sql: String {
        switch self {
        case .prepared(let statement, _): statement.sql
        case .query(let sql, _): sql
        }
    }
}

extension PostgresConnection {
    /// Sends every step and one Sync before reading anything, then reads one result per step: the
    /// whole list costs one round trip (libpq's pipeline mode) instead of one per statement.
    ///
    /// As the server runs them: after a step fails, the steps up to the Sync are skipped (each
    /// reports `25P02`, in failed transaction), so `BEGIN ... COMMIT` in one pipeline is all or
    /// nothing. When the connection is lost, every step whose result had not arrived reports the loss
    /// (`connectionLost`): whether the server ran it is unknown. The connection is blocking; that
    /// is safe because the statements sent here answer with a few bytes each, so the server never
    /// waits for the client to read while the client waits to write.
    package func pipeline(_ steps: [PipelineStep]) -> [Result<PostgresResult, PostgresError>] {
        pipeline(steps, afterSending: nil)
    }

    /// `pipeline`, calling `afterSending` once everything is sent and before any result is read
    /// (tests cut the connection there).
    package func pipeline(_ steps: [PipelineStep], afterSending: (() -> Void)?) -> [Result<
        PostgresResult, PostgresError
    >] {
        guard PQenterPipelineMode(handle) == 1 else {
            poison()
            let error = PostgresError(result: nil, connection: handle, statement: steps.first?.sql, lost: true)
            return steps.map { _ in .failure(error) }
        }
        // What each result read back answers: a step, or the Prepare sent ahead of one.
        var expected: [(step: Int, isPrepare: Bool)] = []
        for (index, step) in steps.enumerated() {
            guard send(step, index: index, expecting: &expected) else { break }
        }
        let synced = PQpipelineSync(handle) == 1
        afterSending?()
        var results = [Result<PostgresResult, PostgresError>?](repeating: nil, count: steps.count)
        for entry in expected {
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
        if synced { finishPipeline() } else { poison() }
        let lost = PostgresError(
            sqlState: SQLState.connectionFailure,
            message: "The connection to PostgreSQL was lost before the statement's result arrived: "
                + PostgresError.connectionMessage(handle), connectionLost: true)
        return steps.indices.map { index in
            results[index] ?? .failure(PostgresError(lost, statement: steps[index].sql))
        }
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

    /// Reads the Sync's result and leaves pipeline mode, so the connection takes plain calls again.
    private func finishPipeline() {
        guard !isBroken else { return }
        if let sync = PQgetResult(handle) { PQclear(sync) }
        if PQexitPipelineMode(handle) != 1 {
            while let extra = PQgetResult(handle) { PQclear(extra) }
            if PQexitPipelineMode(handle) != 1 { poison() }
        }
    }
}

extension PostgresError {
    /// `error` as the error of `statement`.
    init(_ error: PostgresError, statement: String?) {
        self = error
        self.statement = statement
    }
}
