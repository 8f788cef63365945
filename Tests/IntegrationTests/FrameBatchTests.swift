import Foundation
import SegueClient
import SegueCore
import SegueProtocol
import SegueWire
import Testing

/// The frames socket (`--publish-frames`): each frame's ticks in one compact message, the very ticks of
/// `tick/<navigator>/`, and ticks encoded only for topics somebody subscribed to. What the store does
/// not change runs once, in the SQLite pass.
@Suite(.ownThreads, .alone, .frameTiming) struct FrameBatchTests {
    let daemon: DaemonProcess
    let c: TestClient
    let framesEndpoint = "tcp://127.0.0.1:\(DaemonProcess.freePort())"

    init() throws {
        daemon = try DaemonProcess(arguments: ["--publish-frames", framesEndpoint])
        c = try TestClient(endpoint: daemon.commandEndpoint)
    }

    /// Receives frame batches until `until` holds for one of their ticks or nothing comes for `idle`.
    private static func batches(
        _ s: TestSubscriber, idle: Duration = .seconds(3), until: (Tick) -> Bool
    ) throws -> [TickBatch] {
        try s.socket.setReceiveTimeout(idle)
        var out: [TickBatch] = []
        while let frames = try s.socket.receiveMultipart() {
            #expect(frames.count == 2 && frames[0] == Array(TickBatch.topic.utf8))
            let batch = try TickBatch(decoding: frames[1])
            out.append(batch)
            if batch.ticks.contains(where: until) { break }
        }
        return out
    }

    /// JSON subscribers and frame-batch subscribers see the same ticks: every animated, interactive and
    /// final tick of three navigators, decoded from the batches and encoded as JSON, is byte for byte
    /// the body published on `tick/`, and each batch holds one frame's ticks.
    @Test func batchesCarryTheSameTicksAsTheTickTopics() throws {
        defer { daemon.stop() }
        let json = try TestSubscriber(endpoint: daemon.publishEndpoint, topics: ["tick/"])
        try json.settle(c)
        let frames = try TestSubscriber(endpoint: framesEndpoint, topics: [TickBatch.topic])
        try frames.settle(c)
        // A loop that stalls (a loaded machine) skips frames without ticks (`stats.missedFrames`),
        // final ones excepted: both streams then lack them, the short interactive stretch's included,
        // so the run is made again on new navigators, up to three times.
        var run = 0
        var outcome: (published: [(topic: String, body: JSON, raw: [UInt8])], batches: [TickBatch])?
        var missed: Int64 = 0
        while outcome == nil, run < 3 {
            run += 1
            if run > 1 {
                // What the failed run left on either socket is not this run's.
                _ = try json.collect(idle: .milliseconds(300))
                _ = try Self.batches(frames, idle: .milliseconds(300)) { _ in false }
            }
            let missedBefore = try c.missedFrames()
            let attempt = Result { try transitionsOfThreeNavigators(json, frames, suffix: "\(run)") }
            missed = try c.missedFrames() - missedBefore
            if missed == 0 || run == 3 { outcome = try attempt.get() }
        }
        let (published, batches) = try #require(outcome)
        for batch in batches {
            #expect(batch.ticks.allSatisfy { $0.frame == batch.frame && $0.time == batch.time })
            #expect(batch.ticks.allSatisfy { $0.presentAt == batch.presentAt })
        }
        let fromBatches = batches.flatMap(\.ticks).map { String(decoding: $0.encoded(), as: UTF8.self) }
        let fromTopics = published.map { String(decoding: $0.raw, as: UTF8.self) }
        #expect(Int64(fromTopics.count) + missed > 20, "three transitions over several frames")
        #expect(fromBatches == fromTopics, "the same ticks, in the same order")
        // The third run is taken even if it skipped frames, which may be the interactive stretch's.
        let gestures = batches.flatMap(\.ticks).contains { $0.gesture?.touch != nil && $0.phase == .interactive }
        #expect(gestures || missed > 0, "an interactive tick carries the gesture")
        #expect(batches.flatMap(\.ticks).contains { $0.digest != nil })
    }

