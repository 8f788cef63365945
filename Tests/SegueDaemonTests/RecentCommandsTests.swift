import Testing

@testable import SegueDaemon

/// The engine's memory of recent command ids (`RecentCommands`): oldest out first, bounded storage.
@Suite struct RecentCommandsTests {
    static func command(_ seq: Int64) -> PreviousCommand {
        PreviousCommand(seq: seq, body: [UInt8(seq % 256)], fingerprint: nil)
    }

    @Test func theOldestIdsAreForgottenFirst() {
        var recent = RecentCommands(capacity: 3)
        for (index, id) in ["a", "b", "c", "d", "e"].enumerated() { recent.remember(id, Self.command(Int64(index))) }
        #expect(recent["a"] == nil && recent["b"] == nil)
        #expect(recent["c"]?.seq == 2 && recent["d"]?.seq == 3 && recent["e"]?.seq == 4)
        #expect(recent.count == 3)
    }

    @Test func rememberingAnIdAgainKeepsOneSlot() {
        var recent = RecentCommands(capacity: 2)
        recent.remember("a", Self.command(1))
        recent.remember("a", Self.command(2))
        recent.remember("b", Self.command(3))
        #expect(recent["a"]?.seq == 2, "replaced, not evicted by its own second entry")
        #expect(recent.count == 2 && recent.storage == 2)
    }

    /// A long-running daemon remembers millions of ids over its life: the order array must stay
    /// bounded (it is compacted), and the last `capacity` ids must all be there.
    @Test func storageStaysBoundedOverALongRun() {
        var recent = RecentCommands(capacity: 100)
        for index in 0..<50_000 {
            recent.remember("id-\(index)", Self.command(Int64(index)))
            #expect(recent.storage <= 2 * (100 + 1024) + 2)
        }
        #expect(recent.count == 100)
        #expect((49_900..<50_000).allSatisfy { recent["id-\($0)"]?.seq == Int64($0) })
        #expect(recent["id-49899"] == nil)
    }

    @Test func aFailedCommitForgetsWhatItVoided() {
        var recent = RecentCommands(capacity: 10)
        for seq in 1...6 { recent.remember("c\(seq)", Self.command(Int64(seq))) }
        recent.forget(after: 4)
        #expect((1...4).allSatisfy { recent["c\($0)"] != nil })
        #expect(recent["c5"] == nil && recent["c6"] == nil)
        recent.remember("c5", Self.command(7))
        #expect(recent["c5"]?.seq == 7, "the id can be applied and remembered again")
    }
}
