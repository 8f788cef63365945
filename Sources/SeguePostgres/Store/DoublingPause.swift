/// A pause after each failure that doubles from `first` up to `longest` while failures go on, and
/// ends at a success: the writer's reconnects, the background reader's connects, the pause of
/// bounded reads after a timeout.
struct DoublingPause {
    let first: Duration
    let longest: Duration
    private var length = Duration.zero
    /// When the running pause ends; nil when none runs.
    private(set) var until: ContinuousClock.Instant?

    init(first: Duration, longest: Duration) {
        self.first = first
        self.longest = longest
    }

    /// How much of the pause is left at `now`; nil when none is.
    func left(at now: ContinuousClock.Instant = .now) -> Duration? {
        guard let until, now < until else { return nil }
        return until - now
    }

    /// A failure: the next pause starts, twice the last one's length.
    mutating func failed(at now: ContinuousClock.Instant = .now) {
        length = length == .zero ? first : min(length * 2, longest)
        until = now + length
    }

    mutating func succeeded() {
        length = .zero
        until = nil
    }
}
