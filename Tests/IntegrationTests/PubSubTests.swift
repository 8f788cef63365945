import Foundation
import SegueCore
import Testing

/// The publish socket: topics, heartbeats, tick invariants, identical streams for every subscriber,
/// and the late-joiner recipe of docs/protocol.md.
@Suite(.ownThreads) struct PubSubTests {
    let daemon: DaemonProcess
    let c: TestClient

    init() throws {
        daemon = try DaemonProcess()
        c = try TestClient(endpoint: daemon.commandEndpoint)
    }

    private func subscriber(_ topics: [String]) throws -> TestSubscriber {
        let s = try TestSubscriber(endpoint: daemon.publishEndpoint, topics: topics)
        try s.settle(c)
        return s
    }

    private static func isFinal(_ navigator: String) -> (String, JSON) -> Bool {
        { _, body in body["navigator"] == .string(navigator) && body["final"] == true }
    }

    @Test func aTopicPrefixSelectsOneNavigator() throws {
        defer { daemon.stop() }
        let main = try subscriber(["tick/main/"])
        let all = try subscriber(["tick/"])
        for name in ["main", "main2"] {
            try c.ok(["cmd": "create", "navigator": .string(name), "root": "Home"])
        }
        let missedBefore = try c.missedFrames()
        for name in ["main2", "main"] {
            try c.ok(["cmd": "push", "navigator": .string(name), "screen": "A", "animator": ["duration": 0.2]])
        }
        let mainTicks = try main.collect(until: Self.isFinal("main"))
        // A loaded daemon skips frames without ticks (`missedFrames`): only those may lack one.
        let missed = try c.missedFrames() - missedBefore
        #expect(Int64(mainTicks.count) + missed >= 13, "0.2 s at 60 Hz: 12 frames and the final one")
        #expect(mainTicks.allSatisfy { $0.topic == "tick/main/" && $0.body["navigator"] == "main" })
        let stragglers = try main.collect(idle: .milliseconds(300))
        #expect(stragglers.isEmpty, "main2's ticks must not reach a tick/main/ subscriber: \(stragglers.map(\.topic))")
        var finals: Set<String> = []
        let everything = try all.collect { _, body in
            if body["final"] == true, let n = body["navigator"]?.stringValue { finals.insert(n) }
            return finals.count == 2
        }
        #expect(Set(everything.map(\.topic)) == ["tick/main/", "tick/main2/"])
    }

    @Test func heartbeatsArriveEverySecond() throws {
        defer { daemon.stop() }
        try c.ok(["cmd": "create", "navigator": "hb", "root": "Home"])
        let hb = try subscriber(["hb/"])
        var beats: [JSON] = []
        _ = try hb.collect(timeout: .seconds(5)) { topic, body in
            #expect(topic == "hb/")
            beats.append(body)
            return beats.count == 3
        }
        let clock = try FrameClock(rate: 60)
        for beat in beats {
            let time = try #require(beat["time"]?.int64Value)
            #expect(beat["frame"] == .int(clock.frame(atOrBefore: time)))
            #expect(beat["seq"] == 1)
            #expect(beat["navigators"] == 1)
            #expect(beat["version"]?.stringValue?.isEmpty == false)
            #expect(beat["heartbeatSeconds"]?.doubleValue == 1)
            #expect(beat["instance"] == beats[0]["instance"] && beat["instance"]?.stringValue?.isEmpty == false)
        }
        let times = beats.compactMap { $0["time"]?.int64Value }
        for (a, b) in zip(times, times.dropFirst()) {
            #expect((700_000_000...1_300_000_000).contains(b - a), "heartbeat interval \(b - a) ns")
        }
    }

