/// A log line worth writing at once, then at most one per `interval`: the occurrences in between are
/// counted (and, with a weight, summed: skipped frames, say), and said with the next line or, once the
/// interval has passed, by whoever asks `pending` (the loop's housekeeping, once a second).
struct HeldBackLines {
    /// Nanoseconds between two lines.
    static let interval: Int64 = 10_000_000_000

    private var loggedAt: Int64?
    private var held = 0
    private var weight: Int64 = 0

    /// Notes one occurrence at `now` (monotonic ns); when it is to be logged now, the occurrences
    /// held back since the last line and their weight (nil: not now, it is held back).
    mutating func noted(weight added: Int64 = 0, now: Int64) -> (held: Int, weight: Int64)? {
        if let loggedAt, now - loggedAt < Self.interval {
            held += 1
            weight += added
            return nil
        }
        loggedAt = now
        return take()
    }

    /// What was held back, once `interval` has passed since the last line (at a stop, `now: .max`:
    /// whatever is left); nil when nothing was.
    mutating func pending(now: Int64) -> (held: Int, weight: Int64)? {
        guard held > 0, let loggedAt, now - loggedAt >= Self.interval else { return nil }
        self.loggedAt = now
        return take()
    }

    private mutating func take() -> (held: Int, weight: Int64) {
        defer {
            held = 0
            weight = 0
        }
        return (held, weight)
    }
}
