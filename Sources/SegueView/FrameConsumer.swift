import SegueCore

/// What takes a log's replayed frames one by one, in order: each frame's events (applied before its
/// ticks) and its ticks. A timeline and a viewer replay are both built this way.
package protocol FrameConsumer {
    mutating func add(frame: Int64, events: [EventRecord], ticks: [Tick]) throws(CoreError)
}

extension TimelineBuilder: FrameConsumer {}
extension ReplayScript: FrameConsumer {}
