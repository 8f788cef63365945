import SegueStore

extension PostgresLogReader {
    /// The log's invariants checked by the server: `seq` gapless from 1, each navigator's revisions
    /// gapless from 1, every command's seq in the log, and the append-only trigger in force. Pages
    /// and indexes are the server's to check (data checksums, `amcheck`); this reads the whole log.
    func integrityCheck() throws(StoreError) -> [String] {
        try withConnection { connection throws(PostgresError) in
            var findings: [String] = []
            let seqs = try connection.query(
                "SELECT count(*)::bigint, COALESCE(MIN(seq), 0)::bigint, COALESCE(MAX(seq), 0)::bigint FROM events")
            let (count, first, last) = (try seqs.int64(0, 0) ?? 0, try seqs.int64(0, 1) ?? 0, try seqs.int64(0, 2) ?? 0)
            if count > 0 && (first != 1 || last != count) {
                findings.append("seq is not gapless from 1: \(count) events with seqs \(first) to \(last).")
            }
            let revisions = try connection.query(
                "SELECT navigator, count(*)::bigint, MIN(revision)::bigint, MAX(revision)::bigint FROM events "
                    + "GROUP BY navigator HAVING MIN(revision) <> 1 OR MAX(revision) <> count(*) ORDER BY navigator")
            for row in 0..<revisions.rowCount {
                findings.append(
                    "Navigator \"\(try revisions.string(row, 0) ?? "")\" has \(try revisions.int64(row, 1) ?? 0) "
                        + "events with revisions \(try revisions.int64(row, 2) ?? 0) to "
                        + "\(try revisions.int64(row, 3) ?? 0): not gapless from 1.")
            }
            let orphans = try connection.query(
                "SELECT count(*)::bigint FROM commands c WHERE c.seq IS NOT NULL "
                    + "AND NOT EXISTS (SELECT 1 FROM events e WHERE e.seq = c.seq)")
            if let orphaned = try orphans.int64(0, 0), orphaned > 0 {
                findings.append("\(orphaned) stored command(s) name a seq that is not in the log.")
            }
            let trigger = try connection.query(
                "SELECT tgenabled::text FROM pg_trigger WHERE tgrelid = 'events'::regclass "
                    + "AND tgname = 'events_append_only'")
            let state = trigger.rowCount == 0 ? nil : try trigger.string(0, 0)
            if state != "O" && state != "A" {
                findings.append(
                    "The append-only trigger events_append_only is \(state == nil ? "missing" : "disabled"): "
                        + "UPDATE and DELETE of events are not refused (ALTER TABLE events ENABLE TRIGGER "
                        + "events_append_only).")
            }
            return findings
        }
    }
}
