/// When a re-published replay sends each frame (`segue replay --publish`): at the frame's instant
/// relative to the first frame, divided by the speed, with every gap between two consecutive
/// published frames longer than `maxGap` shortened to it.
///
/// A replay publishes a frame only when something happened or animated, so a long gap between two of
/// them is a stretch where nothing moved: shortening it changes no frame's content, only how long a
/// viewer waits for the next session in a log that spans hours.
package struct ReplayPacing: Sendable {
    package let clock: FrameClock
    package let speed: Double
    /// In wall nanoseconds; nil keeps every gap as it was.
    package let maxGap: Double?
    private var first: Int64?
    private var last: Int64?
    private var skipped: Double = 0

    /// `maxGap` in seconds of wall time (after `speed`); nil keeps every gap.
    package init(clock: FrameClock, speed: Double, maxGap: Double?) {
        precondition(speed > 0, "speed must be positive")
        self.clock = clock
        self.speed = speed
        self.maxGap = maxGap.map { $0 * 1e9 }
    }

    /// Wall nanoseconds from the first published frame to `frame`'s send; frames come in order.
    package mutating func offset(of frame: Int64) -> Int64 {
        guard let first else {
            self.first = frame
            last = frame
            return 0
        }
        if let maxGap, let last {
            let gap = Double(clock.instant(ofFrame: frame) - clock.instant(ofFrame: last)) / speed
            skipped += max(0, gap - maxGap)
        }
        last = frame
        let elapsed = Double(clock.instant(ofFrame: frame) - clock.instant(ofFrame: first)) / speed
        return Int64((elapsed - skipped).rounded())
    }
}
