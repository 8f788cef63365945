import Foundation

/// A time written on the command line (`log --since`, `timeline --from`, `view --to`): one parser,
/// so every command takes the same forms. RFC 3339 with its zone (`2025-06-01T12:00:00.5Z`,
/// `2025-06-01T14:00:00+02:00`), or a local date and time without one (`2026-12-01T09:00`,
/// `2026-12-01 09:00:00`, `2026-12-01` for its midnight).
enum TimeArgument {
    /// The instant `text` names, or nil when it is none of the forms.
    static func date(_ text: String) -> Date? {
        let zoned = ISO8601DateFormatter()
        for options: ISO8601DateFormatter.Options in [
            [.withInternetDateTime, .withFractionalSeconds], [.withInternetDateTime],
        ] {
            zoned.formatOptions = options
            if let date = zoned.date(from: text) { return date }
        }
        for format in localFormats {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone.current
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }

    private static let localFormats = [
        "yyyy-MM-dd'T'HH:mm:ss.SSS", "yyyy-MM-dd'T'HH:mm:ss", "yyyy-MM-dd HH:mm:ss.SSS", "yyyy-MM-dd HH:mm:ss",
        "yyyy-MM-dd'T'HH:mm", "yyyy-MM-dd HH:mm", "yyyy-MM-dd",
    ]
}
