import SegueCore

extension EventStore {
    /// Saves several snapshots in one transaction: a checkpoint is all of them or none, so start-up
    /// never mixes snapshots of two checkpoints.
    package func saveSnapshots(_ snapshots: [Snapshot]) throws(StoreError) {
        let rows = snapshots.map { ($0.navigator, $0.seq, $0.revision, StoreJSON.encode($0.state)) }
        try committer.perform { writer throws(StoreError) in
            try writer.withDatabase { database throws(StoreError) in
                try database.execute("BEGIN IMMEDIATE")
                do throws(StoreError) {
                    let statement = try database.prepare(
                        "INSERT OR REPLACE INTO snapshots (navigator, seq, revision, state) VALUES (?, ?, ?, ?)")
                    for (navigator, seq, revision, text) in rows {
                        statement.reset()
                        statement.bind(navigator, at: 1)
                        statement.bind(seq, at: 2)
                        statement.bind(revision, at: 3)
                        statement.bind(text, at: 4)
                        try statement.run()
                    }
                    try database.execute("COMMIT")
                } catch {
                    database.rollbackQuietly()
                    throw error
                }
            }
        }
    }
}
