import Foundation
import SegueCore
import SegueWire
import Testing

/// Every command's success path against the real daemon, with the reply fields docs/protocol.md
/// documents. Non-animated transitions keep these fast; animated and interactive ones have their own
/// tests below and in `ProtocolGestureTests`.
@Suite(.ownThreads) struct ProtocolCommandTests {
    @Test func pingAnswersVersionRateFrameAndSeq() throws {
        let daemon = try DaemonProcess()
        defer { daemon.stop() }
        let client = try TestClient(endpoint: daemon.commandEndpoint)
        let pong = try client.ok(["cmd": "ping", "id": "p1"])
        #expect(pong["id"] == "p1")
        #expect(pong["version"]?.stringValue?.isEmpty == false)
        #expect(pong["frameRate"] == 60)
        #expect(pong["seq"] == 0)
        #expect(pong["heartbeatSeconds"]?.doubleValue == 1)
        let frame = try #require(pong["frame"]?.int64Value)
        let now = Int64(Date().timeIntervalSince1970 * 60)
        #expect(abs(frame - now) < 120, "frame \(frame) should be the wall clock's frame \(now)")
    }

    @Test(.choosesItsBackends, arguments: StoreBackend.allCases)
    func stackCommandsChangeTheStackAsDocumented(store: StoreBackend) throws {
        let daemon = try DaemonProcess(store: store)
        defer { daemon.stop() }
        let c = try TestClient(endpoint: daemon.commandEndpoint)
        let created = try c.ok(["cmd": "create", "id": "c1", "navigator": "main", "root": "Home"])
        #expect(created["navigator"] == "main")
        #expect(created["revision"] == 1)
        #expect(created["seq"] == 1)
        #expect(created["root"] == ["id": "s1", "name": "Home"])
        #expect(created["frame"]?.int64Value != nil)

        let pushed = try c.ok(["cmd": "push", "navigator": "main", "screen": "A", "animated": false])
        #expect(pushed["transition"] == 1)
        #expect(pushed["screen"] == ["id": "s2", "name": "A"])
        #expect(pushed["revision"] == 3, "started + completed")
        #expect(pushed["seq"] == 3)
        #expect(pushed["phase"] == nil, "a non-animated transition has ended by the reply")
        // The state showing that push is as of the push's frame at least, never a frame before it.
        let after = try c.ok(["cmd": "state", "navigator": "main"])
        let pushFrame = try #require(pushed["frame"]?.int64Value)
        #expect(try #require(after["frame"]?.int64Value) >= pushFrame)

        let withParams = try c.ok([
            "cmd": "push", "navigator": "main", "screen": ["name": "B", "params": ["item": 7]], "animated": false,
        ])
        #expect(withParams["screen"] == ["id": "s3", "name": "B", "params": ["item": 7]])
        try c.ok(["cmd": "push", "navigator": "main", "screen": "C", "animated": false])
        #expect(TestClient.routes(try c.ok(["cmd": "state", "navigator": "main"])) == ["Home", "A", "B", "C"])

        // popTo by route name: the topmost match below the top.
        try c.ok(["cmd": "popTo", "navigator": "main", "screen": "A", "animated": false])
        #expect(TestClient.routes(try c.ok(["cmd": "state", "navigator": "main"])) == ["Home", "A"])
        // popTo by id.
        try c.ok(["cmd": "push", "navigator": "main", "screen": "B", "animated": false])
        try c.ok(["cmd": "push", "navigator": "main", "screen": "C", "animated": false])
        try c.ok(["cmd": "popTo", "navigator": "main", "screen": "s5", "animated": false])
        let afterPopTo = try c.ok(["cmd": "state", "navigator": "main"])
        #expect(
            afterPopTo["stack"] == [
                ["id": "s1", "name": "Home"], ["id": "s2", "name": "A"], ["id": "s5", "name": "B"],
            ])

        try c.ok(["cmd": "pop", "navigator": "main", "animated": false])
        #expect(TestClient.routes(try c.ok(["cmd": "state", "navigator": "main"])) == ["Home", "A"])
        try c.ok(["cmd": "push", "navigator": "main", "screen": "B", "animated": false])
        try c.ok(["cmd": "popToRoot", "navigator": "main", "animated": false])
        #expect(TestClient.routes(try c.ok(["cmd": "state", "navigator": "main"])) == ["Home"])