    @Test func subscribersSeeByteIdenticalTicks() throws {
        defer { daemon.stop() }
        try c.ok(["cmd": "create", "navigator": "same", "root": "Home"])
        let first = try subscriber(["tick/same/"])
        let second = try subscriber(["tick/same/"])
        let missedBefore = try c.missedFrames()
        try c.ok([
            "cmd": "push", "navigator": "same", "screen": "A", "animator": ["duration": 0.3, "curve": "easeOut"],
        ])
        let a = try first.collect(until: Self.isFinal("same"))
        let b = try second.collect(until: Self.isFinal("same"))
        let missed = try c.missedFrames() - missedBefore
        #expect(a.count <= 19 && Int64(a.count) + missed >= 19, "0.3 s at 60 Hz and the final tick; \(missed) skipped")
        #expect(a.last?.body["final"] == true)
        #expect(a.map(\.raw) == b.map(\.raw))
    }

    @Test func oneTickPerFrameFromStartToEnd() throws {
        defer { daemon.stop() }
        try c.ok(["cmd": "create", "navigator": "inv", "root": "Home"])
        let ticks = try subscriber(["tick/inv/"])
        let missedBefore = try c.missedFrames()
        // Animated push: completes at start + ceil(0.25 × 60) = start + 15.
        try c.ok(["cmd": "push", "navigator": "inv", "screen": "A", "animator": ["duration": 0.25]])
        let pushTicks = try ticks.collect(until: Self.isFinal("inv")).map(\.body)
        try c.waitIdle("inv")
        // Interactive pop, cancelled: the final tick has fraction 0.
        try c.ok(["cmd": "begin", "navigator": "inv", "operation": "pop"])
        try c.ok(["cmd": "update", "navigator": "inv", "percent": 0.5])
        usleep(50_000)
        try c.ok(["cmd": "cancel", "navigator": "inv", "completionSpeed": 4])
        let popTicks = try ticks.collect(until: Self.isFinal("inv")).map(\.body)
        let events = try c.events(of: "inv")
        let starts = events.filter { $0.type == "transition.started" }.map(\.frame)
        let ends = events.filter { $0.type == "transition.completed" || $0.type == "transition.cancelled" }.map(\.frame)
        try #require(starts.count == 2 && ends.count == 2)
        #expect(ends[0] == starts[0] + 15)
        // On a loaded machine the loop may stall and skip frames, which it counts (`missedFrames`):
        // only those may lack a tick.
        let missed = try c.missedFrames() - missedBefore
        check(pushTicks, from: starts[0], to: ends[0], finalFraction: 1, finalPhase: "completed", missed: missed)
        check(popTicks, from: starts[1], to: ends[1], finalFraction: 0, finalPhase: "cancelled", missed: missed)
        let updated = try #require(events.first { $0.type == "interaction.updated" })
        if let tick = popTicks.first(where: { $0["frame"] == .int(updated.frame) }) {
            #expect(tick["fraction"] == 0.5)
        } else {
            #expect(missed > 0, "no tick at the update's frame \(updated.frame), and no frame was skipped")
        }
    }

