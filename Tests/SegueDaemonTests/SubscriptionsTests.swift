import Testing

@testable import SegueDaemon

/// Which tick topics somebody takes, from an XPUB's subscription frames.
@Suite struct SubscriptionsTests {
    static func frame(_ kind: UInt8, _ topic: String) -> [UInt8] { [kind] + Array(topic.utf8) }

    /// (frames applied in order, topic asked about, taken?, nothing under the root?)
    static let cases: [([[UInt8]], String, Bool, Bool)] = [
        ([], "tick/main/", false, true),
        ([frame(1, "")], "tick/main/", true, false),
        ([frame(1, "t")], "tick/main/", true, false),
        ([frame(1, "tick/")], "tick/main/", true, false),
        ([frame(1, "tick/main/")], "tick/main/", true, false),
        ([frame(1, "tick/main/")], "tick/main2/", false, false),
        ([frame(1, "tick/ma")], "tick/main2/", true, false),
        ([frame(1, "event/"), frame(1, "hb/")], "tick/main/", false, true),
        ([frame(1, "tick/"), frame(0, "tick/")], "tick/main/", false, true),
        ([frame(1, "tick/"), frame(1, "tick/"), frame(0, "tick/")], "tick/main/", true, false),
        ([frame(1, "tick/a/"), frame(1, "tick/b/"), frame(0, "tick/a/")], "tick/b/", true, false),
        ([frame(1, "tick/a/"), frame(1, "tick/b/"), frame(0, "tick/a/")], "tick/a/", false, false),
        ([frame(0, "tick/")], "tick/main/", false, true),
        ([frame(2, ""), []], "tick/main/", false, true),
        ([frame(1, "tick/a/"), frame(1, "tick/ab/")], "tick/ab/", true, false),
        ([frame(1, "tick/a/"), frame(1, "tick/ab/"), frame(0, "tick/ab/")], "tick/ab/", false, false),
        ([frame(1, "tick/a"), frame(1, "tick/a"), frame(0, "tick/a")], "tick/ab/", true, false),
        ([frame(1, "tick/a"), frame(0, "tick/a")], "tick/ab/", false, true),
        ([frame(1, ""), frame(1, "tick/"), frame(0, "")], "tick/x/", true, false),
        ([frame(1, ""), frame(1, "tick/"), frame(0, "tick/")], "tick/x/", true, false),
        ([frame(1, ""), frame(1, "tick/"), frame(0, "tick/"), frame(0, "")], "tick/x/", false, true),
        // Part of a name: a prefix of the topic's name, of any length, the whole name included.
        ([frame(1, "tick/main")], "tick/main/", true, false),
        ([frame(1, "tick/mainly")], "tick/main/", false, false),
        ([frame(1, "tick/m"), frame(1, "tick/ma"), frame(0, "tick/m")], "tick/mb/", false, false),
        ([frame(1, "tick/m"), frame(1, "tick/ma"), frame(0, "tick/m")], "tick/ma2/", true, false),
        ([frame(1, "tick/m"), frame(1, "tick/xy"), frame(0, "tick/xy")], "tick/ma/", true, false),
        ([frame(1, "tick/m"), frame(0, "tick/m"), frame(1, "tick/x")], "tick/m/", false, false),
    ]

    @Test(arguments: cases)
    func framesDecideWhoTakesATopic(frames: [[UInt8]], topic: String, taken: Bool, empty: Bool) {
        var s = Subscriptions(root: "tick/")
        for frame in frames { _ = s.apply(frame) }
        #expect(s.takes(Array(topic.utf8)) == taken)
        #expect(s.isEmpty == empty)
    }

    /// Many partial topics, coming and going in any order: a topic is taken exactly while one of
    /// them is a prefix of it.
    @Test func partialTopicsByTheThousand() {
        var s = Subscriptions(root: "tick/")
        let names = (0..<3000).map { "tick/p\($0)" }
        for name in names { _ = s.apply(Self.frame(1, name)) }
        #expect(s.takes(Array("tick/p2999/".utf8)) && s.takes(Array("tick/p12x/".utf8)))
        #expect(!s.takes(Array("tick/q1/".utf8)) && !s.takes(Array("tick/p/".utf8)))
        // All but those under p1 leave, the longest first.
        for name in names.reversed() where !name.hasPrefix("tick/p1") { _ = s.apply(Self.frame(0, name)) }
        #expect(s.takes(Array("tick/p1/".utf8)) && s.takes(Array("tick/p1999/".utf8)))
        #expect(!s.takes(Array("tick/p2/".utf8)) && !s.takes(Array("tick/p0x/".utf8)))
        for name in names where name.hasPrefix("tick/p1") { _ = s.apply(Self.frame(0, name)) }
        #expect(s.isEmpty && !s.takes(Array("tick/p1/".utf8)))
    }

    /// Every subscription and unsubscription is counted for `stats`, whatever its topic; other frames not.
    @Test func theCountFollowsEveryFrame() {
        var s = Subscriptions(root: "frames/")
        let deltas = [Self.frame(1, "hb/"), Self.frame(1, "frames/"), Self.frame(0, "hb/"), [7], []].map {
            s.apply($0)
        }
        #expect(deltas == [1, 1, -1, 0, 0])
        #expect(s.coversRoot)
    }
}
