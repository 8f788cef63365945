import Testing

@testable import SegueCore

/// Digests through the fleet: every event carries the digest of the state it leaves, every final
/// tick the digest at its revision, and a frontend that folds the published events alone, as
/// docs/protocol.md tells it to, computes the same ones; replay gives them again.
@Suite struct FleetDigestTests {
    static let clock = try! FrameClock(rate: 60)
    static let t0: Int64 = 1_000_000_000_000

    /// A command and how many frames after the previous one it is sent.
    typealias Step = (command: NavigationCommand, after: Int64)

    static let animated = TransitionOptions(animator: ["duration": .double(0.1)])
    static let instant = TransitionOptions(animated: false)

    static let scripts: [(String, [Step])] = [
        ("animated push then pop", [(.push(ScreenSpec(name: "Detail"), animated), 1), (.pop(animated), 20)]),
        (
            "non-animated push, push, popToRoot: two events per command",
            [
                (.push(ScreenSpec(name: "Detail"), instant), 1), (.push(ScreenSpec(name: "Detail"), instant), 1),
                (.popToRoot(instant), 1),
            ]
        ),
        (
            "present over a push, then dismiss",
            [
                (.push(ScreenSpec(name: "List"), animated), 1), (.present(ScreenSpec(name: "Sheet"), animated), 20),
                (.dismiss(animated), 20),
            ]
        ),
        (
            "interactive pop cancelled, then finished",
            [
                (.push(ScreenSpec(name: "Detail"), instant), 1), (.begin(.pop, animator: nil), 1),
                (.update(percent: 0.3, velocity: nil), 2),
                (.cancel(completionSpeed: 1, completionCurve: .easeInOut), 1), (.begin(.pop, animator: nil), 30),
                (.update(percent: 0.8, velocity: 0.5), 2),
                (.finish(velocity: nil, completionSpeed: 1, completionCurve: .easeInOut), 1),
            ]
        ),
        (
            "setStack with new and kept screens, then close",
            [(.setStack([.idOrName("s1"), .idOrName("A"), .idOrName("B")], animated), 1), (.close, 20)]
        ),
        (
            "pause, seek and resume a push",
            [
                (.push(ScreenSpec(name: "Detail"), slow), 1), (.pause, 3),
                (.seek(fraction: 0.6, scrubsLinearly: false), 2), (.resume, 2),
            ]
        ),
        ("a pop reverses the running push", [(.push(ScreenSpec(name: "Detail"), slow), 1), (.pop(.standard), 5)]),
    ]

    static let slow = TransitionOptions(animator: ["duration": .double(0.5)])

    /// What a frontend keeps of a navigator when it folds events alone (docs/protocol.md, "State
    /// digests"), with the canonical encoding written out as the document spells it.
    struct FrontendFold {
        var revision: Int64 = 0
        var stack: [(id: String, name: String)] = []
        var modals: [(id: String, name: String)] = []
        var pending: [Int64: (stack: [JSON], modals: [JSON])] = [:]

        mutating func apply(_ event: JSON) {
            revision = event["revision"]!.int64Value!
            let data = event["data"]!
            switch event["type"]!.stringValue! {
            case "navigator.created":
                stack = [Self.screen(data["root"]!)]
                modals = []
            case "transition.started":
                pending[data["transition"]!.int64Value!] = (data["stack"]!.arrayValue!, data["modals"]!.arrayValue!)
            case "transition.completed":
                if let target = pending.removeValue(forKey: data["transition"]!.int64Value!) {
                    stack = target.stack.map(Self.screen)
                    modals = target.modals.map(Self.screen)
                }
            default:
                break
            }
        }

        static func screen(_ json: JSON) -> (id: String, name: String) {
            (json["id"]!.stringValue!, json["name"]!.stringValue!)
        }

        func digest(navigator: String) -> String {
            func list(_ screens: [(id: String, name: String)]) -> String {
                "[" + screens.map { "[\"\($0.id)\",\"\($0.name)\"]" }.joined(separator: ",") + "]"
            }
            let canonical = "[\"\(navigator)\",\(revision),\(list(stack)),\(list(modals))]"
            return SHA256.hash(Array(canonical.utf8)).hex
        }
    }

    /// Runs `steps` on a live fleet, closing every frame as the daemon does: the log and the ticks.
    static func live(_ steps: [Step]) -> (records: [EventRecord], ticks: [Tick], fleet: Fleet) {
        var fleet = Fleet(clock: clock)
        var records: [EventRecord] = []
        var ticks: [Tick] = []
        var frame = clock.frame(atOrAfter: t0)
        // With reversal on: a pop during a push turns it back instead of being refused.
        var config = NavigatorConfig()
        config.retarget = true
        let all: [Step] = [(.create(root: ScreenSpec(name: "Home"), config: config), 0)] + steps
        for step in all {
            for _ in 0..<step.after {
                let closed = fleet.closeFrame(frame)
                records += closed.events
                ticks += closed.ticks
                frame += 1
            }
            let execution = fleet.execute(step.command, .init(), navigator: "main", time: clock.instant(ofFrame: frame))
            precondition(execution.error == nil, "\(step.command): \(execution.error!)")
            records += execution.clockEvents + execution.events
        }
        for _ in 0..<60 {
            let closed = fleet.closeFrame(frame)
            records += closed.events
            ticks += closed.ticks
            frame += 1
        }
        return (records, ticks, fleet)
    }

