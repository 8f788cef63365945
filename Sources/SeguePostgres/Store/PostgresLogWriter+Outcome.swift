import SegueStore

extension PostgresLogWriter {
    enum Outcome {
        case committed
        /// A commands row's key was taken: these ids of the batch are stored already.
        case duplicates(Set<String>)
        /// The server refused the batch; nothing of it is stored.
        case failed(StoreError)
        /// The connection was lost before the commit's result (the Sync's) arrived.
        case unknown(StoreError)
    }

    /// Sends the batch as one pipeline, one implicit transaction, and says what became of it.
    func run(_ batch: PostgresBatch, _ session: PostgresSession) -> Outcome {
        switch send(batch, session) {
        case .success(let sent): finish(sent, batch, session)
        case .failure(let error): outcome(of: error, batch, session)
        }
    }

    /// The batch's pipeline sent; its answer is read by `finish`.
    func send(_ batch: PostgresBatch, _ session: PostgresSession) -> Result<
        PostgresConnection.SentPipeline, PostgresError
    > {
        let connection = session.connection
        let hook = afterSendingForTesting.map { hook in { hook(connection) } }
        var steps = batch.steps()
        if let leases, let base = batch.firstSeq.map({ $0 - 1 }) {
            steps.insert(contentsOf: [sharedTurn(), Self.fence(leases, batch, base: base)], at: 0)
        }
        return connection.send(steps, afterSending: hook)
    }

    /// Reads the answer to a batch `send` sent, and says what became of it.
    func finish(_ sent: PostgresConnection.SentPipeline, _ batch: PostgresBatch, _ session: PostgresSession)
        -> Outcome
    {
        switch session.connection.receive(sent) {
        case .success(let rows):
            retire(sent.steps, rows)
            return .committed
        case .failure(let error): return outcome(of: error, batch, session)
        }
    }

    func outcome(of error: PostgresError, _ batch: PostgresBatch, _ session: PostgresSession) -> Outcome {
        if error.connectionLost {
            return .unknown(StoreError(error, doing: "Not stored: the connection was lost during the commit"))
        }
        if error.sqlState == SQLState.uniqueViolation, error.constraint == "commands_pkey",
            let found = try? storedIDs(batch.commandIDs, session)
        {
            return .duplicates(found)
        }
        return .failed(StoreError(error, doing: "Not stored"))
    }

    /// `segue_fence` for the batch's shards, before its inserts: refuses the whole batch unless this
    /// daemon still holds each shard's epoch and the log still ends at `base`.
    static func fence(_ leases: ShardLeases, _ batch: PostgresBatch, base: Int64) -> PipelineStep {
        let fence = leases.fence(for: batch.navigators)
        var shards = PostgresArray(of: .int8)
        var epochs = PostgresArray(of: .int8)
        for (shard, epoch) in zip(fence.shards, fence.epochs) {
            shards.append(shard)
            epochs.append(epoch)
        }
        var parameters = PostgresParameters()
        parameters.append(shards)
        parameters.append(epochs)
        parameters.append(base)
        return .prepared(fenceStatement, parameters)
    }

    static let fenceStatement = PreparedStatement(
        "segue_fence", "SELECT segue_fence($1::bigint[], $2::bigint[], $3::bigint)", [.int8Array, .int8Array, .int8])

    /// Which of `ids` the commands table holds.
    private func storedIDs(_ ids: [[UInt8]], _ session: PostgresSession) throws(PostgresError) -> Set<String> {
        var array = PostgresArray(of: .bytea)
        for id in ids { array.append(bytes: id) }
        var parameters = PostgresParameters()
        parameters.append(array)
        let result = try session.connection.query("SELECT id FROM commands WHERE id = ANY($1)", parameters)
        var found = Set<String>()
        for row in 0..<result.rowCount {
            found.insert(try result.withBytes(row, 0) { bytes in String(decoding: bytes, as: UTF8.self) })
        }
        return found
    }

