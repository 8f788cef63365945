/// Where the log keeps the daemon's frame lease (the last frame it may tick): snapshot rows at the
/// highest seq whose state is `{"frame": N}`, so that a fold from the newest checkpoint (`seq` at most
/// the marker's) passes over them, in older builds too. Their names are ones no navigator can have
/// (navigator names are `[A-Za-z0-9._-]`).
package enum FrameLeaseRows {
    /// The row of the whole log (`shard` nil, one daemon), or of one shard (several daemons).
    package static func name(shard: Int?) -> String { shard.map { "#frames/\($0)" } ?? "#frames" }

    /// The rows of a lease for `shards` (nil: the whole log).
    package static func names(shards: [Int]?) -> [String] {
        shards.map { $0.map { name(shard: $0) } } ?? [name(shard: nil)]
    }

    /// Whether a snapshot row is a lease row (of a shard or not).
    package static func holds(_ navigator: String) -> Bool { navigator.hasPrefix(name(shard: nil)) }
}
