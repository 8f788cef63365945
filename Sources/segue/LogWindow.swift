import Foundation
import SegueClient
import SegueCore
import SegueView

/// The part of a log that `timeline` and `view --replay` show: the log read whole (a data dir or an
/// export), cut by `--from` and `--to` (each a seq or a time), one navigator's or all of them.
struct LogWindow {
    let path: String
    /// Every event up to `--to`: earlier ones are folded even when not shown, so states are right.
    let events: [EventRecord]
    let clock: FrameClock
    /// Frames before it are folded but not shown (`--from`).
    let startFrame: Int64
    /// The replay stops before this frame, where the first event left out took effect (`--to`).
    let stopBefore: Int64
    let navigator: String?

    /// A bound of `--from` or `--to`: a seq, an instant, or an offset from the log's first event.
    enum Bound: Equatable {
        case seq(Int64)
        case time(Int64)
        case offset(Double)

        init(_ text: String, option: String) throws(UsageError) {
            if let seq = Int64(text), seq >= 0 {
                self = .seq(seq)
            } else if text.hasPrefix("+") {
                // +0 is the log's first event; other offsets are positive durations (`+2.5s`, `+300ms`).
                let duration = String(text.dropFirst())
                let isZero = Double(duration.trimmingCharacters(in: CharacterSet(charactersIn: "ms"))) == 0
                self = .offset(isZero ? 0 : try ArgumentValues.seconds(duration, for: option))
            } else if let date = Self.instant(text) {
                self = .time(Int64((date.timeIntervalSince1970 * 1e9).rounded()))
            } else {
                throw UsageError.invalidValue(
                    text, for: option,
                    "expected a seq (12), a time (2025-06-01T12:00:00.5Z) or an offset from the log's first event (+2.5s)"
                )
            }
        }

        /// The instant of a time or offset bound (offsets count from `first`'s time); nil for a seq.
        func instant(after first: EventRecord) -> Int64? {
            switch self {
            case .seq: nil
            case .time(let t): t
            case .offset(let seconds): first.time + Int64((seconds * 1e9).rounded())
            }
        }

        static func instant(_ text: String) -> Date? {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            if let date = formatter.date(from: text) { return date }
            formatter.formatOptions = [.withInternetDateTime]
            return formatter.date(from: text)
        }
    }

    /// Reads `path` and applies the command's `--navigator`, `--from`, `--to` and `--frame-rate`.
    /// A log that is missing, empty, or has no such navigator, or a range with no event, is an error
    /// with a sentence (docs/cli.md, "Pictures").
    static func open(_ path: String, _ inv: Invocation) throws -> LogWindow {
        let from = try inv.parsed.value("from").map { (t: String) throws(UsageError) in try Bound(t, option: "--from") }
        let to = try inv.parsed.value("to").map { (t: String) throws(UsageError) in try Bound(t, option: "--to") }
        let rate = try inv.parsed.value("frame-rate").map { (given: String) throws(UsageError) -> Int in
            guard let r = Int(given), FrameClock.supportedRates.contains(r) else {
                throw UsageError.invalidValue(
                    given, for: "--frame-rate", "expected a whole number of Hz from 1 to 1000")
            }
            return r
        }
        if case .seq(let a)? = from, case .seq(let b)? = to, a > b {
            throw UsageError("--from \(a) is after --to \(b): nothing would be shown.")
        }
        guard path == "-" || FileManager.default.fileExists(atPath: path) else {
            throw IOFailure("\(path) does not exist; pass a data dir (segued's --data-dir) or a JSON Lines export.")
        }
        let all = try LogSource.events(path)
        guard let first = all.first, let last = all.last else {
            throw Refusal("\(path) holds no events: there is nothing to draw.")
        }
        let navigator = inv.parsed.value("navigator")
        if let navigator, !all.contains(where: { $0.navigator == navigator }) {
            let names = Set(all.map(\.navigator)).sorted()
            throw Refusal("There is no navigator \(navigator) in \(path); it has \(names.joined(separator: ", ")).")
        }
        guard let clockRate = rate ?? LogSource.inferFrameRate(all) else {
            throw IOFailure("Cannot tell the log's frame rate; pass --frame-rate.")
        }
        let clock = try FrameClock(rate: clockRate)
        let (kept, stopBefore) = cut(all, to: to, clock: clock)
        var startFrame = Int64.min
        if case .seq(let seq)? = from {
            startFrame = kept.first { $0.seq >= seq }?.frame ?? .max
        } else if let t = from?.instant(after: first) {
            startFrame = clock.frame(atOrAfter: t)
        }
        let shown = kept.filter { $0.frame >= startFrame && (navigator == nil || $0.navigator == navigator) }
        if shown.isEmpty && (from != nil || to != nil) {
            throw Refusal(
                "No event of \(navigator.map { "navigator \($0) in " } ?? "")\(path) falls between --from and --to "
                    + "(its seqs run \(first.seq)–\(last.seq), from \(Self.describe(first.time)) to \(Self.describe(last.time)))."
            )
        }
        return LogWindow(
            path: path, events: kept, clock: clock, startFrame: startFrame, stopBefore: stopBefore, navigator: navigator
        )
    }

    /// `--to`: the events kept, and the frame the replay stops before (that of the first event left
    /// out, or the one after a time bound and after the last event kept).
    static func cut(_ all: [EventRecord], to: Bound?, clock: FrameClock) -> (kept: [EventRecord], stopBefore: Int64) {
        guard let to, let first = all.first else { return (all, .max) }
        var kept = all
        var stopBefore = Int64.max
        if case .seq(let seq) = to {
            kept = all.filter { $0.seq <= seq }
        } else if let t = to.instant(after: first) {
            kept = all.filter { $0.time <= t }
            // An event accepted by `t` takes effect at the next frame: that frame is shown too.
            stopBefore = max(clock.frame(atOrBefore: t), kept.last?.frame ?? .min) + 1
        }
        if let next = all.dropFirst(kept.count).first { stopBefore = min(stopBefore, next.frame) }
        return (kept, stopBefore)
    }

    /// Every frame of the window, through the replay core, into `consumer`.
    func feed<Consumer: FrameConsumer>(_ consumer: inout Consumer) throws {
        try FrameSource.run(events, clock: clock, stopBefore: stopBefore) { frame, events, ticks in
            try consumer.add(frame: frame, events: events, ticks: ticks)
        }
    }

    /// The log's name as pictures show it: the file or directory's last component.
    var name: String { (path as NSString).lastPathComponent }

    static func describe(_ time: Int64) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: Date(timeIntervalSince1970: Double(time) / 1e9))
    }
}

/// The input was read but cannot be drawn (empty, no such navigator, nothing in the range): status 1
/// with the sentence.
struct Refusal: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
