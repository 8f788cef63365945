import SeguePostgres
import Synchronization

/// Leadership changes handed from the leadership thread to the engine's.
final class LeadershipQueue: Sendable {
    private let list = Mutex<[LeadershipChange]>([])

    func append(_ changes: [LeadershipChange]) { list.withLock { $0 += changes } }

    func drain() -> [LeadershipChange] {
        list.withLock { items in
            defer { items.removeAll() }
            return items
        }
    }
}

extension Engine {
    /// Starts taking shards (several daemons on one PostgreSQL log; nothing with one daemon): the
    /// leadership thread's changes reach the loop through `wakeup`, and `moved` replies name the
    /// leaders it sees.
    func startLeadership() {
        guard options.shards != nil, let store = store as? PostgresEventStore, let leases = store.leases else { return }
        let endpoint = options.advertise ?? boundCommandEndpoints.first ?? ""
        let queue = leadershipChanges
        let wakeup = self.wakeup
        let logger = self.logger
        let leadership = PostgresLeadership(
            settings: store.settings, leases: leases, endpoint: endpoint,
            onChange: { changes in
                queue.append(changes)
                wakeup.signal()
            },
            log: { logger.warning($0) })
        core.leaderOf = { [weak leadership] shard in leadership?.leader(of: shard) }
        self.leadership = leadership
        logger.notice(
            "Sharing the log with other daemons: \(leases.map.count) shards; this daemon advertises \(endpoint) "
                + "and takes every shard whose lock is free.")
        leadership.start()
    }
}
