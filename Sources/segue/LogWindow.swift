import Foundation
import SegueClient
import SegueCommandLine
import SegueCore
import SegueView

/// The part of a log that `timeline` and `view --replay` show: a data dir, a database or an export
/// (standard input too), cut by `--from` and `--to` (each a seq or a time), one navigator's or all
/// of them.
///
/// The log is read twice, an event at a time: once to learn its frame rate and where the window
/// falls (`Survey`), once to replay it into the picture (`feed`). Events before `--from` are folded
/// and dropped, and reading stops at `--to`, so memory holds what is drawn, not the log.
struct LogWindow {
    /// The log as given: what messages and the picture's title name.
    let path: String
    /// What is read: `path`, or standard input's copy.
    let source: String
    let clock: FrameClock
    /// Frames before it are folded but not shown (`--from`).
    let startFrame: Int64
    /// The replay stops before this frame, where the first event left out took effect (`--to`).
    let stopBefore: Int64
    let navigator: String?
    /// The last event replayed (`--to`).
    let lastSeq: Int64

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
            } else if let time = TimeArgument.nanoseconds(text) {
                self = .time(time)
            } else {
                throw ArgumentValueError(
                    "expected a seq (12), a time (2025-06-01T12:00:00.5Z, or local 2025-06-01T14:00) or an offset from the log's "
                        + "first event (+2.5s, +10m)"
                )
            }
        }

        /// `time` plus `seconds`, or the end of time past Int64's (an offset may be 285 years).
        static func time(_ time: Int64, plus seconds: Double) -> Int64 {
            let (sum, overflow) = time.addingReportingOverflow(Int64((seconds * 1e9).rounded()))
            return overflow ? .max : sum
        }

        /// The bound as a message says it: a seq, an instant in UTC, or an offset (`+2.5s`).
        var description: String {
            switch self {
            case .seq(let seq): "\(seq)"
            case .time(let time): LogWindow.describe(time)
            case .offset(let seconds): "+\(JSON.messageText(seconds))s"
            }
        }

        /// `+0s` is the log's first event; others are lengths of time after it (`+2.5s`, `+300ms`, `+10m`).
        static func offset(_ text: Substring) -> Double? { Seconds.parse(text) }

        /// The instant of a time or offset bound (offsets count from `first`'s time); nil for a seq.
        func instant(after first: EventRecord) -> Int64? {
            switch self {
            case .seq: nil
            case .time(let t): t
            case .offset(let seconds): Self.time(first.time, plus: seconds)
            }
        }
    }

    /// Opens `path` (standard input is first copied to a temporary file, removed when `body`
    /// returns), applies the command's `--navigator`, `--from`, `--to` and `--frame-rate`, and
    /// hands the window to `body`. A log that is missing, empty, or has no such navigator, or a
    /// range with no event, is an error with a sentence (docs/cli.md, "Pictures").
    static func open<T>(_ path: String, _ inv: Invocation, _ body: (LogWindow) throws -> T) throws -> T {
        let from = try inv.parsed.value(PictureOptions.from)
        let to = try inv.parsed.value(PictureOptions.to)
        let rate = try inv.parsed.value(PictureOptions.frameRate)?.hz
        if case .seq(let a)? = from, case .seq(let b)? = to, a > b {
            throw UsageError("--from \(a) is after --to \(b): nothing would be shown.")
        }
        let navigator = try inv.parsed.value(PictureOptions.navigator)
        let source = LogSource.isStandardInput(path) ? try LogSource.spoolStandardInput("pictures") : path
        defer { if source != path { try? FileManager.default.removeItem(atPath: source) } }
        var survey = Survey(from: from, to: to, navigator: navigator)
        // A seq bound is read through the frame it cuts (the replay stops before it); a time bound
        // through the frame of the first event past it, since the log says where it falls only as
        // it goes.
        try LogSource.survey(
            source, path: path, bound: { if case .seq(let seq)? = to { seq } else { nil } }(),
            lookingAhead: { survey.look.firstLeftOut != nil }, unfinished: { survey.look.unfinished = true }
        ) { survey.add($0) }
        guard let first = survey.first else {
            throw Refusal(.invalidArgument, "\(path) holds no events: there is nothing to draw.")
        }
        if let navigator, !survey.presence.found {
            // Seen nowhere up to --to: it may still be further on, which says "not in the range".
            let rest = try LogSource.firstSeqs(source, after: survey.lastRead)
            if rest[navigator] == nil, let refusal = survey.presence.refusal(path, more: Set(rest.keys)) {
                throw refusal
            }
        }
        let clock = try FrameClock(rate: LogSource.frameRate(survey.sample, given: rate))
        var startFrame = Int64.min
        if case .seq? = from {
            startFrame = survey.fromSeqFrame ?? .max
        } else if let t = from?.instant(after: first) {
            startFrame = clock.frame(atOrAfter: t)
        }
        let window = LogWindow(
            path: path, source: source, clock: clock, startFrame: startFrame,
            stopBefore: survey.stopBefore(clock: clock), navigator: navigator, lastSeq: survey.lastKept?.seq ?? 0)
        // A window cut by --from or --to that shows no event is refused before it is drawn.
        if from != nil || to != nil, !survey.shows(from: startFrame, before: window.stopBefore) {
            throw try window.emptyRange(from: from, to: to)
        }
        if let cut = survey.cutFrame() { Output.error("segue \(inv.path): " + cut) }
        return try body(window)
    }

    /// What the first read learns: the log's first event and the sample its rate is read from, the
    /// events `--to` keeps (a prefix: seqs and times only grow), the frame `--from` (a seq) starts
    /// at, and whether `--navigator` is there.
    struct Survey {
        let from: Bound?
        let to: Bound?
        private(set) var first: EventRecord?
        private(set) var sample: [EventRecord] = []
        private(set) var lastKept: EventRecord?
        /// From the first event `--to` leaves out.
        var look = LogSource.CutFrameLook()
        /// `--to` as an instant, once the first event tells an offset's origin; nil for a seq.
        private var toTime: Int64?
        /// `--from` as a seq: the frame of the first kept event at or after it.
        private(set) var fromSeqFrame: Int64?
        private(set) var lastRead: Int64 = 0
        private(set) var presence: LogSource.NavigatorPresence
        /// The frame of the last kept event of `--navigator` (of any, without it), and the frame
        /// before it that one took effect in: what the window shows is known before it is drawn.
        private var shownFrame: Int64?
        private var shownFrameBefore: Int64?
        /// The first kept event in the frame of the last kept one.
        private var firstOfLastFrame: EventRecord?

        init(from: Bound?, to: Bound?, navigator: String?) {
            self.from = from
            self.to = to
            presence = LogSource.NavigatorPresence(navigator)
        }

        /// Takes the next event; false once nothing more is needed: past the frame `--to` cuts, whose
        /// last seq is all that is looked for after the first event left out.
        mutating func add(_ event: EventRecord) -> Bool {
            if look.firstLeftOut != nil { return look.take(event) }
            note(event)
            return true
        }

        private mutating func note(_ event: EventRecord) {
            lastRead = event.seq
            if first == nil {
                first = event
                toTime = to?.instant(after: event)
            }
            if sample.count < LogSource.rateSample { sample.append(event) }
            presence.note(event.navigator)
            guard keeps(event) else {
                _ = look.take(event)
                return
            }
            if lastKept?.frame != event.frame { firstOfLastFrame = event }
            lastKept = event
            if case .seq(let seq)? = from, fromSeqFrame == nil, event.seq >= seq { fromSeqFrame = event.frame }
            if presence.navigator == nil || event.navigator == presence.navigator, event.frame != shownFrame {
                shownFrameBefore = shownFrame
                shownFrame = event.frame
            }
        }

        /// The kept events a seq bound leaves undrawn, said: those in the frame of the first event
        /// it leaves out. A frame's ticks show every event of it, so that frame is not drawn.
        func cutFrame() -> String? {
            guard case .seq(let bound)? = to, let lastKept, let firstOfLastFrame else { return nil }
            return look.hint(
                firstOfLastFrame, through: lastKept, bound: bound,
                "a frame's ticks show every event of it, so the picture stops before that frame", "draws it")
        }

        /// Whether the replay shows a kept event of the window (`feed` draws those from `start` on,
        /// in the frames it closes, all before `stop`). Frames only grow, and every kept frame is at
        /// or before the first left out's, where a seq bound stops: only the last frame can be at
        /// `stop`.
        func shows(from start: Int64, before stop: Int64) -> Bool {
            guard let last = shownFrame else { return false }
            guard let frame = last < stop ? last : shownFrameBefore else { return false }
            return frame >= start && frame < stop
        }

        private func keeps(_ event: EventRecord) -> Bool {
            if case .seq(let seq)? = to { return event.seq <= seq }
            return toTime.map { event.time <= $0 } ?? true
        }

        /// The frame the replay stops before: that of the first event `--to` leaves out, and for a
        /// time bound at most the frame after the one it falls in (an event accepted by then takes
        /// effect at the next frame, which is shown too) and after the last event kept.
        func stopBefore(clock: FrameClock) -> Int64 {
            var stop = Int64.max
            if let toTime { stop = max(clock.frame(atOrBefore: toTime), lastKept?.frame ?? .min) + 1 }
            if let firstLeftOut = look.firstLeftOut { stop = min(stop, firstLeftOut.frame) }
            return stop
        }
    }

    /// Every frame of the window, through the replay core (`LogReplay`, the daemon's own frame
    /// path), into `consumer`.
    func feed<Consumer: FrameConsumer>(_ consumer: inout Consumer) throws {
        var replay = LogReplay(clock: clock, stopBefore: stopBefore)
        // The frame body is stored, so it holds the consumer by reference, not the inout.
        var drawn = consumer
        defer { consumer = drawn }
        let body: LogReplay.FrameBody = { frame, events, ticks in
            try drawn.add(frame: frame, events: events, ticks: ticks)
        }
        // A long log takes a while to draw (and view listens only after it): said on a terminal.
        var progress = Progress("reading \(LogSource.named(path)): seq", total: Int(lastSeq))
        defer { progress.finish() }
        try LogSource.forEachEvent(source, upTo: lastSeq) { _, event in
            try replay.add(event, body)
            progress.update(Int(event.seq))
        } atEnd: {
            try replay.finish(body)
        }
    }

    /// No event of the window falls between `--from` and `--to`: said with the bounds as read and
    /// the log's whole range.
    private func emptyRange(from: Bound?, to: Bound?) throws -> Refusal {
        let range =
            try LogSource.ends(source).map { a, b in
                " (its seqs run \(a.seq)–\(b.seq), from \(Self.describe(a.time)) to \(Self.describe(b.time)))"
            } ?? ""
        return Refusal(
            .invalidArgument,
            "No event of \(navigator.map { "navigator \($0) in " } ?? "")\(path) falls between --from "
                + "\(from?.description ?? "the start") and --to \(to?.description ?? "the end")" + range + ".")
    }

    /// The log's name as pictures show it: the file or directory's last component.
    var name: String { (path as NSString).lastPathComponent }

    static func describe(_ time: Int64) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: Date(timeIntervalSince1970: Double(time) / 1e9))
    }
}
