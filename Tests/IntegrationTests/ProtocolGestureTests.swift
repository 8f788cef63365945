import Foundation
import SegueCore
import Testing

/// Interactive transitions (begin/update/finish/cancel/end, interrupt), the busy queue, idempotent
/// retries and `expect`, against the real daemon.
@Suite(.ownThreads) struct ProtocolGestureTests {
    let daemon: DaemonProcess
    let c: TestClient

    init() throws {
        daemon = try DaemonProcess()
        c = try TestClient(endpoint: daemon.commandEndpoint)
    }

    private func create(_ name: String, _ extra: JSONObject = [:]) throws {
        var request: JSONObject = ["cmd": "create", "navigator": .string(name), "root": "Home"]
        for (k, v) in extra.members { request[k] = v }
        try c.ok(.object(request))
        try c.ok(["cmd": "push", "navigator": .string(name), "screen": "Detail", "animated": false])
    }

    @Test func interactivePopFollowsUpdatesAndFinishes() throws {
        defer { daemon.stop() }
        try create("g")
        let begun = try c.ok(["cmd": "begin", "navigator": "g", "operation": "pop", "owner": "pan"])
        #expect(begun["transition"] == 2)
        #expect(begun["phase"] == "interactive")
        #expect(try c.ok(["cmd": "update", "navigator": "g", "owner": "pan", "percent": 0.3])["percent"] == 0.3)
        #expect(try c.ok(["cmd": "update", "navigator": "g", "owner": "pan", "percent": 1.7])["percent"] == 1.0)
        #expect(try c.ok(["cmd": "update", "navigator": "g", "owner": "pan", "percent": -2])["percent"] == 0.0)
        let update = try c.ok(["cmd": "update", "navigator": "g", "owner": "pan", "percent": 0.6, "velocity": 0.2])
        #expect(update["percent"] == 0.6)
        #expect(update["phase"] == "interactive")
        let state = try c.ok(["cmd": "state", "navigator": "g"])
        #expect(state["transition"]?["fraction"] == 0.6)
        #expect(state["transition"]?["interactive"] == true)
        #expect(state["transition"]?["owner"] == "pan")
        let finish = try c.ok(["cmd": "finish", "navigator": "g", "owner": "pan", "completionSpeed": 2])
        #expect(finish["decision"] == "finish")
        #expect(finish["phase"] == "finishing")
        #expect(TestClient.routes(try c.waitIdle("g")) == ["Home"])
        let events = try c.events(of: "g")
        let finishing = try #require(events.first { $0.type == "transition.finishing" })
        #expect(finishing.data["fraction"] == 0.6)
        #expect(finishing.data["completionSpeed"] == 2.0)
        #expect(events.last?.type == "transition.completed")
    }

    @Test func cancelledInteractivePushLeavesTheStackAsItWas() throws {
        defer { daemon.stop() }
        try create("g")
        try c.ok([
            "cmd": "begin", "navigator": "g", "operation": "push", "screen": ["name": "New", "params": ["a": 1]],
        ])
        try c.ok(["cmd": "update", "navigator": "g", "percent": 0.4])
        let cancel = try c.ok(["cmd": "cancel", "navigator": "g"])
        #expect(cancel["decision"] == "cancel")
        #expect(cancel["phase"] == "cancelling")
        #expect(TestClient.routes(try c.waitIdle("g")) == ["Home", "Detail"])
        let cancelled = try #require(try c.events(of: "g").last)
        #expect(cancelled.type == "transition.cancelled")
        #expect(cancelled.data["reason"] == "requested")
    }

