import Foundation
import SegueCommandLine
import SegueCore

/// How `segue log` prints: wall times (local, or UTC with `--utc`) instead of frame numbers, only
/// the `--type`s asked for and the events between `--since` and `--until`, and with `--compact`
/// each run of one navigator's `interaction.updated` folded into one line.
struct LogPrinter {
    let json: Bool
    let utc: Bool
    let types: [String]
    let since: Int64?
    let until: Int64?
    let compact: Bool
    /// The run of `interaction.updated` being folded: its first event, the last, and how many.
    private var run: (first: EventRecord, last: EventRecord, count: Int)?

    init(_ inv: Invocation, now: Date = Date()) throws(UsageError) {
        json = inv.json
        utc = inv.parsed.flag("utc")
        types = inv.parsed.values("type")
        for type in types { if let warning = Self.unmatched(type) { Output.error(warning) } }
        since = try inv.parsed.value("since").map { (t: String) throws(UsageError) in
            try Self.instant(t, for: "--since", now: now)
        }
        until = try inv.parsed.value("until").map { (t: String) throws(UsageError) in
            try Self.instant(t, for: "--until", now: now)
        }
        compact = inv.parsed.flag("compact")
        // Folded lines are for reading; a program reading --json gets every event, not a silent choice.
        if compact, json { throw UsageError("--compact folds lines for reading; --json prints every event as it is.") }
        if let since, let until, since > until {
            throw UsageError("--since is after --until: no event can be between them.")
        }
    }

    /// Whether `--type`, `--since` and `--until` keep the event. A type ending in `.` (or `*`) is a
    /// prefix: `--type transition.` keeps every transition event.
    func keeps(_ e: EventRecord) -> Bool {
        if let since, e.time < since { return false }
        if let until, e.time > until { return false }
        guard !types.isEmpty else { return true }
        return types.contains { Self.matches($0, e.type) }
    }

    static func matches(_ pattern: String, _ type: String) -> Bool {
        if pattern.hasSuffix("*") { return type.hasPrefix(pattern.dropLast()) }
        return pattern.hasSuffix(".") ? type.hasPrefix(pattern) : type == pattern
    }

    /// A warning for a `--type` no type this build knows matches (a prefix without its `.`, a typo),
    /// which would print nothing: a warning only, since a newer daemon's types may match it.
    static func unmatched(_ pattern: String) -> String? {
        let known = EventType.allCases.map(\.rawValue)
        guard !known.contains(where: { matches(pattern, $0) }) else { return nil }
        let hint =
            known.contains { $0.hasPrefix(pattern + ".") }
            ? "a prefix ends in '.': --type \(pattern)."
            : "known: \(known.joined(separator: ", "))"
        return "warning: --type \(pattern) matches no event type this segue knows (\(hint))"
    }

    /// Whether every later event is past `--until` (the log is in time order, up to its clamp).
    func isPastEnd(_ e: EventRecord) -> Bool { until.map { e.time > $0 } ?? false }

    mutating func print(_ e: EventRecord) {
        guard !json else { return Output.line(e.json.serialized()) }
        guard compact else { return Output.line(describe(e)) }
        if e.eventType == .interactionUpdated {
            if let current = run, current.first.navigator == e.navigator {
                run = (current.first, e, current.count + 1)
                return
            }
            flush()
            run = (e, e, 1)
            return
        }
        flush()
        Output.line(describe(e))
    }

    /// Ends a folded run: its first line as it is, then one line for the rest.
    mutating func flush() {
        guard let current = run else { return }
        run = nil
        Output.line(describe(current.first))
        guard current.count > 1 else { return }
        let from = current.first.data["percent"]?.doubleValue.map(ReadCommands.format) ?? "?"
        let to = current.last.data["percent"]?.doubleValue.map(ReadCommands.format) ?? "?"
        Output.line(
            "\(current.last.seq)\t\(current.last.navigator)#\(current.last.revision)\t\(time(current.last.time))\t"
                + "… \(current.count - 1) more interaction.updated (percent \(from) → \(to))")
    }

    func describe(_ e: EventRecord) -> String {
        var line = "\(e.seq)\t\(e.navigator)#\(e.revision)\t\(time(e.time))\t\(e.type)"
        if e.data.count > 0 { line += "\t" + JSON.object(e.data).serialized() }
        return line
    }

    /// `2026-12-01 23:28:57.123` in the local time zone, or `2026-12-01T23:28:57.123Z` with `--utc`.
    func time(_ nanoseconds: Int64) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = utc ? TimeZone(identifier: "UTC") : TimeZone.current
        formatter.dateFormat = utc ? "yyyy-MM-dd'T'HH:mm:ss.SSS'Z'" : "yyyy-MM-dd HH:mm:ss.SSS"
        return formatter.string(from: Date(timeIntervalSince1970: Double(nanoseconds) / 1e9))
    }

    /// `--since`/`--until`: a time ago (`90s`, `10m`, `2h`, `1d`), or a date and time
    /// (`2026-12-01T23:00:00`, local unless it ends in `Z` or an offset; `2026-12-01` is midnight).
    static func instant(_ text: String, for name: String, now: Date) throws(UsageError) -> Int64 {
        if let ago = Seconds.parse(Substring(text), requiringUnit: true) {
            return Int64((now.timeIntervalSince1970 - ago) * 1e9)
        }
        if let time = TimeArgument.nanoseconds(text) { return time }
        throw UsageError.invalidValue(
            text, for: name,
            "expected a time ago like 10m, 2h or 1d, or a date and time like 2026-12-01T23:00:00 (local) or "
                + "2026-12-01T22:00:00Z")
    }
}
