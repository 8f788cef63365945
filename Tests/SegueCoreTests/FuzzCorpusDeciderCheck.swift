import SegueCore

/// The decide/evolve fuzz target's oracle: the input bytes are a script of frames and commands run
/// against one navigator, and every step must keep the decider's invariants.
///
/// Compiled twice: into the libFuzzer target (`Fuzz/build.sh`, with SegueCore's sources) and into
/// SegueCoreTests, which replays the checked-in corpus (`FuzzCorpusDeciderTests`). So it uses only
/// SegueCore's public API and reports a broken invariant as a sentence instead of trapping.
enum DeciderFuzzCheck {
    /// Reads the fuzzer's bytes as small choices; past the end every choice is 0, so any input is a
    /// complete script.
    struct Bytes {
        let bytes: [UInt8]
        var index = 0
        var isAtEnd: Bool { index >= bytes.count }
        mutating func next() -> Int {
            defer { index += 1 }
            return index < bytes.count ? Int(bytes[index]) : 0
        }
        mutating func pick(_ n: Int) -> Int { next() % n }
    }

    static let routes = ["Home", "List", "Detail", "Settings"]
    static let clock = try! FrameClock(rate: 60)

    /// The first broken invariant, or `nil` when the whole script keeps them all.
    static func run(_ data: [UInt8]) -> String? {
        var input = Bytes(bytes: data)
        var config = NavigatorConfig()
        let header = input.next()
        config.busy = header & 1 == 0 ? .reject : .queue
        config.queueLimit = header >> 1 & 3 + 1
        config.interactionTimeout = Double(header >> 3 & 3 + 1) / 8
        config.maxDepth = header >> 5 & 7 + 2
        // Shares a bit with the queue limit: both values of each meet in the corpus.
        config.retarget = header >> 1 & 1 == 1
        var state = Navigator.initialState(name: "main", clock: clock)
        var log: [NavigationEvent] = []
        var problem: String?
        func apply(_ events: [NavigationEvent], _ what: String) {
            for event in events where problem == nil {
                if event.frame < state.frame {
                    problem = "\(what): event at frame \(event.frame) after frame \(state.frame)"
                }
                // What verify and import check a log against must hold for every decided event.
                if let inconsistency = Navigator.inconsistency(of: event, after: state) {
                    problem = "\(what): \(inconsistency)"
                }
                state = Navigator.evolve(state, event)
                log.append(event)
                let record = event.record(seq: Int64(log.count), navigator: "main", revision: state.revision, time: 0)
                do {
                    let parsed = try EventRecord(json: JSON.parse(record.json.serializedBytes()))
                    if try NavigationEvent(record: parsed) != event {
                        problem = "\(what): \(record.type) changes through JSON"
                    }
                } catch {
                    problem = "\(what): \(record.type) does not decode: \(error)"
                }
            }
        }
        do {
            apply(
                try Navigator.decide(.create(root: ScreenSpec(name: "Home"), config: config), state: state, frame: 0),
                "create")
        } catch {
            return "create failed: \(error)"
        }
        var frame: Int64 = 0
        while !input.isAtEnd, problem == nil, frame < 100_000 {
            frame += Int64(input.pick(16))
            apply(Navigator.advance(state, toFrame: frame), "advance to \(frame)")
            let (command, envelope) = command(&input, state)
            if let command, let events = try? Navigator.decide(command, envelope, state: state, frame: frame) {
                apply(events, "\(command.name) at \(frame)")
            } else if command == nil {
                apply(Navigator.recover(state, atFrame: frame), "recover at \(frame)")
            }
            if let broken = problem ?? invariants(state, log: log, frame: frame, final: input.isAtEnd) { return broken }
        }
        return problem
    }

