import SegueCore
import SegueStore
import Synchronization

/// The shards this daemon leads, each with the epoch it bumped when it took the shard: what the
/// writer's fence (`segue_fence`) checks in every append, shared by the leadership thread (which
/// sets and clears leases) and the group committer's thread (which reads them).
package final class ShardLeases: Sendable {
    package let map: ShardMap
    private let state = Mutex<(epochs: [Int: Int64], generation: Int)>(([:], 0))

    package init(map: ShardMap) { self.map = map }

    /// Held shards and their epochs.
    package var epochs: [Int: Int64] { state.withLock { $0.epochs } }

    /// Bumped at every change: a writer that saw another generation forgets the revisions it cached,
    /// since another daemon may have appended to a shard while this one did not lead it.
    package var generation: Int { state.withLock { $0.generation } }

    func set(_ shard: Int, epoch: Int64?) {
        state.withLock {
            $0.epochs[shard] = epoch
            $0.generation += 1
        }
    }

    /// Clears every lease and returns the shards that were held.
    func clear() -> [Int] {
        state.withLock {
            let held = $0.epochs.keys.sorted()
            $0.epochs = [:]
            $0.generation += 1
            return held
        }
    }

    /// The fence for a batch touching `navigators`: each shard with the epoch held for it, 0 (no
    /// epoch matches) for a shard not held.
    func fence(for navigators: some Sequence<String>) -> (shards: [Int64], epochs: [Int64]) {
        let held = epochs
        let shards = Set(navigators.map { map.shard(of: $0) }).sorted()
        return (shards.map(Int64.init), shards.map { held[$0] ?? 0 })
    }
}
