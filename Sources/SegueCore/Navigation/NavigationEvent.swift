/// Something that happened to a navigator, past tense, at a frame (docs/protocol.md, "Events").
///
/// Every event carries everything `evolve` needs, so a log folds to the same state with no other
/// input; the frame is part of the event because phases are functions of frames.
public struct NavigationEvent: Equatable, Sendable {
    /// The frame at which it takes effect.
    public var frame: Int64
    /// The request id of the command that caused it; `nil` for clock-decided events.
    public var command: String?
    public var kind: Kind

    public init(frame: Int64, command: String?, kind: Kind) {
        self.frame = frame
        self.command = command
        self.kind = kind
    }

    public struct Started: Equatable, Sendable {
        public var transition: Int
        public var operation: TransitionOperation
        public var from: Screen
        public var to: Screen
        public var popped: [Screen]
        public var stack: [Screen]
        public var modals: [Screen]
        public var animator: Animator
        public var animated: Bool
        public var interactive: Bool
        public var owner: String?
        /// The screen counter after this transition made its screens: ids are never reused.
        public var nextScreen: Int
        /// Where the finger was when an interactive `begin` started it.
        public var geometry: GestureGeometry = .none
    }

    public enum Kind: Equatable, Sendable {
        case created(root: Screen, config: NavigatorConfig, frameRate: Int)
        case closed
        case started(Started)
        /// `estimated`: the daemon measured the velocity (the update gave none).
        case updated(
            transition: Int, percent: Double, velocity: Double, geometry: GestureGeometry = .none,
            estimated: Bool = false)
        case interrupted(transition: Int, fraction: Double, owner: String?, geometry: GestureGeometry = .none)
        case finishing(
            transition: Int, fraction: Double, velocity: Double?, completionSpeed: Double, completionCurve: TimingCurve)
        /// `velocity`: the release velocity, when the command gave one or the end rule decided with it.
        case cancelling(
            transition: Int, fraction: Double, completionSpeed: Double, completionCurve: TimingCurve,
            reason: CancelReason, velocity: Double? = nil)
        case completed(transition: Int)
        case cancelled(transition: Int, reason: CancelReason)
        /// A clock-driven transition turned back toward 0 (a `cancel`, or a `pop` of the screen its push
        /// brings): `fraction` and `velocity` (fraction/s, + toward completion) where it turned.
        case reversed(transition: Int, fraction: Double, velocity: Double, completionSpeed: Double)
        case paused(transition: Int, fraction: Double)
        /// `fraction`: where the transition now stands, in time; `scrubsLinearly`: whether the seek
        /// named a position along the views' path (then `fraction` is where the curve reaches it).
        case seeked(transition: Int, fraction: Double, scrubsLinearly: Bool)
        case resumed(transition: Int, fraction: Double)
        /// `transition`: the id the command will start with, taken when it is queued (nil in logs
        /// written before queued commands had one).
        case queued(request: NavigationCommand, position: Int, transition: Int?)
        case dropped(request: NavigationCommand, code: ErrorCode, message: String, transition: Int?)
    }

    public var eventType: EventType {
        switch kind {
        case .created: .navigatorCreated
        case .closed: .navigatorClosed
        case .started: .transitionStarted
        case .updated: .interactionUpdated
        case .interrupted: .transitionInterrupted
        case .finishing: .transitionFinishing
        case .cancelling: .transitionCancelling
        case .completed: .transitionCompleted
        case .cancelled: .transitionCancelled
        case .reversed: .transitionReversed
        case .paused: .transitionPaused
        case .seeked: .transitionSeeked
        case .resumed: .transitionResumed
        case .queued: .transitionQueued
        case .dropped: .transitionDropped
        }
    }

    /// The wire type name.
    public var type: String { eventType.rawValue }

    public static let types: [String] = EventType.allCases.map(\.rawValue)

    /// The schema version of `data` written today; decoding accepts exactly the versions it knows.
    public static let currentVersion = 1
}
