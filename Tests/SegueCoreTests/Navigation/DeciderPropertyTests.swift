import SeededRandom
import Testing

@testable import SegueCore

/// Seeded random command sequences against the decider's invariants (docs/design.md, "Concepts" and "The frame clock").
@Suite struct DeciderPropertyTests {
    typealias F = Fixture

    static func randomCommand(_ g: inout SplitMix64, _ state: NavigatorState) -> (NavigationCommand, CommandEnvelope) {
        let routes = ["Home", "List", "Detail", "Settings"]
        func route() -> ScreenSpec { ScreenSpec(name: routes[Int(g.next() % 4)]) }
        func opts() -> TransitionOptions {
            switch g.next() % 4 {
            case 0: TransitionOptions(animated: false)
            case 1: TransitionOptions(animator: ["duration": .double(Double(g.next() % 40 + 1) / 60)])
            default: .standard
            }
        }
        let percent = Double(g.next() % 1001) / 1000
        let owner: String? = g.next() % 5 == 0 ? "o\(g.next() % 2)" : nil
        let expect: Int64? = g.next() % 10 == 0 ? state.revision - Int64(g.next() % 2) : nil
        let command: NavigationCommand
        switch g.next() % 15 {
        case 0, 1: command = .push(route(), opts())
        case 2: command = .pop(opts())
        case 3: command = .popTo(g.next() % 2 == 0 ? "s\(g.next() % 8 + 1)" : routes[Int(g.next() % 4)], opts())
        case 4: command = .popToRoot(opts())
        case 5:
            let refs: [ScreenRef] = (0...(g.next() % 3)).map { _ in
                g.next() % 2 == 0 ? .idOrName("s\(g.next() % 8 + 1)") : .new(route())
            }
            command = .setStack(refs, opts())
        case 6: command = .present(route(), opts())
        case 7: command = .dismiss(opts())
        case 8:
            let starts: [InteractiveStart?] = [nil, .pop, .dismiss, .push(route()), .present(route())]
            command = .begin(starts[Int(g.next() % 5)], animator: nil)
        case 9, 10: command = .update(percent: percent, velocity: g.next() % 2 == 0 ? nil : Double(g.next() % 5) - 2)
        case 11:
            command = .finish(velocity: nil, completionSpeed: Double(g.next() % 4 + 1) / 2, completionCurve: .easeInOut)
        case 12: command = .cancel(completionSpeed: Double(g.next() % 4 + 1) / 2, completionCurve: .linear)
        case 13: command = .end(percent: g.next() % 2 == 0 ? nil : percent, velocity: nil)
        default: command = g.next() % 40 == 0 ? .close : .push(route(), opts())
        }
        return (command, CommandEnvelope(requestID: "r\(g.next() % 100_000)", expect: expect, owner: owner))
    }

    @Test(arguments: 0..<8)
    func randomSequencesKeepEveryInvariant(batch: Int) {
        for run in 0..<150 {
            var g = SplitMix64(seed: UInt64(batch * 1000 + run))
            let config = F.config {
                $0.busy = g.next() % 2 == 0 ? .queue : .reject
                $0.queueLimit = 3
                $0.interactionTimeout = Double(g.next() % 3 + 1) / 4
            }
            var state = F.given([])
            var log: [NavigationEvent] = []
            var liveTicks: [Int64: [Tick]] = [:]
            func apply(_ events: [NavigationEvent]) {
                for e in events {
                    #expect(e.frame >= state.frame, "frames never go backwards")
                    state = Navigator.evolve(state, e)
                    log.append(e)
                }
            }
            apply(
                try! Navigator.decide(.create(root: ScreenSpec(name: "Home"), config: config), state: state, frame: 0))
            for frame in Int64(1)...240 {
                apply(Navigator.advance(state, toFrame: frame))
                if g.next() % 3 == 0 {
                    let (command, envelope) = Self.randomCommand(&g, state)
                    if let events = try? Navigator.decide(command, envelope, state: state, frame: frame) {
                        apply(events)
                    }
                }
                if g.next() % 97 == 0 { apply(Navigator.recover(state, atFrame: frame)) }
                let ticks = Navigator.ticks(state, frame: frame)
                liveTicks[frame] = ticks
                // Revisions are gapless; the stack is never empty; the log folds to the state.
                #expect(state.revision == Int64(log.count))
                if state.status == .open { #expect(!state.stack.isEmpty) }
                #expect(Navigator.fold(name: F.name, clock: F.clock, log) == state)
                for t in ticks {
                    #expect(t.fraction >= 0 && t.fraction <= 1)
                    if t.final { #expect(t.fraction == 1 || t.fraction == 0) }
                }
            }
            // Every transition end has a final tick at its end frame.
            for e in log {
                switch e.kind {
                case .completed(let id), .cancelled(let id, _):
                    #expect(liveTicks[e.frame]?.contains { $0.transition == id && $0.final } == true)
                default: break
                }
            }
            // Replay: folding the log frame by frame gives the same ticks.
            var replayed = F.given([])
            var index = 0
            for frame in Int64(1)...240 {
                while index < log.count, log[index].frame <= frame {
                    replayed = Navigator.evolve(replayed, log[index])
                    index += 1
                }
                #expect(Navigator.ticks(replayed, frame: frame) == liveTicks[frame])
            }
        }
    }
}
