/// Which shard a navigator belongs to when several daemons share one log (docs/operations.md,
/// "Several daemons on one log").
///
/// The shard is FNV-1a (64-bit) of the name's UTF-8 bytes, modulo the shard count: stable across
/// builds, hosts and languages (Swift's `hashValue` is seeded per process and would move every
/// navigator at each restart). Every daemon on a log must use the same count.
package struct ShardMap: Sendable, Equatable {
    package let count: Int

    package init(count: Int) {
        precondition(count >= 1, "a shard map needs at least one shard")
        self.count = count
    }

    package func shard(of navigator: String) -> Int {
        Int(Self.fnv1a(navigator) % UInt64(count))
    }

    /// FNV-1a, 64-bit (offset basis 0xcbf29ce484222325, prime 0x100000001b3).
    package static func fnv1a(_ name: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in name.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }
}
