import Foundation
import Testing

@testable import segue

/// The times every command takes (`log --since`, `timeline --from`): RFC 3339 with a zone, or local
/// without one, read by one parser.
@Suite struct TimeArgumentTests {
    /// 2025-06-01T12:00:00Z.
    static let noon: TimeInterval = 1_748_779_200

    @Test(arguments: [
        ("2025-06-01T12:00:00Z", noon), ("2025-06-01T12:00:00.5Z", noon + 0.5), ("2025-06-01T14:00:00+02:00", noon),
        ("2025-06-01T12:00:00.250Z", noon + 0.25),
    ])
    func zonedTimes(text: String, seconds: TimeInterval) {
        #expect(TimeArgument.date(text)?.timeIntervalSince1970 == seconds)
    }

    /// Without a zone a time is local: the same wall-clock reading as the zone's own offset gives.
    @Test(arguments: [
        ("2025-06-01T12:00:00", 0.0 as TimeInterval), ("2025-06-01T12:00", 0), ("2025-06-01 12:00:00", 0), ("2025-06-01 12:00", 0),
        ("2025-06-01T12:00:00.5", 0.5), ("2025-06-01", -43200),
    ])
    func localTimes(text: String, after: TimeInterval) throws {
        let date = try #require(TimeArgument.date(text))
        let offset = TimeInterval(TimeZone.current.secondsFromGMT(for: date))
        #expect(date.timeIntervalSince1970 + offset == Self.noon + after)
    }

    @Test(arguments: ["", "yesterday", "12:00", "2025-06-32", "2025-13-01T00:00", "2025-06-01T25:00", "1748779200"])
    func notTimes(text: String) {
        #expect(TimeArgument.date(text) == nil)
    }
}
