/// How a navigation command wants its transition to look.
public struct TransitionOptions: Equatable, Sendable {
    /// `false` makes a transition that starts and completes in one frame.
    public var animated: Bool
    /// A per-command animator, merged over the one the navigator's rules select (validated on parse).
    public var animator: JSON?

    public init(animated: Bool = true, animator: JSON? = nil) {
        self.animated = animated
        self.animator = animator
    }

    public static let standard = TransitionOptions()
}

/// What an interactive `begin` starts.
public enum InteractiveStart: Equatable, Sendable {
    case pop
    case dismiss
    case push(ScreenSpec)
    case present(ScreenSpec)

    public var operation: TransitionOperation {
        switch self {
        case .pop: .pop
        case .dismiss: .dismiss
        case .push: .push
        case .present: .present
        }
    }
}

/// A command to one navigator, imperative (`push`), as decided by `Navigator.decide`.
public enum NavigationCommand: Equatable, Sendable {
    case create(root: ScreenSpec, config: NavigatorConfig)
    case close
    case push(ScreenSpec, TransitionOptions)
    case pop(TransitionOptions)
    /// A screen id, or a route name meaning its topmost match below the top.
    case popTo(String, TransitionOptions)
    case popToRoot(TransitionOptions)
    case setStack([ScreenRef], TransitionOptions)
    case present(ScreenSpec, TransitionOptions)
    case dismiss(TransitionOptions)
    /// `nil` start: interrupt the transition in flight, making it interactive at its fraction.
    case begin(InteractiveStart?, animator: JSON?, geometry: GestureGeometry = .none)
    case update(percent: Double, velocity: Double?, geometry: GestureGeometry = .none)
    /// `animator`, when given, times the completion instead of completionSpeed/completionCurve.
    case finish(
        velocity: Double?, completionSpeed: Double, completionCurve: TimingCurve, animator: CompletionAnimator? = nil)
    /// `velocity` is the release velocity as on `finish` and `end`, recorded in `transition.cancelling`.
    /// No `completionCurve` and no `animator`: a clock-driven transition reverses, keeping its velocity
    /// (an interactive one completes with `easeInOut`).
    case cancel(
        completionSpeed: Double, completionCurve: TimingCurve?, velocity: Double? = nil,
        animator: CompletionAnimator? = nil)
    /// `geometry` goes with `percent`: where the finger was, and when, at the point `end` records.
    case end(
        percent: Double?, velocity: Double?, animator: CompletionAnimator? = nil, geometry: GestureGeometry = .none)
    /// Holds a clock-driven transition at its fraction.
    case pause
    /// Moves a paused transition: `fraction` is its time, or with `scrubsLinearly` its progress.
    case seek(fraction: Double, scrubsLinearly: Bool)
    /// Runs a paused transition on from where it stands, toward the end it was heading for.
    case resume

    /// The wire name (`cmd`).
    public var name: String {
        switch self {
        case .create: "create"
        case .close: "close"
        case .push: "push"
        case .pop: "pop"
        case .popTo: "popTo"
        case .popToRoot: "popToRoot"
        case .setStack: "setStack"
        case .present: "present"
        case .dismiss: "dismiss"
        case .begin: "begin"
        case .update: "update"
        case .finish: "finish"
        case .cancel: "cancel"
        case .end: "end"
        case .pause: "pause"
        case .seek: "seek"
        case .resume: "resume"
        }
    }

    /// Commands that start a transition and so may be queued behind one under the `queue` policy.
    public var isQueueable: Bool {
        switch self {
        case .push, .pop, .popTo, .popToRoot, .setStack, .present, .dismiss: true
        default: false
        }
    }

    /// Commands that drive an interactive transition and so are subject to `owner`.
    public var isGesture: Bool {
        switch self {
        case .update, .finish, .cancel, .end, .pause, .seek, .resume: true
        default: false
        }
    }

    public static let names: [String] = [
        "create", "close", "push", "pop", "popTo", "popToRoot", "setStack", "present", "dismiss", "begin", "update",
        "finish", "cancel", "end", "pause", "seek", "resume",
    ]
}

/// The request fields every command may carry, which are not arguments of the command itself.
public struct CommandEnvelope: Equatable, Sendable {
    /// The client's request id: idempotency key and the `command` of the events it causes.
    public var requestID: String?
    /// Expected navigator revision (`conflict` when it differs).
    public var expect: Int64?
    /// The gesture owner: set on `begin`, checked on update/finish/cancel/end.
    public var owner: String?

    public init(requestID: String? = nil, expect: Int64? = nil, owner: String? = nil) {
        self.requestID = requestID
        self.expect = expect
        self.owner = owner
    }
}
