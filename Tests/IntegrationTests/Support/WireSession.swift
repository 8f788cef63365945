import Foundation
import SegueCore
import Testing

/// The scripted session behind `WireGoldenTests`: every kind of command and reply, the errors a
/// client meets, the three interactive endings, a queue and an idempotent retry. Each step waits for
/// what it started (the final tick, or the tick that shows an update) before the next one, so the
/// events and ticks it produces do not depend on the machine's speed.
final class WireSession {
    let daemon: DaemonProcess
    let client: TestClient
    let subscriber: TestSubscriber
    var transcript = WireTranscript()

    /// 20 Hz: a stall must last 300 ms before the daemon skips a frame (it closes the last 6 late ones).
    private init() throws {
        daemon = try DaemonProcess(frameRate: 20)
        client = try TestClient(endpoint: daemon.commandEndpoint)
        subscriber = try TestSubscriber(endpoint: daemon.publishEndpoint, topics: [""])
        try subscriber.settle(client)
    }

    static func run() throws -> WireTranscript {
        let session = try WireSession()
        try session.navigation()
        try session.gestures()
        try session.queueAndRetry()
        try session.errors()
        try session.reads()
        try session.awaitHeartbeat()  // the last one recorded: every seq is in it by now
        session.transcript.missedFrames = try session.client.missedFrames()
        #expect(session.daemon.stop() == 0)
        return session.transcript
    }

    // MARK: Steps

    private func navigation() throws {
        try send(["cmd": "ping"], maskNumbers: false)
        try send(["cmd": "create", "id": "c-1", "navigator": "g", "root": "Home"])
        try send(
            [
                "cmd": "create", "navigator": "r", "root": ["name": "Start", "params": ["tab": 1]],
                "endRule": ["threshold": 0.4], "container": ["width": 390, "height": 844],
            ])
        try send(
            [
                "cmd": "push", "id": "p-1", "navigator": "g", "screen": ["name": "Detail", "params": ["id": 42]],
                "animator": ["duration": 0.3, "curve": "easeOut"],
            ], settle: "g")
        try send(
            [
                "cmd": "push", "navigator": "g", "screen": "Settings",
                "animator": ["style": "fade", "curve": ["spring": ["response": 0.3, "dampingFraction": 0.8]]],
            ], settle: "g")
        try send(
            ["cmd": "pop", "navigator": "g", "animator": ["duration": 0.2, "curve": ["bezier": [0.2, 0, 0, 1]]]],
            settle: "g")
        try send(["cmd": "present", "navigator": "g", "screen": "Sheet", "animator": ["style": "cover"]], settle: "g")
        try send(["cmd": "dismiss", "navigator": "g"], settle: "g")
        try send(["cmd": "setStack", "navigator": "g", "screens": ["s1", "A", "B"], "animated": false], settle: "g")
        try send(["cmd": "popTo", "navigator": "g", "screen": "s1", "animator": ["duration": 0.15]], settle: "g")
        try send(
            ["cmd": "push", "navigator": "g", "screen": "Rotor", "animator": ["preset": "rotate.push"]], settle: "g")
        try send(["cmd": "popToRoot", "navigator": "g", "animated": false], settle: "g")
    }

    private func gestures() throws {
        // Finished by the client, with an owner.
        try begin(["cmd": "begin", "navigator": "g", "operation": "push", "screen": "Card", "owner": "pan"])
        try update("g", 0.25, ["velocity": 0.5, "owner": "pan"])
        try update("g", 0.5, ["owner": "pan"])
        try send(["cmd": "finish", "navigator": "g", "velocity": 0.4, "owner": "pan"], settle: "g")
        // Cancelled faster than it came.
        try begin(["cmd": "begin", "navigator": "g", "operation": "pop"])
        try update("g", 0.3, [:])
        try send(["cmd": "cancel", "navigator": "g", "completionSpeed": 2], settle: "g")
        // Decided by the end rule.
        try begin(
            [
                "cmd": "begin", "navigator": "g", "operation": "pop",
                "animator": ["curve": ["spring": ["dampingRatio": 0.7, "initialVelocity": 0.5]]],
            ])
        try update("g", 0.7, ["velocity": 1.2])
        try send(["cmd": "end", "navigator": "g"], settle: "g")
        try begin(["cmd": "begin", "navigator": "r", "operation": "present", "screen": "Menu"])
        try update("r", 0.2, [:])
        try send(["cmd": "end", "navigator": "r", "percent": 0.1, "velocity": 0], settle: "r")
    }

    private func queueAndRetry() throws {
        try send(["cmd": "create", "navigator": "q", "root": "Home", "busy": "queue"])
        try send(["cmd": "push", "navigator": "q", "screen": "A", "animator": ["duration": 0.3]])
        try send(["cmd": "push", "navigator": "q", "screen": "B", "animator": ["duration": 0.1]])
        try send(["cmd": "pop", "navigator": "q", "animated": false])
        try awaitFinal("q", count: 3)
        let retried: JSON = ["cmd": "push", "id": "tap-1", "navigator": "g", "screen": "Twice", "animated": false]
        try send(retried, settle: "g")
        try send(retried)
    }

