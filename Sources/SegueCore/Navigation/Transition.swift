/// The phases of a transition (docs/design.md, "Concepts"): two clock-driven, one client-driven, and the two
/// clock-driven ways out of an interaction.
public enum TransitionPhase: String, Sendable, Equatable, CaseIterable {
    case animating, interactive, finishing, cancelling, completed, cancelled
    /// Held by `pause` at a fraction, scrubbed by `seek`, until `resume`.
    case paused
}

/// Why a transition was cancelled; carried by `transition.cancelled`.
public enum CancelReason: String, Sendable, Equatable, CaseIterable {
    case requested, timeout, recovery
}

/// A clock-driven stretch of a transition: the fraction moves from `startFraction` to `endFraction`
/// over `frames` frames from `startFrame`, its time shaped by `curve`.
///
/// Animating is the segment 0 → 1 over the animator's duration with a linear clock (the animator's
/// own curve turns fraction into progress); finishing and cancelling are segments from the
/// interrupted fraction, shaped by the completion curve, as `UIPercentDrivenInteractiveTransition`.
public struct Segment: Equatable, Sendable {
    public var startFrame: Int64
    public var startFraction: Double
    public var endFraction: Double
    /// Length in (fractional) frames; 0 for a change that lands in its first frame.
    public var frames: Double
    public var curve: TimingCurve
    /// The segment's length in seconds, which a spring's motion runs in; `nil` where only its shape
    /// matters (the linear clock of `animating`).
    public var seconds: Double?
    /// The turn of a reversal, which moves the fraction instead of `curve`.
    var retarget: Retarget? = nil

    public init(
        startFrame: Int64, startFraction: Double, endFraction: Double, frames: Double, curve: TimingCurve,
        seconds: Double? = nil
    ) {
        self.startFrame = startFrame
        self.startFraction = startFraction
        self.endFraction = endFraction
        self.frames = frames
        self.curve = curve
        self.seconds = seconds
    }

    /// The first frame at which the segment is over and its fraction is exactly `endFraction`.
    public var endFrame: Int64 { startFrame + FrameClock.wholeFrames(frames) }

    /// The fraction at `frame`, clamped to [0, 1]; exactly `endFraction` from `endFrame` on.
    public func fraction(at frame: Int64) -> Double {
        if frame >= endFrame { return endFraction }
        if frame <= startFrame { return startFraction }
        return fraction(atElapsed: Double(frame - startFrame))
    }

    /// The fraction `elapsed` frames (whole or not) after the start, before the end.
    func fraction(atElapsed elapsed: Double) -> Double {
        if let retarget { return retarget.fraction(atElapsed: elapsed) }
        let t = elapsed / frames
        let shaped = curve.progress(atFraction: t, duration: seconds ?? frames)
        let value = startFraction + (endFraction - startFraction) * shaped
        return min(1, max(0, value))
    }

    /// The fraction's rate at `frame`, per frame, + toward 1: 0 before anything moved and once over.
    /// A reversal starts with it; curves other than `linear` have no derivative of their own, so
    /// theirs is measured over a thousandth of a frame either side.
    func rate(at frame: Int64) -> Double {
        guard frame > startFrame, frame < endFrame else { return 0 }
        let elapsed = Double(frame - startFrame)
        if let retarget { return retarget.rate(atElapsed: elapsed) }
        if case .linear = curve { return (endFraction - startFraction) / frames }
        let h = 1e-3
        return (fraction(atElapsed: elapsed + h) - fraction(atElapsed: elapsed - h)) / (2 * h)
    }
}

/// A transition in flight (at most one per navigator).
public struct Transition: Equatable, Sendable {
    public var id: Int
    public var operation: TransitionOperation
    public var from: Screen
    public var to: Screen
    /// Screens that leave the stack on completion (pop, popTo, popToRoot, setStack), top first.
    public var popped: [Screen]
    /// The committed stack and modals once the transition completes.
    public var targetStack: [Screen]
    public var targetModals: [Screen]
    public var animator: Animator
    public var animated: Bool
    /// Whether it was begun or became (by interrupt) client-driven at any point.
    public var interactive: Bool
    public var owner: String?
    public var phase: TransitionPhase
    public var startFrame: Int64
    /// The clock-driven segment for `animating`, `finishing` and `cancelling`.
    public var segment: Segment
    /// The last client-given percent and velocity, while `interactive`; the held fraction, while `paused`.
    public var percent: Double
    public var velocity: Double
    /// The frame of the last begin, interrupt or update: the interaction timeout counts from here.
    public var lastInteractionFrame: Int64
    /// Why a `cancelling` segment was entered, for the `transition.cancelled` that ends it.
    public var cancelReason: CancelReason
    /// The last touch point and swipe edge the gesture reported, if any.
    public var touch: GestureGeometry.Touch? = nil
    public var swipeEdge: GestureGeometry.SwipeEdge? = nil
    /// The gesture's recent path (newest last), for the velocity of a release that names none.
    public var samples: [GestureSample] = []
    /// Whether `velocity` is the client's own (the last update gave one) rather than measured.
    public var velocityGiven = false
    /// The clock-driven phase a `paused` transition resumes into.
    public var pausedFrom: TransitionPhase? = nil

    /// The fraction at `frame` (the frame must not precede the last event applied).
    public func fraction(at frame: Int64) -> Double {
        switch phase {
        case .interactive, .paused: percent
        case .animating, .finishing, .cancelling: segment.fraction(at: frame)
        case .completed: 1
        case .cancelled: 0
        }
    }

    /// Whether the clock moves it: it ends by itself at `segment.endFrame`.
    public var isClockDriven: Bool { phase == .animating || phase == .finishing || phase == .cancelling }
}

/// The transition that ended most recently, kept so its final tick can be produced for its end frame.
///
/// The transition stays in the box it had while in flight (`NavigatorState.transition`): ending it
/// moves no copy of it, and the list of ended transitions, which a journalled state shares and the
/// next end copies, holds one reference per entry.
public struct EndedTransition: Equatable, Sendable {
    public var transition: Transition {
        get { storage.value }
        set { storage = Indirect(newValue) }
    }
    private var storage: Indirect<Transition>
    public var endFrame: Int64
    /// `.completed` or `.cancelled`.
    public var phase: TransitionPhase

    init(transition: Transition, endFrame: Int64, phase: TransitionPhase) {
        self.init(Indirect(transition), endFrame: endFrame, phase: phase)
    }

    init(_ transition: Indirect<Transition>, endFrame: Int64, phase: TransitionPhase) {
        storage = transition
        self.endFrame = endFrame
        self.phase = phase
    }
}
