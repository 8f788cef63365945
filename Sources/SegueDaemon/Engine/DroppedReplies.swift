/// Replies a client's full queue refused (`ZMQ_ROUTER_MANDATORY` says so where a ROUTER would drop
/// them without a word): a client that pipelines requests without reading the replies fills the
/// command socket's 10,000-message queue, and the replies past it are lost while the commands stand.
/// Logged at once, then at most once per `interval` with the count since.
struct DroppedReplies {
    /// Nanoseconds between two lines.
    static let interval: Int64 = 10_000_000_000

    private(set) var total = 0
    private var held = 0
    private var lastLine: Int64?

    /// Counts one; the line to log now, if any.
    mutating func dropped(now: Int64) -> String? {
        total += 1
        held += 1
        if let lastLine, now - lastLine < Self.interval { return nil }
        return line(now: now)
    }

    /// The line for the drops counted since the last one, once `interval` has passed (at a stop,
    /// `now: .max`: whatever is left).
    mutating func flush(now: Int64) -> String? {
        guard held > 0, let lastLine, now - lastLine >= Self.interval else { return nil }
        return line(now: now)
    }

    private mutating func line(now: Int64) -> String {
        defer {
            held = 0
            lastLine = now
        }
        return "Dropped \(held == 1 ? "1 reply" : "\(held) replies") to a connection that does not read them (behind a "
            + "broker, every client behind it): its queue of 10000 unread replies is full. Their requests were served, "
            + "commands among them applied; a client must read its replies, or keep fewer requests in flight."
    }
}