    /// After a commit whose outcome was lost: connects again at once (ignoring the backoff) to read
    /// the batch back, and reports what it found; when the server cannot be asked yet, fails the
    /// batch and leaves the question to the next session.
    func settle(_ units: ArraySlice<AppendUnit>, plan: Plan, _ error: StoreError) -> [Result<Void, StoreError>] {
        unresolved = plan.batch
        drop()
        lastResolution = nil
        do throws(StoreError) {
            try openSession(first: false)
        } catch let reconnectError {
            // The log's other daemons use another shard count: that, not the lost outcome, is what
            // stops this daemon (the batch is read back by no later session of it).
            if reconnectError.kind == .misconfigured { return fail(units, plan: plan, reconnectError) }
            var unknown = error
            unknown.message =
                "Not acknowledged: the connection to PostgreSQL was lost while the batch committed, and "
                + "whether the server committed it cannot be asked yet (\(reconnectError.message)). It is read "
                + "back at the next connection; a retry with the same command id gets the stored reply if it did."
            return fail(units, plan: plan, unknown)
        }
        if lastResolution == true { return committed(plan) }
        return fail(units, plan: plan, error)
    }

    /// True when the batch is in the log; false when none of it is, its seqs empty or holding
    /// other events (a batch numbered on them after this one failed: seqs are unique, so this one
    /// cannot be there too). With several daemons its command ids may be stored all the same: a
    /// client that got no answer retried them at the daemon that took over meanwhile. Anything else
    /// means another writer changed the log meanwhile, which is reported rather than guessed at.
    func resolve(_ batch: PostgresBatch, _ session: PostgresSession) throws(StoreError) -> Bool {
        let stored = try storedKeys(batch, session)
        let ids = try mapped("Cannot read back a batch whose commit outcome was lost") { () throws(PostgresError) in
            try storedIDs(batch.commandIDs, session)
        }
        let expectedIDs = batch.commandIDs.count
        if stored == batch.eventKeys && ids.count == expectedIDs { return true }
        let foreign = stored.allSatisfy { !batch.eventKeys.contains($0) }
        if foreign && (ids.isEmpty || leases != nil) { return false }
        throw StoreError(
            kind: .postgres, sqlState: SQLState.internalError,
            message: "A batch whose commit outcome was lost is only partly in the log at \(location) (\(stored.count) "
                + "events stored from seq \(batch.firstSeq ?? 0), \(batch.eventKeys.count) in the batch; \(ids.count) of "
                + "\(expectedIDs) command ids): another writer changed the log. Stop every writer and check it with "
                + "segue verify.")
    }

    /// The identities of the events stored on the batch's seqs, in seq order.
    private func storedKeys(_ batch: PostgresBatch, _ session: PostgresSession) throws(StoreError) -> [EventKey] {
        guard let first = batch.firstSeq, let last = batch.lastSeq else { return [] }
        var parameters = PostgresParameters()
        parameters.append(first)
        parameters.append(last)
        return try mapped("Cannot read back a batch whose commit outcome was lost") { () throws(PostgresError) in
            let result = try session.connection.query(
                "SELECT seq, navigator, revision, type, time, command FROM events "
                    + "WHERE seq BETWEEN $1 AND $2 ORDER BY seq", parameters)
            var keys: [EventKey] = []
            for row in 0..<result.rowCount {
                keys.append(
                    EventKey(
                        seq: try result.int64(row, 0) ?? 0, navigator: try result.string(row, 1) ?? "",
                        revision: try result.int64(row, 2) ?? 0, type: try result.string(row, 3) ?? "",
                        time: try result.int64(row, 4) ?? 0,
                        command: result.isNull(row, 5)
                            ? nil : try result.withBytes(row, 5) { String(decoding: $0, as: UTF8.self) }))
            }
            return keys
        }
    }
}