    private func check(
        _ ticks: [JSON], from start: Int64, to end: Int64, finalFraction: Double, finalPhase: String,
        missed: Int64 = 0, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let frames = ticks.compactMap { $0["frame"]?.int64Value }
        if missed == 0 {
            #expect(frames == Array(start...end), "one tick per frame", sourceLocation: sourceLocation)
        } else {
            // Frames in order, none twice, the last one there, and no more lacking than were skipped.
            #expect(frames == frames.sorted() && Set(frames).count == frames.count, sourceLocation: sourceLocation)
            #expect(frames.allSatisfy { (start...end).contains($0) }, sourceLocation: sourceLocation)
            #expect(frames.last == end, sourceLocation: sourceLocation)
            #expect(
                Int64(frames.count) >= end - start + 1 - missed, "\(missed) frames skipped: \(frames)",
                sourceLocation: sourceLocation)
        }
        #expect(ticks.dropLast().allSatisfy { $0["final"] == false }, sourceLocation: sourceLocation)
        #expect(ticks.last?["final"] == true, sourceLocation: sourceLocation)
        #expect(ticks.last?["fraction"] == .double(finalFraction), sourceLocation: sourceLocation)
        #expect(ticks.last?["phase"] == .string(finalPhase), sourceLocation: sourceLocation)
        let clock = try? FrameClock(rate: 60)
        for tick in ticks {
            let fraction = tick["fraction"]?.doubleValue ?? -1
            #expect((0...1).contains(fraction), sourceLocation: sourceLocation)
            #expect(tick["time"] == .int(clock!.instant(ofFrame: tick["frame"]?.int64Value ?? 0)))
            // `gesture` follows on ticks of the interactive phase, and on no other; `digest` on the
            // final tick only.
            let gesture: [String] = tick["phase"] == "interactive" ? ["gesture"] : []
            let digest: [String] = tick["final"] == true ? ["digest"] : []
            #expect(
                tick.objectValue?.keys == [
                    "navigator", "transition", "operation", "frame", "time", "presentAt", "phase", "fraction",
                    "progress",
                    "revision", "final", "views",
                ] + gesture + digest, sourceLocation: sourceLocation)
            for side in ["from", "to"] {
                #expect(
                    tick["views"]?[side]?.objectValue?.keys == [
                        "screen", "x", "y", "alpha", "scale", "rotation", "rotationY", "mask", "z", "anchor",
                    ], sourceLocation: sourceLocation)
            }
        }
    }

    /// The Clone pattern (docs/protocol.md, "Late joiners (the Clone pattern)"): subscribe, then `state`, then apply
    /// events above the snapshot's revision, while another client keeps changing the navigator. The late joiner must
    /// end where an early subscriber, who folded every event, ends.
    @Test func aLateJoinerCatchesUpWithAnEarlySubscriber() throws {
        defer { daemon.stop() }
        let clock = try FrameClock(rate: 60)
        let early = try subscriber(["event/late/"])
        try c.ok(["cmd": "create", "navigator": "late", "root": "Home"])
        let endpoint = daemon.commandEndpoint
        let commands = 60
        let applied = Counter()
        let halfway = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            defer { done.signal() }
            guard let writer = try? TestClient(endpoint: endpoint) else { return }
            for i in 0..<commands {
                let request: JSON =
                    i % 3 == 2
                    ? ["cmd": "pop", "navigator": "late", "animated": false]
                    : ["cmd": "push", "navigator": "late", "screen": .string("S\(i)"), "animated": false]
                if (try? writer.call(request))?["ok"] == true { applied.value += 1 }
                if i == commands / 4 { halfway.signal() }
                usleep(3_000)
            }
        }
        halfway.wait()
        let late = try TestSubscriber(endpoint: daemon.publishEndpoint, topics: ["event/late/"])
        try late.settle(c)
        let snapshot = try c.ok(["cmd": "state", "navigator": "late"])
        done.wait()
        #expect(applied.value == commands)
        let finalState = try c.ok(["cmd": "state", "navigator": "late"])
        let finalRevision = try #require(finalState["revision"]?.int64Value)
        let reached = { (_: String, body: JSON) in body["revision"] == .int(finalRevision) }

        var earlyState = NavigatorState(name: "late", clock: clock)
        for message in try early.collect(until: reached) {
            earlyState = try ClientFold.apply(message.body, to: earlyState)
        }
        var lateState = try ClientFold.state(fromReply: snapshot, clock: clock)
        var skipped = 0
        for message in try late.collect(until: reached) {
            let revision = try #require(message.body["revision"]?.int64Value)
            guard revision > lateState.revision else {
                skipped += 1
                continue
            }
            #expect(revision == lateState.revision + 1, "no gap after the snapshot")
            lateState = try ClientFold.apply(message.body, to: lateState)
        }
        #expect(lateState.revision > snapshot["revision"]!.int64Value!, "the late joiner applied live events")
        #expect(earlyState.revision == finalRevision)
        #expect(lateState.revision == finalRevision)
        #expect(lateState.stack == earlyState.stack)
        #expect(lateState.modals == earlyState.modals)
        #expect(lateState.status == earlyState.status)
        #expect(lateState.transition == nil && earlyState.transition == nil)
        #expect(earlyState.stack.map(\.json) == finalState["stack"]?.arrayValue)
    }
}

/// Written by one thread, read by another only after a semaphore hands over (happens-before).
private final class Counter: @unchecked Sendable {
    var value = 0
}
