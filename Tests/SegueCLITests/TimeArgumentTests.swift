import Foundation
import Testing

@testable import segue

/// The times every command takes (`log --since`, `timeline --from`): with a zone, or local without
/// one, read by one parser. Local readings are tested in named zones, whatever the machine's is.
@Suite struct TimeArgumentTests {
    /// 2025-06-01T12:00:00Z in nanoseconds.
    static let noon: Int64 = 1_748_779_200_000_000_000

    @Test(arguments: [
        ("2025-06-01T12:00:00Z", noon), ("2025-06-01T12:00:00.5Z", noon + 500_000_000),
        ("2025-06-01T14:00:00+02:00", noon), ("2025-06-01T12:00:00.250Z", noon + 250_000_000),
        ("2025-06-01T12:00Z", noon), ("2025-06-01 12:00:00Z", noon), ("2025-06-01 07:00-05:00", noon),
    ])
    func zonedTimes(text: String, nanoseconds: Int64) {
        for zone in Self.zones { #expect(TimeArgument.nanoseconds(text, in: zone) == nanoseconds, "\(zone)") }
    }

    static let zones = ["UTC", "America/New_York", "Asia/Kolkata"].map { TimeZone(identifier: $0)! }

    /// Without a zone a time is the wall-clock reading in the zone given.
    @Test(arguments: [
        ("2025-06-01T12:00:00", 0 as Int64), ("2025-06-01T12:00", 0), ("2025-06-01 12:00:00", 0),
        ("2025-06-01 12:00", 0),
        ("2025-06-01T12:00:00.5", 500_000_000), ("2025-06-01", -43_200_000_000_000),
    ])
    func localTimes(text: String, after: Int64) throws {
        for zone in Self.zones {
            let time = try #require(TimeArgument.nanoseconds(text, in: zone), "\(zone)")
            let offset = Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(time) / 1e9)))
            #expect(time + offset * 1_000_000_000 == Self.noon + after, "\(zone)")
        }
    }

    /// A local time a clock change skips is the first one after the gap: in Santiago, 6 September 2026
    /// starts at 1:00, the clocks going from 0:00 to 1:00.
    @Test func aTimeTheClockSkipsIsTheFirstAfterTheGap() throws {
        let santiago = try #require(TimeZone(identifier: "America/Santiago"))
        let midnight = try #require(TimeArgument.nanoseconds("2026-09-06", in: santiago))
        #expect(midnight == TimeArgument.nanoseconds("2026-09-06T01:00", in: santiago))
        #expect(TimeArgument.nanoseconds("2026-09-06T00:30", in: santiago) != nil)
    }

    @Test(arguments: [
        "", "yesterday", "12:00", "2025-06-32", "2025-13-01T00:00", "2025-06-01T25:00", "1748779200",
        // A year in fewer than four digits, and years an Int64 of nanoseconds does not hold.
        "25-06-01", "0001-01-01", "1600-01-01", "2300-01-01T00:00:00Z",
    ])
    func notTimes(text: String) {
        #expect(TimeArgument.nanoseconds(text) == nil)
    }
}
