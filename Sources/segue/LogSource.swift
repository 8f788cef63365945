import Foundation
import SegueCommandLine
import SegueCore
import SeguePostgres
import SegueStore

/// A stored log opened for reading: a data dir's `EventLog` or a PostgreSQL database's.
protocol ReadableLog: EventSequence, CommandSequence {
    func forEachEvent(
        after seq: Int64, through last: Int64, _ body: (EventRecord) throws(StoreError) -> Void
    ) throws(StoreError)
    func integrityCheck() throws(StoreError) -> [String]
    func firstEvent() throws(StoreError) -> EventRecord?
    func lastEvent() throws(StoreError) -> EventRecord?
    /// Who holds the log's writer lock (a segued, an import), or nil.
    func writer() -> String?
}

extension EventLog: ReadableLog {}
extension PostgresEventLog: ReadableLog {}

/// Where `replay`, `verify`, `timeline` and `view` read a log: a data dir (its `segue.db`), a
/// PostgreSQL database (a `postgresql://` URL) or a JSON Lines export.
enum LogSource {
    static func isDataDir(_ path: String) -> Bool {
        var isDir: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDir) && isDir.boolValue
    }

    /// A PostgreSQL log, where a data dir may be given: a `postgresql://` or `postgres://` URL (the
    /// scheme in any case), or a libpq keyword conninfo (`dbname=segue host=/run/postgresql`), as
    /// segued's `store.conninfo` takes it. Taken for a path, either became a local data dir that
    /// `import` and `migrate` created and wrote, reporting success. A path that exists is a path.
    static func isStoreURL(_ place: String) -> Bool {
        if ConnectionSettings.isURL(place) { return true }
        return place.wholeMatch(of: #/\s*[A-Za-z_]+\s*=.*/#) != nil && !FileManager.default.fileExists(atPath: place)
    }

    /// A stored log (a data dir or a PostgreSQL database), read-only: no write connection, no schema
    /// migration and no writer lock, so the segued writing it keeps working (`EventLog`,
    /// `PostgresEventLog`).
    static func openLog(_ place: String) throws -> any ReadableLog {
        guard isStoreURL(place) else { return try openDataDir(place) }
        do { return try PostgresEventLog(conninfo: place) } catch { throw IOFailure(error.message) }
    }

    /// How far past a `--to` seq the events of its cut frame are read, to name the frame's last seq.
    static let cutFrameLookAhead: Int64 = 1000

    /// What a survey sees from the first event a `--to` seq leaves out: that event, and the last one
    /// read in its frame. A frame's events are shown together, so kept events that share it are not
    /// shown, and the hint names the frame's last seq.
    struct CutFrameLook {
        private(set) var firstLeftOut: EventRecord?
        private var lastOfFrame: EventRecord?
        /// The look met an event it could not read before the frame ended.
        var unfinished = false

        /// Takes an event past the bound; false once past the first left-out one's frame.
        mutating func take(_ event: EventRecord) -> Bool {
            let first = firstLeftOut ?? event
            firstLeftOut = first
            guard event.frame == first.frame else { return false }
            lastOfFrame = event
            return true
        }

        /// The kept events `first` through `last` in the cut frame, said, or nil when `last` is not in
        /// it: `consequence` is what the command does about that frame, `remedy` what `--to` the
        /// frame's last seq does ("or later" when the look did not reach the frame's end).
        func hint(
            _ first: EventRecord, through last: EventRecord, bound: Int64, _ consequence: String, _ remedy: String
        ) -> String? {
            guard let next = firstLeftOut, last.frame == next.frame else { return nil }
            let end = lastOfFrame?.seq ?? next.seq
            let kept = first.seq == last.seq ? "seq \(last.seq) takes" : "seqs \(first.seq)–\(last.seq) take"
            let after = end == next.seq ? "seq \(next.seq)" : "seqs \(next.seq)–\(end)"
            let more = end - bound >= cutFrameLookAhead || unfinished ? " or later" : ""
            return "\(kept) effect in frame \(last.frame) with \(after), after --to \(bound): \(consequence) "
                + "(--to \(end)\(more) \(remedy))."
        }
    }

    /// A survey's read of `source`: to its end, or with a `--to` seq (`bound`) through the events of
    /// the frame it cuts (`CutFrameLook`), at most `cutFrameLookAhead` past it. `add` takes each event
    /// and says whether it needs more, and the read ends when it does not. Past the bound
    /// (`lookingAhead`) an event that cannot be read ends the look (`unfinished`), not the command,
    /// which reads nothing past the bound but the event after it. A long read shows a progress line
    /// naming `path` (the log as the command line gave it).
    static func survey(
        _ source: String, path: String, bound: Int64?, lookingAhead: () -> Bool, unfinished: () -> Void,
        _ add: (EventRecord) -> Bool
    ) throws {
        struct ReadEnough: Error {}
        var progress = Progress("looking through \(named(path)): seq", total: bound.map { Int($0) })
        defer { progress.finish() }
        func read(after: Int64, upTo: Int64) throws {
            try forEachEvent(source, after: after, upTo: upTo) { _, event in
                guard add(event) else { throw ReadEnough() }
                progress.update(Int(event.seq))
            }
        }
        let last = bound.map { $0 > .max - cutFrameLookAhead ? .max : $0 + cutFrameLookAhead } ?? .max
        do {
            // A store reads ahead a page at a time: past the event after the bound, apart, so that
            // what it reads ahead is only ever the look's.
            if isDataDir(source) || isStoreURL(source), let bound, bound < last - 1 {
                try read(after: 0, upTo: bound + 1)
                if lookingAhead() { try read(after: bound + 1, upTo: last) }
            } else {
                try read(after: 0, upTo: last)
            }
        } catch is ReadEnough {
        } catch  where lookingAhead() {
            unfinished()
        }
    }

    /// A log given that is not there, said the same way by every command that reads one.
    static func missing(_ place: String, export: Bool = true) -> IOFailure {
        IOFailure(
            "\(place) does not exist; pass a data dir (segued's --data-dir)"
                + (export ? ", a postgresql:// URL or a JSON Lines export." : " or a postgresql:// URL."))
    }

    private static func openDataDir(_ dir: String) throws -> EventLog {
        guard FileManager.default.fileExists(atPath: dir) else { throw missing(dir, export: false) }
        guard isDataDir(dir) else {
            throw IOFailure("\(dir) is a file, not a data dir; pass the daemon's data dir (--data-dir of segued).")
        }
        let path = (dir as NSString).appendingPathComponent("segue.db")
        guard FileManager.default.fileExists(atPath: path) else {
            throw IOFailure("\(dir) holds no segue.db; pass the daemon's data dir (--data-dir of segued).")
        }
        do { return try EventLog(path: path) } catch {
            throw IOFailure("Cannot open \(path): \(error.message)", store: error)
        }
    }

    /// Calls `body` with each event of the log at `path`, in seq order, and its 1-based line in a JSON
    /// Lines file (nil for a data dir or a database), holding one event at a time: a check of a log
    /// of any size takes the memory of its state, not of its events. `upTo` stops early.
    ///
    /// Each line is read as the importer stores it: a member this build does not know is refused (it
    /// would be lost), with the question whether a newer segue wrote the file. Such a line, and any
    /// other that is not an event, is an `IOFailure` about the content, naming the file and line.
    ///
    /// `atEnd` runs after the last event, its fold failures said as the body's are: a replay folds
    /// its last frame's events there.
    static func forEachEvent(
        _ path: String, after first: Int64 = 0, upTo last: Int64 = .max,
        _ body: (_ line: Int?, _ event: EventRecord) throws -> Void, atEnd: (() throws -> Void)? = nil
    ) throws {
        if isDataDir(path) || isStoreURL(path) {
            let log = try openLog(path)
            // The store's reader takes a body that throws only its own errors: the body's are carried
            // out, and the walk is ended at once with one of the store's kind, which the body's replaces.
            var failure: (any Error)?
            do {
                try log.forEachEvent(after: first, through: last) { record throws(StoreError) in
                    do { try folding(path, line: nil, record, body) } catch {
                        failure = error
                        throw StoreError(kind: .closed, message: "stopped by an error in what read the log")
                    }
                }
            } catch {
                if let failure { throw failure }
                throw IOFailure("Reading \(path) failed: \(error.message)", store: error)
            }
            if let atEnd { try placingFoldFailures(path, lineOf: { _ in nil }, atEnd) }
            return
        }
        let stdin = isStandardInput(path)
        guard stdin || FileManager.default.fileExists(atPath: path) else { throw missing(path) }
        if !stdin, isSQLiteDatabase(path) {
            let dir = (path as NSString).deletingLastPathComponent
            throw IOFailure(
                "\(path) is a SQLite database, the log of the data dir \(dir.isEmpty ? "." : dir), not a JSON Lines "
                    + "export: give the data dir where a command takes a log, or export it first (segue export "
                    + "--data-dir \(dir.isEmpty ? "." : dir) -o FILE).", isContent: true)
        }
        let lines: EventLines
        do { lines = try EventLines(stdin ? "-" : path) } catch {
            throw IOFailure("Cannot read \(path): it is neither a data dir nor a readable JSON Lines file.")
        }
        var recent = RecentLines()
        while true {
            let next: (line: Int, event: EventRecord)?
            do { next = try lines.next() } catch { throw contentFailure(error, in: path) }
            guard let (line, event) = next, event.seq <= last else { break }
            guard event.seq > first else { continue }
            recent.note(event.seq, line)
            try folding(path, line: line, event, lineOf: recent.line(of:), body)
        }
        if let atEnd { try placingFoldFailures(path, lineOf: recent.line(of:), atEnd) }
    }

    /// `body` with `event`: an event the core cannot fold (a gap, a revision out of step) is said
    /// with where it is, as `verify` says it (`FILE line 4 (seq 5): …`), a log found wrong. The
    /// event may be an earlier one the body held back: its line is looked up by its seq.
    static func folding(
        _ path: String, line: Int?, _ event: EventRecord, lineOf: (Int64) -> Int? = { _ in nil },
        _ body: (_ line: Int?, _ event: EventRecord) throws -> Void
    ) throws {
        try placingFoldFailures(path, seq: event.seq, lineOf: { $0 == event.seq ? line : lineOf($0) }) {
            try body(line, event)
        }
    }

    /// `work`, a fold failure in it said with its event's line when it is known (`seq`: the event a
    /// failure that names none is about).
    static func placingFoldFailures(
        _ path: String, seq current: Int64? = nil, lineOf: (Int64) -> Int?, _ work: () throws -> Void
    ) throws {
        do { try work() } catch let error as CoreError {
            let seq = error.seq ?? current
            let problem =
                seq.flatMap { seq in lineOf(seq).map { "Line \($0) (seq \(seq)): \(error.message)" } } ?? error.message
            throw IOFailure(placed(problem, in: path), isContent: true)
        }
    }

    /// The lines of the last events read, by seq: enough for the events a replay holds back (one
    /// frame's); an older one is said without its line.
    struct RecentLines {
        private var entries: [(seq: Int64, line: Int)] = []
        private var next = 0
        static let capacity = 4096

        mutating func note(_ seq: Int64, _ line: Int) {
            if entries.count < Self.capacity { entries.append((seq, line)) } else { entries[next] = (seq, line) }
            next = (next + 1) % Self.capacity
        }

        /// Looked up only when a fold fails.
        func line(of seq: Int64) -> Int? { entries.first { $0.seq == seq }?.line }
    }

    /// A file that opens with SQLite's header: a `segue.db` given where its data dir was meant.
    static func isSQLiteDatabase(_ path: String) -> Bool {
        // Only a regular file: what a pipe gave up to this look would be lost to the reading.
        var status = stat()
        guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG,
            let handle = FileHandle(forReadingAtPath: path)
        else { return false }
        defer { try? handle.close() }
        return (try? handle.read(upToCount: 16)) == Data("SQLite format 3\0".utf8)
    }

    /// `-` or `/dev/stdin`: read once, as it comes.
    static func isStandardInput(_ path: String) -> Bool { path == "-" || path == "/dev/stdin" }

    /// Copies standard input to a temporary file, for a command that reads a log twice (`import`,
    /// `replay`); removed on SIGINT, SIGTERM and SIGHUP, and by the caller when done.
    static func spoolStandardInput(_ command: String) throws -> String {
        let path = NSTemporaryDirectory() + "segue-\(command)-\(getpid())-stdin.jsonl"
        TemporaryFiles.removeOnSignal([path])
        guard FileManager.default.createFile(atPath: path, contents: nil),
            let output = FileHandle(forWritingAtPath: path)
        else { throw IOFailure("Cannot create the temporary file \(path) to hold standard input.") }
        defer { try? output.close() }
        do {
            while let chunk = try FileHandle.standardInput.read(upToCount: 1 << 20), !chunk.isEmpty {
                try output.write(contentsOf: chunk)
            }
        } catch {
            try? FileManager.default.removeItem(atPath: path)
            throw IOFailure("Cannot copy standard input to \(path): \(IOFailure.reason(error)).")
        }
        return path
    }

    /// A line of `path` that is not an event (`EventLines`), said with the file's name; a file that
    /// cannot be read as it is, as such.
    static func contentFailure(_ error: StoreError, in path: String) -> IOFailure {
        guard error.kind == .invalidData, error.message.hasPrefix("Line ") else {
            return IOFailure("Cannot read \(named(path)): \(error.message)")
        }
        return IOFailure(placed(error.message, in: path), isContent: true)
    }

    /// A problem said with the file it is in: `FILE line 12 (seq 12): …` for one that starts with its
    /// line, as compilers and grep say it, `FILE: …` for any other.
    static func placed(_ problem: String, in path: String) -> String {
        let name = named(path)
        if problem.hasPrefix(name) { return problem }
        if problem.hasPrefix("Line ") { return "\(name) line" + problem.dropFirst("Line".count) }
        return "\(name): \(problem)"
    }

    /// A log's name in what is said of it: `-` is "standard input".
    static func named(_ path: String) -> String { isStandardInput(path) ? "standard input" : path }

    /// The rate to read `events` at: the log's own, or `given` (`--frame-rate`) where the log cannot
    /// tell (60 Hz for no events). A given rate the log's events fit worse than its own is refused:
    /// every frame number would be read as another instant (ticks at the wrong times, a session drawn
    /// decades away).
    static func frameRate(_ events: [EventRecord], given: Int?) throws -> Int {
        let inferred = inferFrameRate(events)
        let sample = events.prefix(rateSample)
        if let given, let inferred, given != inferred,
            (fit(of: given, sample) ?? -1) < (fit(of: inferred, sample) ?? 0)
        {
            throw UsageError(
                "--frame-rate \(given) does not match the log, which was recorded at \(inferred) Hz: its events' "
                    + "times fall outside their frames at \(given) Hz. Leave --frame-rate out (the log's rate is "
                    + "read from it) or pass \(inferred).")
        }
        guard let rate = given ?? inferred ?? (events.isEmpty ? 60 : nil) else {
            throw IOFailure("Cannot tell the log's frame rate; pass --frame-rate.")
        }
        return rate
    }

    /// How many events the frame rate is inferred from.
    static let rateSample = 200

    /// The frame rate a log was recorded at: the one rate whose clock puts every event's time in
    /// its frame (frame F−1's instant < time ≤ frame F's instant, up to the log's monotonic clamp).
    static func inferFrameRate(_ events: [EventRecord]) -> Int? {
        let sample = events.prefix(rateSample)
        // frame ≈ time × rate / 10⁹, so the rate is within one of this estimate.
        guard let e0 = sample.first(where: { $0.time > 0 }) else { return nil }
        let estimate = Int((Double(e0.frame) * 1e9 / Double(e0.time)).rounded())
        var best: (rate: Int, score: Int)?
        for rate in (estimate - 1)...(estimate + 1) {
            if let score = fit(of: rate, sample), score > (best?.score ?? 0) { best = (rate, score) }
        }
        return best?.rate
    }

    /// How many of `sample`'s events fall in their frame at `rate`; nil when one's time is at or before
    /// the frame ahead of its own (it cannot have been recorded at this rate), or when segued does not
    /// run at `rate`.
    private static func fit(of rate: Int, _ sample: ArraySlice<EventRecord>) -> Int? {
        guard FrameClock.supportedRates.contains(rate) else { return nil }
        let clock = try! FrameClock(rate: rate)
        var score = 0
        for e in sample {
            guard clock.instant(ofFrame: e.frame - 1) < e.time else { return nil }
            if clock.instant(ofFrame: e.frame) >= e.time { score += 1 }
        }
        return score
    }

    /// Whether `--navigator` turns up among the events read, and the names read until it does (for
    /// the refusal): what `replay` and the pictures learn on their first read.
    struct NavigatorPresence {
        let navigator: String?
        private(set) var found = false
        /// Every navigator's name, kept only while `navigator` has not been seen.
        private(set) var names = Set<String>()

        init(_ navigator: String?) { self.navigator = navigator }

        mutating func note(_ name: String) {
            guard navigator != nil, !found else { return }
            found = name == navigator
            if found { names = [] } else { names.insert(name) }
        }

        /// The refusal of a `navigator` not found, also given the names read elsewhere (`more`).
        func refusal(_ path: String, more: Set<String> = []) -> Refusal? {
            guard let navigator, !found else { return nil }
            return unknownNavigator(navigator, names: names.union(more), path)
        }
    }

    /// A log's first and last events (nil when it holds none): a store's are read by seq, a file's
    /// by reading it to its end.
    static func ends(_ source: String) throws -> (first: EventRecord, last: EventRecord)? {
        if isDataDir(source) || isStoreURL(source) {
            let log = try openLog(source)
            do {
                guard let first = try log.firstEvent(), let last = try log.lastEvent() else { return nil }
                return (first, last)
            } catch {
                throw IOFailure("Reading \(source) failed: \(error.message)", store: error)
            }
        }
        var ends: (first: EventRecord, last: EventRecord)?
        try forEachEvent(source) { _, event in ends = (ends?.first ?? event, event) }
        return ends
    }

    /// The navigators of a log's events after `seq`, each with the seq of its first event there: what
    /// a refusal of `--navigator` says when the first read stopped at `--to`.
    static func firstSeqs(_ source: String, after seq: Int64) throws -> [String: Int64] {
        var first: [String: Int64] = [:]
        try forEachEvent(source) { _, event in
            if event.seq > seq, first[event.navigator] == nil { first[event.navigator] = event.seq }
        }
        return first
    }

    /// `--navigator` names none of the log's navigators (`names`): the first of them as a person
    /// numbers them, and how many more, so that a fleet of thousands is one short line.
    static func unknownNavigator(_ navigator: String, names: Set<String>, _ path: String) -> Refusal {
        let sorted = names.sortedAsNumbered()
        let shown = sorted.prefix(namesListed).joined(separator: ", ")
        let more = sorted.count > namesListed ? " and \(sorted.count - namesListed) more" : ""
        return Refusal(
            .unknownNavigator,
            "\(path) has no navigator \(navigator)"
                + (sorted.isEmpty
                    ? " (it holds no events)."
                    : sorted.count > namesListed
                        ? "; it has \(sorted.count) navigators: \(shown)\(more)." : "; it has \(shown)."))
    }

    /// How many of a log's navigator names a refusal lists.
    static let namesListed = 10
}

/// `--frame-rate`: a whole number of Hz the frame clock supports.
struct FrameRate: ExpressibleByArgument, Equatable {
    var hz: Int
    init(argument: String) throws(ArgumentValueError) {
        let rates = FrameClock.supportedRates
        guard let hz = Int(argument), rates.contains(hz), argument.first != "+" else {
            throw ArgumentValueError("expected a whole number of Hz from \(rates.lowerBound) to \(rates.upperBound)")
        }
        self.hz = hz
    }
}
