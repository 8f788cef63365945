/// The state of one navigator: the fold of its events (`Navigator.evolve`).
///
/// Equatable so tests can assert that state built live equals the fold of the log.
public struct NavigatorState: Equatable, Sendable {
    public enum Status: String, Sendable, Equatable { case absent, open, closed }

    public var name: String
    public var status: Status = .absent
    /// Per-navigator event count: the revision of the last event applied (0 before `created`).
    public var revision: Int64 = 0
    /// The frame of the last event applied; frames never go backwards.
    public var frame: Int64 = 0
    public var clock: FrameClock
    public var config: NavigatorConfig = NavigatorConfig()
    /// Root first. Never empty once created.
    public var stack: [Screen] = []
    /// Modally presented screens, bottom first.
    public var modals: [Screen] = []
    /// The number of the next screen id (`s<N>`); ids are never reused, cancelled ones included.
    public var nextScreenNumber: Int = 1
    public var nextTransitionID: Int = 1
    /// The transition in flight. Stored out of line: most navigators are idle, and an inline
    /// `Transition` would make every one of them ~400 bytes bigger.
    public var transition: Transition? {
        get { transitionStorage?.value }
        set { transitionStorage = newValue.map(Indirect.init) }
    }
    /// The box of `transition`, which an ended transition keeps (`recordEnd`).
    private(set) var transitionStorage: Indirect<Transition>?
    /// `transition != nil`, without copying the transition out of its box.
    public var hasTransition: Bool { transitionStorage != nil }
    /// The transitions that ended in the frame of the latest end, in order: their final ticks belong
    /// to that frame (several can end in one frame, e.g. a completion then a non-animated push).
    public var ended: [EndedTransition] = []
    /// Commands waiting for the transition in flight, under the `queue` busy policy.
    public var queue: [QueuedCommand] = []

    public init(name: String, clock: FrameClock) {
        self.name = name
        self.clock = clock
    }

    /// The visible screen: the top modal, or the top of the stack.
    public var top: Screen? { modals.last ?? stack.last }

    public var isTerminal: Bool { status == .closed }
}

/// A command waiting in a navigator's queue, with the request id that will be stamped on the
/// events it produces when it starts.
public struct QueuedCommand: Equatable, Sendable {
    public var command: NavigationCommand
    public var requestID: String?
    /// The id its transition starts with (nil when queued by a log older than these ids).
    public var transition: Int?

    public init(command: NavigationCommand, requestID: String?, transition: Int?) {
        self.command = command
        self.requestID = requestID
        self.transition = transition
    }
}

/// A value kept in its own allocation, compared by value: for large, rarely present members.
struct Indirect<Value: Equatable & Sendable>: Equatable, Sendable {
    private final class Storage: Sendable {
        let value: Value
        init(_ value: Value) { self.value = value }
    }

    private let storage: Storage

    init(_ value: Value) { storage = Storage(value) }

    /// Lent, not copied: the frame loop reads a transition's members in every frame of every
    /// navigator in flight, and a copy would retain and release each of its strings and arrays.
    var value: Value { _read { yield storage.value } }

    static func == (lhs: Indirect, rhs: Indirect) -> Bool { lhs.storage === rhs.storage || lhs.value == rhs.value }
}
