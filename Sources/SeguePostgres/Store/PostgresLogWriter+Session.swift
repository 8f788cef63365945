import Foundation
import SegueStore

extension PostgresLogWriter {
    /// The writer's session, connecting again (within the backoff) if the last one was lost.
    func liveSession() throws(StoreError) -> PostgresSession {
        if let session {
            // After a pause, a session the server ended meanwhile (a restart) is found here rather
            // than by the failure of what comes next: a standby's first lease write after a takeover,
            // a checkpoint. Between the commands of a busy writer it costs nothing.
            let now = ContinuousClock.now
            if now - lastUse >= Self.idleCheckAfter { session.connection.readIdleInput() }
            if !session.isBroken {
                lastUse = now
                return session
            }
            drop()
        }
        try reconnect.attempt { () throws(StoreError) in try openSession(first: false) }
        lastUse = ContinuousClock.now
        return session!
    }

    /// Runs `body` with the live session; a connection lost on the way is dropped.
    func withSession<T>(_ body: (PostgresSession) throws(StoreError) -> T) throws(StoreError) -> T {
        let session = try liveSession()
        do throws(StoreError) {
            return try body(session)
        } catch {
            if session.isBroken { drop() }
            throw error
        }
    }

    /// Forgets the session, remembering its server process for the next one to end.
    func drop() {
        if let session {
            previousBackend = (session.backendPID, session.backendStart)
            if lostAt == nil { lostAt = .now }
        }
        session = nil
        holdsTurn = false
    }

    /// Connects and sets up: schema (migrated on the first open, checked after), the old session's
    /// process ended, the writer lock, an unknown batch outcome read back, and the log's end.
    func openSession(first: Bool, willMigrate: (PostgresSchemaUpgrade) -> Void = { _ in }) throws(StoreError) {
        let session = try PostgresSession(
            settings, role: .writer(durability, lockTimeoutMilliseconds: lockTimeoutMilliseconds))
        if first {
            let started = ContinuousClock.now
            let found = try PostgresSchema.migrate(session.connection, location: location, willMigrate: willMigrate)
            try PostgresPrivileges.refuseMissing(session.connection, schemaExists: true, location: location)
            if found != 0 && found < PostgresSchema.currentVersion {
                migration = SchemaMigration(
                    from: found, to: PostgresSchema.currentVersion, took: ContinuousClock.now - started)
            }
        } else {
            _ = try PostgresSchema.currentVersion(of: session.connection, location: location)
        }
        if let previous = previousBackend { try end(previous, session) }
        try takeWriterLock(session, shared: leases != nil)
        if let leases {
            try showShardCount(leases.map.count, session)
            if first {
                try Self.refuseOtherShardCount(leases.map.count, session.connection, location: location)
            } else {
                try refuseAnotherClusterCount(leases.map.count, session.connection)
            }
        }
        if leases != nil {
            // A leader cut off by the network must not keep a transaction (and its FOR SHARE on the
            // shards it fenced) open on the server: a takeover's epoch bump waits for it.
            try mapped("Cannot set up the session at \(location)") { () throws(PostgresError) in
                try session.connection.execute(
                    "SET tcp_keepalives_idle = 1; SET tcp_keepalives_interval = 1; SET tcp_keepalives_count = 2; "
                        + "SET tcp_user_timeout = 1000")
            }
        }
        var readBack: PostgresReconnection.ReadBack?
        if let batch = unresolved {
            let stored = try resolve(batch, session)
            lastResolution = stored
            unresolved = nil
            if let first = batch.firstSeq, let last = batch.lastSeq {
                readBack = .init(seqs: first...last, commands: batch.commandIDs.count, stored: stored)
            }
        }
        setOpened(session, lastSeq: try session.lastSeq())
        if let lostAt {
            reconnected(PostgresReconnection(lostFor: .now - lostAt, readBack: readBack))
            self.lostAt = nil
        }
    }

    /// Shows this daemon's shard count to the other daemons of the log: a shared advisory lock
    /// keyed by the events table's OID and the count, which the server drops with the session, as it
    /// does the writer lock. What the running daemons use is thus read from the server, never from
    /// rows a stopped daemon left behind.
    private func showShardCount(_ count: Int, _ session: PostgresSession) throws(StoreError) {
        var parameters = PostgresParameters()
        parameters.append(Int32(count))
        try mapped("Cannot show this daemon's shard count at \(location)") { () throws(PostgresError) in
            try session.connection.query(
                "SELECT true FROM pg_advisory_lock_shared('events'::regclass::oid::int, $1)", parameters)
        }
    }

    /// Refuses a shard count other than the one the log's running daemons show (`showShardCount`):
    /// names would fall in other shards than those daemons think, and navigators be refused or moved
    /// back and forth. With no other daemon running the count may change, as the docs allow. Two
    /// daemons starting together each show their count before they look, so at least the second to
    /// look sees the first.
    static func refuseOtherShardCount(_ count: Int, _ connection: PostgresConnection, location: String)
        throws(StoreError)
    {
        let counts = try shardCounts(connection, location: location)
        let others = counts.filter { $0 != Int64(count) }
        guard !others.isEmpty else { return }
        guard counts.count == 1 else {
            // Daemons with different counts starting together: each that sees another count is refused.
            throw StoreError(
                kind: .misconfigured,
                message: "The log at \(location) is being joined by daemons with cluster.shards "
                    + "\(counts.map(String.init).joined(separator: " and ")), and this daemon's is \(count): every "
                    + "daemon on one log takes the same count. Give them all one count.")
        }
        throw StoreError(
            kind: .misconfigured,
            message: "The log at \(location) is shared in \(counts[0]) shards by the daemons serving it, but this "
                + "daemon's cluster.shards is \(count): every daemon on one log takes the same count. Set "
                + "cluster.shards to \(counts[0]), or stop every daemon first to change it.")
    }

