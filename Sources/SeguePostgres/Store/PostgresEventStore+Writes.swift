import SegueCore
import SegueStore

extension PostgresEventStore {
    static let upsertSnapshots = PreparedStatement(
        "segue_upsert_snapshots",
        """
        INSERT INTO snapshots (navigator, seq, revision, state)
        SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::text[])
        ON CONFLICT (navigator, seq) DO UPDATE SET revision = EXCLUDED.revision, state = EXCLUDED.state
        """, [.textArray, .int8Array, .int8Array, .textArray])

    // The lease's two writes: $1 the rows, $2 the state; the lowering's $3 the frame the rows must
    // still hold. Their fenced forms (several daemons) add $4 the shards and $5 the epochs held.
    static let raisedRows = """
        INSERT INTO snapshots (navigator, seq, revision, state)
        SELECT navigator, 9223372036854775807, 0, $2 FROM unnest($1::text[]) AS navigator
        """
    static let raisedOnConflict = """
        ON CONFLICT (navigator, seq) DO UPDATE SET state = EXCLUDED.state
        WHERE (snapshots.state::json->>'frame')::bigint < (EXCLUDED.state::json->>'frame')::bigint
        """
    static let loweredRows = """
        UPDATE snapshots SET state = $2
        WHERE navigator = ANY($1::text[]) AND seq = 9223372036854775807 AND (state::json->>'frame')::bigint = $3::bigint
        """

    static let raiseLease = PreparedStatement(
        "segue_raise_lease", raisedRows + "\n" + raisedOnConflict, [.textArray, .text])

    static let lowerLease = PreparedStatement("segue_lower_lease", loweredRows, [.textArray, .text, .int8])

    /// The fence of `segue_fence` in one statement (a lease write is no append: the log's end does
    /// not matter): each shard's row locked `FOR SHARE`, which waits for a takeover's epoch bump in
    /// progress and returns the row it wrote, and holds off a takeover until the write commits. The
    /// statement returns the shards whose epoch is not the one given (none: written); `write`
    /// decides what it writes then (`fence.stale`, or `held` for the shards still led).
    static func fenced(_ write: String) -> String {
        """
        WITH held AS (
            SELECT shard, epoch FROM shards WHERE shard = ANY($4::bigint[]) ORDER BY shard FOR SHARE
        ), fence AS (
            SELECT array_to_string(array_agg(h.shard ORDER BY h.shard) FILTER (WHERE held.shard IS NULL), ', ')
                AS stale
            FROM unnest($4::bigint[], $5::bigint[]) AS h(shard, epoch)
            LEFT JOIN held ON held.shard = h.shard AND held.epoch = h.epoch
        ), written AS (
            \(write)
        )
        SELECT stale FROM fence
        """
    }

    static let raiseFencedLease = PreparedStatement(
        "segue_raise_fenced_lease", fenced(raisedRows + ", fence WHERE fence.stale IS NULL\n" + raisedOnConflict),
        [.textArray, .text, .int8, .int8Array, .int8Array])

    /// Unlike a raise, a lowering writes the rows of the shards still held even when another is
    /// not: it only gives frames back, and the shards' successors start sooner for it.
    static let lowerFencedLease = PreparedStatement(
        "segue_lower_fenced_lease",
        fenced(
            """
            UPDATE snapshots SET state = $2
            FROM unnest($1::text[], $4::bigint[], $5::bigint[]) AS asked(navigator, shard, epoch)
            JOIN held ON held.shard = asked.shard AND held.epoch = asked.epoch
            WHERE snapshots.navigator = asked.navigator AND snapshots.seq = 9223372036854775807
                AND (snapshots.state::json->>'frame')::bigint = $3::bigint
            """),
        [.textArray, .text, .int8, .int8Array, .int8Array])

    package func raiseLease(shards: [Int: Int64]?, to frame: Int64) throws(StoreError) {
        try writeLease(raise: true, shards: shards, frame, from: nil)
    }

    package func lowerLease(shards: [Int: Int64]?, from: Int64, to frame: Int64) throws(StoreError) {
        try writeLease(raise: false, shards: shards, frame, from: from)
    }

