import Foundation
import SegueCore
import Testing

/// Replay is the live frame path run again: seeded random sessions (animated transitions with every
/// kind of curve, gestures finished, cancelled and ended, interrupts, a queue, and in some sessions a
/// restart with transitions in flight, by SIGTERM or SIGKILL) run through the real daemon while a
/// subscriber records every tick; `segue replay` of the data dir must then give the very same bytes.
///
/// Every live tick must be in the replay. The replay may hold more only for frames nobody could see
/// live: while the daemon was down, or frames it skipped after a stall (`missedFrames`); otherwise
/// the two are the same multiset. `SEGUE_REPLAY_SEEDS=N` runs more sessions.
@Suite(.ownThreads, .serialized) struct ReplayRandomizedTests {
    static let seeds: [UInt64] = {
        let count = Int(ProcessInfo.processInfo.environment["SEGUE_REPLAY_SEEDS"] ?? "") ?? 4
        return (0..<UInt64(count)).map { 0x5E9E_0000 + $0 }
    }()

    @Test(arguments: seeds) func replayReproducesARandomSession(seed: UInt64) throws {
        try RandomSession(seed: seed, busyCores: false).check()
    }

    @Test(arguments: seeds.prefix(2)) func replayReproducesARandomSessionWithBothCoresBusy(seed: UInt64) throws {
        let hogs = CPUHogs(count: 2)
        defer { hogs.stop() }
        try RandomSession(seed: seed ^ 0xB05, busyCores: true).check()
    }
}

/// xorshift64*: a fixed seed gives the same session on every machine, so a failure can be re-run.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed == 0 ? 0x9E37_79B9_7F4A_7C15 : seed }
    mutating func next() -> UInt64 {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return state &* 0x2545_F491_4F6C_DD1D
    }
}

/// Busy loops in child processes, to keep the machine's cores occupied while a session runs; each
/// killed after a minute should the test never stop it.
struct CPUHogs {
    let processes: [Process]

    init(count: Int) {
        processes = (0..<count).compactMap { _ in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/bash")
            process.arguments = ["-c", "while [ $SECONDS -lt 60 ]; do :; done"]
            return (try? process.run()) != nil ? process : nil
        }
    }

    func stop() {
        for process in processes where process.isRunning {
            kill(process.processIdentifier, SIGKILL)  // the test process may block SIGTERM for its children
            process.waitUntilExit()
        }
    }
}

final class RandomSession {
    let seed: UInt64
    let busyCores: Bool
    var rng: SeededGenerator
    var daemon: DaemonProcess
    var client: TestClient
    let subscriber: TestSubscriber
    var live: [[UInt8]] = []
    var restarted = false
    let navigators = ["a", "b", "q"]

    init(seed: UInt64, busyCores: Bool) throws {
        self.seed = seed
        self.busyCores = busyCores
        rng = SeededGenerator(seed: seed)
        daemon = try DaemonProcess()
        client = try TestClient(endpoint: daemon.commandEndpoint)
        subscriber = try TestSubscriber(endpoint: daemon.publishEndpoint, topics: ["tick/"])
        try subscriber.settle(client)
    }

    func check() throws {
        for name in navigators {
            var request: JSONObject = ["cmd": "create", "navigator": .string(name), "root": "Home"]
            if name == "q" { request["busy"] = "queue" }
            _ = try client.call(.object(request))
        }
        let steps = 40
        let restartAt = seed % 2 == 0 ? Int.random(in: 10..<30, using: &rng) : nil
        for step in 0..<steps {
            if step == restartAt { try restart() }
            try randomStep()
            usleep(UInt32.random(in: 0..<40_000, using: &rng))
            collect(idle: .milliseconds(1))
        }
        try settle()
        let missed = try client.missedFrames()
        #expect(daemon.stop() == 0)
        try compare(missedFrames: missed)
    }

    // MARK: Random commands

