import Foundation
import SegueCore
import Testing

/// Gesture geometry through the real daemon: recorded in events, carried in interactive ticks, and a
/// swipe's edge choosing where the views go.
@Suite(.ownThreads) struct ProtocolGestureGeometryTests {
    let daemon: DaemonProcess
    let c: TestClient

    init() throws {
        daemon = try DaemonProcess()
        c = try TestClient(endpoint: daemon.commandEndpoint)
    }

    @Test func interactiveTicksCarryTheFingerAndEventsRecordIt() throws {
        defer { daemon.stop() }
        let ticks = try TestSubscriber(endpoint: daemon.publishEndpoint, topics: ["tick/g/"])
        try ticks.settle(c)
        try c.ok(["cmd": "create", "navigator": "g", "root": "Home"])
        try c.ok(["cmd": "push", "navigator": "g", "screen": "Detail", "animated": false])
        try c.ok([
            "cmd": "begin", "navigator": "g", "operation": "pop", "owner": "pan", "touch": ["x": 0.02, "y": 0.4],
            "edge": "right", "time": 5_000_000,
        ])
        // Each step waits for its tick, so that every step shows in a frame of its own.
        var got = try ticks.collect { _, body in body["phase"] == "interactive" }.map(\.body)
        try c.ok([
            "cmd": "update", "navigator": "g", "owner": "pan", "percent": 0.3, "velocity": 0.9,
            "touch": ["x": 0.3, "y": 1.7], "time": 21_000_000,
        ])
        got += try ticks.collect { _, body in body["fraction"] == 0.3 }.map(\.body)
        try c.ok(["cmd": "finish", "navigator": "g", "owner": "pan"])
        got += try ticks.collect { _, body in body["final"] == true }.map(\.body)
        let interactive = got.filter { $0["phase"] == "interactive" }
        try #require(!interactive.isEmpty)
        #expect(interactive.first?["gesture"] == ["touch": ["x": 0.02, "y": 0.4], "edge": "right", "velocity": 0.0])
        // The y past the container's bottom is clamped to it.
        #expect(interactive.last?["gesture"] == ["touch": ["x": 0.3, "y": 1.0], "edge": "right", "velocity": 0.9])
        #expect(got.filter { $0["phase"] != "interactive" }.allSatisfy { $0["gesture"] == nil })
        // A swipe from the right pops toward the left: the popped screen's x goes negative.
        let moving = try #require(interactive.last?["views"]?["from"]?["x"]?.doubleValue)
        #expect(moving < 0)

        let events = try c.events(of: "g")
        let started = try #require(events.last { $0.type == "transition.started" })
        #expect(started.data["touch"] == ["x": 0.02, "y": 0.4])
        #expect(started.data["edge"] == "right")
        #expect(started.data["clientTime"] == 5_000_000)
        #expect(started.data["animator"]?["edge"] == "left")
        let updated = try #require(events.last { $0.type == "interaction.updated" })
        #expect(updated.data["touch"] == ["x": 0.3, "y": 1.0])
        #expect(updated.data["clientTime"] == 21_000_000)
        #expect(updated.data["edge"] == nil)
    }

    @Test func badGeometryIsRefusedByName() throws {
        defer { daemon.stop() }
        try c.ok(["cmd": "create", "navigator": "g", "root": "Home"])
        try c.ok(["cmd": "push", "navigator": "g", "screen": "Detail", "animated": false])
        let edge = try c.fails(["cmd": "begin", "navigator": "g", "operation": "pop", "edge": "up"], .invalidArgument)
        #expect(edge["message"]?.stringValue?.contains("edge") == true)
        try c.ok(["cmd": "begin", "navigator": "g", "operation": "pop"])
        let touch = try c.fails(["cmd": "update", "navigator": "g", "percent": 0.2, "touch": ["x": 0.1]], .badRequest)
        #expect(touch["message"]?.stringValue?.contains("touch.y") == true)
        try c.fails(["cmd": "update", "navigator": "g", "percent": 0.2, "time": -5], .invalidArgument)
        #expect(try c.ok(["cmd": "state", "navigator": "g"])["transition"]?["fraction"] == 0.0)
    }
}
