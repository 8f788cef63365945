import Foundation
import SegueClient
import SegueCore
import Testing

/// `segue replay --json` regenerates, byte for byte, every tick the daemon published live.
@Suite(.ownThreads, .serialized) struct CliReplayFidelityTests {
    @Test func replayReproducesEveryLiveTickExactly() throws {
        let d = try DaemonProcess()
        let subscriber = try TestSubscriber(endpoint: d.publishEndpoint, topics: ["tick/"])
        let client = try SegueClient(endpoint: d.commandEndpoint)
        usleep(200_000)  // the SUB joins before the first tick

        let fast = TransitionOptions(animator: ["duration": 0.2])
        try client.create("a", root: ScreenSpec(name: "Home"))
        try client.create("b", root: ScreenSpec(name: "Home"))
        try client.create("c", root: ScreenSpec(name: "Home"))
        try client.create("d", root: ScreenSpec(name: "Home"))
        var queue = NavigatorConfig()
        queue.busy = .queue
        try client.create("q", root: ScreenSpec(name: "Home"), config: queue)
        try client.push("b", ScreenSpec(name: "Detail"), options: TransitionOptions(animated: false))
        try client.push("c", ScreenSpec(name: "Detail"), options: TransitionOptions(animated: false))

        // a: an animated push; q: three pushes, two of them queued; d: a push that gets interrupted.
        try client.push("a", ScreenSpec(name: "Detail"), options: fast)
        for name in ["X", "Y", "Z"] {
            try client.push(
                "q", ScreenSpec(name: name),
                options: TransitionOptions(animator: ["duration": 0.1, "curve": "easeOut"]))
        }
        try client.push(
            "d", ScreenSpec(name: "Detail", params: ["n": 1]),
            // Long enough to be in flight when interrupted below on a loaded machine.
            options: TransitionOptions(animator: ["duration": 5, "style": "fade"]))

        // b: an interactive pop finished; c: one cancelled.
        try client.begin("b", .pop, envelope: CommandEnvelope(owner: "pan-b"))
        try client.begin("c", .pop, animator: ["curve": ["spring": ["response": 0.3, "dampingFraction": 0.7]]])
        for i in 1...6 {
            try client.update("b", percent: Double(i) * 0.1, velocity: 0.6, envelope: CommandEnvelope(owner: "pan-b"))
            try client.update("c", percent: Double(i) * 0.05, velocity: 0.3)
            usleep(16_000)
        }
        try client.begin("d", nil)  // interrupt
        try client.update("d", percent: 0.95, velocity: 0.5)
        try client.finish("b", velocity: 0.6, envelope: CommandEnvelope(owner: "pan-b"))
        try client.cancel("c", completionSpeed: 2)
        try client.end("d", velocity: 0.5)
        usleep(100_000)
        try client.pop(
            "a", options: TransitionOptions(animator: ["duration": 0.15, "curve": ["bezier": [0.2, 0, 0, 1]]]))
        // Everything settles (d finishes from 0.95 over 0.25 s).
        let settled = ContinuousClock.now + .seconds(10)
        while try !client.list().allSatisfy({ $0.transition == nil }), ContinuousClock.now < settled {
            usleep(50_000)
        }
        #expect(try client.list().allSatisfy { $0.transition == nil })

        let live = try subscriber.collect(idle: .milliseconds(300))
        let missed = try TestClient(endpoint: d.commandEndpoint).missedFrames()
        #expect(d.stop() == 0)
        let navigators = Set(live.map { $0.body["navigator"]?.stringValue ?? "" })
        #expect(navigators == ["a", "b", "c", "d", "q"])
        #expect(live.contains { $0.body["phase"] == "cancelled" && $0.body["final"] == true })
        // Final ticks carry the state digest, which the replay must fold again.
        #expect(live.allSatisfy { ($0.body["final"] == true) == ($0.body["digest"]?.stringValue?.count == 64) })

        let replay = try Cli.run(["replay", "--json", d.logLocation])
        #expect(replay.status == 0, "\(replay.stderr)")
        let missing = TestSubscriber.missing(live, from: replay.stdout)
        #expect(
            missing.isEmpty,
            "\(missing.count) of \(live.count) live ticks differ in replay, first: \(missing.first ?? "")")
        #expect(Int64(live.count) + missed > 60)
        // In the replay, and live unless the daemon skipped frames (a gesture's are few).
        #expect(replay.stdout.contains(#""phase":"interactive""#))
        #expect(missed > 0 || live.contains { $0.body["phase"] == "interactive" })