    /// The shard counts the log's other running daemons show (`showShardCount`), ascending.
    static func shardCounts(_ connection: PostgresConnection, location: String) throws(StoreError) -> [Int64] {
        try mapped("Cannot read the shard counts of the log's daemons at \(location)") {
            () throws(PostgresError) -> [Int64] in
            let result = try connection.query(
                """
                SELECT DISTINCT objid::bigint FROM pg_locks
                    WHERE locktype = 'advisory' AND granted AND classid = 'events'::regclass::oid
                        AND objsubid = 2 AND pid <> pg_backend_pid()
                        AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
                    ORDER BY 1
                """)
            var counts: [Int64] = []
            for row in 0..<result.rowCount { if let count = try result.int64(row, 0) { counts.append(count) } }
            return counts
        }
    }

    /// A running daemon's new session (after a cut or a server restart): the other daemons may all
    /// have been restarted with another count meanwhile, and this one would write names to shards
    /// they place elsewhere. It is refused (`misconfigured`: the daemon stops) only when every other
    /// daemon shows another count, and still does a second later: a newcomer with a wrong count shows
    /// it before its own check refuses it, and must not stop the daemons that have the right one.
    func refuseAnotherClusterCount(_ count: Int, _ connection: PostgresConnection) throws(StoreError) {
        for look in 0..<2 {
            let counts = try Self.shardCounts(connection, location: location)
            guard !counts.isEmpty, !counts.contains(Int64(count)) else { return }
            if look == 0 { Thread.sleep(forTimeInterval: Self.secondLookAfter) }
        }
        try Self.refuseOtherShardCount(count, connection, location: location)
    }

    /// How long a running daemon waits to look at the other daemons' shard counts again.
    static let secondLookAfter = 1.0

    /// Ends the previous session's server process if it is still there (the same pid and start
    /// time: a restarted server may have given the pid to someone else), waiting up to 5 s. Until it
    /// has ended it may still be committing the batch whose outcome is unknown, and it holds the lock.
    private func end(_ previous: (pid: Int32, start: Int64), _ session: PostgresSession) throws(StoreError) {
        var parameters = PostgresParameters()
        parameters.append(previous.pid)
        parameters.append(previous.start)
        try mapped("Cannot end the previous session's server process at \(location)") { () throws(PostgresError) in
            try session.connection.query(
                "SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity WHERE pid = $1 "
                    + "AND (extract(epoch FROM backend_start) * 1000000)::bigint = $2", parameters)
        }
    }

    /// The last stored revision of each of `navigators` that has events, in one query.
    func lastRevisions(_ navigators: [String], _ session: PostgresSession) throws(StoreError) -> [String: Int64] {
        guard !navigators.isEmpty else { return [:] }
        var names = PostgresArray(of: .text)
        for name in navigators { names.append(name) }
        var parameters = PostgresParameters()
        parameters.append(names)
        return try mapped("Cannot read the navigators' revisions at \(location)") { () throws(PostgresError) in
            let result = try session.connection.execute(Self.selectRevisions, parameters)
            var revisions: [String: Int64] = [:]
            for row in 0..<result.rowCount {
                if let name = try result.string(row, 0) { revisions[name] = try result.int64(row, 1) ?? 0 }
            }
            return revisions
        }
    }

    static let selectRevisions = PreparedStatement(
        "segue_last_revisions",
        "SELECT navigator, MAX(revision)::bigint FROM events WHERE navigator = ANY($1) GROUP BY navigator",
        [.textArray])
}

/// When the writer may try to connect again after a failure: at once the first time, then after
/// 50 ms doubling to 2 s, so that an outage costs a failed connect per pause, not per command.
struct ReconnectBackoff {
    static let first = Duration.milliseconds(50)
    static let longest = Duration.seconds(2)
    private var pause = DoublingPause(first: first, longest: longest)
    private var lastError: StoreError?

    /// Runs `connect` unless the pause since the last failure is still running, in which case the
    /// last failure is reported again (as the reason this append fails).
    mutating func attempt(
        at now: ContinuousClock.Instant = .now, _ connect: () throws(StoreError) -> Void
    ) throws(StoreError) {
        if pause.left(at: now) != nil, var error = lastError {
            // The last connect's own reason: a server away, a refused role or a read-only database
            // alike. A misconfiguration is no passing outage, and whichever caller meets it first
            // stops the daemon with its words: it goes as it came.
            if error.kind != .misconfigured {
                error.message =
                    "Not stored: the store has no PostgreSQL session; the last attempt failed: \(error.message)"
            }
            throw error
        }
        do throws(StoreError) {
            try connect()
            self = ReconnectBackoff()
        } catch {
            lastError = error
            pause.failed(at: now)
            throw error
        }
    }
}
