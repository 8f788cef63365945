import SegueCommandLine
import SegueCore
import Testing

@testable import segue

/// The rate `replay`, `timeline` and `view --replay` read a log at: its own, and a `--frame-rate`
/// only where the log cannot tell or agrees (`LogSource.frameRate`).
@Suite struct LogFrameRateTests {
    /// Events recorded at `rate`: each time inside its frame, as segued writes them.
    static func log(at rate: Int, count: Int = 20) throws -> [EventRecord] {
        let clock = try FrameClock(rate: rate)
        let start: Int64 = 1_748_779_200_123_456_789
        return (0..<count).map { i in
            let time = start + Int64(i) * 37_000_000
            return EventRecord(
                seq: Int64(i + 1), navigator: "main", revision: Int64(i + 1), type: "transition.started",
                frame: clock.frame(atOrAfter: time), time: time, command: nil, data: [:])
        }
    }

    /// (recorded at, --frame-rate, the rate read, or nil when refused)
    @Test(
        arguments: [
            (60, nil, 60), (120, nil, 120), (30, nil, 30), (60, 60, 60), (120, 120, 120),
            (60, 30, nil), (60, 120, nil), (60, 59, nil), (30, 60, nil),
        ] as [(Int, Int?, Int?)])
    func aGivenRateMustFitTheLog(recorded: Int, given: Int?, read: Int?) throws {
        let events = try Self.log(at: recorded)
        do {
            let rate = try LogSource.frameRate(events, given: given)
            #expect(rate == read)
        } catch let error as UsageError {
            #expect(read == nil, "\(error)")
            #expect(
                error.message
                    == "--frame-rate \(given ?? 0) does not match the log, which was recorded at \(recorded) Hz: its "
                    + "events' times fall outside their frames at \(given ?? 0) Hz. Leave --frame-rate out (the "
                    + "log's rate is read from it) or pass \(recorded).")
        }
    }

    @Test func withoutEventsTheGivenRateOrSixtyHertz() throws {
        #expect(try LogSource.frameRate([], given: nil) == 60)
        #expect(try LogSource.frameRate([], given: 90) == 90)
    }
}
