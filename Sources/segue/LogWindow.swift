import Foundation
import SegueClient
import SegueCommandLine
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
    enum Bound: ExpressibleByArgument, Equatable {
        case seq(Int64)
        case time(Int64)
        case offset(Double)

        init(argument text: String) throws(ArgumentValueError) {
            if let seq = Int64(text), seq >= 0, text.first != "+" {
                self = .seq(seq)
            } else if text.hasPrefix("+"), let offset = Self.offset(text.dropFirst()) {
                self = .offset(offset)
            } else if let date = Self.instant(text) {
                self = .time(Int64((date.timeIntervalSince1970 * 1e9).rounded()))
            } else {
                throw ArgumentValueError(
                    "expected a seq (12), a time (2025-06-01T12:00:00.5Z) or an offset from the log's first event (+2.5s, +10m)"
                )
            }
        }

        /// `+0s` is the log's first event; others are lengths of time after it (`+2.5s`, `+300ms`, `+10m`).
        static func offset(_ text: Substring) -> Double? { Seconds.parse(text) }

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
        let from = try inv.parsed.value(PictureOptions.from)
        let to = try inv.parsed.value(PictureOptions.to)
        let rate = try inv.parsed.value(PictureOptions.frameRate)?.hz
        if case .seq(let a)? = from, case .seq(let b)? = to, a > b {
            throw UsageError("--from \(a) is after --to \(b): nothing would be shown.")
        }
        let all = try LogSource.events(path)
        guard let first = all.first, let last = all.last else {
            throw Refusal(.invalidArgument, "\(path) holds no events: there is nothing to draw.")
        }
        let navigator = try inv.parsed.value(PictureOptions.navigator)
        if let navigator { try LogSource.requireNavigator(navigator, in: all, path) }
        let clock = try FrameClock(rate: LogSource.frameRate(all, given: rate))
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
                .invalidArgument,
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
