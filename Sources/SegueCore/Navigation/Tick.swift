/// One frame of one transition, as published on `tick/<navigator>/` (docs/protocol.md, "Ticks").
///
/// A pure function of the navigator's state and the frame (`Navigator.ticks`), so the same log gives
/// the same ticks live and in replay.
package struct Tick: Equatable, Sendable {
    package var navigator: String
    package var transition: Int
    package var operation: TransitionOperation
    package var frame: Int64
    /// The frame's instant, Unix ns.
    package var time: Int64
    package var phase: TransitionPhase
    /// Elapsed share of the transition, always within [0, 1].
    package var fraction: Double
    /// The animator's curve at `fraction`; springs may leave [0, 1].
    package var progress: Double
    /// The navigator's revision as of this frame.
    package var revision: Int64
    /// The last tick of the transition: fraction exactly 1 (completed) or 0 (cancelled).
    package var final: Bool
    package var fromScreen: String
    package var toScreen: String
    package var views: ViewPair
    /// The finger, on ticks of the interactive phase; `nil` on every other tick.
    package var gesture: TickGesture? = nil
    /// The navigator's `StateDigest` at `revision`, hex, on final ticks; `nil` on every other tick.
    package var digest: String? = nil
    /// The daemon's `presentationDelay`, ns: how long after `time` frontends show the frame.
    package var presentationDelay: Int64 = 0

    /// When every frontend shows this frame, Unix ns (docs/protocol.md, "Presenting in step").
    package var presentAt: Int64 { time &+ presentationDelay }

    package var json: JSON {
        var o: JSONObject = [
            "navigator": .string(navigator),
            "transition": .int(transition),
            "operation": .string(operation.rawValue),
            "frame": .int(frame),
            "time": .int(time),
            "presentAt": .int(presentAt),
            "phase": .string(phase.rawValue),
            "fraction": .double(fraction),
            "progress": .double(progress),
            "revision": .int(revision),
            "final": .bool(final),
            "views": [
                "from": Self.json(views.from, screen: fromScreen),
                "to": Self.json(views.to, screen: toScreen),
            ],
        ]
        if let gesture { o["gesture"] = gesture.json }
        if let digest { o["digest"] = .string(digest) }
        return .object(o)
    }

    static func json(_ v: ViewProperties, screen: String) -> JSON {
        .object([
            "screen": .string(screen),
            "x": .double(v.x), "y": .double(v.y), "alpha": .double(v.alpha), "scale": .double(v.scale),
            "rotation": .double(v.rotation), "rotationY": .double(v.rotationY), "mask": .double(v.mask),
            "z": .int(v.z), "anchor": [.double(v.anchorX), .double(v.anchorY)],
        ])
    }
}

extension Navigator {
    /// The ticks for `frame`, given the state with exactly the events whose frame is ≤ `frame`.
    ///
    /// Usually one; more when transitions ended in this frame and another started in it (each keeps
    /// its whole tick sequence: final ticks come first, in the order the transitions ended); none when nothing is in
    /// flight.
    /// `presentationDelay` (ns) sets each tick's `presentAt`.
    package static func ticks(_ state: NavigatorState, frame: Int64, presentationDelay: Int64 = 0) -> [Tick] {
        var out: [Tick] = []
        appendTicks(state, frame: frame, presentationDelay: presentationDelay, to: &out)
        return out
    }

    /// `ticks(_:frame:)` appended to `out`: the frame loop gathers every navigator's ticks into one
    /// array instead of allocating one per navigator per frame.
    package static func appendTicks(
        _ state: NavigatorState, frame: Int64, presentationDelay: Int64 = 0,
        digest known: (revision: Int64, digest: SHA256.Digest)? = nil, to out: inout [Tick]
    ) {
        forEachTick(state, frame: frame, presentationDelay: presentationDelay, digest: { known }) { out.append($0) }
    }

    /// `ticks(_:frame:)` handed to `body` one at a time, in order: the frame loop encodes each as it
    /// comes instead of storing it. `known`: the state's digest if the caller holds it (a final tick
    /// carries it), so that it is not hashed again; asked only for a final tick, and used only when
    /// its revision is the state's.
    @inline(__always)
    package static func forEachTick(
        _ state: NavigatorState, frame: Int64, presentationDelay: Int64 = 0,
        digest known: () -> (revision: Int64, digest: SHA256.Digest)? = { nil }, _ body: (Tick) -> Void
    ) {
        forEachFinalTick(state, frame: frame, presentationDelay: presentationDelay, digest: known, body)
        // Through the box: `state.transition` would copy the transition out of it for every tick.
        if let box = state.transitionStorage, box.value.startFrame <= frame {
            var made = tick(
                state, box.value, frame: frame, phase: box.value.phase, fraction: box.value.fraction(at: frame),
                final: false)
            made.presentationDelay = presentationDelay
            body(made)
        }
    }

    /// The final ticks of the transitions that ended in `frame`, the first part of `forEachTick`.
    @inline(__always)
    package static func forEachFinalTick(
        _ state: NavigatorState, frame: Int64, presentationDelay: Int64 = 0,
        digest known: () -> (revision: Int64, digest: SHA256.Digest)? = { nil }, _ body: (Tick) -> Void
    ) {
        for ended in state.ended where ended.endFrame == frame {
            let fraction: Double = ended.phase == .completed ? 1 : 0
            var made = tick(state, ended.transition, frame: frame, phase: ended.phase, fraction: fraction, final: true)
            let digest = known().flatMap { $0.revision == state.revision ? $0.digest : nil }
            made.digest = (digest ?? StateDigest.digest(of: state)).hex
            made.presentationDelay = presentationDelay
            body(made)
        }
    }

    /// The single tick for `frame`: the transition in flight, else the one that ended in this frame.
    package static func tick(_ state: NavigatorState, frame: Int64) -> Tick? { ticks(state, frame: frame).last }

    private static func tick(
        _ state: NavigatorState, _ t: Transition, frame: Int64, phase: TransitionPhase, fraction: Double, final: Bool
    ) -> Tick {
        let progress = fraction >= 1 ? 1 : t.animator.curve.progress(atFraction: fraction, duration: t.duration)
        let views = t.animator.views(
            for: t.operation, progress: progress, fraction: fraction, container: state.config.container)
        return Tick(
            navigator: state.name, transition: t.id, operation: t.operation, frame: frame,
            time: state.clock.instant(ofFrame: frame), phase: phase, fraction: fraction, progress: progress,
            revision: state.revision, final: final, fromScreen: t.from.id, toScreen: t.to.id, views: views,
            gesture: phase == .interactive ? TickGesture(touch: t.touch, edge: t.swipeEdge, velocity: t.velocity) : nil,
            digest: nil)
    }
}
