import Foundation
import SegueStore
import Synchronization

/// Shard leadership for several daemons on one PostgreSQL log (docs/operations.md, "Several daemons
/// on one log"): a thread of its own, on a connection of its own, that holds one session-level
/// advisory lock per led shard and takes every free shard it finds.
///
/// A lock is the server's to free: when the session ends (the daemon was killed, its host went
/// away), the server drops it, and the next poll of a standby takes it. Taking a shard bumps its
/// epoch in `shards` (after the lock, in its own transaction) and records this daemon's advertised
/// command endpoint there, which other daemons name in their `moved` replies. Every append checks
/// the epochs in its transaction (`ShardLeases`, `segue_fence`), so a leader whose session was
/// dropped without its knowing cannot append after the takeover.
///
/// Failure detection: a killed process closes its socket, which the server sees at once. For a
/// leader cut off by the network, every leadership session listens on one channel and notifies it
/// at each poll, so the server always has something to send to each of them: a host that stops
/// acknowledging it is dropped after the session's `tcp_user_timeout` (half a second), which frees
/// its locks. A leader that is only stalled keeps them (its kernel still acknowledges), and keeps
/// its shards. Keepalives back this up, and the connection's own libpq keepalives and
/// `tcp_user_timeout` make the cut-off side notice the same loss.
package final class PostgresLeadership: @unchecked Sendable {

    package let leases: ShardLeases
    let settings: ConnectionSettings
    let endpoint: String
    let pollInterval: Duration
    let onChange: @Sendable ([LeadershipChange]) -> Void
    let log: @Sendable (String) -> Void
    /// The advertised endpoint of the daemon that holds each shard's lock, other than this one.
    private let leaders = Mutex<[Int: String]>([:])
    /// Shards the engine asks to give up (its append was fenced).
    private let stepDowns = Mutex<Set<Int>>([])
    private let stopped = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    private let sleeper = NSCondition()
    private var started = false

    // Only the thread touches these.
    private var connection: PostgresConnection?
    private var previousBackend: Int32?
    /// The first key of each shard's advisory lock: the `shards` table's OID, so that every log (a
    /// database, or a schema in one) has locks of its own; the second key is the shard number.
    private var lockClass: Int32 = 0

    /// - Parameters:
    ///   - settings: the store's connection settings; failure detection is tightened to a second here.
    ///   - endpoint: the command endpoint clients are sent to for the shards this daemon leads.
    ///   - onChange: called on the leadership thread with each round's changes.
    package init(
        settings: ConnectionSettings, leases: ShardLeases, endpoint: String,
        pollInterval: Duration = .milliseconds(100),
        onChange: @escaping @Sendable ([LeadershipChange]) -> Void, log: @escaping @Sendable (String) -> Void
    ) {
        var settings = settings
        settings.keepaliveIdle = .seconds(1)
        settings.tcpUserTimeout = .seconds(1)
        settings.connectTimeout = .seconds(2)
        self.settings = settings
        self.leases = leases
        self.endpoint = endpoint
        self.pollInterval = pollInterval
        self.onChange = onChange
        self.log = log
    }

    /// The channel every leadership session listens on and notifies at each poll.
    static let channel = "segue_leadership"

    /// How long the server waits for a leadership session's host to acknowledge what it sent
    /// before it drops the session (`tcp_user_timeout`): a cut-off leader's shards are free after
    /// this plus a poll, within the second a takeover must fit in.
    static let unacknowledgedMilliseconds = 500

    package func start() {
        started = true
        Thread(named: "segue-leader") { [self] in
            run()
            finished.signal()
        }.start()
    }

    /// Stops the thread and closes its session, which frees every lock it holds.
    package func stop() {
        guard started, !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        sleeper.lock()
        sleeper.broadcast()
        sleeper.unlock()
        finished.wait()
    }

    /// The advertised endpoint of the daemon leading `shard`, if another daemon holds its lock.
    package func leader(of shard: Int) -> String? { leaders.withLock { $0[shard] } }

    /// Asks the thread to give `shards` up (an append for them was fenced): it releases their locks
    /// and reports them lost at its next round.
    package func stepDown(_ shards: [Int]) {
        stepDowns.withLock { $0.formUnion(shards) }
        sleeper.lock()
        sleeper.broadcast()
        sleeper.unlock()
    }

    // MARK: The thread

    private func run() {
        while !stopped.load(ordering: .acquiring) {
            round()
            sleeper.lock()
            if !stopped.load(ordering: .acquiring) && stepDowns.withLock({ $0.isEmpty }) {
                _ = sleeper.wait(until: Date(timeIntervalSinceNow: Double(pollInterval / .milliseconds(1)) / 1000))
            }
            sleeper.unlock()
        }
        connection = nil
        let held = leases.clear()
        if !held.isEmpty { onChange([.lost(shards: held, reason: "the daemon is stopping")]) }
    }

    /// One poll: connect if needed, give up what the engine asked, take free shards, learn leaders.
    private func round() {
        var changes: [LeadershipChange] = []
        do throws(PostgresError) {
            let connection = try live(&changes)
            try connection.execute("NOTIFY \(Self.channel)")
            connection.discardNotifications()
            try releaseRequested(connection, &changes)
            try takeFree(connection, &changes)
            try readLeaders(connection, &changes)
        } catch {
            if error.connectionLost || self.connection?.isBroken == true {
                drop(&changes, reason: "its PostgreSQL session was lost (\(error.message))")
            } else {
                log("Shard leadership: \(error.message)")
            }
        }
        if !changes.isEmpty { onChange(changes) }
    }

    /// The session, connected and set up again if it was lost.
    private func live(_ changes: inout [LeadershipChange]) throws(PostgresError) -> PostgresConnection {
        if let connection, !connection.isBroken { return connection }
        if connection != nil { drop(&changes, reason: "its PostgreSQL session was lost") }
        let connection = try PostgresConnection(settings)
        // The server's side of failure detection: the other daemons' notifications (and its
        // keepalives, after 1 s idle, every second) give it data to send, and tcp_user_timeout
        // drops the session when that stays unacknowledged for 0.5 s.
        try connection.execute(
            "SET tcp_keepalives_idle = 1; SET tcp_keepalives_interval = 1; SET tcp_keepalives_count = 2; "
                + "SET tcp_user_timeout = \(Self.unacknowledgedMilliseconds); SET lock_timeout = 1000; "
                + "SET application_name = 'segued leadership'; LISTEN \(Self.channel)")
        if let previous = previousBackend {
            // The old session may still hold locks the server has not noticed are orphaned.
            var parameters = PostgresParameters()
            parameters.append(previous)
            // Through pg_stat_activity: ending a pid that is gone already makes the server send a
            // WARNING, which libpq prints on stderr, outside the daemon's log.
            _ = try? connection.query(
                "SELECT pg_terminate_backend(pid, 1000) FROM pg_stat_activity WHERE pid = $1", parameters)
        }
        lockClass = Int32(
            truncatingIfNeeded: try connection.query("SELECT 'shards'::regclass::oid::bigint").int64(0, 0) ?? 0)
        previousBackend = connection.backendPID
        self.connection = connection
        return connection
    }

    private func drop(_ changes: inout [LeadershipChange], reason: String) {
        connection = nil
        let held = leases.clear()
        if !held.isEmpty { changes.append(.lost(shards: held, reason: reason)) }
    }

    private func releaseRequested(_ connection: PostgresConnection, _ changes: inout [LeadershipChange])
        throws(PostgresError)
    {
        let requested = stepDowns.withLock { set in
            defer { set.removeAll() }
            return set.sorted()
        }
        let held = leases.epochs
        var released: [Int] = []
        for shard in requested where held[shard] != nil {
            try unlock(shard, connection)
            released.append(shard)
        }
        if !released.isEmpty {
            changes.append(.lost(shards: released, reason: "an append was refused: another daemon took over"))
        }
    }

    private func unlock(_ shard: Int, _ connection: PostgresConnection) throws(PostgresError) {
        var parameters = PostgresParameters()
        parameters.append(lockClass)
        parameters.append(Int32(shard))
        try connection.query("SELECT pg_advisory_unlock($1, $2)", parameters)
        leases.set(shard, epoch: nil)
    }

    /// Tries the lock of every shard not held, and takes each it gets: epoch bumped, endpoint recorded.
    private func takeFree(_ connection: PostgresConnection, _ changes: inout [LeadershipChange])
        throws(PostgresError)
    {
        let held = leases.epochs
        let free = (0..<leases.map.count).filter { held[$0] == nil }
        guard !free.isEmpty else { return }
        var candidates = PostgresArray(of: .int8)
        for shard in free { candidates.append(Int64(shard)) }
        var parameters = PostgresParameters()
        parameters.append(lockClass)
        parameters.append(candidates)
        let taken = try connection.query(
            "SELECT s FROM unnest($2::bigint[]) AS s WHERE pg_try_advisory_lock($1, s::integer)", parameters)
        for row in 0..<taken.rowCount {
            guard let shard = try taken.int64(row, 0).map(Int.init) else { continue }
            var bump = PostgresParameters()
            bump.append(Int32(shard))
            bump.append(endpoint)
            let epoch =
                try connection.query(
                    "INSERT INTO shards (shard, epoch, leader) VALUES ($1, 1, $2) ON CONFLICT (shard) DO UPDATE "
                        + "SET epoch = shards.epoch + 1, leader = EXCLUDED.leader, since = now() RETURNING epoch::bigint",
                    bump
                ).int64(0, 0) ?? 0
            leases.set(shard, epoch: epoch)
            changes.append(.acquired(shard: shard, epoch: epoch))
        }
    }

    /// Who leads the shards this daemon does not: the recorded endpoint of each shard whose lock is
    /// held. A held shard whose epoch moved (never, while the lock holds) is given up.
    private func readLeaders(_ connection: PostgresConnection, _ changes: inout [LeadershipChange])
        throws(PostgresError)
    {
        var parameters = PostgresParameters()
        parameters.append(Int64(lockClass))
        let result = try connection.query(
            """
            SELECT s.shard::bigint, s.epoch, s.leader, EXISTS (
                SELECT 1 FROM pg_locks l WHERE l.locktype = 'advisory' AND l.granted AND l.classid = $1::oid
                    AND l.objid = s.shard AND l.objsubid = 2 AND l.database = (
                        SELECT oid FROM pg_database WHERE datname = current_database()))
            FROM shards s
            """, parameters)
        let held = leases.epochs
        var live: [Int: String] = [:]
        var moved: [Int] = []
        for row in 0..<result.rowCount {
            guard let shard = try result.int64(row, 0).map(Int.init) else { continue }
            let epoch = try result.int64(row, 1) ?? 0
            if let mine = held[shard] {
                if mine != epoch { moved.append(shard) }
                continue
            }
            if try result.bool(row, 3) == true, let leader = try result.string(row, 2) { live[shard] = leader }
        }
        leaders.withLock { $0 = live }
        if !moved.isEmpty {
            // The lock is given back too: the next round takes the shard afresh (a new epoch), unless
            // another daemon gets it first.
            for shard in moved { try unlock(shard, connection) }
            changes.append(.lost(shards: moved, reason: "the shard's epoch moved past this daemon's"))
        }
    }
}