    /// Runs four transitions on three new navigators (one interactive, with a gesture) and collects
    /// their ticks from both sockets, up to the fourth final tick on each.
    private func transitionsOfThreeNavigators(_ json: TestSubscriber, _ frames: TestSubscriber, suffix: String)
        throws -> (published: [(topic: String, body: JSON, raw: [UInt8])], batches: [TickBatch])
    {
        let (a, b, g) = ("a" + suffix, "b" + suffix, "g" + suffix)
        for name in [a, b, g] {
            try c.ok(["cmd": "create", "navigator": .string(name), "root": "Home"])
        }
        try c.ok(["cmd": "push", "navigator": .string(g), "screen": "Detail", "animated": false])
        try c.ok(["cmd": "push", "navigator": .string(a), "screen": "A", "animator": ["duration": 0.25]])
        try c.ok([
            "cmd": "present", "navigator": .string(b), "screen": "B", "animator": ["style": "fade", "duration": 0.3],
        ])
        try c.ok([
            "cmd": "begin", "navigator": .string(g), "operation": "pop", "owner": "pan",
            "touch": ["x": 0.02, "y": 0.4],
        ])
        try c.ok(["cmd": "update", "navigator": .string(g), "owner": "pan", "percent": 0.4, "velocity": 0.3])
        usleep(60_000)  // a few frames of the interactive phase, whose ticks carry the gesture
        try c.ok(["cmd": "finish", "navigator": .string(g), "owner": "pan"])
        // Four transitions end: g's push and pop, a's push, b's presentation (a run before this one
        // may still have ticks on the way: only these navigators' count).
        let names: Set = [a, b, g]
        var finals = 0
        let published = try json.collect { _, body in
            if body["final"] == true, names.contains(body["navigator"]?.stringValue ?? "") { finals += 1 }
            return finals == 4
        }
        var batchFinals = 0
        let batches = try Self.batches(frames) { tick in
            if tick.final, names.contains(tick.navigator) { batchFinals += 1 }
            return batchFinals == 4
        }
        return (published, batches)
    }

    /// While nobody takes a tick topic the daemon skips encoding it; a subscriber who comes while a
    /// transition runs gets every tick from its first on, through the final one, with no frame missing but
    /// those the daemon skipped.
    @Test func aSubscriberWhoComesLaterGetsEveryTickFromItsFirst() throws {
        defer { daemon.stop() }
        try c.ok(["cmd": "create", "navigator": "late", "root": "Home"])
        try c.ok(["cmd": "push", "navigator": "late", "screen": "A", "animator": ["duration": 1.5]])
        usleep(300_000)
        let missedBefore = try c.missedFrames()
        let json = try TestSubscriber(endpoint: daemon.publishEndpoint, topics: ["tick/late/"])
        let frames = try TestSubscriber(endpoint: framesEndpoint, topics: [TickBatch.topic])
        let ticks = try json.collect(idle: .seconds(3)) { _, body in body["final"] == true }
        let batches = try Self.batches(frames) { $0.final }
        // A loaded daemon skips frames without ticks (`missedFrames`): only those may be missing.
        let missed = try c.missedFrames() - missedBefore
        #expect(ticks.last?.body["final"] == true)
        let numbers = ticks.compactMap { $0.body["frame"]?.int64Value }
        #expect(numbers.count > 10)
        #expect(Self.framesLacking(numbers).map { $0 <= missed } == true, "\(missed) skipped: \(numbers)")
        let batchFrames = batches.map(\.frame)
        #expect(batches.last?.ticks.last?.final == true)
        #expect(Self.framesLacking(batchFrames).map { $0 <= missed } == true, "\(missed) skipped: \(batchFrames)")
    }

    /// How many frames are missing between the first and the last of `frames`; nil if they do not go
    /// forward one by one or more.
    static func framesLacking(_ frames: [Int64]) -> Int64? {
        let steps = zip(frames, frames.dropFirst()).map { $1 - $0 }
        return steps.allSatisfy { $0 >= 1 } ? steps.reduce(0) { $0 + $1 - 1 } : nil
    }

