import Foundation
import SegueClient
import SegueCommandLine
import SegueCore
import SegueProtocol

/// gesture begin|update|finish|cancel|end, and swipe (a whole gesture from a script).
enum GestureCommands {
    static func begin(_ inv: Invocation) throws {
        let start = try interactiveStart(
            inv, inv.parsed.value("operation"), named: "--operation", screen: inv.parsed.argument("screen"))
        let animator = try NavigationCommands.animator(inv)
        if start == nil, animator != nil {
            // The daemon would refuse it: the transition taken over keeps the animator it started with.
            throw UsageError(
                "--preset, --style, --edge, --duration and --curve go with --operation: without it, begin takes "
                    + "over the transition in flight, which keeps its animator (give the release's to 'gesture "
                    + "finish', 'cancel' or 'end').")
        }
        let reply = try inv.client().begin(
            inv.argument("navigator"), start, animator: animator, geometry: try GestureOptions.geometry(inv),
            envelope: envelope(inv))
        let transition = "transition \(reply.transition.map(String.init) ?? "?")"
        // An interrupt catches the transition where it was: the fraction a gesture goes on from.
        let what =
            start != nil
            ? "began \(transition)"
            : "interrupted \(transition)"
                + (reply.json["fraction"]?.doubleValue.map { " at \(Self.fraction($0))" } ?? "")
        inv.print(reply.json, "\(reply.navigator): \(what) (revision \(reply.revision))")
    }

    /// A fraction to three decimals, as `watch` shows one.
    static func fraction(_ value: Double) -> String { String(format: "%.3f", value) }

    static func update(_ inv: Invocation) throws {
        let percent = try ArgumentValues.number(inv.parsed.value(required: "percent"), for: "--percent")
        let reply = try inv.client().update(
            inv.argument("navigator"), percent: percent, velocity: try inv.velocity(),
            geometry: try GestureOptions.geometry(inv), envelope: envelope(inv))
        inv.print(reply.json, "\(reply.navigator): percent \(reply.percent ?? percent) (revision \(reply.revision))")
    }

    static func finish(_ inv: Invocation) throws {
        let (speed, curve) = try completion(inv)
        let animator = try GestureOptions.animator(inv)
        let velocity = try inv.velocity()
        try ending(inv) { client, navigator, envelope in
            let reply = try client.finish(
                navigator, velocity: velocity, completionSpeed: speed, completionCurve: curve ?? .easeInOut,
                animator: animator, envelope: envelope)
            // A finish from 1 ends in the frame it starts: nothing is left "finishing" (a queued
            // command may have started another transition meanwhile, in its own phase).
            let done = reply.phase == TransitionPhase.finishing.rawValue ? "finishing" : "completed"
            inv.print(reply.json, "\(reply.navigator): \(done) (revision \(reply.revision))")
            return reply
        }
    }

    static func cancel(_ inv: Invocation) throws {
        let (speed, curve) = try completion(inv)
        let animator = try GestureOptions.animator(inv)
        let velocity = try inv.velocity()
        try ending(inv) { client, navigator, envelope in
            let reply = try client.cancel(
                navigator, velocity: velocity, completionSpeed: speed, completionCurve: curve, animator: animator,
                envelope: envelope)
            let done = reply.phase == TransitionPhase.cancelling.rawValue ? "cancelling" : "cancelled"
            inv.print(reply.json, "\(reply.navigator): \(done) (revision \(reply.revision))")
            return reply
        }
    }

    static func end(_ inv: Invocation) throws {
        let percent = try inv.double("percent")
        let velocity = try inv.velocity()
        let animator = try GestureOptions.animator(inv)
        let geometry = try GestureOptions.geometry(inv)
        if percent == nil, !geometry.isEmpty {
            throw UsageError("--touch, --swipe-edge and --time go with --percent: they describe the last point.")
        }
        try ending(inv) { client, navigator, envelope in
            let reply = try client.end(
                navigator, percent: percent, velocity: velocity, animator: animator, geometry: geometry,
                envelope: envelope)
            inv.print(reply.json, reply.decision ?? "?")
            return reply
        }
    }

    /// Sends the step that ends an interactive transition (`send` prints its reply); with `--wait`,
    /// subscribed before it is sent, then follows the transition to its end like `push --wait`.
    static func ending(
        _ inv: Invocation, _ send: (SegueClient, String, CommandEnvelope) throws -> CommandReply
    ) throws {
        let navigator = inv.argument("navigator")
        let client = try inv.client()
        var envelope = try envelope(inv)
        if envelope.requestID == nil { envelope.requestID = client.nextID() }
        let waiter = inv.parsed.flag("wait") ? try TransitionWaiter(inv, navigator: navigator) : nil
        let reply = try send(client, navigator, envelope)
        guard let waiter else { return }
        try waiter.report(try waiter.wait(client: client, requestID: envelope.requestID!, reply: reply), inv)
    }