    /// Gapless revisions, a non-empty stack, the fold equal to the live state, a snapshot that
    /// round-trips, ticks within [0, 1] and final ticks exactly at an end.
    static func invariants(_ state: NavigatorState, log: [NavigationEvent], frame: Int64, final: Bool = true) -> String?
    {
        if state.revision != Int64(log.count) { return "revision \(state.revision) after \(log.count) events" }
        if state.status == .open, state.stack.isEmpty { return "open navigator with an empty stack" }
        if state.stack.count + state.modals.count > state.config.maxDepth {
            return "\(state.stack.count + state.modals.count) screens past maxDepth \(state.config.maxDepth)"
        }
        // The fold is quadratic over a script; every 16 events (and at the end) is as strict.
        if log.count % 16 == 0 || final, Navigator.fold(name: "main", clock: clock, log) != state {
            return "the fold of the log differs from the state"
        }
        do {
            if try NavigatorState(json: JSON.parse(state.json.serializedBytes())) != state {
                return "the snapshot does not round-trip at revision \(state.revision)"
            }
        } catch {
            return "the snapshot does not decode: \(error)"
        }
        for tick in Navigator.ticks(state, frame: frame) {
            guard tick.fraction >= 0, tick.fraction <= 1 else {
                return "tick fraction \(tick.fraction) at frame \(frame)"
            }
            guard tick.progress.isFinite else { return "tick progress \(tick.progress) at frame \(frame)" }
            if tick.final, tick.fraction != 0, tick.fraction != 1 { return "final tick with fraction \(tick.fraction)" }
            if tick.encoded() != tick.json.serializedBytes() { return "tick encoding differs from its JSON" }
        }
        return nil
    }

    /// The next command of the script (`nil`: a restart's recovery instead of a command).
    static func command(_ input: inout Bytes, _ state: NavigatorState) -> (NavigationCommand?, CommandEnvelope) {
        func route() -> ScreenSpec { ScreenSpec(name: routes[input.pick(4)]) }
        func options() -> TransitionOptions {
            switch input.pick(4) {
            case 0: TransitionOptions(animated: false)
            // Durations the codec accepts, (0, 60]: `decide` trusts the codec to have validated them.
            case 1: TransitionOptions(animator: ["duration": .double(Double(input.pick(40) + 1) / 60)])
            case 2:
                TransitionOptions(animator: [
                    "curve": ["spring": ["response": 0.3, "dampingFraction": .double(Double(input.pick(10) + 1) / 10)]]
                ])
            default: .standard
            }
        }
        func percent() -> Double { Double(input.next()) / 200 - 0.1 }
        let owner: String? = input.pick(4) == 0 ? "o\(input.pick(2))" : nil
        let expect: Int64? = input.pick(8) == 0 ? state.revision - Int64(input.pick(2)) : nil
        let envelope = CommandEnvelope(requestID: "r\(input.next())", expect: expect, owner: owner)
        let command: NavigationCommand?
        switch input.pick(18) {
        case 0, 1: command = .push(route(), options())
        case 2: command = .pop(options())
        case 3: command = .popTo(input.pick(2) == 0 ? "s\(input.pick(10))" : routes[input.pick(4)], options())
        case 4: command = .popToRoot(options())
        case 5:
            let refs: [ScreenRef] = (0...input.pick(4)).map { _ in
                input.pick(2) == 0 ? .idOrName("s\(input.pick(10))") : .new(route())
            }
            command = .setStack(refs, options())
        case 6: command = .present(route(), options())
        case 7: command = .dismiss(options())
        case 8:
            let starts: [InteractiveStart?] = [nil, .pop, .dismiss, .push(route()), .present(route())]
            command = .begin(starts[input.pick(5)], animator: nil)
        case 9, 10:
            command = .update(
                percent: min(1, max(0, percent())), velocity: input.pick(2) == 0 ? nil : Double(input.pick(9)) - 4)
        case 11:
            command = .finish(
                velocity: nil, completionSpeed: Double(input.pick(4) + 1) / 2, completionCurve: .easeInOut)
        case 12:
            // Without a curve, a clock-driven transition reverses (with `retarget`).
            command = .cancel(
                completionSpeed: Double(input.pick(4) + 1) / 2, completionCurve: input.pick(2) == 0 ? .linear : nil)
        case 13: command = .end(percent: input.pick(2) == 0 ? nil : min(1, max(0, percent())), velocity: nil)
        case 14: command = input.pick(16) == 0 ? .close : .push(route(), options())
        case 15: command = nil
        case 16: command = .pause
        case 17:
            command =
                input.pick(2) == 0
                ? .resume : .seek(fraction: Double(input.pick(11)) / 10, scrubsLinearly: input.pick(2) == 0)
        default: command = .push(route(), options())
        }
        return (command, envelope)
    }
}
