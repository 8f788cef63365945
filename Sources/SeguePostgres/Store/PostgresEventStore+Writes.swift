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

    static let raiseLease = PreparedStatement(
        "segue_raise_lease",
        """
        INSERT INTO snapshots (navigator, seq, revision, state)
        SELECT navigator, 9223372036854775807, 0, $2 FROM unnest($1::text[]) AS navigator
        ON CONFLICT (navigator, seq) DO UPDATE SET state = EXCLUDED.state
        WHERE (snapshots.state::json->>'frame')::bigint < (EXCLUDED.state::json->>'frame')::bigint
        """, [.textArray, .text])

    static let lowerLease = PreparedStatement(
        "segue_lower_lease",
        """
        UPDATE snapshots SET state = $2
        WHERE navigator = ANY($1::text[]) AND seq = 9223372036854775807 AND (state::json->>'frame')::bigint = $3
        """, [.textArray, .text, .int8])

    package func raiseLease(_ rows: [String], to frame: Int64) throws(StoreError) {
        try writeLease(Self.raiseLease, rows, frame, from: nil)
    }

    package func lowerLease(_ rows: [String], from: Int64, to frame: Int64) throws(StoreError) {
        try writeLease(Self.lowerLease, rows, frame, from: from)
    }

    /// One statement, so one transaction, on the writer's session (with the durability's
    /// `synchronous_commit`).
    private func writeLease(_ statement: PreparedStatement, _ rows: [String], _ frame: Int64, from: Int64?)
        throws(StoreError)
    {
        var names = PostgresArray(of: .text)
        for row in rows { names.append(row) }
        var parameters = PostgresParameters()
        parameters.append(names)
        parameters.append(StoreJSON.encode(["frame": .int(frame)]))
        if let from { parameters.append(from) }
        try withWriter { writer throws(StoreError) in
            try writer.withSession { session throws(StoreError) in
                try mapped("Cannot save the frame lease at \(writer.location)") { () throws(PostgresError) in
                    _ = try session.connection.execute(statement, parameters)
                }
            }
        }
    }

    /// Saves several snapshots in one statement (so one transaction): a checkpoint is all of them or
    /// none, and start-up never mixes snapshots of two checkpoints.
    package func saveSnapshots(_ snapshots: [Snapshot]) throws(StoreError) {
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
        try withWriter { writer throws(StoreError) in
            try writer.withSession { session throws(StoreError) in
                try mapped("Cannot save snapshots at \(writer.location)") { () throws(PostgresError) in
                    _ = try session.connection.execute(Self.upsertSnapshots, parameters)
                }
            }
        }
    }

    /// Appends the events of the JSON Lines file at `path`, all or none, in one transaction; returns
    /// the count. The same rules as `EventStore.importJSONLines`: the file continues this log.
    @discardableResult
    package func importJSONLines(from path: String) throws(StoreError) -> Int {
        let events = try EventStore.readJSONLines(from: path)
        return try withWriter { writer throws(StoreError) in
            try writer.withSession { session throws(StoreError) in
                try EventStore.checkContinuity(events, after: writer.lastSeq) { navigator throws(StoreError) in
                    try writer.lastRevisions([navigator], session)[navigator] ?? 0
                }
            }
            guard !events.isEmpty else { return 0 }
            let results = writer.commit([AppendUnit(events: events.map(\.event))])
            try results[0].get()
            return events.count
        }
    }
}