    /// begin, an update per frame along the finger's path, then `--then`.
    static func swipe(_ inv: Invocation) throws {
        let navigator = inv.argument("navigator")
        let start = try interactiveStart(
            inv, inv.argument("operation"), named: "<operation>", screen: inv.parsed.argument("screen"))
        let to = try inv.double("to") ?? 0.7
        guard (0...1).contains(to) else {
            throw UsageError.invalidValue(inv.parsed.value("to") ?? "", for: "--to", "expected a fraction in 0...1")
        }
        let over =
            try inv.parsed.value("over").map { (v: String) throws(UsageError) in
                try ArgumentValues.seconds(v, for: "--over")
            } ?? 0.4
        let then = try ArgumentValues.choice(
            inv.parsed.value("then") ?? "end", for: "--then", in: ["end", "finish", "cancel"])
        var shape = TimingCurve.linear
        if let c = inv.parsed.value("curve") {
            do { shape = try TimingCurve(json: try ArgumentValues.curve(c, for: "--curve")) } catch let error
                as CoreError
            {
                throw UsageError.invalidValue(c, for: "--curve", error.message)
            }
        }
        let (speed, curve) = try completion(inv)
        if then == "end" {
            for option in ["completion-speed", "completion-curve"] where inv.parsed.value(option) != nil {
                throw UsageError(
                    "--\(option) needs --then finish or --then cancel: with --then end (the default), the daemon "
                        + "decides, and completes at the navigator's pace.")
            }
        }
        let owner = try NavigationCommands.key(inv, "owner")
        let client = try inv.client()
        let rate = try client.ping().frameRate
        let envelope = CommandEnvelope(owner: owner)
        let waiter = inv.parsed.flag("wait") ? try TransitionWaiter(inv, navigator: navigator) : nil
        // A script stopped mid-gesture (Ctrl-C, SIGTERM, SIGHUP) lifts the finger as a cancelled touch
        // does in UIKit: the transition is cancelled, rather than left busy until its timeout.
        let signals = NotedSignals()
        defer { signals.restore() }
        let begun = try client.begin(navigator, start, envelope: envelope)
        let frames = max(1, Int((over * Double(rate)).rounded()))
        let step = 1.0 / Double(frames)
        let startTime = ContinuousClock.now
        var velocity = 0.0
        var last = envelope
        var reply: CommandReply?
        do {
            for i in 1...frames where signals.caught == nil {
                let t = Double(i) * step
                let percent = to * shape.progress(atFraction: t, duration: over)
                // The finger's speed over the last frame, in fraction per second (what a pan recognizer reports).
                let before = to * shape.progress(atFraction: t - step, duration: over)
                velocity = (percent - before) / (step * over)
                try client.update(navigator, percent: percent, velocity: velocity, envelope: envelope)
                sleep(until: startTime + .nanoseconds(Int64(t * over * 1e9)))
            }
            if signals.caught == nil {
                last.requestID = client.nextID()
                reply = try finalStep(
                    then, navigator, velocity: velocity, speed: speed, curve: curve, client, envelope: last)
                // Let go: from here a signal ends segue as usual, `--wait` included.
                signals.restore()
            }
        } catch {
            if let signal = signals.caught {
                try cancelInterrupted(navigator, begun: begun, by: signal, client, envelope: envelope)
            }
            // The transition ended under the gesture: the daemon restarted (recovery cancels it) or
            // it sat idle past its timeout. Say how it ended, as --wait would, rather than what the
            // next step was told.
            guard error.code == .noTransition, let id = begun.transition,
                let ended = try endOfTransition(id, of: navigator, after: begun.seq, client),
                let type = ended.eventType
            else { throw error }
            Output.error(
                "segue swipe: transition \(id) was \(ended.type.dropFirst("transition.".count))"
                    + (ended.data["reason"]?.stringValue.map { " (\($0))" } ?? "") + " before the gesture ended.")
            try TransitionWaiter.report(
                .init(transition: id, type: type, event: ended), navigator: navigator, inv)
            return
        }
        guard let reply else {
            try cancelInterrupted(navigator, begun: begun, by: signals.caught ?? SIGINT, client, envelope: envelope)
        }
        let decision = reply.decision ?? (then == "cancel" ? "cancel" : "finish")
        var json = reply.json
        json["decision"] = .string(decision)
        inv.print(json, decision)
        guard let waiter else { return }
        try waiter.report(try waiter.wait(client: client, requestID: last.requestID!, reply: reply), inv)
    }

    /// The step that lets go of the swipe: `--then finish`, `cancel` or `end`.
    private static func finalStep(
        _ then: String, _ navigator: String, velocity: Double, speed: Double, curve: TimingCurve?,
        _ client: SegueClient, envelope: CommandEnvelope
    ) throws(SegueClientError) -> CommandReply {
        switch then {
        case "finish":
            try client.finish(
                navigator, velocity: velocity, completionSpeed: speed, completionCurve: curve ?? .easeInOut,
                envelope: envelope)
        case "cancel":
            try client.cancel(navigator, completionSpeed: speed, completionCurve: curve, envelope: envelope)
        default:
            try client.end(navigator, velocity: velocity, envelope: envelope)
        }
    }

