import SegueCore

/// What `segue timeline` draws, gathered from a log's replayed frames (`TimelineBuilder`): one lane
/// per navigator, each transition a band with its frames, gestures and end.
package struct Timeline: Equatable, Sendable {
    package var source: String
    package var clock: FrameClock
    package var lanes: [Lane] = []
    /// Every event shown, in seq order, each with the stack its navigator had after it: the HTML
    /// form's seq cursor (time travel).
    package var marks: [EventMark] = []
    /// The frames shown: from the first visited to the last.
    package var firstFrame: Int64?
    package var lastFrame: Int64?

    package init(source: String, clock: FrameClock) {
        self.source = source
        self.clock = clock
    }

    package func lane(_ name: String) -> Lane? { lanes.first { $0.name == name } }
}

package struct Lane: Equatable, Sendable {
    package var name: String
    /// The end rule from the navigator's `navigator.created` (the default when the log starts later).
    package var endRule: EndRule = .default
    package var bands: [Band] = []

    package init(name: String, endRule: EndRule = .default) {
        self.name = name
        self.endRule = endRule
    }

    /// The progress range the lane's bands are drawn over: [0, 1], widened for springs that overshoot.
    package var progressRange: ClosedRange<Double> {
        var low = 0.0
        var high = 1.0
        for band in bands {
            for sample in band.samples {
                low = min(low, sample.progress)
                high = max(high, sample.progress)
            }
        }
        return low...high
    }
}

/// One transition: its start, every frame's tick, the gesture's updates, releases and end.
package struct Band: Equatable, Sendable {
    package var transition: Int
    package var operation: TransitionOperation
    package var animator: Animator
    package var animated: Bool
    package var from: Screen
    package var to: Screen
    /// The seq of its `transition.started`; nil when it started before the part of the log shown.
    package var startSeq: Int64?
    package var startFrame: Int64
    /// The request id of the command that started it: a queued start has the id of its queued event.
    package var command: String?
    /// The seq of the `transition.queued` this start came from, if it waited in the queue.
    package var queuedSeq: Int64?
    package var samples: [Sample] = []
    package var updates: [GestureUpdate] = []
    /// Interruptions (an animation caught by `begin`) and releases (finishing, cancelling), in order.
    package var turns: [Turn] = []
    /// Whether a client drives it now (begun interactive, or interrupted, and not yet released).
    package var isInteractive = false
    /// `completed` or `cancelled` once over, and the frame of its final tick.
    package var outcome: TransitionPhase?
    package var endFrame: Int64?

    package init(
        transition: Int, operation: TransitionOperation, animator: Animator, animated: Bool, from: Screen, to: Screen,
        startSeq: Int64?, startFrame: Int64, command: String?
    ) {
        self.transition = transition
        self.operation = operation
        self.animator = animator
        self.animated = animated
        self.from = from
        self.to = to
        self.startSeq = startSeq
        self.startFrame = startFrame
        self.command = command
    }

    /// The last frame drawn: its final tick's, or its last sample's while it is still in flight.
    package var lastFrame: Int64 { endFrame ?? samples.last?.frame ?? startFrame }

    /// The first frame drawn: its start; for one that started before the frames shown, the first of
    /// them (the band begins at the edge, not over the frames left out).
    package var firstFrame: Int64 {
        guard let first = samples.first?.frame else { return startFrame }
        return startSeq == nil ? max(first, startFrame) : min(first, startFrame)
    }

    /// The frames it was client-driven: from each begin or interruption to the release that followed.
    package var interactiveSpans: [ClosedRange<Int64>] {
        var spans: [ClosedRange<Int64>] = []
        var start: Int64? = nil
        for sample in samples {
            if sample.phase == .interactive {
                if start == nil { start = sample.frame }
            } else if let s = start {
                spans.append(s...sample.frame)
                start = nil
            }
        }
        if let start { spans.append(start...lastFrame) }
        return spans
    }
}

/// One frame of a band, from its tick: the core's fraction and progress.
package struct Sample: Equatable, Sendable {
    package var frame: Int64
    package var fraction: Double
    package var progress: Double
    package var phase: TransitionPhase

    package init(frame: Int64, fraction: Double, progress: Double, phase: TransitionPhase) {
        self.frame = frame
        self.fraction = fraction
        self.progress = progress
        self.phase = phase
    }
}

/// An `interaction.updated`: where the finger put the transition.
package struct GestureUpdate: Equatable, Sendable {
    package var seq: Int64
    package var frame: Int64
    package var percent: Double
    package var velocity: Double
}

/// Where a gesture changed hands: an animation interrupted, or a release that finishes or cancels.
package struct Turn: Equatable, Sendable {
    package enum Kind: String, Sendable { case interrupted, finishing, cancelling }
    package var kind: Kind
    package var seq: Int64
    package var frame: Int64
    package var fraction: Double
    /// The release velocity: the one the finishing event recorded, else the last update's.
    package var velocity: Double?
    /// Why a cancel happened (`requested`, `timeout`, `recovery`).
    package var reason: CancelReason?
    /// What the navigator's end rule makes of this release (fraction, velocity): what `end` decides.
    package var rule: EndRule.Decision?
}

/// An event drawn as a marker, with what the HTML cursor shows at it.
package struct EventMark: Equatable, Sendable {
    package var seq: Int64
    package var frame: Int64
    package var navigator: String
    package var type: String
    package var transition: Int?
    /// The event's JSON, for the marker's tooltip.
    package var json: String
    /// The navigator's stack and modals after the event, as `name[id]`.
    package var stack: [String]
    package var modals: [String]
    /// The transition in flight after the event, described (`push #2 animating Home → Detail`).
    package var inFlight: String?
    package var queued: Int

    package init(
        seq: Int64, frame: Int64, navigator: String, type: String, transition: Int?, json: String, stack: [String],
        modals: [String], inFlight: String?, queued: Int
    ) {
        self.seq = seq
        self.frame = frame
        self.navigator = navigator
        self.type = type
        self.transition = transition
        self.json = json
        self.stack = stack
        self.modals = modals
        self.inFlight = inFlight
        self.queued = queued
    }
}
