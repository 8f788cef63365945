import Foundation
import SegueClient
import SegueCore
import Testing

/// `segue replay LOG --publish ENDPOINT`: a subscriber of the replay hears what a subscriber of the live
/// daemon heard, on the same topics, with byte-identical bodies, in order (and the ticks of any frames
/// the daemon skipped, which the live subscriber never got). Timing is not asserted
/// (timings belong in segue-bench, docs/performance.md, never in tests); ordering and completeness are, at several
/// speeds.
@Suite(.ownThreads, .serialized) struct CliReplayPublishTests {
    struct Message: Equatable, CustomStringConvertible {
        var topic: String
        var raw: [UInt8]
        var frame: Int64
        var isEvent: Bool { topic.hasPrefix("event/") }
        var description: String { "\(topic) \(String(decoding: raw, as: UTF8.self))" }
    }

    /// Drives a real segued through animated, interactive and queued transitions on two navigators and
    /// returns its data dir (the daemon stopped) and every event and tick it published, in order.
    ///
    /// A daemon that falls behind on a loaded machine resolves the frames it skipped without ticks
    /// (docs/protocol.md), which a replay publishes: such a recording is made again, up to 3 recordings in all, and
    /// the last one's skipped frames are returned with it.
    static func record() throws -> (dataDir: String, live: [Message], missedFrames: Int64) {
        var recording = try recordOnce()
        for _ in 2...3 where recording.missedFrames > 0 { recording = try recordOnce() }
        return recording
    }

    private static func recordOnce() throws -> (dataDir: String, live: [Message], missedFrames: Int64) {
        let d = try DaemonProcess()
        defer { d.stop() }
        let subscriber = try TestSubscriber(endpoint: d.publishEndpoint, topics: ["event/", "tick/", "hb/"])
        // Subscriptions of one socket arrive in order: once a heartbeat is here, so are the others.
        _ = try subscriber.collect(idle: .seconds(3), until: { topic, _ in topic == "hb/" })
        let client = try SegueClient(endpoint: d.commandEndpoint)
        var queue = NavigatorConfig()
        queue.busy = .queue
        try client.create("a", root: ScreenSpec(name: "Home"), config: queue)
        try client.create("b", root: ScreenSpec(name: "Home"))
        try client.push("b", ScreenSpec(name: "Detail"), options: TransitionOptions(animated: false))
        try client.push("a", ScreenSpec(name: "Detail"), options: TransitionOptions(animator: ["duration": 0.2]))
        try client.begin("b", .pop)
        for i in 1...5 {
            try client.update("b", percent: Double(i) * 0.1, velocity: 0.5)
            usleep(16_000)
        }
        try client.finish("b", velocity: 0.5)
        try client.push(  // queued behind the first push
            "a", ScreenSpec(name: "More", params: ["n": 2]),
            options: TransitionOptions(animator: ["duration": 0.15, "style": "fade"]))
        // Everything settles: polled, since a loaded machine may take longer than the animations.
        let deadline = ContinuousClock.now + .seconds(20)
        while try client.list().contains(where: { $0.transition != nil }), ContinuousClock.now < deadline {
            usleep(50_000)
        }
        #expect(try client.list().allSatisfy { $0.transition == nil })
        let live = try subscriber.collect(idle: .milliseconds(300)).filter { $0.topic != "hb/" }
        let missed = try TestClient(endpoint: d.commandEndpoint).missedFrames()
        #expect(d.stop() == 0)
        return (d.logLocation, try live.map { try message($0.topic, $0.raw) }, missed)
    }

    static func message(_ topic: String, _ raw: [UInt8]) throws -> Message {
        let frame = try #require(try JSON.parse(raw)["frame"]?.int64Value, "\(topic) without a frame")
        return Message(topic: topic, raw: raw, frame: frame)
    }

