import SegueProtocol
import Testing

@testable import segue

/// When `log --follow`, `watch` and `view` say the daemon went silent: three heartbeat intervals (at
/// least 3 s) with no heartbeat and nothing else from the daemon.
@Suite struct SilenceWatchTests {
    static let start = ContinuousClock.now

    static func at(_ seconds: Double) -> ContinuousClock.Instant { start + .milliseconds(Int64(seconds * 1000)) }

    /// Looks at these times (seconds after the start); `answered` marks the times the daemon
    /// answered (a page, an event) just before the look; the looks that say "silent".
    static let cases: [(String, [Double], Set<Double>, [Double])] = [
        ("quiet for over 3 s", [1, 2.9, 3.1, 5, 9], [], [3.1]),
        ("answers keep it from being silent", [2, 4, 5.9, 7], [2, 4], []),
        ("silent once the answers stop", [2, 4, 6, 7.5], [2, 4], [7.5]),
    ]

    @Test(arguments: cases)
    func silences(name: String, looks: [Double], answered: Set<Double>, said: [Double]) {
        var watch = SilenceWatch(heartbeat: .seconds(1), now: Self.start)
        var saidAt: [Double] = []
        for look in looks {
            if answered.contains(look) { watch.answered(now: Self.at(look)) }
            if watch.isNewlySilent(now: Self.at(look)) { saidAt.append(look) }
        }
        #expect(saidAt == said, "\(name)")
    }
}
