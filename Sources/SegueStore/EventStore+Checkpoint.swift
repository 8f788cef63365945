import SegueCore

extension EventStore {
    /// Saves several snapshots in one transaction: a checkpoint is all of them or none, so start-up
    /// never mixes snapshots of two checkpoints. With `thinning`, what it deletes goes in the same
    /// transaction: a seek of a few index entries per navigator, and at most one row deleted.
    package func saveSnapshots(_ snapshots: [Snapshot], thinning: SnapshotThinning?) throws(StoreError) {
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
                    if let thinning {
                        try Self.thin(snapshots.map(\.navigator), thinning, in: database)
                    }
                    try database.execute("COMMIT")
                    writer.committedBesideAppends()
                } catch {
                    database.rollbackQuietly()
                    throw error
                }
            }
        }
    }

    private static func thin(_ navigators: [String], _ thinning: SnapshotThinning, in database: Database)
        throws(StoreError)
    {
        // Below the leases' seq (the largest there is): they are rows of `#` names, skipped anyway.
        let newest = try database.prepare(
            "SELECT seq FROM snapshots WHERE navigator = ? AND seq < 9223372036854775807 ORDER BY seq DESC LIMIT ?")
        let delete = try database.prepare("DELETE FROM snapshots WHERE navigator = ? AND seq = ?")
        for navigator in navigators where SnapshotThinning.thins(navigator) {
            newest.reset()
            newest.bind(navigator, at: 1)
            newest.bind(Int64(thinning.window), at: 2)
            var seqs: [Int64] = []
            while try newest.step() { seqs.append(newest.int64(at: 0)) }
            newest.reset()
            guard let seq = thinning.dropped(newestFirst: seqs) else { continue }
            delete.reset()
            delete.bind(navigator, at: 1)
            delete.bind(seq, at: 2)
            try delete.run()
        }
    }

    /// Judges the next `rows` snapshot rows of `backlog` (`SnapshotBacklog`) and deletes those it
    /// drops, in one transaction; marks it done when no row is left. On failure it stays where it was.
    package func thin(_ backlog: inout SnapshotBacklog, rows: Int) throws(StoreError) {
        var next = backlog
        try committer.perform { writer throws(StoreError) in
            try writer.withDatabase { database throws(StoreError) in
                try database.execute("BEGIN IMMEDIATE")
                do throws(StoreError) {
                    try Self.judge(&next, rows: rows, in: database)
                    try database.execute("COMMIT")
                    writer.committedBesideAppends()
                } catch {
                    database.rollbackQuietly()
                    throw error
                }
            }
        }
        backlog = next
    }

    private static func judge(_ backlog: inout SnapshotBacklog, rows: Int, in database: Database) throws(StoreError) {
        let part = try database.prepare(SnapshotBacklog.partQuery { "?\($0)" })
        part.bind(backlog.navigator, at: 1)
        part.bind(backlog.seq, at: 2)
        part.bind(Int64(rows), at: 3)
        part.bind(Int64(backlog.thinning.recent - 1), at: 4)
        var dropped: [(String, Int64)] = []
        let readBefore = backlog.read
        while try part.step() {
            let navigator = part.text(at: 0) ?? ""
            let seq = part.int64(at: 1)
            let recentFrom = part.isNull(at: 2) ? nil : part.int64(at: 2)
            if backlog.deletes(navigator, seq, recentFrom: recentFrom) { dropped.append((navigator, seq)) }
        }
        part.reset()
        if backlog.read == readBefore { backlog.finish() }
        let delete = try database.prepare("DELETE FROM snapshots WHERE navigator = ? AND seq = ?")
        for (navigator, seq) in dropped {
            delete.reset()
            delete.bind(navigator, at: 1)
            delete.bind(seq, at: 2)
            try delete.run()
        }
    }

    package func raiseLease(shards: [Int: Int64]?, to frame: Int64) throws(StoreError) {
        try writeLease(
            FrameLeaseRows.names(shards: shards?.keys.sorted()), frame,
            """
            INSERT INTO snapshots (navigator, seq, revision, state) VALUES (?1, 9223372036854775807, 0, ?2)
            ON CONFLICT (navigator, seq) DO UPDATE SET state = excluded.state
            WHERE json_extract(snapshots.state, '$.frame') < json_extract(excluded.state, '$.frame')
            """, from: nil)
    }

    package func lowerLease(shards: [Int: Int64]?, from: Int64, to frame: Int64) throws(StoreError) {
        try writeLease(
            FrameLeaseRows.names(shards: shards?.keys.sorted()), frame,
            """
            UPDATE snapshots SET state = ?2
            WHERE navigator = ?1 AND seq = 9223372036854775807 AND json_extract(state, '$.frame') = ?3
            """, from: from)
    }

    private func writeLease(_ rows: [String], _ frame: Int64, _ sql: String, from: Int64?) throws(StoreError) {
        let state = StoreJSON.encode(["frame": .int(frame)])
        try committer.perform { writer throws(StoreError) in
            try writer.withDatabase { database throws(StoreError) in
                try database.execute("BEGIN IMMEDIATE")
                do throws(StoreError) {
                    let statement = try database.prepare(sql)
                    for row in rows {
                        statement.reset()
                        statement.bind(row, at: 1)
                        statement.bind(state, at: 2)
                        if let from { statement.bind(from, at: 3) }
                        try statement.run()
                    }
                    try database.execute("COMMIT")
                    writer.committedBesideAppends()
                } catch {
                    database.rollbackQuietly()
                    throw error
                }
            }
        }
    }
}