        // setStack: a new top is a push; ids keep screens, bare names and objects make new ones.
        let set = try c.ok([
            "cmd": "setStack", "navigator": "main", "screens": ["s1", "X", ["name": "Y", "params": ["k": "v"]]],
            "animated": false,
        ])
        #expect(set["screen"]?["name"] == "Y")
        let afterSet = try c.ok(["cmd": "state", "navigator": "main"])
        #expect(TestClient.routes(afterSet) == ["Home", "X", "Y"])
        // Back to the root by id: a pop.
        try c.ok(["cmd": "setStack", "navigator": "main", "screens": [["id": "s1"]], "animated": false])
        let started = try c.events(of: "main").last { $0.type == "transition.started" }
        #expect(started?.data["operation"] == "pop")
        #expect(TestClient.routes(try c.ok(["cmd": "state", "navigator": "main"])) == ["Home"])

        let presented = try c.ok(["cmd": "present", "navigator": "main", "screen": "Sheet", "animated": false])
        let sheet = try #require(presented["screen"])
        let withModal = try c.ok(["cmd": "state", "navigator": "main"])
        #expect(withModal["modals"] == [sheet])
        #expect(TestClient.routes(withModal) == ["Home"], "a presented screen is not on the stack")
        try c.ok(["cmd": "dismiss", "navigator": "main", "animated": false])
        #expect(try c.ok(["cmd": "state", "navigator": "main"])["modals"] == [])

        let list = try c.ok(["cmd": "list"])
        let entry = try #require(list["navigators"]?.arrayValue?.first)
        #expect(entry["navigator"] == "main")
        #expect(entry["status"] == "open")
        #expect(entry["depth"] == 1)
        #expect(entry["modals"] == 0)
        #expect(entry["top"] == ["id": "s1", "name": "Home"])
        #expect(entry["transition"] == .null)
        #expect(list["seq"] == .int(try c.lastSeq()))