    /// `late`: the subscriber connects only once the replay waits for it (a viewer started after the
    /// replay); otherwise before the replay binds (ZeroMQ retries until the endpoint exists).
    @Test(arguments: [("4", nil, true), ("16", "b", false), ("1", "a", true)] as [(String, String?, Bool)])
    func republishedMessagesAreTheLiveOnes(speed: String, navigator: String?, late: Bool) throws {
        let (dataDir, recorded, missedFrames) = try Self.record()
        let live = recorded.filter { navigator == nil || $0.topic.hasSuffix("/\(navigator!)/") }
        #expect(live.contains { $0.isEvent } && live.contains { !$0.isEvent })

        let endpoint = "tcp://127.0.0.1:\(DaemonProcess.freePort())"
        let early = late ? nil : try TestSubscriber(endpoint: endpoint, topics: ["event/", "tick/"])
        let replay = Process()
        replay.executableURL = URL(fileURLWithPath: Cli.binary)
        replay.arguments =
            ["replay", dataDir, "--publish", endpoint, "--speed", speed, "--wait-subscriber"]
            + (navigator.map { ["--navigator", $0] } ?? [])
        let stderr = Pipe()
        replay.standardError = stderr
        replay.standardOutput = FileHandle.nullDevice
        try replay.run()
        var log = ""
        while !log.contains("segue replay: waiting for a subscriber") {
            let data = stderr.fileHandleForReading.availableData
            try #require(!data.isEmpty, "segue replay ended before it waited: \(log)")
            log += String(decoding: data, as: UTF8.self)
        }
        // A viewer that starts well after the replay: later than the 0.3 s pause it would get without
        // --wait-subscriber, so without the wait this subscriber would miss the first messages.
        if late { usleep(500_000) }
        let subscriber = try early ?? TestSubscriber(endpoint: endpoint, topics: ["event/", "tick/"])
        // The last live message is the replay's last as well: a frame's events come before its ticks,
        // and final ticks go out even in frames the daemon skipped.
        let last = try #require(live.last)
        let lastBody = try JSON.parse(last.raw)
        let heard = try subscriber.collect(idle: .seconds(10), max: .seconds(60)) { topic, body in
            topic == last.topic && body == lastBody
        }
        let republished = try heard.map { try Self.message($0.topic, $0.raw) }
        replay.waitUntilExit()
        log += String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(replay.terminationStatus == 0, "\(log)")

        // Complete and byte for byte, events and ticks each in the daemon's order.
        #expect(republished.filter(\.isEvent) == live.filter(\.isEvent), "\(log)")
        let extra = Self.ticksNeverPublished(
            replayed: republished.filter { !$0.isEvent }, live: live.filter { !$0.isEvent })
        #expect(extra.missing.isEmpty, "live ticks not republished in order: \(extra.missing.prefix(3))")
        // Only in frames the daemon skipped, and never final: those went out live.
        #expect(
            Set(extra.ticks.map(\.frame)).count <= missedFrames, "skipped \(missedFrames): \(extra.ticks.prefix(3))")
        #expect(!extra.ticks.contains { $0.raw.contains(Array(#""final":true"#.utf8)) }, "\(extra.ticks.prefix(3))")
        // Interleaved frame by frame: a frame's events, then its ticks, never a frame going back.
        for (before, after) in zip(republished, republished.dropFirst()) {
            #expect(
                before.frame < after.frame || (before.frame == after.frame && (before.isEvent || !after.isEvent)),
                "\(before) then \(after)")
        }
        // Nothing more after the last message.
        #expect(try subscriber.collect(idle: .milliseconds(200)).isEmpty)
    }

    /// libzmq's ipc bind takes the socket file of whoever listens on the path: a replay published on a
    /// running segued's endpoint by mistake would cut its subscribers off until it restarts, and one on
    /// a file's path would delete it. Both are refused (69, as an endpoint in use), and the ipc socket a
    /// replay bound is removed when it is done.
    @Test func anIpcEndpointInUseOrAFileIsRefusedAndTheSocketIsRemoved() throws {
        let d = try DaemonProcess(transport: .ipc)
        defer { d.stop() }
        try Cli.run(["create", "main", "Home"], daemon: d)
        let directory = DaemonProcess.temporaryDirectory()
        let log = directory + "/session.jsonl"
        #expect(try Cli.run(["export", "--data-dir", d.logLocation, "-o", log]).status == 0)

        let taken = try Cli.run(["replay", log, "--publish", d.publishEndpoint])
        #expect(taken.status == 69, "\(taken.stderr)")
        #expect(
            taken.stderr.contains(
                "Cannot bind \(d.publishEndpoint): another process (a segued, a relay or another replay?) listens on it"
            ),
            "\(taken.stderr)")
        // The daemon's subscribers still hear it.
        let subscriber = try TestSubscriber(endpoint: d.publishEndpoint, topics: ["tick/"])
        try subscriber.settle(try TestClient(endpoint: d.commandEndpoint))
        try Cli.run(["push", "main", "Detail", "--duration", "0.1"], daemon: d)
        let ticks = try subscriber.collect(idle: .seconds(2)) { _, body in body["final"] == true }
        #expect(ticks.last?.body["final"] == true, "\(ticks.count) ticks")

        let notes = directory + "/notes.txt"
        try "keep me".write(toFile: notes, atomically: true, encoding: .utf8)
        let file = try Cli.run(["replay", log, "--publish", "ipc://" + notes])
        #expect(file.status == 69 && file.stderr.contains("names a regular file, not a socket"), "\(file.stderr)")
        #expect(try String(contentsOfFile: notes, encoding: .utf8) == "keep me")

        let own = directory + "/replay.sock"
        let replayed = try Cli.run(["replay", log, "--publish", "ipc://" + own])
        #expect(replayed.status == 0, "\(replayed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: own), "the replay's socket file is left behind")
        // A `*` port is said as bound, where a viewer can subscribe.
        let any = try CliBackground(["replay", log, "--publish", "tcp://127.0.0.1:*", "--wait-subscriber"])
        #expect(
            any.wait(for: "segue replay: waiting for a subscriber on tcp://127.0.0.1:", onStderr: true), "\(any.stderr)"
        )
        let port = any.stderr.split(separator: "tcp://127.0.0.1:").last?.prefix { $0.isNumber } ?? ""
        #expect(Int(port) != nil, "\(any.stderr)")
        let viewer = try TestSubscriber(endpoint: "tcp://127.0.0.1:\(port)", topics: ["event/"])
        let heard = try viewer.collect(idle: .seconds(5)) { _, body in body["type"] == "navigator.created" }
        #expect(heard.last?.body["type"] == "navigator.created", "the log's one event")
        any.finish()
        #expect(any.process.terminationStatus == 0, "\(any.stderr)")
        // Ended by Ctrl-C while it waits for a subscriber, too.
        let waiting = try CliBackground(["replay", log, "--publish", "ipc://" + own, "--wait-subscriber"])
        #expect(waiting.wait(for: "segue replay: waiting for a subscriber", onStderr: true), "\(waiting.stderr)")
        #expect(FileManager.default.fileExists(atPath: own))
        kill(waiting.process.processIdentifier, SIGINT)
        waiting.finish()
        #expect(waiting.process.terminationReason == .uncaughtSignal)
        #expect(!FileManager.default.fileExists(atPath: own), "left behind by Ctrl-C")
    }

    /// Matches `live` in order within `replayed`: the replayed ticks left over, and the live ones never
    /// found.
    static func ticksNeverPublished(replayed: [Message], live: [Message]) -> (ticks: [Message], missing: [Message]) {
        var next = live.startIndex
        var extra: [Message] = []
        for tick in replayed {
            if next < live.endIndex, tick == live[next] { next += 1 } else { extra.append(tick) }
        }
        return (extra, Array(live[next...]))
    }
}