    @Test(arguments: scripts)
    func aFrontendFoldingEventsAloneComputesEveryDigest(name: String, steps: [Step]) throws {
        let (records, ticks, _) = Self.live(steps)
        var fold = FrontendFold()
        var byRevision: [Int64: String] = [:]
        for record in records {
            fold.apply(try JSON.parse(record.encoded()))
            let mine = fold.digest(navigator: "main")
            #expect(record.digest == mine, "\(name): seq \(record.seq) \(record.type)")
            #expect(record.encoded() == record.json.serializedBytes())
            byRevision[record.revision] = mine
        }
        let finals = ticks.filter(\.final)
        #expect(!finals.isEmpty)
        let types = Set(records.map(\.type))
        if name.hasPrefix("pause") {
            #expect(types.isSuperset(of: ["transition.paused", "transition.seeked", "transition.resumed"]))
        }
        if name.hasPrefix("a pop") { #expect(types.isSuperset(of: ["transition.reversed", "transition.cancelled"])) }
        for tick in ticks {
            if tick.final {
                #expect(tick.digest != nil && tick.digest == byRevision[tick.revision], "\(name): frame \(tick.frame)")
            } else {
                #expect(tick.digest == nil)
            }
        }
    }

    /// Replay folds the log without digests (a store keeps none) and gives every event's digest and
    /// every tick's bytes again.
    @Test(arguments: scripts)
    func replayReproducesDigestsAndTicks(name: String, steps: [Step]) throws {
        let (records, ticks, _) = Self.live(steps)
        let stored = try records.map { r in try EventRecord(json: JSON.parse(r.encoded())) }.map { r -> EventRecord in
            var r = r
            r.digest = nil
            return r
        }
        var replay = LogReplay(events: stored, clock: Self.clock)
        var replayed: [EventRecord] = []
        var replayedTicks: [Tick] = []
        try replay.run { _, events, ticks in
            replayed += events
            replayedTicks += ticks
        }
        #expect(replayed.map(\.digest) == records.map(\.digest), "\(name)")
        #expect(replayed.map { $0.encoded() } == records.map { $0.encoded() })
        #expect(replayedTicks.map { $0.encoded() } == ticks.map { $0.encoded() })
    }

    /// The heartbeat's digest: the sum of the navigators' leading 64 bits, as of a seq the journal
    /// still reaches, so events not yet durable do not count; a rollback puts the sum back.
    @Test func fleetDigestIsTheSumAsOfTheDurableSeq() {
        var fleet = Fleet(clock: Self.clock)
        fleet.journaling = true
        var t = Self.t0
        func run(_ command: NavigationCommand, _ name: String) -> [EventRecord] {
            t += 20_000_000
            let r = fleet.execute(command, .init(), navigator: name, time: t)
            precondition(r.error == nil)
            return r.clockEvents + r.events
        }
        var digests: [String: String] = [:]
        func sum() -> String {
            StateDigest.fleetHex(digests.values.reduce(0) { $0 &+ UInt64($1.prefix(16), radix: 16)! })
        }
        for name in ["a", "b", "c"] {
            for r in run(.create(root: ScreenSpec(name: "Home"), config: NavigatorConfig()), name) {
                digests[r.navigator] = r.digest
            }
        }
        fleet.markDurable(through: fleet.lastSeq)
        let durable = fleet.lastSeq
        let atDurable = sum()
        #expect(fleet.digest(asOf: durable) == atDurable)
        // Undurable: a push on b and on c, not yet counted as of the durable seq.
        let later =
            run(.push(ScreenSpec(name: "Detail"), Self.instant), "b")
            + run(.push(ScreenSpec(name: "Other"), Self.instant), "c")
        #expect(later.isEmpty == false)
        for r in later { digests[r.navigator] = r.digest }
        #expect(fleet.digest(asOf: fleet.lastSeq) == sum())
        #expect(fleet.digest(asOf: durable) == atDurable)
        #expect(fleet.digest(asOf: durable) != fleet.digest(asOf: fleet.lastSeq))
        // A seq the journal no longer reaches cannot be told.
        fleet.markDurable(through: fleet.lastSeq)
        #expect(fleet.digest(asOf: durable) == nil)
        // Rolled back, the fleet's digest is the durable one again.
        var undo = Fleet(clock: Self.clock)
        undo.journaling = true
        fleet = undo
        t = Self.t0
        for name in ["a", "b", "c"] {
            _ = run(.create(root: ScreenSpec(name: "Home"), config: NavigatorConfig()), name)
        }
        fleet.markDurable(through: fleet.lastSeq)
        let before = fleet.digest(asOf: fleet.lastSeq)
        let durableSeq = fleet.lastSeq
        _ = run(.push(ScreenSpec(name: "Detail"), Self.instant), "a")
        _ = run(.create(root: ScreenSpec(name: "Home"), config: NavigatorConfig()), "d")
        #expect(fleet.digest(asOf: fleet.lastSeq) != before)
        fleet.rollback(to: durableSeq)
        #expect(fleet.digest(asOf: fleet.lastSeq) == before)
    }
}
