/// The ticks of one frame as they arrive, gathered for the live viewer's pages: they get one message
/// a frame instead of one a tick.
package struct FrameTicks: Sendable {
    package struct Tick: Sendable, Equatable {
        package var navigator: String
        package var final: Bool
        /// The tick as published.
        package var bytes: [UInt8]
    }

    package private(set) var frame: Int64?
    package private(set) var ticks: [Tick] = []
    /// The bytes the ticks take in a message, commas included.
    private var size = 0

    package init() {}

    package var isEmpty: Bool { ticks.isEmpty }

    /// The batch has grown to a message's size (`ViewerMessage.ticksMessageSize`): it goes now, and
    /// the rest of the frame in another.
    package var isFull: Bool { size >= ViewerMessage.ticksMessageSize }

    /// Adds a tick. A tick of another frame than the ticks held starts a new batch: the one it ends is
    /// returned, to be sent first.
    package mutating func add(frame: Int64, navigator: String, final: Bool, bytes: [UInt8]) -> FrameTicks? {
        let ended = self.frame == nil || self.frame == frame ? nil : take()
        self.frame = frame
        ticks.append(Tick(navigator: navigator, final: final, bytes: bytes))
        size += bytes.count + 1
        return ended
    }

    /// The batch so far, leaving this one empty.
    package mutating func take() -> FrameTicks {
        defer { self = FrameTicks() }
        return self
    }
}
