import Foundation
import SegueCore
import Testing

/// Reversal, `pause`, `seek` and `resume` through the real daemon: replies, events, ticks and errors.
@Suite(.ownThreads) struct ProtocolScrubTests {
    let daemon: DaemonProcess
    let c: TestClient

    init() throws {
        daemon = try DaemonProcess()
        c = try TestClient(endpoint: daemon.commandEndpoint)
    }

    /// Pushes Detail on `navigator` with a 1 s linear slide and waits for a tick past `fraction`.
    func pushing(_ navigator: String, _ ticks: TestSubscriber, past fraction: Double) throws -> [JSON] {
        try c.ok(["cmd": "create", "navigator": .string(navigator), "root": "Home", "retarget": true])
        try c.ok([
            "cmd": "push", "navigator": .string(navigator), "screen": "Detail",
            "animator": ["duration": 1, "curve": "linear"],
        ])
        return try ticks.collect { _, body in (body["fraction"]?.doubleValue ?? 0) > fraction }.map(\.body)
    }

    @Test(arguments: ["pop", "cancel"])
    func aPopOrCancelMidPushTurnsBackWithoutAJump(_ cmd: String) throws {
        defer { daemon.stop() }
        let ticks = try TestSubscriber(endpoint: daemon.publishEndpoint, topics: ["tick/r/"])
        try ticks.settle(c)
        var got = try pushing("r", ticks, past: 0.3)
        let reply = try c.ok(["cmd": .string(cmd), "navigator": "r"])
        #expect(reply["transition"] == 1)
        #expect(reply["decision"] == "cancel")
        #expect(reply["phase"] == "cancelling")
        got += try ticks.collect { _, body in body["final"] == true }.map(\.body)
        #expect(got.last?["phase"] == "cancelled")
        #expect(TestClient.routes(try c.waitIdle("r")) == ["Home"])

        let reversed = try #require(try c.events(of: "r").first { $0.type == "transition.reversed" })
        // A 1 s linear run moves the fraction at 1 a second.
        #expect(abs((reversed.data["velocity"]?.doubleValue ?? 0) - 1) < 1e-9)
        #expect(reversed.data["fraction"] == reply["fraction"])
        // The entering view's x over consecutive frames: no step past the run's own (1/60 of the
        // container), and no step changing by more than that.
        let bound = 1.0 / 60 * 1.002
        let xs = got.compactMap { body -> (Int64, Double)? in
            guard let frame = body["frame"]?.int64Value, let x = body["views"]?["to"]?["x"]?.doubleValue else {
                return nil
            }
            return (frame, x)
        }
        for i in 1..<xs.count where xs[i].0 == xs[i - 1].0 + 1 {
            #expect(abs(xs[i].1 - xs[i - 1].1) <= bound, "frame \(xs[i].0)")
            if i >= 2, xs[i - 1].0 == xs[i - 2].0 + 1 {
                let change = (xs[i].1 - xs[i - 1].1) - (xs[i - 1].1 - xs[i - 2].1)
                #expect(abs(change) <= bound, "frame \(xs[i].0)")
            }
        }
    }

    @Test func pauseSeekAndResume() throws {
        defer { daemon.stop() }
        let ticks = try TestSubscriber(endpoint: daemon.publishEndpoint, topics: ["tick/s/"])
        try ticks.settle(c)
        _ = try pushing("s", ticks, past: 0.2)
        let paused = try c.ok(["cmd": "pause", "navigator": "s", "id": "p"])
        #expect(paused["phase"] == "paused")
        let at = try #require(paused["fraction"]?.doubleValue)
        let held = try ticks.collect { _, body in body["phase"] == "paused" }.map(\.body)
        #expect(held.last?["fraction"]?.doubleValue == at)
        let seek = try c.ok(["cmd": "seek", "navigator": "s", "fraction": 0.75])
        #expect(seek["fraction"] == 0.75)
        #expect(seek["phase"] == "paused")
        let sought = try ticks.collect { _, body in body["fraction"] == 0.75 }.map(\.body)
        #expect(sought.last?["phase"] == "paused")
        #expect(sought.last?["progress"] == 0.75)
        let resumed = try c.ok(["cmd": "resume", "navigator": "s"])
        #expect(resumed["phase"] == "animating")
        let rest = try ticks.collect { _, body in body["final"] == true }.map(\.body)
        #expect(rest.last?["phase"] == "completed")
        #expect(TestClient.routes(try c.waitIdle("s")) == ["Home", "Detail"])
        let types = try c.events(of: "s").map(\.type)
        #expect(
            Array(types.suffix(4)) == [
                "transition.paused", "transition.seeked", "transition.resumed", "transition.completed",
            ])
        let seeked = try #require(try c.events(of: "s").first { $0.type == "transition.seeked" })
        #expect(seeked.data["scrubsLinearly"] == true)
    }

    @Test func badScrubsGetTheirCodes() throws {
        defer { daemon.stop() }
        try c.ok(["cmd": "create", "navigator": "e", "root": "Home"])
        try c.fails(["cmd": "pause", "navigator": "e"], .noTransition)
        try c.fails(["cmd": "resume", "navigator": "e"], .noTransition)
        try c.ok(["cmd": "push", "navigator": "e", "screen": "Detail", "animator": ["duration": 5]])
        try c.fails(["cmd": "resume", "navigator": "e"], .notInteractive)
        try c.fails(["cmd": "seek", "navigator": "e", "fraction": 0.5], .notInteractive)
        try c.fails(["cmd": "seek", "navigator": "e", "fraction": 1.5], .invalidArgument)
        try c.fails(["cmd": "seek", "navigator": "e"], .badRequest)
        try c.fails(["cmd": "seek", "navigator": "e", "fraction": 0.5, "scrubsLinearly": "yes"], .badRequest)
        try c.ok(["cmd": "pause", "navigator": "e"])
        try c.fails(["cmd": "pause", "navigator": "e"], .notInteractive)
        try c.fails(["cmd": "update", "navigator": "e", "percent": 0.5], .notInteractive)
        try c.ok(["cmd": "cancel", "navigator": "e"])
        #expect(TestClient.routes(try c.waitIdle("e")) == ["Home"])
    }
}