    private func randomStep() throws {
        let navigator = navigators.randomElement(using: &rng)!
        let n: JSON = .string(navigator)
        let request: JSON
        switch Int.random(in: 0..<10, using: &rng) {
        case 0, 1:
            request = ["cmd": "push", "navigator": n, "screen": .string("S\(step())"), "animator": randomAnimator()]
        case 2: request = ["cmd": "pop", "navigator": n, "animator": randomAnimator()]
        case 3:
            request = ["cmd": "present", "navigator": n, "screen": .string("M\(step())"), "animator": randomAnimator()]
        case 4: request = ["cmd": "dismiss", "navigator": n, "animated": .bool(Bool.random(using: &rng))]
        case 5:
            request = [
                "cmd": "begin", "navigator": n, "operation": "pop", "animator": randomAnimator(),
                "edge": .string(GestureGeometry.SwipeEdge.allCases.randomElement(using: &rng)!.rawValue),
                "touch": randomTouch(),
            ]
        case 6: request = ["cmd": "begin", "navigator": n]  // an interrupt when something animates
        case 7:
            request = [
                "cmd": "update", "navigator": n, "percent": .double(Double.random(in: 0...1, using: &rng)),
                "velocity": .double(Double.random(in: -2...2, using: &rng)), "touch": randomTouch(),
                "time": .int(Int64(counter) * 16_000_000),
            ]
        case 8:
            let ending = ["finish", "cancel", "end"].randomElement(using: &rng)!
            var r: JSONObject = ["cmd": .string(ending), "navigator": n]
            // Hand-offs into springs, with the client's velocity or the daemon's measure.
            if ending != "end", Bool.random(using: &rng) {
                r["animator"] = ["curve": randomAnimator()["curve"] ?? "easeOut", "durationFactor": 1.5]
                if Bool.random(using: &rng) { r["velocity"] = .double(Double.random(in: -2...2, using: &rng)) }
            }
            request = .object(r)
        default: request = ["cmd": "setStack", "navigator": n, "screens": ["s1", .string("T\(step())")]]
        }
        _ = try client.call(request)
    }

    private func randomTouch() -> JSON {
        ["x": .double(Double.random(in: 0...1, using: &rng)), "y": .double(Double.random(in: 0...1, using: &rng))]
    }

    private var counter = 0
    private func step() -> Int {
        counter += 1
        return counter
    }

    private func randomAnimator() -> JSON {
        let curves: [JSON] = [
            "linear", "easeIn", "easeOut", "easeInOut", "default",
            ["bezier": [0.2, 0, 0, 1]],
            ["spring": ["dampingRatio": 0.6, "initialVelocity": 0.4]],
            ["spring": ["response": 0.25, "dampingFraction": 0.7]],
            ["spring": ["mass": 1, "stiffness": 300, "damping": 25, "initialVelocity": 0]],
        ]
        let styles: [JSON] = ["slide", "cover", "fade", "zoom", "flip", "iris", "push"]
        return [
            "style": styles.randomElement(using: &rng)!,
            "duration": .double(Double.random(in: 0.05...0.4, using: &rng)),
            "curve": curves.randomElement(using: &rng)!,
        ]
    }

    // MARK: Restart, settling, comparing

    /// Stops the daemon with transitions in flight (by SIGTERM or SIGKILL) and starts it again on the
    /// same log: recovery completes what animated and cancels what was interactive.
    private func restart() throws {
        collect(idle: .milliseconds(1))
        let signal = Bool.random(using: &rng) ? SIGKILL : SIGTERM
        daemon.stop(signal: signal)
        daemon = try daemon.restarted()
        client = try TestClient(endpoint: daemon.commandEndpoint)
        restarted = true
    }

    /// Ends every gesture left open and waits until nothing is in flight, collecting the last ticks.
    private func settle() throws {
        for name in navigators { _ = try client.call(["cmd": "cancel", "navigator": .string(name)]) }
        for name in navigators { try client.waitIdle(name) }
        collect(idle: .milliseconds(400))
    }

    private func collect(idle: Duration) {
        guard let messages = try? subscriber.collect(idle: idle, max: .seconds(10)) else { return }
        live += messages.map(\.raw)
    }

    private func compare(missedFrames: Int64) throws {
        let replay = try Cli.run(["replay", "--json", daemon.logLocation])
        #expect(replay.status == 0, "\(replay.stderr)")
        let replayed = replay.stdout.split(separator: "\n").map { Array($0.utf8) }
        var counts: [[UInt8]: Int] = [:]
        for tick in replayed { counts[tick, default: 0] += 1 }
        var unmatched: [[UInt8]] = []
        for tick in live {
            if let count = counts[tick], count > 0 { counts[tick] = count - 1 } else { unmatched.append(tick) }
        }
        let extra = counts.values.reduce(0, +)
        let context =
            "seed \(seed), busy \(busyCores), restart \(restarted), missed \(missedFrames), log \(daemon.dataDir)"
        print(
            "replay of a random session: \(context): \(live.count) live ticks, \(replayed.count) replayed, \(unmatched.count) unmatched"
        )
        #expect(live.count > 50, "\(context): only \(live.count) live ticks")
        #expect(
            unmatched.isEmpty,
            "\(context): \(unmatched.count) of \(live.count) live ticks are not in the replay, first: \(String(decoding: unmatched.first ?? [], as: UTF8.self))"
        )
        if !restarted && missedFrames == 0 {
            #expect(extra == 0, "\(context): the replay has \(extra) ticks never published live")
        }
    }
}