    @Test func endDecidesByTheNavigatorsEndRule() throws {
        defer { daemon.stop() }
        try create("g", ["endRule": ["threshold": 0.5, "velocityImpact": 0, "flingVelocity": 1.0]])
        try c.ok(["cmd": "present", "navigator": "g", "screen": "Sheet", "animated": false])
        // Past the threshold: finish.
        try c.ok(["cmd": "begin", "navigator": "g", "operation": "dismiss"])
        let finish = try c.ok(["cmd": "end", "navigator": "g", "percent": 0.8, "velocity": 0])
        #expect(finish["decision"] == "finish")
        #expect(finish["percent"] == 0.8, "end with a percent records an update first")
        #expect(try c.waitIdle("g")["modals"] == [])
        // Below the threshold, slow: cancel.
        try c.ok(["cmd": "begin", "navigator": "g", "operation": "present", "screen": "Sheet2"])
        let cancel = try c.ok(["cmd": "end", "navigator": "g", "percent": 0.2, "velocity": 0.5])
        #expect(cancel["decision"] == "cancel")
        #expect(try c.waitIdle("g")["modals"] == [])
        // Below the threshold but a fling: finish.
        try c.ok(["cmd": "begin", "navigator": "g", "operation": "pop"])
        try c.ok(["cmd": "update", "navigator": "g", "percent": 0.1])
        let fling = try c.ok(["cmd": "end", "navigator": "g", "velocity": 1.5])
        #expect(fling["decision"] == "finish")
        #expect(TestClient.routes(try c.waitIdle("g")) == ["Home"])
    }

    @Test func beginWithoutOperationInterruptsAnAnimation() throws {
        defer { daemon.stop() }
        try create("g")
        try c.ok(["cmd": "push", "navigator": "g", "screen": "Long", "animator": ["duration": 5, "curve": "linear"]])
        usleep(100_000)
        let interrupted = try c.ok(["cmd": "begin", "navigator": "g", "owner": "hand"])
        #expect(interrupted["transition"] == 2)
        #expect(interrupted["phase"] == "interactive")
        let fraction = try #require(interrupted["fraction"]?.doubleValue)
        #expect(fraction > 0 && fraction < 0.5)
        try c.fails(["cmd": "update", "navigator": "g", "percent": 0.5], .notOwner)
        try c.ok(["cmd": "update", "navigator": "g", "percent": 0.9, "owner": "hand"])
        try c.ok(["cmd": "finish", "navigator": "g", "owner": "hand", "completionCurve": "linear"])
        #expect(TestClient.routes(try c.waitIdle("g")) == ["Home", "Detail", "Long"])
        let event = try #require(try c.events(of: "g").first { $0.type == "transition.interrupted" })
        #expect(event.data["fraction"]?.doubleValue == fraction)
        #expect(event.data["owner"] == "hand")
    }

    @Test func cancelOfAnAnimationRunsItBack() throws {
        defer { daemon.stop() }
        try create("g")
        try c.ok(["cmd": "pop", "navigator": "g", "animator": ["duration": 3]])
        usleep(50_000)
        let cancel = try c.ok(["cmd": "cancel", "navigator": "g", "completionSpeed": 20])
        #expect(cancel["decision"] == "cancel")
        #expect(TestClient.routes(try c.waitIdle("g")) == ["Home", "Detail"])
    }

