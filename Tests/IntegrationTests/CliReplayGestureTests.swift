import Foundation
import SegueClient
import SegueCore
import Testing

/// `segue replay` of gestures that carry geometry (touch, swipe edge, the client's time), whose
/// release velocity the daemon measured itself, and that hand off into springs: every live tick,
/// the `gesture` member of the interactive ones included, comes back byte for byte.
@Suite(.ownThreads) struct CliReplayGestureTests {
    @Test func replayReproducesGeometryMeasuredVelocityAndHandOffs() throws {
        let d = try DaemonProcess()
        let subscriber = try TestSubscriber(endpoint: d.publishEndpoint, topics: ["tick/"])
        let client = try SegueClient(endpoint: d.commandEndpoint)
        usleep(200_000)  // the SUB joins before the first tick
        for name in ["back", "fling", "drag"] { try client.create(name, root: ScreenSpec(name: "Home")) }
        for name in ["back", "drag"] {
            try client.push(name, ScreenSpec(name: "Detail"), options: TransitionOptions(animated: false))
        }
        let spring = CompletionAnimator(curve: .spring(.response(response: 0.4, dampingFraction: 0.85)))
        let started = Int64(Date().timeIntervalSince1970 * 1e9)
        func at(_ step: Int) -> Int64 { started + Int64(step) * 16_000_000 }

        // back: a predictive-back swipe from the left edge, ended with no velocity: the daemon fits
        // one and hands it to the spring. fling: a push dragged in from the right, finished with a
        // velocity into a spring. drag: geometry without a time, cancelled along a curve.
        try client.begin(
            "back", .pop, geometry: GestureGeometry(touch: .init(x: 0.02, y: 0.4), edge: .left, time: at(0)))
        try client.begin("fling", .push(ScreenSpec(name: "Detail")), geometry: GestureGeometry(edge: .right))
        try client.begin("drag", .pop, geometry: GestureGeometry(touch: .init(x: 0.1, y: 0.9)))
        for step in 1...8 {
            let x = 0.02 + Double(step) * 0.04
            try client.update(
                "back", percent: x,
                geometry: GestureGeometry(touch: .init(x: x, y: 0.4 + Double(step) * 0.005), time: at(step)))
            try client.update(
                "fling", percent: Double(step) * 0.05, velocity: 1.2,
                geometry: GestureGeometry(touch: .init(x: 1 - Double(step) * 0.05, y: 0.5)))
            try client.update(
                "drag", percent: Double(step) * 0.03, geometry: GestureGeometry(touch: .init(x: 0.1, y: 0.9)))
            usleep(16_000)
        }
        let ended = try client.end("back", animator: spring)
        try client.finish("fling", velocity: 1.2, animator: spring)
        try client.cancel("drag", completionSpeed: 1.5, completionCurve: .easeOut)
        usleep(1_200_000)  // the springs settle
        #expect(try client.list().allSatisfy { $0.transition == nil })
        #expect(ended.decision != nil)
        let updates = try Cli.run(
            ["log", "--navigator", "back", "--type", "interaction.updated", "--json"], daemon: d)
        #expect(updates.stdout.contains(#""estimated":true"#), "end measured no velocity: \(updates.stdout)")

        let live = try subscriber.collect(idle: .milliseconds(300))
        let missed = try TestClient(endpoint: d.commandEndpoint).missedFrames()
        #expect(d.stop() == 0)
        let replay = try Cli.run(["replay", "--json", d.logLocation])
        #expect(replay.status == 0, "\(replay.stderr)")
        // In the replay, and live unless the daemon skipped frames (a gesture's are few).
        let replayed = try replay.stdout.split(separator: "\n").map { try JSON.parse(String($0)) }
        for ticks in [replayed] + (missed == 0 ? [live.map(\.body)] : []) {
            #expect(ticks.contains { $0["gesture"]?["touch"] != nil })
            #expect(ticks.contains { $0["gesture"]?["edge"] == "left" })
        }
        let missing = TestSubscriber.missing(live, from: replay.stdout)
        #expect(
            missing.isEmpty,
            "\(missing.count) of \(live.count) live ticks differ in replay, first: \(missing.first ?? "")")
        #expect(Int64(live.count) + missed > 40)
    }
}