    /// `FrameBatchSubscriber`, the Swift client's reader: each batch's ticks are `PublishedTick`s whose
    /// bytes are the bodies `tick/` publishes.
    @Test func theClientLibraryReadsBatchesAsPublishedTicks() throws {
        defer { daemon.stop() }
        let json = try TestSubscriber(endpoint: daemon.publishEndpoint, topics: ["tick/"])
        try json.settle(c)
        let frames = try FrameBatchSubscriber(endpoint: framesEndpoint)
        try c.ok(["cmd": "create", "navigator": "lib", "root": "Home"])
        // The frames socket has no heartbeat: non-animated pushes until one batch shows the subscription live.
        var warmUp: FrameBatch?
        for _ in 0..<50 where warmUp == nil {
            try c.ok(["cmd": "push", "navigator": "lib", "screen": "W", "animated": false])
            warmUp = try frames.next(timeout: .milliseconds(100))
        }
        try #require(warmUp != nil, "no frame batch came")
        while try frames.next(timeout: .milliseconds(200)) != nil {}
        _ = try json.collect(idle: .milliseconds(200))
        try c.ok(["cmd": "push", "navigator": "lib", "screen": "A", "animator": ["duration": 0.2]])
        let published = try json.collect { _, body in body["final"] == true }
        var read: [PublishedTick] = []
        while !(read.last?.final ?? false), let batch = try frames.next(timeout: .seconds(3)) {
            #expect(batch.ticks.allSatisfy { $0.frame == batch.frame })
            read += batch.ticks
        }
        #expect(read.count == published.count && read.last?.final == true)
        #expect(read.map(\.bytes) == published.map(\.raw))
    }

    /// `stats.subscriptions` counts each topic subscribed on either socket once, and drops it when
    /// its subscriber leaves.
    @Test func theSubscriptionCountIsExact() throws {
        defer { daemon.stop() }
        func count() throws -> Int64 { try c.call(["cmd": "stats"])["subscriptions"]?.int64Value ?? -1 }
        func awaitCount(_ expected: Int64) throws {
            let deadline = ContinuousClock.now + .seconds(5)
            while try count() != expected {
                guard ContinuousClock.now < deadline else { throw WaitTimeout(what: "subscriptions at \(expected)") }
                usleep(5_000)
            }
        }
        let before = try count()
        var json: TestSubscriber? = try TestSubscriber(endpoint: daemon.publishEndpoint, topics: ["tick/a/", "hb/"])
        var frames: TestSubscriber? = try TestSubscriber(endpoint: framesEndpoint, topics: [TickBatch.topic])
        try awaitCount(before + 3)
        usleep(300_000)  // a heartbeat and a few reads later, still three
        #expect(try count() == before + 3)
        json = nil
        frames = nil
        try awaitCount(before)
        _ = (json, frames)
    }

    static let example = ProtocolExampleTests.root.appendingPathComponent("docs/examples/frame_batches.py")

    /// docs/examples/frame_batches.py, a reader of the layout in plain Python (`struct`), finds in the
    /// batches exactly the ticks published on `tick/`; protocol.md embeds it verbatim.
    @Test func thePythonReaderDecodesTheSameTicks() throws {
        defer { daemon.stop() }
        let probe = try ProtocolExampleTests.python(["-c", "import zmq"])
        try #require(probe.status == 0, "python3 cannot import zmq (pyzmq); install it with `pip install pyzmq`.")
        let run = try ProtocolExampleTests.python([
            Self.example.path, "--command", daemon.commandEndpoint, "--publish", daemon.publishEndpoint, "--frames",
            framesEndpoint,
        ])
        #expect(run.status == 0 && run.output.hasPrefix("OK"), "\(run.output)\nsegued log:\n\(daemon.log.suffix(2000))")
        let document = try String(contentsOf: ProtocolExampleTests.document, encoding: .utf8)
        let marker = "<!-- example: docs/examples/frame_batches.py -->\n```python\n"
        let start = try #require(document.range(of: marker), "protocol.md must embed the reader after \(marker)")
        let end = try #require(document.range(of: "\n```\n", range: start.upperBound..<document.endIndex))
        let file = try String(contentsOf: Self.example, encoding: .utf8)
        #expect(String(document[start.upperBound..<end.lowerBound]) + "\n" == file, "copy the file into the doc")
    }
}
