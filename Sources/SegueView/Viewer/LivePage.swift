import SegueHTTP

/// One open page of the live viewer: its stream, and the ticks held back from it while it is behind.
///
/// A page more than `holdLimit` bytes behind gets no more tick messages until it has read down to
/// that; meanwhile each navigator's newest tick is held and goes, with the others held, once it has
/// (with the next frame's ticks, or when the hub next releases them). So a page too slow for the
/// fleet's ticks skips frames instead of falling further behind, and ticks alone never take it to
/// its stream's cut-off. A navigator's held tick goes before that navigator's next event or state,
/// so each navigator's messages keep their order.
struct LivePage {
    let stream: EventStream
    private var held: [String: [UInt8]] = [:]

    init(_ stream: EventStream) { self.stream = stream }

    var heldTicks: Int { held.count }

    /// Sends a frame's ticks (`message`, made once for every page), or holds them while the page is
    /// behind. False when the page is gone.
    mutating func send(_ batch: FrameTicks, message: [UInt8], holdLimit: Int) -> Bool {
        if held.isEmpty, stream.queuedBytes <= holdLimit { return stream.send(raw: message) }
        for tick in batch.ticks { held[tick.navigator] = tick.bytes }
        return release(holdLimit: holdLimit)
    }

    /// Sends the held ticks (in messages of at most ~64 KiB) once the page has read down to
    /// `holdLimit`. False when the page is gone.
    mutating func release(holdLimit: Int) -> Bool {
        guard !held.isEmpty, stream.queuedBytes <= holdLimit else { return !stream.isFinished }
        let ticks = held.keys.sorted().map { held[$0]! }
        held = [:]
        return ViewerMessage.ticks(ticks, upTo: ViewerMessage.ticksMessageSize).allSatisfy { stream.send(raw: $0) }
    }

    /// Sends a message about one navigator (its event or state), after its held tick if it has one.
    mutating func send(_ message: [UInt8], about navigator: String) -> Bool {
        if let tick = held.removeValue(forKey: navigator), !stream.send(raw: ViewerMessage.ticks([tick])) {
            return false
        }
        return stream.send(raw: message)
    }

    /// The log went back: what was held is of the old one.
    mutating func dropHeld() { held = [:] }
}
