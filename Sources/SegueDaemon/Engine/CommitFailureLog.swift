/// When a failed commit is worth a log line. On a full disk every command's commit fails: one
/// `error` line per command would flood the journal, so the first failure is logged at once, later
/// ones at most once a second as a count with the last error, and the recovery once, when commits
/// have gone on succeeding for a second with no failure among them: on a full disk a small commit
/// can fit in room the WAL already has and the next fail again, and a recovery line then would tell
/// an alert the fault was over.
struct CommitFailureLog {
    static let interval: Int64 = 1_000_000_000

    /// When the last line went out (monotonic nanoseconds).
    private var loggedAt: Int64?
    /// Failures since that line, and the last one's text.
    private var unlogged = 0
    private var last = ""
    /// Failures since commits last recovered.
    private var failing = 0
    /// The first success after the last failure, while `failing`.
    private var succeededAt: Int64?

    /// Notes a failure; when it is to be logged now, how many earlier ones went unlogged since the
    /// last line (nil: not now).
    mutating func failed(_ error: String, now: Int64) -> Int? {
        failing += 1
        succeededAt = nil
        if let loggedAt, now - loggedAt < Self.interval {
            unlogged += 1
            last = error
            return nil
        }
        defer { unlogged = 0 }
        loggedAt = now
        return unlogged
    }

    /// Notes `error`; when it is to be logged now, its text for the line: without its own full stop
    /// (the line goes on after it) and with the count of earlier ones not logged (nil: not now).
    mutating func reason(_ error: some Error, now: Int64) -> String? {
        var text = "\(error)"
        guard let earlier = failed(text, now: now) else { return nil }
        if text.hasSuffix(".") { text.removeLast() }
        return earlier > 0 ? "\(text) (\(earlier) more failed since the last report)" : text
    }

    /// The failures not logged yet and the last one, once `interval` has passed since the last line.
    mutating func pending(now: Int64) -> (count: Int, last: String)? {
        guard unlogged > 0, let loggedAt, now - loggedAt >= Self.interval else { return nil }
        defer {
            self.loggedAt = now
            unlogged = 0
        }
        return (unlogged, last)
    }

    /// Notes a success; `recovered(now:)` once it is one.
    mutating func succeeded(now: Int64) -> Int? {
        guard failing > 0 else { return nil }
        if succeededAt == nil { succeededAt = now }
        return recovered(now: now)
    }

    /// The number of failures before the recovery, once commits have succeeded for `interval` with
    /// none failing (nil: not yet, or nothing to recover from). Asked at each success and once a
    /// second, so the line comes even when commits stop.
    mutating func recovered(now: Int64) -> Int? {
        guard failing > 0, let succeededAt, now - succeededAt >= Self.interval else { return nil }
        defer {
            failing = 0
            unlogged = 0
            loggedAt = nil
            self.succeededAt = nil
        }
        return failing
    }
}
