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
