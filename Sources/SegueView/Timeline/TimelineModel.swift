import SegueCore

/// What `segue timeline` draws, gathered from a log's replayed frames (`TimelineBuilder`): one lane
/// per navigator, each transition a band with its frames, gestures and end.
public struct Timeline: Equatable, Sendable {
    public var source: String
    public var clock: FrameClock
    public var lanes: [Lane] = []
    /// Every event shown, in seq order, each with the stack its navigator had after it: the HTML
    /// form's seq cursor (time travel).
    public var marks: [EventMark] = []
    /// The frames shown: from the first visited to the last.
    public var firstFrame: Int64?
    public var lastFrame: Int64?

    public init(source: String, clock: FrameClock) {
        self.source = source
        self.clock = clock
    }

    public func lane(_ name: String) -> Lane? { lanes.first { $0.name == name } }
}

public struct Lane: Equatable, Sendable {
    public var name: String
    /// The end rule from the navigator's `navigator.created` (the default when the log starts later).
    public var endRule: EndRule = .default
    public var bands: [Band] = []

    public init(name: String, endRule: EndRule = .default) {
        self.name = name
        self.endRule = endRule
    }

    /// The progress range the lane's bands are drawn over: [0, 1], widened for springs that overshoot.
    public var progressRange: ClosedRange<Double> {
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
public struct Band: Equatable, Sendable {
    public var transition: Int
    public var operation: TransitionOperation
    public var animator: Animator
    public var animated: Bool
    public var from: Screen
    public var to: Screen
    /// The seq of its `transition.started`; nil when it started before the part of the log shown.
    public var startSeq: Int64?
    public var startFrame: Int64
    /// The request id of the command that started it: a queued start has the id of its queued event.
    public var command: String?
    /// The seq of the `transition.queued` this start came from, if it waited in the queue.
    public var queuedSeq: Int64?
    public var samples: [Sample] = []
    public var updates: [GestureUpdate] = []
    /// Interruptions (an animation caught by `begin`) and releases (finishing, cancelling), in order.
    public var turns: [Turn] = []
    /// Whether a client drives it now (begun interactive, or interrupted, and not yet released).
    public var isInteractive = false
    /// `completed` or `cancelled` once over, and the frame of its final tick.
    public var outcome: TransitionPhase?
    public var endFrame: Int64?

    public init(
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
    public var lastFrame: Int64 { endFrame ?? samples.last?.frame ?? startFrame }

    /// The frames it was client-driven: from each begin or interruption to the release that followed.
    public var interactiveSpans: [ClosedRange<Int64>] {
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
public struct Sample: Equatable, Sendable {
    public var frame: Int64
    public var fraction: Double
    public var progress: Double
    public var phase: TransitionPhase

    public init(frame: Int64, fraction: Double, progress: Double, phase: TransitionPhase) {
        self.frame = frame
        self.fraction = fraction
        self.progress = progress
        self.phase = phase
    }
}

/// An `interaction.updated`: where the finger put the transition.
public struct GestureUpdate: Equatable, Sendable {
    public var seq: Int64
    public var frame: Int64
    public var percent: Double
    public var velocity: Double
}

/// Where a gesture changed hands: an animation interrupted, or a release that finishes or cancels.
public struct Turn: Equatable, Sendable {
    public enum Kind: String, Sendable { case interrupted, finishing, cancelling }
    public var kind: Kind
    public var seq: Int64
    public var frame: Int64
    public var fraction: Double
    /// The release velocity: the one the finishing event recorded, else the last update's.
    public var velocity: Double?
    /// Why a cancel happened (`requested`, `timeout`, `recovery`).
    public var reason: CancelReason?
    /// What the navigator's end rule makes of this release (fraction, velocity): what `end` decides.
    public var rule: EndRule.Decision?
}

/// An event drawn as a marker, with what the HTML cursor shows at it.
public struct EventMark: Equatable, Sendable {
    public var seq: Int64
    public var frame: Int64
    public var navigator: String
    public var type: String
    public var transition: Int?
    /// The event's JSON, for the marker's tooltip.
    public var json: String
    /// The navigator's stack and modals after the event, as `name[id]`.
    public var stack: [String]
    public var modals: [String]
    /// The transition in flight after the event, described (`push #2 animating Home → Detail`).
    public var inFlight: String?
    public var queued: Int

    public init(
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
