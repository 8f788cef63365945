import Foundation
import SegueCore
import Testing

/// `velocity` on `finish`, `cancel` and `end` through the real daemon: accepted alike, refused alike,
/// recorded alike.
@Suite(.ownThreads) struct ProtocolGestureVelocityTests {
    let daemon: DaemonProcess
    let c: TestClient

    init() throws {
        daemon = try DaemonProcess()
        c = try TestClient(endpoint: daemon.commandEndpoint)
    }

    /// A navigator two deep with an interactive pop at 0.4 owned by `pan`.
    private func dragged(_ name: String) throws {
        try c.ok(["cmd": "create", "navigator": .string(name), "root": "Home"])
        try c.ok(["cmd": "push", "navigator": .string(name), "screen": "Detail", "animated": false])
        try c.ok(["cmd": "begin", "navigator": .string(name), "operation": "pop", "owner": "pan"])
        try c.ok(["cmd": "update", "navigator": .string(name), "owner": "pan", "percent": 0.4, "velocity": 0.1])
    }

    @Test func cancelTakesVelocityAndRecordsIt() throws {
        defer { daemon.stop() }
        try dragged("g")
        let reply = try c.ok(["cmd": "cancel", "navigator": "g", "owner": "pan", "velocity": -0.8])
        #expect(reply["decision"] == "cancel")
        #expect(TestClient.routes(try c.waitIdle("g")) == ["Home", "Detail"])
        let cancelling = try #require(try c.events(of: "g").first { $0.type == "transition.cancelling" })
        #expect(cancelling.data["velocity"] == -0.8)
        #expect(cancelling.data["fraction"] == 0.4)
    }

    @Test(arguments: ["finish", "cancel", "end"])
    func everyReleaseRecordsTheVelocityItWasGiven(_ cmd: String) throws {
        defer { daemon.stop() }
        try dragged("g")
        // 1.5 is a fling: `end` finishes with it, as `finish` does; `cancel` goes back all the same.
        try c.ok(["cmd": .string(cmd), "navigator": "g", "owner": "pan", "velocity": 1.5])
        try c.waitIdle("g")
        let release = try #require(
            try c.events(of: "g").first { $0.type == "transition.finishing" || $0.type == "transition.cancelling" })
        #expect(release.type == (cmd == "cancel" ? "transition.cancelling" : "transition.finishing"))
        #expect(release.data["velocity"] == 1.5)
    }

    @Test(arguments: ["finish", "cancel", "end"])
    func everyReleaseRefusesTheSameBadVelocities(_ cmd: String) throws {
        defer { daemon.stop() }
        try dragged("g")
        let wrongType = try c.fails(
            ["cmd": .string(cmd), "navigator": "g", "owner": "pan", "velocity": "fast"], .badRequest)
        #expect(wrongType["message"]?.stringValue?.contains("velocity") == true)
        try c.fails(["cmd": .string(cmd), "navigator": "g", "owner": "pan", "velocity": 1e6], .invalidArgument)
        // Nothing was applied: the gesture is still interactive at 0.4.
        let state = try c.ok(["cmd": "state", "navigator": "g"])
        #expect(state["transition"]?["phase"] == "interactive")
        #expect(state["transition"]?["fraction"] == 0.4)
    }
}

/// The release velocity the daemon measures, through the real daemon: updates carry the client's
/// `time`, so the fit does not depend on when they arrive.
@Suite(.ownThreads) struct ProtocolReleaseVelocityTests {
    let daemon: DaemonProcess
    let c: TestClient

    init() throws {
        daemon = try DaemonProcess()
        c = try TestClient(endpoint: daemon.commandEndpoint)
    }

    @Test(arguments: [(1.5, "transition.finishing"), (-1.2, "transition.cancelling")])
    func endWithoutVelocityMeasuresTheFinger(velocity: Double, type: String) throws {
        defer { daemon.stop() }
        // No fling: the decision is react-navigation's, percent + 0.3 × velocity > 0.5.
        try c.ok([
            "cmd": "create", "navigator": "g", "root": "Home",
            "endRule": ["threshold": 0.5, "velocityImpact": 0.3, "flingVelocity": 1000],
        ])
        try c.ok(["cmd": "push", "navigator": "g", "screen": "Detail", "animated": false])
        let t0: Int64 = 9_000_000_000
        let start = velocity > 0 ? 0.1 : 0.9
        try c.ok(["cmd": "begin", "navigator": "g", "operation": "pop", "time": .int(t0)])
        // 0.25 s of a finger at constant speed, 60 touches a second, sent as fast as they go.
        for i in 1...15 {
            let t = Double(i) / 60
            try c.ok([
                "cmd": "update", "navigator": "g", "percent": .double(start + velocity * t),
                "time": .int(t0 + Int64((t * 1e9).rounded())),
            ])
        }
        let reply = try c.ok(["cmd": "end", "navigator": "g"])
        #expect(reply["decision"] == (velocity > 0 ? "finish" : "cancel"))
        try c.waitIdle("g")
        let release = try #require(try c.events(of: "g").first { $0.type == type })
        let measured = try #require(release.data["velocity"]?.doubleValue)
        #expect(abs(measured - velocity) <= 0.05 * abs(velocity), "measured \(measured)")
    }
}

/// `animator` on `finish` and `cancel` through the real daemon: the spring recorded in the event
/// starts with the finger's velocity over the distance left.
@Suite(.ownThreads) struct ProtocolHandOffTests {
    let daemon: DaemonProcess
    let c: TestClient

    init() throws {
        daemon = try DaemonProcess()
        c = try TestClient(endpoint: daemon.commandEndpoint)
    }

    @Test(arguments: ["finish", "cancel"])
    func aSpringCompletionStartsWithTheFingersVelocity(_ cmd: String) throws {
        defer { daemon.stop() }
        try c.ok(["cmd": "create", "navigator": "g", "root": "Home"])
        try c.ok(["cmd": "push", "navigator": "g", "screen": "Detail", "animated": false])
        try c.ok(["cmd": "begin", "navigator": "g", "operation": "pop"])
        try c.ok(["cmd": "update", "navigator": "g", "percent": 0.6, "velocity": 1.5])
        let spring: JSON = ["spring": ["dampingRatio": 0.8, "initialVelocity": 0]]
        try c.ok([
            "cmd": .string(cmd), "navigator": "g", "velocity": 1.5,
            "animator": ["curve": spring, "durationFactor": 2],
        ])
        let state = try c.waitIdle("g")
        #expect(TestClient.routes(state) == (cmd == "finish" ? ["Home"] : ["Home", "Detail"]))
        let release = try #require(
            try c.events(of: "g").first { $0.type == "transition.finishing" || $0.type == "transition.cancelling" })
        // 1.5 / (1 − 0.6) toward completion; cancelling, −1.5 / 0.6 toward 0.
        let handed = cmd == "finish" ? 1.5 / 0.4 : -1.5 / 0.6
        #expect(release.data["completionSpeed"] == 0.5)
        let v = try #require(release.data["completionCurve"]?["spring"]?["initialVelocity"]?.doubleValue)
        #expect(abs(v - handed) < 1e-12)
        // The animator replaces completionSpeed and completionCurve: both at once is refused.
        let both = try c.fails(
            ["cmd": .string(cmd), "navigator": "g", "animator": ["curve": "easeOut"], "completionSpeed": 2], .badRequest
        )
        #expect(both["message"]?.stringValue?.contains("animator") == true)
    }
}