    /// Cancels the swipe's transition after `signal` stopped it, says so, and then dies of the
    /// signal, so that a shell loop around `segue swipe` stops on Ctrl-C as it would for any command.
    private static func cancelInterrupted(
        _ navigator: String, begun: CommandReply, by signal: Int32, _ client: SegueClient, envelope: CommandEnvelope
    ) throws -> Never {
        let id = begun.transition.map { "transition \($0)" } ?? "the transition"
        do {
            try client.cancel(navigator, completionSpeed: 1, completionCurve: nil, envelope: envelope)
            Output.error("segue swipe: interrupted; cancelled \(id) of \(navigator).")
        } catch {
            Output.error(
                "segue swipe: interrupted; could not cancel \(id) of \(navigator) (\(error.message)); it is "
                    + "cancelled after the navigator's interactionTimeout.")
        }
        NotedSignals.die(of: signal)
    }

    /// The event that ended transition `id` (completed or cancelled), from the log after `seq`.
    static func endOfTransition(
        _ id: Int, of navigator: String, after seq: Int64, _ client: SegueClient
    ) throws(SegueClientError) -> EventRecord? {
        var after = seq
        while true {
            let page = try client.history(navigator: navigator, after: after, limit: 1000)
            let end = page.events.first {
                $0.eventType?.endsTransition == true
                    && $0.data["transition"]?.int64Value == Int64(id)
            }
            if let end { return end }
            guard page.more else { return nil }
            after = page.next
        }
    }

    // MARK: Shared

    static func sleep(until instant: ContinuousClock.Instant) {
        let left = instant - ContinuousClock.now
        guard left > .zero else { return }
        let (s, atto) = left.components
        var ts = timespec(tv_sec: Int(s), tv_nsec: Int(atto / 1_000_000_000))
        nanosleep(&ts, nil)
    }

    static func envelope(_ inv: Invocation) throws(UsageError) -> CommandEnvelope {
        try NavigationCommands.envelope(inv, owner: try NavigationCommands.key(inv, "owner"))
    }

    /// `named`: how the command line spells the operation (`--operation`, `<operation>`), for errors.
    static func interactiveStart(_ inv: Invocation, _ operation: String?, named: String, screen: String?)
        throws(UsageError) -> InteractiveStart?
    {
        guard let operation else {
            // A screen is the route of a push or present: without one of them it would be dropped unsaid.
            if let screen {
                let operations = ["pop", "push", "dismiss", "present"]
                throw UsageError(
                    operations.contains(screen)
                        ? "\(screen) is given as \(named) \(screen); without \(named), begin takes over the "
                            + "transition in flight."
                        : "\(screen) is the route of a push or present: give \(named) push or present.")
            }
            return nil
        }
        let op = try ArgumentValues.choice(operation, for: named, in: ["pop", "push", "dismiss", "present"])
        switch op {
        case "pop", "dismiss":
            if let screen { throw UsageError.unexpectedArgument(screen) }
            return op == "pop" ? .pop : .dismiss
        default:
            guard let screen else { throw UsageError("\(op) needs a screen: the route to \(op).") }
            let spec = try NavigationCommands.screen(inv, screen)
            return op == "push" ? .push(spec) : .present(spec)
        }
    }

    /// `--completion-speed` (default 1) and `--completion-curve` (nil when not given: on a navigator
    /// created with `retarget`, `cancel` of a clock-driven transition then reverses it).
    static func completion(_ inv: Invocation) throws(UsageError) -> (Double, TimingCurve?) {
        let speed = try inv.double("completion-speed") ?? 1
        let speeds = NavigationCommand.completionSpeeds
        guard speeds.contains(speed) else {
            throw UsageError.invalidValue(
                inv.parsed.value("completion-speed") ?? "", for: "--completion-speed",
                "expected a speed from \(speeds.lowerBound) to \(Int(speeds.upperBound)) (1 is the animator's own pace)"
            )
        }
        var curve: TimingCurve?
        if let c = inv.parsed.value("completion-curve") {
            do {
                curve = try TimingCurve(json: try ArgumentValues.curve(c, for: "--completion-curve", springs: false))
            } catch let error
                as CoreError
            {
                throw UsageError.invalidValue(c, for: "--completion-curve", error.message)
            } catch let error as UsageError { throw error } catch { throw UsageError(String(describing: error)) }
            if let curve, !NavigationCommand.isCompletionCurve(curve) {
                throw UsageError.invalidValue(
                    c, for: "--completion-curve",
                    "expected a curve name or a bezier; a spring is given as --animator-curve (on gesture "
                        + "finish, cancel and end), and starts at the release velocity")
            }
        }
        return (speed, curve)
    }
}
