import Foundation

/// A time written on the command line (`log --since`, `timeline --from`, `view --to`): one parser,
/// so every command takes the same forms. A date and time with its zone (RFC 3339,
/// `2025-06-01T12:00:00.5Z`, `2025-06-01T14:00+02:00`), or a local one without (`2026-12-01T09:00`,
/// `2026-12-01 09:00:00`); a date alone is the midnight that starts it, as journalctl reads one.
/// `T` or a space between date and time, seconds and their fraction optional, the year in four digits.
enum TimeArgument {
    /// Nanoseconds since 1970 (the log's `time`), or nil when `text` is none of the forms or lies
    /// outside the years an `Int64` of nanoseconds holds (1678 to 2261).
    static func nanoseconds(_ text: String, in zone: TimeZone = .current) -> Int64? {
        guard let date = date(text, in: zone) else { return nil }
        // Whole seconds and microseconds apart: a Double of nanoseconds since 1970 is exact only to
        // 256 ns, and a time written to the millisecond must come out as written.
        let seconds = date.timeIntervalSince1970.rounded(.down)
        guard seconds.isFinite, abs(seconds) < 9.2e9 else { return nil }
        let micros = ((date.timeIntervalSince1970 - seconds) * 1e6).rounded()
        return Int64(seconds) * 1_000_000_000 + Int64(micros) * 1000
    }

    /// The instant `text` names, or nil.
    static func date(_ text: String, in zone: TimeZone = .current) -> Date? {
        // Foundation reads `yyyy` from one digit up: "25-06-01" would be the year 25.
        guard text.count >= 10, text.prefix(4).allSatisfy(\.isASCII), text.prefix(4).allSatisfy(\.isNumber),
            text.dropFirst(4).first == "-"
        else { return nil }
        for format in zonedFormats {
            if let date = formatter(format, zone: TimeZone(identifier: "UTC")!).date(from: text) { return date }
        }
        // A local time is read as written, then placed in the zone by the calendar: a reading that
        // a clock change skips (midnight on a day DST starts at 0:00) moves on to the first that is.
        for format in localFormats {
            guard let read = formatter(format, zone: TimeZone(identifier: "UTC")!).date(from: text) else { continue }
            var utc = Calendar(identifier: .gregorian)
            utc.timeZone = TimeZone(identifier: "UTC")!
            var fields = utc.dateComponents([.year, .month, .day, .hour, .minute, .second, .nanosecond], from: read)
            fields.timeZone = zone
            var local = Calendar(identifier: .gregorian)
            local.timeZone = zone
            return local.date(from: fields)
        }
        return nil
    }

    private static func formatter(_ format: String, zone: TimeZone) -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = zone
        formatter.dateFormat = format
        return formatter
    }

    /// Each with `T` and with a space; `XXXXX` reads `Z` and `+02:00`.
    private static let zonedFormats = ["ss.SSSXXXXX", "ssXXXXX", "XXXXX"].flatMap { seconds in
        ["yyyy-MM-dd'T'HH:mm", "yyyy-MM-dd HH:mm"].map { $0 + (seconds == "XXXXX" ? "" : ":") + seconds }
    }

    private static let localFormats =
        ["ss.SSS", "ss", ""].flatMap { seconds in
            ["yyyy-MM-dd'T'HH:mm", "yyyy-MM-dd HH:mm"].map { $0 + (seconds.isEmpty ? "" : ":") + seconds }
        } + ["yyyy-MM-dd"]
}