        // The same from an export, and for one navigator only.
        let export = d.dataDir + "/log.jsonl"
        #expect(try Cli.run(["export", "--data-dir", d.logLocation, "-o", export]).status == 0)
        let fromExport = try Cli.run(["replay", "--json", export])
        #expect(fromExport.stdout == replay.stdout)
        // Compared with the whole replay rather than the live ticks, which lack any frames a loaded
        // daemon skipped.
        let replayed = replay.stdout.split(separator: "\n")
        let onlyB = try Cli.run(["replay", "--json", "--navigator", "b", export]).stdout.split(separator: "\n")
        #expect(!onlyB.isEmpty)
        #expect(onlyB == replayed.filter { $0.contains(#""navigator":"b""#) })

        // Cut short with --to in the middle of the gestures: every tick is still one of the whole
        // replay. (A replay that carried on past the cut would hold the gestures still until their
        // interaction timeout: ticks nobody ever saw.)
        let lines = try String(contentsOfFile: export, encoding: .utf8).split(separator: "\n")
        let updates = try lines.map { try JSON.parse(String($0)) }.filter { $0["type"] == "interaction.updated" }
        let cut = try #require(updates.dropFirst(3).first?["seq"]?.int64Value)
        let partial = try Cli.run(["replay", "--json", "--to", String(cut), export])
        #expect(partial.status == 0, "\(partial.stderr)")
        let partialTicks = partial.stdout.split(separator: "\n").map { Array($0.utf8) }
        let whole = Set(replayed.map { Array($0.utf8) })
        #expect(!partialTicks.isEmpty)
        #expect(
            partialTicks.allSatisfy { whole.contains($0) },
            "\(partialTicks.filter { !whole.contains($0) }.count) of \(partialTicks.count) ticks not in the whole replay"
        )
    }

    /// Reversals (a pop mid-push, a cancel mid-present, a cancel while a spring hand-off finishes),
    /// pauses, seeks both ways and resumes: the replay still reproduces every live tick.
    @Test func replayReproducesReversalsPausesAndSeeks() throws {
        let d = try DaemonProcess()
        let subscriber = try TestSubscriber(endpoint: d.publishEndpoint, topics: ["tick/"])
        let client = try SegueClient(endpoint: d.commandEndpoint)
        usleep(200_000)  // the SUB joins before the first tick
        var retargeting = NavigatorConfig()
        retargeting.retarget = true
        for name in ["r", "m", "h", "s"] {
            try client.create(name, root: ScreenSpec(name: "Home"), config: retargeting)
        }
        // Long enough that each transition is still in flight when it is reversed or paused, however
        // slow the machine's commits (at 0.5 s a loaded PostgreSQL pass once completed the present
        // before its cancel arrived).
        let slow = TransitionOptions(animator: ["duration": 1.5, "curve": "easeInOut"])

        try client.push("r", ScreenSpec(name: "Detail"), options: slow)
        try client.present("m", ScreenSpec(name: "Sheet"), options: slow)
        try client.push("s", ScreenSpec(name: "Detail"), options: TransitionOptions(animator: ["duration": 1.6]))
        try client.begin("h", .push(ScreenSpec(name: "Detail")))
        for i in 1...4 {
            try client.update("h", percent: Double(i) * 0.1, velocity: 1.5)
            usleep(16_000)
        }
        try client.finish(
            "h", velocity: 1.5,
            animator: CompletionAnimator(curve: .spring(.response(response: 0.5, dampingFraction: 0.9))))
        usleep(120_000)
        try client.pop("r")  // reverses the push
        try client.cancel("m")  // reverses the present
        try client.cancel("h")  // reverses the finishing spring
        try client.pause("s")
        usleep(50_000)
        try client.seek("s", fraction: 0.3)
        usleep(30_000)
        try client.seek("s", fraction: 0.8, scrubsLinearly: false)
        usleep(30_000)
        try client.resume("s")
        // Everything settles.
        let deadline = ContinuousClock.now + .seconds(10)
        while try client.list().contains(where: { $0.transition != nil }), ContinuousClock.now < deadline {
            usleep(50_000)
        }
        #expect(try client.list().allSatisfy { $0.transition == nil })
        let types = try client.history(limit: 1000).events.map(\.type)
        #expect(types.filter { $0 == "transition.reversed" }.count == 3)
        #expect(types.filter { $0 == "transition.seeked" }.count == 2)
        #expect(types.contains("transition.paused") && types.contains("transition.resumed"))

        let live = try subscriber.collect(idle: .milliseconds(300))
        let missed = try TestClient(endpoint: d.commandEndpoint).missedFrames()
        #expect(d.stop() == 0)
        let replay = try Cli.run(["replay", "--json", d.logLocation])
        #expect(replay.status == 0, "\(replay.stderr)")
        #expect(replay.stdout.contains(#""phase":"paused""#))
        #expect(missed > 0 || live.contains { $0.body["phase"] == "paused" })
        let missing = TestSubscriber.missing(live, from: replay.stdout)
        #expect(
            missing.isEmpty,
            "\(missing.count) of \(live.count) live ticks differ in replay, first: \(missing.first ?? "")")
    }
}
