/// The type of an event on the wire and in the log (docs/protocol.md, "Events"): what happened to a
/// navigator, named in the past tense. Readers compare these, never the strings.
public enum EventType: String, CaseIterable, Sendable {
    case navigatorCreated = "navigator.created"
    case navigatorClosed = "navigator.closed"
    case transitionStarted = "transition.started"
    case interactionUpdated = "interaction.updated"
    case transitionInterrupted = "transition.interrupted"
    case transitionFinishing = "transition.finishing"
    case transitionCancelling = "transition.cancelling"
    case transitionCompleted = "transition.completed"
    case transitionCancelled = "transition.cancelled"
    case transitionQueued = "transition.queued"
    case transitionDropped = "transition.dropped"
    case transitionReversed = "transition.reversed"
    case transitionPaused = "transition.paused"
    case transitionSeeked = "transition.seeked"
    case transitionResumed = "transition.resumed"

    /// Whether the event ends a transition: its last tick is published with it.
    public var endsTransition: Bool { self == .transitionCompleted || self == .transitionCancelled }
}

extension EventRecord {
    /// The record's type; nil for a type this build does not know (an event from a newer daemon).
    public var eventType: EventType? { EventType(rawValue: type) }
}