    @Test func queuePolicyRunsCommandsInOrder() throws {
        defer { daemon.stop() }
        try create("q", ["busy": "queue", "queueLimit": 2])
        try c.ok(["cmd": "push", "navigator": "q", "screen": "A", "animator": ["duration": 0.2]])
        let first = try c.ok(["cmd": "push", "navigator": "q", "screen": "B", "animated": false])
        #expect(first["queued"] == 1)
        #expect(first["transition"] == nil, "a queued command has not started a transition yet")
        #expect(try c.ok(["cmd": "pop", "navigator": "q", "animated": false])["queued"] == 2)
        try c.fails(["cmd": "push", "navigator": "q", "screen": "C"], .busy)
        #expect(try c.ok(["cmd": "state", "navigator": "q"])["queued"] == 2)
        #expect(TestClient.routes(try c.waitIdle("q")) == ["Home", "Detail", "A"])
        let events = try c.events(of: "q").suffix(8)
        let types = events.map(\.type)
        #expect(
            Array(types) == [
                "transition.started", "transition.queued", "transition.queued", "transition.completed",
                "transition.started", "transition.completed", "transition.started", "transition.completed",
            ])
        // Every transition event names its transition: a queued command the id it starts with.
        #expect(events.map { $0.data["transition"] } == [2, 3, 4, 2, 3, 3, 4, 4], "after create's push, 1")
    }

    @Test func retryWithTheSameIDReturnsTheSameReplyAndAppendsOnce() throws {
        defer { daemon.stop() }
        try create("i")
        let request: JSON = ["cmd": "push", "id": "tap-1", "navigator": "i", "screen": "A", "animated": false]
        try c.send(raw: request.serializedBytes())
        let first = try c.receiveFrames()
        let seq = try c.lastSeq()
        try c.send(raw: request.serializedBytes())
        #expect(try c.receiveFrames() == first, "byte-identical reply")
        // From another connection too: the key is the id, not the socket.
        let other = try TestClient(endpoint: daemon.commandEndpoint)
        try other.send(raw: request.serializedBytes())
        #expect(try other.receiveFrames() == first)
        #expect(try c.lastSeq() == seq)
        let events = try c.events(of: "i").filter { $0.command == "tap-1" }
        #expect(events.map(\.type) == ["transition.started", "transition.completed"])
        #expect(TestClient.routes(try c.ok(["cmd": "state", "navigator": "i"])) == ["Home", "Detail", "A"])
        #expect(try c.ok(["cmd": "stats"])["idempotentReplays"] == 2)
    }

    @Test func expectGuardsAgainstConcurrentChanges() throws {
        defer { daemon.stop() }
        try create("e")
        let revision = try #require(try c.ok(["cmd": "state", "navigator": "e"])["revision"]?.int64Value)
        let pushed = try c.ok([
            "cmd": "push", "navigator": "e", "screen": "A", "animated": false, "expect": .int(revision),
        ])
        let error = try c.fails(
            ["cmd": "pop", "navigator": "e", "animated": false, "expect": .int(revision)], .conflict)
        #expect(error["revision"] == pushed["revision"], "conflict carries the current revision")
        try c.ok(["cmd": "pop", "navigator": "e", "animated": false, "expect": pushed["revision"]!])
        // A name that does not exist yet is at revision 0: expect 0 creates only if new.
        try c.ok(["cmd": "create", "navigator": "e0", "root": "Home", "expect": 0])
        try c.fails(["cmd": "create", "navigator": "e0", "root": "Home", "expect": 0], .navigatorExists)
    }

    @Test func aSilentGestureTimesOut() throws {
        defer { daemon.stop() }
        try create("t", ["interactionTimeout": 0.1])
        try c.ok(["cmd": "begin", "navigator": "t", "operation": "pop"])
        try c.ok(["cmd": "update", "navigator": "t", "percent": 0.3])
        #expect(TestClient.routes(try c.waitIdle("t")) == ["Home", "Detail"])
        let events = try c.events(of: "t")
        let cancelling = try #require(events.first { $0.type == "transition.cancelling" })
        #expect(cancelling.data["reason"] == "timeout")
        #expect(cancelling.command == nil, "decided by the clock")
        #expect(events.last?.type == "transition.cancelled")
        #expect(events.last?.data["reason"] == "timeout")
    }

    @Test func aQueuedCommandThatNoLongerFitsIsDropped() throws {
        defer { daemon.stop() }
        try create("d", ["busy": "queue"])
        // Long enough that the second pop arrives while the first animates, even on a loaded machine.
        try c.ok(["cmd": "pop", "navigator": "d", "animator": ["duration": 1.0]])
        #expect(try c.ok(["cmd": "pop", "id": "second-pop", "navigator": "d"])["queued"] == 1)
        #expect(TestClient.routes(try c.waitIdle("d")) == ["Home"])
        let dropped = try #require(try c.events(of: "d").last)
        #expect(dropped.type == "transition.dropped")
        #expect(dropped.command == "second-pop")
        #expect(dropped.data["request"]?["cmd"] == "pop")
        #expect(dropped.data["error"]?["code"] == "cannot_pop_root")
    }
}