    /// One statement, so one transaction, on the writer's session (with the durability's
    /// `synchronous_commit`); when several daemons share the log (`leases`), fenced by the epoch
    /// given for each shard.
    private func writeLease(raise: Bool, shards: [Int: Int64]?, _ frame: Int64, from: Int64?) throws(StoreError) {
        let order = shards?.keys.sorted()
        // The epochs to fence by: only when several daemons share the log.
        let fence = leases == nil ? nil : shards
        var names = PostgresArray(of: .text)
        for row in FrameLeaseRows.names(shards: order) { names.append(row) }
        var parameters = PostgresParameters()
        parameters.append(names)
        parameters.append(StoreJSON.encode(["frame": .int(frame)]))
        if fence != nil || !raise { parameters.append(from ?? 0) }
        if let fence, let order {
            var held = PostgresArray(of: .int8)
            var epochs = PostgresArray(of: .int8)
            for shard in order {
                held.append(Int64(shard))
                epochs.append(fence[shard] ?? 0)
            }
            parameters.append(held)
            parameters.append(epochs)
        }
        let statement =
            switch (raise, fence != nil) {
            case (true, false): Self.raiseLease
            case (false, false): Self.lowerLease
            case (true, true): Self.raiseFencedLease
            case (false, true): Self.lowerFencedLease
            }
        let action = "Cannot save the frame lease"
        try withWriter { writer throws(StoreError) in
            try writer.withSession { session throws(StoreError) in
                // The fenced forms answer the shards whose epoch moved (NULL: written).
                let stale = try mapped("\(action) at \(writer.location)") { () throws(PostgresError) in
                    let result = try session.connection.execute(statement, parameters)
                    return fence == nil ? nil : try result.string(0, 0)
                }
                guard let stale else { return }
                throw StoreError(
                    kind: .postgres, sqlState: SQLState.fenced,
                    message: "\(action) at \(writer.location): another daemon took shard(s) \(stale) (a newer "
                        + "epoch): this daemon no longer leads them; "
                        + (raise ? "nothing was written" : "the other shards' leases were cut back"))
            }
        }
    }

    /// Saves several snapshots in one statement (so one transaction): a checkpoint is all of them or
    /// none, and start-up never mixes snapshots of two checkpoints. With `thinning`, in one
    /// transaction with what it deletes: the navigators' newest seqs read in one query, the rows
    /// judged deleted in one statement.
    package func saveSnapshots(_ snapshots: [Snapshot], thinning: SnapshotThinning?) throws(StoreError) {
        var navigators = PostgresArray(of: .text)
        var seqs = PostgresArray(of: .int8)
        var revisions = PostgresArray(of: .int8)
        var states = PostgresArray(of: .text)
        for snapshot in snapshots {
            navigators.append(snapshot.navigator)
            seqs.append(snapshot.seq)
            revisions.append(snapshot.revision)
            states.append(StoreJSON.encode(snapshot.state))
        }
        var parameters = PostgresParameters()
        for column in [navigators, seqs, revisions, states] { parameters.append(column) }
        let thinned = snapshots.map(\.navigator).filter(SnapshotThinning.thins)
        try withWriter { writer throws(StoreError) in
            try writer.withSession { session throws(StoreError) in
                try mapped("Cannot save snapshots at \(writer.location)") { () throws(PostgresError) in
                    let connection = session.connection
                    guard let thinning, !thinned.isEmpty else {
                        _ = try connection.execute(Self.upsertSnapshots, parameters)
                        return
                    }
                    try connection.execute("BEGIN")
                    do throws(PostgresError) {
                        _ = try connection.execute(Self.upsertSnapshots, parameters)
                        try Self.thin(thinned, thinning, on: connection)
                        try connection.execute("COMMIT")
                    } catch {
                        if !connection.isBroken { _ = try? connection.execute("ROLLBACK") }
                        throw error
                    }
                }
            }
        }
    }

