import Foundation
import SeguePostgres

/// Puts chosen shards on chosen daemons before any load, so that several daemons lead at once.
///
/// Left alone, the first daemon up takes every shard. Here the test holds every shard's advisory lock
/// on a session of its own (the keys segued uses: the `shards` table's OID and the shard number)
/// while the daemons start as standbys, then frees a daemon's shards while the other daemons are
/// stopped (`SIGSTOP`), so only that daemon's next poll can take them.
final class ShardPlacement {
    let admin: PostgresConnection
    let shards: Int
    private let lockClass: Int32
    private var held: Set<Int>

    /// Creates the log's schema at `url` if it has none yet (an empty import) and takes every
    /// shard's lock on `admin`, a connection to the same database.
    init(url: String, admin: PostgresConnection, shards: Int) throws {
        let empty = DaemonProcess.temporaryDirectory() + "/empty.jsonl"
        _ = FileManager.default.createFile(atPath: empty, contents: Data())
        let created = try Cli.run(["import", empty, "--data-dir", url], environment: [:])
        guard created.status == 0 else { throw PlacementError("the empty import failed: \(created.stderr)") }
        self.admin = admin
        self.shards = shards
        lockClass = Int32(
            truncatingIfNeeded: try admin.query("SELECT 'shards'::regclass::oid::bigint").int64(0, 0) ?? 0)
        held = []
        for shard in 0..<shards {
            guard try lock(shard) else { throw PlacementError("shard \(shard)'s lock is held by a daemon already") }
            held.insert(shard)
        }
    }

    /// Frees `shards` while every process in `paused` is stopped, and waits until `log` (the taking
    /// daemon's) says it took each of them.
    ///
    /// Pausing takes 0.3 s: a paused daemon's last poll may still be on its way to the server.
    func hand(_ shards: [Int], pausing paused: [pid_t], log: () -> String) throws {
        for pid in paused { kill(pid, SIGSTOP) }
        defer { for pid in paused { kill(pid, SIGCONT) } }
        // A poll a paused daemon sent just before it stopped is still run by its server process,
        // which would then hold the lock for it: let such polls end before any lock is freed.
        usleep(300_000)
        for shard in shards {
            var parameters = PostgresParameters()
            parameters.append(lockClass)
            parameters.append(Int32(shard))
            try admin.query("SELECT pg_advisory_unlock($1, $2)", parameters)
            held.remove(shard)
        }
        let deadline = ContinuousClock.now + .seconds(20)
        while !shards.allSatisfy({ log().contains("Took shard \($0) ") }) {
            guard ContinuousClock.now < deadline else {
                throw PlacementError("shards \(shards) not taken:\n\(log())\n\(try sessions())")
            }
            usleep(10_000)
        }
    }

    /// The advertised endpoint recorded as each shard's leader.
    func leaders() throws -> [Int: String] {
        let result = try admin.query("SELECT shard::bigint, leader FROM shards")
        var leaders: [Int: String] = [:]
        for row in 0..<result.rowCount {
            if let shard = try result.int64(row, 0), let leader = try result.string(row, 1) {
                leaders[Int(shard)] = leader
            }
        }
        return leaders
    }

    /// The database's sessions and what they wait for, for a placement that did not happen.
    private func sessions() throws -> String {
        let result = try admin.query(
            """
            SELECT pid::text || ' ' || coalesce(application_name, '') || ' ' || coalesce(state, '') || ' '
                || coalesce(wait_event_type, '') || ' ' || coalesce(wait_event, '') || ' ' || coalesce(query, '')
            FROM pg_stat_activity WHERE datname = current_database()
            UNION ALL
            SELECT 'lock ' || locktype || ' ' || coalesce(classid::text, '') || ' ' || coalesce(objid::text, '')
                || ' pid ' || pid::text || ' ' || mode || ' granted ' || granted::text
            FROM pg_locks WHERE locktype = 'advisory'
            """)
        return (0..<result.rowCount).map { (try? result.string($0, 0)) ?? nil }.compactMap { $0 }
            .joined(separator: "\n")
    }

    private func lock(_ shard: Int) throws -> Bool {
        var parameters = PostgresParameters()
        parameters.append(lockClass)
        parameters.append(Int32(shard))
        return try admin.query("SELECT pg_try_advisory_lock($1, $2)", parameters).bool(0, 0) == true
    }
}

struct PlacementError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