    private func errors() throws {
        try send(["cmd": "push", "navigator": "nope", "screen": "X"])
        try send(["cmd": "create", "navigator": "g", "root": "Home"])
        try send(["cmd": "pop", "navigator": "r"])
        try send(["cmd": "warp", "navigator": "g"])
        try send(["cmd": "push", "navigator": "g", "screen": "X", "expect": 1])
        try send(["cmd": "update", "navigator": "g", "percent": 0.5])
        try send(["cmd": "push", "navigator": "g", "screen": "X", "animator": ["duration": -1]])
        try send(["cmd": "push", "navigator": "g", "screen": "X", "animator": ["style": "wobble"]])
        try send(["cmd": "popTo", "navigator": "g", "screen": "Nowhere"])
        try send(raw: Array(#"{"cmd": "push", "navigator": "g""#.utf8))
        try send(["cmd": "push", "navigator": "g", "screen": "Slow", "animator": ["duration": 0.4]])
        try send(["cmd": "push", "navigator": "g", "screen": "X"])
        try send(["cmd": "update", "navigator": "g", "percent": 0.5])
        try awaitFinal("g", count: 1)
        try begin(["cmd": "begin", "navigator": "g", "operation": "pop", "owner": "a"])
        try send(["cmd": "update", "navigator": "g", "percent": 0.5, "owner": "b"])
        try send(["cmd": "cancel", "navigator": "g", "owner": "a"], settle: "g")
        try send(["cmd": "close", "navigator": "r"])
        try send(["cmd": "push", "navigator": "r", "screen": "X"])
    }

    private func reads() throws {
        try send(["cmd": "state", "navigator": "g"])
        try send(["cmd": "state", "navigator": "g", "at": 3])
        try send(["cmd": "list"])
        try send(["cmd": "history", "navigator": "g", "after": 2, "limit": 3])
        try send(["cmd": "history", "limit": 2])
        try send(["cmd": "stats"], maskNumbers: true)
    }

    // MARK: Plumbing

    /// Sends `request`, records its reply, and when `settle` names a navigator waits for its final tick.
    private func send(_ request: JSON, settle navigator: String? = nil, maskNumbers: Bool = false) throws {
        try send(raw: request.serializedBytes(), maskNumbers: maskNumbers)
        if let navigator { try awaitFinal(navigator, count: 1) }
    }

    private func send(raw: [UInt8], maskNumbers: Bool = false) throws {
        try client.send(raw: raw)
        let frames = try client.receiveFrames()
        transcript.replies.append(WireTranscript.mask(frames.last!, everyNumber: maskNumbers))
    }

    /// A `begin`, then the wait for its first tick: a later update must not land in the same frame.
    private func begin(_ request: JSON) throws {
        try send(request)
        let navigator = request["navigator"]?.stringValue ?? ""
        try pump { topic, body in topic == "tick/\(navigator)/" && body["phase"] == "interactive" }
    }

    /// An `update`, then the wait for the tick that shows its percent.
    private func update(_ navigator: String, _ percent: Double, _ extra: JSONObject) throws {
        var request: JSONObject = ["cmd": "update", "navigator": .string(navigator), "percent": .double(percent)]
        for (key, value) in extra.members { request[key] = value }
        try send(.object(request))
        try pump { topic, body in
            topic == "tick/\(navigator)/" && body["fraction"]?.doubleValue == percent
        }
    }

    private func awaitFinal(_ navigator: String, count: Int) throws {
        var left = count
        try pump { topic, body in
            if topic == "tick/\(navigator)/", body["final"] == true { left -= 1 }
            return left == 0
        }
    }

    /// Waits for a heartbeat that covers the whole log: every event before it is then recorded (one
    /// already queued from earlier in the session would leave the last events out).
    private func awaitHeartbeat() throws {
        let last = try client.lastSeq()
        try pump { topic, body in topic == "hb/" && (body["seq"]?.int64Value ?? 0) >= last }
    }

    /// Records published messages until `done` holds for one of them.
    private func pump(until done: (String, JSON) -> Bool) throws {
        try subscriber.socket.setReceiveTimeout(.seconds(10))
        let deadline = ContinuousClock.now + .seconds(15)
        while true {
            guard ContinuousClock.now < deadline, let frames = try subscriber.socket.receiveMultipart(),
                frames.count == 2
            else {
                throw WaitTimeout(what: "a published message; the session so far:\n\(transcript.text)")
            }
            let topic = String(decoding: frames[0], as: UTF8.self)
            transcript.record(topic: topic, raw: frames[1])
            if done(topic, try JSON.parse(frames[1])) { return }
        }
    }
}
