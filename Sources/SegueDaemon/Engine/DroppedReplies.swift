/// Replies a client's full queue refused (`ZMQ_ROUTER_MANDATORY` says so where a ROUTER would drop
/// them without a word): a client that pipelines requests without reading the replies fills the
/// command socket's 10,000-message queue, and the replies past it are lost while the commands stand.
/// Logged at once, then at most once per `HeldBackLines.interval` with the count since.
struct DroppedReplies {
    private var lines = HeldBackLines()

    /// Counts one; the line to log now, if any.
    mutating func dropped(now: Int64) -> String? {
        lines.noted(now: now).map { line($0.held + 1) }
    }

    /// The line for the drops held back since the last one, once the interval has passed (at a
    /// stop, `now: .max`: whatever is left).
    mutating func flush(now: Int64) -> String? {
        lines.pending(now: now).map { line($0.held) }
    }

    private func line(_ count: Int) -> String {
        "Dropped \(count == 1 ? "1 reply" : "\(count) replies") to a connection that does not read them (behind a "
            + "broker, every client behind it): its queue of 10000 unread replies is full. Their requests were served, "
            + "commands among them applied; a client must read its replies, or keep fewer requests in flight."
    }
}