        let closed = try c.ok(["cmd": "close", "navigator": "main"])
        #expect(closed["revision"]?.int64Value == (entry["revision"]?.int64Value ?? 0) + 1)
        #expect(try c.ok(["cmd": "state", "navigator": "main"])["status"] == "closed")
    }

    @Test func animatedPushReportsItsTransitionThenCommits() throws {
        let daemon = try DaemonProcess()
        defer { daemon.stop() }
        let c = try TestClient(endpoint: daemon.commandEndpoint)
        try c.ok(["cmd": "create", "navigator": "nav", "root": "Home"])
        let push = try c.ok([
            "cmd": "push", "navigator": "nav", "screen": "Detail", "animator": ["duration": 0.3, "curve": "linear"],
        ])
        #expect(push["transition"] == 1)
        #expect(push["phase"] == "animating")
        #expect(push["revision"] == 2)
        let state = try c.ok(["cmd": "state", "navigator": "nav"])
        let t = try #require(state["transition"])
        #expect(t["id"] == 1)
        #expect(t["operation"] == "push")
        #expect(t["phase"] == "animating")
        #expect(t["interactive"] == false)
        #expect(t["from"] == ["id": "s1", "name": "Home"])
        #expect(t["to"] == ["id": "s2", "name": "Detail"])
        let fraction = try #require(t["fraction"]?.doubleValue)
        #expect(fraction >= 0 && fraction < 1)
        #expect(t["progress"] == t["fraction"], "linear curve: progress is the fraction")
        #expect(TestClient.routes(state) == ["Home"], "the committed stack changes only at completed")
        let list = try c.ok(["cmd": "list"])
        #expect(
            list["navigators"]?.arrayValue?.first?["transition"] == [
                "id": 1, "operation": "push", "phase": "animating",
            ])

        let idle = try c.waitIdle("nav")
        #expect(TestClient.routes(idle) == ["Home", "Detail"])
        let events = try c.events(of: "nav").map(\.type)
        #expect(events == ["navigator.created", "transition.started", "transition.completed"])
    }

    @Test(.choosesItsBackends, arguments: StoreBackend.allCases)
    func stateAtSeqTravelsBackInTime(store: StoreBackend) throws {
        let daemon = try DaemonProcess(store: store)
        defer { daemon.stop() }
        let c = try TestClient(endpoint: daemon.commandEndpoint)
        try c.ok(["cmd": "create", "navigator": "t", "root": "Home"])
        let first = try c.ok(["cmd": "push", "navigator": "t", "screen": "A", "animated": false])
        try c.ok(["cmd": "push", "navigator": "t", "screen": "B", "animated": false])
        try c.ok(["cmd": "pop", "navigator": "t", "animated": false])
        try c.ok(["cmd": "pop", "navigator": "t", "animated": false])
        let seq = try #require(first["seq"])
        let then = try c.ok(["cmd": "state", "navigator": "t", "at": seq])
        #expect(TestClient.routes(then) == ["Home", "A"])
        #expect(then["revision"] == first["revision"])
        #expect(then["seq"] == seq)
        let start = try c.ok(["cmd": "state", "navigator": "t", "at": 1])
        #expect(TestClient.routes(start) == ["Home"])
        #expect(start["revision"] == 1)
        #expect(TestClient.routes(try c.ok(["cmd": "state", "navigator": "t"])) == ["Home"])
    }

    /// `history` events carry the digest each event was published with, also from a daemon that
    /// has only the log to fold them from (after a restart).
    @Test(.choosesItsBackends, arguments: StoreBackend.allCases)
    func historyEventsCarryThePublishedDigests(store: StoreBackend) throws {
        var daemon = try DaemonProcess(store: store)
        defer { daemon.stop() }
        let c = try TestClient(endpoint: daemon.commandEndpoint)
        let events = try TestSubscriber(endpoint: daemon.publishEndpoint, topics: ["event/"])
        try events.settle(c)
        try c.ok(["cmd": "create", "navigator": "d1", "root": "Home"])
        try c.ok(["cmd": "create", "navigator": "d2", "root": "Home"])
        for name in ["A", "B"] {
            try c.ok(["cmd": "push", "navigator": "d1", "screen": .string(name), "animated": false])
            try c.ok(["cmd": "present", "navigator": "d2", "screen": .string("M\(name)"), "animated": false])
        }
        try c.ok(["cmd": "pop", "navigator": "d1", "animated": false])
        try c.ok(["cmd": "dismiss", "navigator": "d2", "animated": false])
        let last = try c.lastSeq()
        var published: [Int64: JSON] = [:]
        for message in try events.collect(until: { _, body in body["seq"]?.int64Value == last }) {
            published[message.body["seq"]!.int64Value!] = message.body["digest"]
        }
        #expect(published.count == Int(last))
        for run in ["first run", "restarted"] {
            let client = try TestClient(endpoint: daemon.commandEndpoint)
            for filter in [nil, "d1", "d2"] as [String?] {
                for after in 0..<last {
                    var request: JSONObject = ["cmd": "history", "after": .int(after), "limit": 2]
                    if let filter { request["navigator"] = .string(filter) }
                    for event in try #require(try client.ok(.object(request))["events"]?.arrayValue) {
                        let seq = try #require(event["seq"]?.int64Value)
                        #expect(event["digest"] != nil && event["digest"] == published[seq], "\(run), after \(after)")
                    }
                }
            }
            if run == "first run" { daemon = try daemon.restarted() }
        }
    }

    /// A log of `pairs` non-animated push/pop pairs on `long`: 1 + 4 × pairs events, whose pages of
    /// 10,000 take a debug segued a few hundred milliseconds to read and fold.
    static func longLog(_ c: TestClient, pairs: Int) throws {
        try c.ok(["cmd": "create", "navigator": "long", "root": "Home"])
        for i in 0..<pairs {
            let push: JSON = ["cmd": "push", "navigator": "long", "screen": .string("S\(i)"), "animated": false]
            try c.send(raw: push.serializedBytes())
            try c.send(raw: (["cmd": "pop", "navigator": "long", "animated": false] as JSON).serializedBytes())
        }
        for _ in 0..<(2 * pairs) { #expect(try c.receive(timeout: .seconds(30))["ok"] == true) }
    }

    static func ask(_ c: TestClient, _ request: JSON) throws { try c.send(raw: request.serializedBytes()) }

    /// A long `history` page is read and folded beside the loop, not on it: another client's `ping`
    /// sent after it is answered while the page is still being read. The asking client's replies
    /// leave in the order of its requests, the page's included.
    @Test(.choosesItsBackends, arguments: StoreBackend.allCases)
    func aLongHistoryPageHoldsUpNothingElse(store: StoreBackend) throws {
        let daemon = try DaemonProcess(store: store)
        defer { daemon.stop() }
        let c = try TestClient(endpoint: daemon.commandEndpoint)
        let pairs = 1_500
        try Self.longLog(c, pairs: pairs)
        let other = try TestClient(endpoint: daemon.commandEndpoint)
        #expect(try other.call(["cmd": "ping"])["ok"] == true, "connected")
        try Self.ask(c, ["cmd": "push", "navigator": "long", "screen": "Before", "animated": false, "id": "before"])
        try Self.ask(c, ["cmd": "history", "id": "page", "limit": 10_000])
        try Self.ask(c, ["cmd": "ping", "id": "after-page"])
        try Self.ask(other, ["cmd": "ping", "id": "other"])
        #expect(try other.receive(timeout: .seconds(30))["id"] == "other")
        let replies = try (0..<3).map { _ in try c.receive(timeout: .seconds(30)) }
        #expect(replies.map { $0["id"] } == ["before", "page", "after-page"], "one client's replies in its order")
        let events = replies[1]["events"]?.arrayValue ?? []
        #expect(events.count == 3 + 4 * pairs, "the push before the page is in it")
        #expect(events.last?["digest"]?.stringValue?.count == 64)
    }

    /// Clients take turns for the history thread: one with four long pages waiting holds another's
    /// short page up by the page being read, not by all four. (In the order asked, the short page
    /// came after all four, and all four replies were in by the time it was answered.)
    @Test func clientsTakeTurnsForHistoryPages() throws {
        let daemon = try DaemonProcess()
        defer { daemon.stop() }
        let c = try TestClient(endpoint: daemon.commandEndpoint)
        try Self.longLog(c, pairs: 1_500)
        let other = try TestClient(endpoint: daemon.commandEndpoint)
        #expect(try other.call(["cmd": "ping"])["ok"] == true, "connected")
        for i in 0..<4 { try Self.ask(c, ["cmd": "history", "id": .string("long\(i)"), "limit": 10_000]) }
        usleep(50_000)  // for the loop to take in all four first: it reads its clients in turn too
        try Self.ask(other, ["cmd": "history", "id": "short", "navigator": "long", "limit": 10])
        #expect(try other.receive(timeout: .seconds(60))["id"] == "short")
        var before: [JSON] = []
        while let reply = try? c.receive(timeout: .milliseconds(50)) { before.append(reply["id"] ?? .null) }
        // Two at most when the short page came in as the first long one ended; in the order asked, four.
        #expect(before.count < 4, "long pages answered before the short one: \(before)")
        let after = try (before.count..<4).map { _ in try c.receive(timeout: .seconds(60))["id"] ?? .null }
        #expect(before + after == (0..<4).map { .string("long\($0)") }, "one client's pages in its order")
    }

    /// A client waits for at most 8 pages at a time; more get `unavailable` at once, in their turn.
    /// At SIGTERM the page being read is finished and the others are answered `unavailable`, so a
    /// queue of long pages does not hold the stop past systemd's timeout.
    @Test func historyPagesAreBoundedAndAStopDoesNotWaitForThem() throws {
        let daemon = try DaemonProcess()
        defer { daemon.stop() }
        let c = try TestClient(endpoint: daemon.commandEndpoint)
        try Self.longLog(c, pairs: 1_500)
        for i in 0..<10 { try Self.ask(c, ["cmd": "history", "id": .string("p\(i)"), "limit": 10_000]) }
        let bounded = try (0..<10).map { _ in try c.receive(timeout: .seconds(60)) }
        #expect(bounded.map { $0["id"] } == (0..<10).map { .string("p\($0)") })
        #expect(bounded.prefix(8).allSatisfy { $0["ok"] == true })
        #expect(bounded.suffix(2).allSatisfy { $0["error"]?["code"] == "unavailable" }, "\(bounded.suffix(2))")

        for i in 0..<8 { try Self.ask(c, ["cmd": "history", "id": .string("s\(i)"), "limit": 10_000]) }
        usleep(300_000)  // for the loop to take them in: a request not read yet would not be answered
        #expect(daemon.stop(timeout: .seconds(5)) == 0, "stopped within TimeoutStopSec\n\(daemon.log.suffix(2000))")
        let stopped = try (0..<8).map { _ in try c.receive(timeout: .seconds(5)) }
        #expect(stopped.map { $0["id"] } == (0..<8).map { .string("s\($0)") })
        #expect(stopped.contains { $0["error"]?["code"] == "unavailable" }, "pages not started are not read")
    }

    @Test(.choosesItsBackends, arguments: StoreBackend.allCases)
    func historyPagesThroughTheWholeLog(store: StoreBackend) throws {
        let daemon = try DaemonProcess(store: store)
        defer { daemon.stop() }
        let c = try TestClient(endpoint: daemon.commandEndpoint)
        try c.ok(["cmd": "create", "navigator": "h1", "root": "Home"])
        try c.ok(["cmd": "create", "navigator": "h2", "root": "Home"])
        for i in 0..<3 {
            try c.ok(["cmd": "push", "navigator": "h1", "screen": .string("S\(i)"), "animated": false])
        }
        let last = try c.lastSeq()
        #expect(last == 8)
        var seqs: [Int64] = []
        var after: Int64 = 0
        var pages = 0
        while true {
            let page = try c.ok(["cmd": "history", "after": .int(after), "limit": 3])
            let events = try #require(page["events"]?.arrayValue)
            seqs += events.compactMap { $0["seq"]?.int64Value }
            after = try #require(page["next"]?.int64Value)
            #expect(after == seqs.last)
            pages += 1
            if page["more"] != true { break }
            #expect(events.count == 3)
        }
        #expect(seqs == Array(1...last))
        #expect(pages == 3)
        let h2 = try c.ok(["cmd": "history", "navigator": "h2"])
        #expect(h2["events"]?.arrayValue?.map { $0["seq"] } == [2])
        #expect(h2["next"] == 2)
        #expect(h2["more"] == false)
        let empty = try c.ok(["cmd": "history", "after": .int(last)])
        #expect(empty["events"] == [])
        #expect(empty["next"] == .int(last), "next stays where it was when nothing is new")
        let event = try EventRecord(json: try #require(h2["events"]?.arrayValue?.first))
        #expect(event.type == "navigator.created")
        #expect(event.revision == 1)
    }

    @Test func statsCountCommandsEventsAndTicks() throws {
        let daemon = try DaemonProcess()
        defer { daemon.stop() }
        let c = try TestClient(endpoint: daemon.commandEndpoint)
        try c.ok(["cmd": "create", "navigator": "s", "root": "Home"])
        try c.ok(["cmd": "push", "navigator": "s", "screen": "A", "animator": ["duration": 0.1]])
        try c.waitIdle("s")
        try c.fails(["cmd": "pop", "navigator": "nope"], .unknownNavigator)
        let stats = try c.ok(["cmd": "stats"])
        #expect((stats["commands"]?.int64Value ?? 0) >= 4)
        #expect(stats["rejected"] == 1)
        #expect(stats["events"] == 3)
        // Frames a loaded daemon skipped have no ticks (`missedFrames`; this daemon ran nothing else).
        #expect(
            (stats["ticks"]?.int64Value ?? 0) + (stats["missedFrames"]?.int64Value ?? 0) >= 7,
            "0.1 s at 60 Hz is 6 frames plus the final one")
        #expect(stats["navigators"] == 1)
        #expect(stats["openNavigators"] == 1)
        #expect(stats["active"] == 0)
        #expect(stats["store"]?["seq"] == 3)
        #expect(stats["store"]?["durableSeq"] == 3)
        #expect(stats["store"]?["durability"] == "full")
        for key in [
            "malformed", "idempotentReplays", "framesClosed", "lateFrames", "missedFrames", "stalls", "subscriptions",
            "subscribers",
        ] {
            #expect(stats[key]?.int64Value != nil, "stats.\(key)")
        }
        #expect(stats["lastStall"] != nil, "null until the loop skips frames")
    }

    /// `subscribers` counts the connections to the publish socket (and the frames socket), whatever
    /// they subscribed to; `subscriptions` counts distinct topics, as XPUB reports them.
    @Test func statsCountSubscribersAsConnections() throws {
        let framesEndpoint = "tcp://127.0.0.1:\(DaemonProcess.freePort())"
        let daemon = try DaemonProcess(arguments: ["--publish-frames", framesEndpoint])
        defer { daemon.stop() }
        let c = try TestClient(endpoint: daemon.commandEndpoint)
        func expect(_ subscribers: Int64, topics: Int64) throws {
            let deadline = ContinuousClock.now + .seconds(10)
            while true {
                let stats = try c.ok(["cmd": "stats"])
                if stats["subscribers"]?.int64Value == subscribers, stats["subscriptions"]?.int64Value == topics {
                    return
                }
                guard ContinuousClock.now < deadline else {
                    throw WaitTimeout(what: "\(subscribers) subscribers, \(topics) topics: \(stats)")
                }
                usleep(10_000)
            }
        }
        try expect(0, topics: 0)
        var subscribers = try (0..<3).map { _ in
            try TestSubscriber(endpoint: daemon.publishEndpoint, topics: ["tick/"])
        }
        let silent = try TestSubscriber(endpoint: daemon.publishEndpoint, topics: [])
        let frames = try TestSubscriber(endpoint: framesEndpoint, topics: ["frames/"])
        try expect(5, topics: 2)
        subscribers.removeFirst(2)
        try expect(3, topics: 2)
        withExtendedLifetime((subscribers, silent, frames)) {}
    }

    /// Under overload (1,500 navigators animating at 500 Hz: a frame close takes longer than half a
    /// frame period), a command that changes a navigator resolves the frames before it without ticks
    /// rather than wait behind them; a read never skips frames: it is answered from the frames closed
    /// so far.
    @Test func underOverloadReadsNeverSkipFramesButCommandsMay() throws {
        let daemon = try DaemonProcess(frameRate: 500, arguments: ["--durability", "relaxed"])
        defer { daemon.stop() }
        let c = try TestClient(endpoint: daemon.commandEndpoint)
        // A subscriber to every tick that never reads (a queue of one message): each frame's 1,500
        // ticks are then written and sent, which overloads a release build as well as a debug one.
        // Without it a release build closes these frames within half a period and sheds nothing.
        let stuck = try StuckSubscriber(endpoint: daemon.publishEndpoint, topic: "tick/")
        defer { withExtendedLifetime(stuck) {} }
        try stuck.waitCounted(c)
        let count = 1_500
        func pipelined(_ bodies: [JSON]) throws {
            var sent = 0
            var received = 0
            while received < bodies.count {
                while sent < bodies.count, sent - received < 200 {
                    try c.send(raw: bodies[sent].serializedBytes())
                    sent += 1
                }
                _ = try c.receive(timeout: .seconds(10))
                received += 1
            }
        }
        try pipelined((0..<count).map { ["cmd": "create", "navigator": .string("f\($0)"), "root": "Home"] })
        try pipelined(
            (0..<count).map {
                ["cmd": "push", "navigator": .string("f\($0)"), "screen": "A", "animator": ["duration": 30]]
            }
        )
        var previous = try c.ok(["cmd": "stats"])
        // The pushes above shed frames: the daemon is overloaded (else the reads below show nothing).
        #expect((previous["overloadStalls"]?.int64Value ?? 0) >= 1, "not overloaded: \(previous)")
        for _ in 0..<30 {
            let stats = try c.ok(["cmd": "stats"])
            #expect(
                stats["overloadStalls"] == previous["overloadStalls"], "a read skipped frames: \(stats["lastStall"]!)")
            previous = stats
            usleep(5_000)
        }
        try c.ok(["cmd": "create", "navigator": "x", "root": "Home"])
        for _ in 0..<10 {
            try c.ok(["cmd": "push", "navigator": "x", "screen": "A", "animated": false])
            usleep(5_000)
        }
        let after = try c.ok(["cmd": "stats"])
        let shed = (after["overloadStalls"]?.int64Value ?? 0) - (previous["overloadStalls"]?.int64Value ?? 0)
        #expect(shed >= 1, "the daemon was not overloaded, so this test showed nothing: \(after)")
    }

    /// A daemon stopped mid-animation skips the frames it slept through when it resumes, and says
    /// why: the log line and `stats.lastStall` give the gap and the thread's CPU time over it, which
    /// tells a stopped or starved process from a step that worked too long.
    @Test func skippedFramesAreExplainedInTheLogAndStats() throws {
        // Relaxed: no fsync on the loop, so nothing but the stop below is likely to hold it up; a
        // stall of its own on a loaded machine is allowed for by comparing counts before and after.
        let daemon = try DaemonProcess(arguments: ["--durability", "relaxed"])
        defer { daemon.stop() }
        let c = try TestClient(endpoint: daemon.commandEndpoint)
        try c.ok(["cmd": "create", "navigator": "s", "root": "Home"])
        try c.ok(["cmd": "push", "navigator": "s", "screen": "A", "animator": ["duration": 30]])
        usleep(200_000)
        let before = try c.ok(["cmd": "stats"])
        kill(daemon.pid, SIGSTOP)
        usleep(500_000)
        kill(daemon.pid, SIGCONT)
        usleep(200_000)
        let after = try c.ok(["cmd": "stats"])
        func delta(_ key: String) -> Int64 { (after[key]?.int64Value ?? 0) - (before[key]?.int64Value ?? 0) }
        // Half a second at 60 Hz is 30 frames; the last `maxCatchUpFrames` (6) are still closed.
        #expect(delta("missedFrames") >= 20, "missed \(delta("missedFrames"))")
        #expect(delta("stalls") >= 1)
        let stall = try #require(after["lastStall"])
        let frames = try #require(stall["frames"]?.int64Value)
        let elapsed = try #require(stall["milliseconds"]?.doubleValue)
        let cpu = try #require(stall["cpuMilliseconds"]?.doubleValue)
        #expect(frames >= 20 && elapsed >= 450, "the last stall is the stop: \(stall)")
        #expect(cpu < elapsed / 2, "a stopped thread used no CPU: \(stall)")
        #expect(stall["overloaded"] == false)
        // The log has a line at most every 10 s: this one is there unless an earlier stall took it.
        if before["stalls"] == 0 {
            #expect(
                daemon.log.contains("The frame loop fell behind and skipped \(frames) frames"), "log:\n\(daemon.log)")
            #expect(daemon.log.contains("The thread was mostly off the CPU"))
        }
    }

    /// A transition that ends while the daemon is stopped still has its final tick: at its end frame,
    /// fraction 1, with the state digest, although the frames around it were skipped.
    @Test func aTransitionEndingInSkippedFramesStillHasItsFinalTick() throws {
        let daemon = try DaemonProcess(arguments: ["--durability", "relaxed"])
        defer { daemon.stop() }
        let c = try TestClient(endpoint: daemon.commandEndpoint)
        try c.ok(["cmd": "create", "navigator": "k", "root": "Home"])
        let ticks = try TestSubscriber(endpoint: daemon.publishEndpoint, topics: ["tick/k/"])
        try ticks.settle(c)
        let before = try c.missedFrames()
        let started = try c.ok(["cmd": "push", "navigator": "k", "screen": "A", "animator": ["duration": 0.1]])
        kill(daemon.pid, SIGSTOP)
        usleep(500_000)
        kill(daemon.pid, SIGCONT)
        let final = try #require(
            try ticks.collect { _, body in body["final"] == true }.last?.body, "no final tick after the stop")
        #expect(try c.missedFrames() - before >= 20, "the stop skipped frames")
        let events = try c.events(of: "k")
        let start = try #require(events.first { $0.type == "transition.started" }?.frame)
        let end = try #require(events.first { $0.type == "transition.completed" }?.frame)
        #expect(end == start + 6 && final["frame"] == .int(end), "\(final.serialized())")
        #expect(final["fraction"] == 1 && final["phase"] == "completed" && final["transition"] == started["transition"])
        #expect(final["digest"]?.stringValue?.count == 64)
    }

    @Test(arguments: [ZMQSocketKindCase.dealer, .req])
    func dealerAndReqClientsBothWork(kind: ZMQSocketKindCase) throws {
        let daemon = try DaemonProcess()
        defer { daemon.stop() }
        let c = try TestClient(endpoint: daemon.commandEndpoint, kind: kind.kind)
        #expect(try c.ok(["cmd": "ping", "id": "a"])["id"] == "a")
        try c.ok(["cmd": "create", "id": "b", "navigator": "r", "root": "Home"])
        try c.fails(["cmd": "pop", "id": "c", "navigator": "r"], .cannotPopRoot)
        #expect(TestClient.routes(try c.ok(["cmd": "state", "navigator": "r"])) == ["Home"])
        if kind == .req {
            // The reply comes back in the REQ envelope: the REQ socket strips the delimiter, one frame is left.
            try c.send(raw: (["cmd": "ping"] as JSON).serializedBytes())
            #expect(try c.receiveFrames().count == 1)
        } else {
            try c.send(raw: (["cmd": "ping"] as JSON).serializedBytes())
            #expect(try c.receiveFrames().count == 1, "a DEALER gets exactly the body frame")
        }
    }
}

/// `ZMQSocket.Kind` as a test argument with a readable name.
enum ZMQSocketKindCase: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case dealer, req
    var kind: ZMQSocket.Kind { self == .dealer ? .dealer : .req }
    var testDescription: String { rawValue }
}