    private static func thin(_ navigators: [String], _ thinning: SnapshotThinning, on connection: PostgresConnection)
        throws(PostgresError)
    {
        var names = PostgresArray(of: .text)
        for navigator in navigators { names.append(navigator) }
        var parameters = PostgresParameters()
        parameters.append(names)
        parameters.append(Int64(thinning.window))
        // Below the leases' seq (the largest there is), as on SQLite. A role granted no DELETE on
        // `snapshots` (as the docs had it before thinning) gets no rows: its checkpoints are saved
        // whole, as before, rather than refused (said at open: `mayThinSnapshots`).
        let newest = try connection.query(
            """
            SELECT n.navigator, s.seq FROM unnest($1::text[]) AS n (navigator)
            CROSS JOIN LATERAL (
                SELECT seq FROM snapshots WHERE navigator = n.navigator AND seq < 9223372036854775807
                ORDER BY seq DESC LIMIT $2
            ) AS s
            WHERE has_table_privilege('snapshots', 'DELETE')
            ORDER BY n.navigator, s.seq DESC
            """, parameters)
        var seqsOf: [String: [Int64]] = [:]
        for row in 0..<newest.rowCount {
            guard let navigator = try newest.string(row, 0), let seq = try newest.int64(row, 1) else { continue }
            seqsOf[navigator, default: []].append(seq)
        }
        var deletedNames = PostgresArray(of: .text)
        var deletedSeqs = PostgresArray(of: .int8)
        for (navigator, seqs) in seqsOf {
            guard let seq = thinning.dropped(newestFirst: seqs) else { continue }
            deletedNames.append(navigator)
            deletedSeqs.append(seq)
        }
        guard deletedSeqs.count > 0 else { return }
        var deleted = PostgresParameters()
        deleted.append(deletedNames)
        deleted.append(deletedSeqs)
        try connection.query(
            "DELETE FROM snapshots WHERE (navigator, seq) IN (SELECT * FROM unnest($1::text[], $2::bigint[]))", deleted)
    }

    /// Judges the next `rows` snapshot rows of `backlog` and deletes those it drops, in one
    /// transaction (`EventStore.thin(_:rows:)`): one query for the rows, one statement for the deletes.
    package func thin(_ backlog: inout SnapshotBacklog, rows: Int) throws(StoreError) {
        var next = backlog
        var parameters = PostgresParameters()
        parameters.append(backlog.navigator)
        parameters.append(backlog.seq)
        parameters.append(Int64(rows))
        parameters.append(Int64(backlog.thinning.recent - 1))
        try withWriter { writer throws(StoreError) in
            try writer.withSession { session throws(StoreError) in
                try mapped("Cannot thin snapshots at \(writer.location)") { () throws(PostgresError) in
                    let connection = session.connection
                    try connection.execute("BEGIN")
                    do throws(PostgresError) {
                        let part = try connection.query(SnapshotBacklog.partQuery { "$\($0)" }, parameters)
                        var names = PostgresArray(of: .text)
                        var seqs = PostgresArray(of: .int8)
                        for row in 0..<part.rowCount {
                            guard let navigator = try part.string(row, 0), let seq = try part.int64(row, 1) else {
                                continue
                            }
                            if next.deletes(navigator, seq, recentFrom: try part.int64(row, 2)) {
                                names.append(navigator)
                                seqs.append(seq)
                            }
                        }
                        if part.rowCount == 0 { next.finish() }
                        if seqs.count > 0 {
                            var deleted = PostgresParameters()
                            deleted.append(names)
                            deleted.append(seqs)
                            try connection.query(
                                "DELETE FROM snapshots WHERE (navigator, seq) IN "
                                    + "(SELECT * FROM unnest($1::text[], $2::bigint[]))", deleted)
                        }
                        try connection.execute("COMMIT")
                    } catch {
                        if !connection.isBroken { _ = try? connection.execute("ROLLBACK") }
                        throw error
                    }
                }
            }
        }
        backlog = next
    }

    /// Appends the events of the JSON Lines file at `path`, and `commands` with them, all or none, in
    /// one transaction, a part at a time; returns the count of events. The same rules as
    /// `EventStore.importJSONLines` (`LogImport`): the file continues this log.
    @discardableResult
    package func importJSONLines(
        from path: String, commands: any CommandSequence, progress: @escaping (Int) -> Void
    ) throws(StoreError) -> Int {
        try withWriter { writer throws(StoreError) in
            try LogImport.run(path, commands: commands, into: writer, progress: progress)
        }
    }
}
