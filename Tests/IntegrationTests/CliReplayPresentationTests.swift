import Foundation
import SegueClient
import SegueCore
import Testing

/// Ticks carry `presentAt`, their frame's instant plus the daemon's `presentationDelay`; the log does
/// not record the delay, so `segue replay --presentation-delay` given the daemon's reproduces its ticks
/// byte for byte.
@Suite(.ownThreads, .serialized) struct CliReplayPresentationTests {
    @Test func replayWithTheDaemonsDelayReproducesPresentAt() throws {
        let d = try DaemonProcess.configured(#"{"presentationDelay": 0.05}"#)
        let subscriber = try TestSubscriber(endpoint: d.publishEndpoint, topics: ["tick/", "hb/"])
        _ = try subscriber.collect(idle: .seconds(3), until: { topic, _ in topic == "hb/" })
        let client = try SegueClient(endpoint: d.commandEndpoint)
        try client.create("a", root: ScreenSpec(name: "Home"))
        try client.push("a", ScreenSpec(name: "Detail"), options: TransitionOptions(animator: ["duration": 0.2]))
        usleep(400_000)
        try client.begin("a", .pop)
        try client.update("a", percent: 0.4, velocity: 0.2)
        try client.finish("a", velocity: 0.2)
        let deadline = ContinuousClock.now + .seconds(10)
        while try client.list().contains(where: { $0.transition != nil }), ContinuousClock.now < deadline {
            usleep(50_000)
        }
        let live = try subscriber.collect(idle: .milliseconds(300)).filter { $0.topic.hasPrefix("tick/") }
        // A loaded daemon skips frames without ticks (`missedFrames`).
        let missed = try TestClient(endpoint: d.commandEndpoint).missedFrames()
        #expect(d.stop() == 0)
        try #require(Int64(live.count) + missed > 20, "\(live.count) ticks, \(missed) frames skipped")
        for tick in live {
            let time = try #require(tick.body["time"]?.int64Value)
            #expect(tick.body["presentAt"] == .int(time + 50_000_000), "\(tick.body)")
        }

        let replay = try Cli.run(["replay", "--json", "--presentation-delay", "50ms", d.logLocation])
        #expect(replay.status == 0, "\(replay.stderr)")
        let replayed = Set(replay.stdout.split(separator: "\n").map { Array($0.utf8) })
        let missing = live.filter { !replayed.contains($0.raw) }
        #expect(missing.isEmpty, "\(missing.count) of \(live.count) ticks differ, first: \(missing.first?.body ?? nil)")

        // Without the daemon's delay, presentAt is each frame's own instant: the ticks differ there only.
        let undelayed = try Cli.run(["replay", "--json", d.logLocation])
        let bodies = try undelayed.stdout.split(separator: "\n").map { try JSON.parse(String($0)) }
        #expect(bodies.count == replayed.count)
        #expect(bodies.allSatisfy { $0["presentAt"] != nil && $0["presentAt"] == $0["time"] })
    }
}
