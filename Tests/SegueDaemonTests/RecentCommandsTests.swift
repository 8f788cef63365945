import Testing

@testable import SegueDaemon

/// The engine's memory of recent command ids (`RecentCommands`): oldest out first, bounded in count
/// and in bytes, never dropping a command whose events are not durable yet.
@Suite struct RecentCommandsTests {
    static func command(_ seq: Int64) -> PreviousCommand {
        PreviousCommand(seq: seq, body: [UInt8(seq % 256)], fingerprint: nil)
    }

    @Test func theOldestIdsAreForgottenFirst() {
        var recent = RecentCommands(capacity: 3)
        for (index, id) in ["a", "b", "c", "d", "e"].enumerated() {
            recent.remember(id, Self.command(Int64(index)), durableSeq: .max)
        }
        #expect(recent["a"] == nil && recent["b"] == nil)
        #expect(recent["c"]?.seq == 2 && recent["d"]?.seq == 3 && recent["e"]?.seq == 4)
        #expect(recent.count == 3)
    }

    @Test func rememberingAnIdAgainKeepsOneSlot() {
        var recent = RecentCommands(capacity: 2)
        recent.remember("a", Self.command(1), durableSeq: .max)
        recent.remember("a", Self.command(2), durableSeq: .max)
        recent.remember("b", Self.command(3), durableSeq: .max)
        #expect(recent["a"]?.seq == 2, "replaced, not evicted by its own second entry")
        #expect(recent.count == 2 && recent.storage == 2)
    }

    /// A long-running daemon remembers millions of ids over its life: the order array must stay
    /// bounded (it is compacted), and the last `capacity` ids must all be there.
    @Test func storageStaysBoundedOverALongRun() {
        var recent = RecentCommands(capacity: 100)
        for index in 0..<50_000 {
            recent.remember("id-\(index)", Self.command(Int64(index)), durableSeq: .max)
            #expect(recent.storage <= 2 * (100 + 1024) + 2)
        }
        #expect(recent.count == 100)
        #expect((49_900..<50_000).allSatisfy { recent["id-\($0)"]?.seq == Int64($0) })
        #expect(recent["id-49899"] == nil)
    }

    @Test func aFailedCommitForgetsWhatItVoided() {
        var recent = RecentCommands(capacity: 10)
        for seq in 1...6 { recent.remember("c\(seq)", Self.command(Int64(seq)), durableSeq: 4) }
        recent.forget(after: 4)
        #expect((1...4).allSatisfy { recent["c\($0)"] != nil })
        #expect(recent["c5"] == nil && recent["c6"] == nil)
        recent.remember("c5", Self.command(7), durableSeq: 4)
        #expect(recent["c5"]?.seq == 7, "the id can be applied and remembered again")
    }

    static func reply(_ seq: Int64, bytes: Int) -> PreviousCommand {
        PreviousCommand(seq: seq, body: Array(repeating: UInt8(ascii: "x"), count: bytes), fingerprint: nil)
    }

    /// Each row: the reply sizes remembered in turn (ids "0", "1", ...), the durable seq (reply n has
    /// seq n + 1), and the ids still held after the last.
    static let bounds: [(sizes: [Int], durable: Int64, held: [String])] = [
        ([40, 40, 40], .max, ["1", "2"]),  // three 41-byte entries in 100 bytes: the oldest goes
        ([99, 10], .max, ["1"]),  // one past the limit drops everything older
        ([150], .max, []),  // an entry larger than the limit alone is not kept
        ([40, 40, 40], 0, ["0", "1", "2"]),  // none durable: all kept, past the bound
        ([40, 40, 40, 40], 1, ["1", "2", "3"]),  // only the durable one goes
        ([10, 10, 10, 10, 10], .max, ["2", "3", "4"]),  // the count bound (3) alone
    ]

    @Test(arguments: bounds)
    func theBytesAndTheCountBoundTheMemoryButNotWhatIsNotDurable(
        sizes: [Int], durable: Int64, held: [String]
    ) {
        var recent = RecentCommands(capacity: 3, byteLimit: 100)
        for (index, size) in sizes.enumerated() {
            recent.remember("\(index)", Self.reply(Int64(index + 1), bytes: size), durableSeq: durable)
        }
        #expect((0..<sizes.count).map(String.init).filter { recent[$0] != nil } == held)
        #expect(recent.bytes == held.map { $0.utf8.count + sizes[Int($0)!] }.reduce(0, +))
    }

    @Test func forgettingAndReplacingKeepTheByteCount() {
        var recent = RecentCommands(capacity: 10, byteLimit: 1_000)
        recent.remember("a", Self.reply(1, bytes: 100), durableSeq: 0)
        recent.remember("a", Self.reply(2, bytes: 30), durableSeq: 0)
        recent.remember("b", Self.reply(3, bytes: 50), durableSeq: 0)
        #expect(recent.bytes == 31 + 51)
        recent.forget(after: 2)
        #expect(recent.bytes == 31 && recent["b"] == nil)
    }
}
