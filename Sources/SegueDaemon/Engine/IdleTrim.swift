/// When the engine asks for the heap's free pages back (`HeapTrim.trim`): once per quiet spell,
/// `quiet` after the last request, so that a busy daemon never pays for the walk and an idle one
/// gives back what its last burst left free.
struct IdleTrim {
    /// Five seconds without a request (monotonic nanoseconds).
    static let quiet: Int64 = 5_000_000_000

    /// The request count when last looked at; -1 before the first look, so start-up counts as work.
    private var requestsSeen: Int64 = -1
    /// When the count last moved; nil once this quiet spell was trimmed.
    private var quietSince: Int64?

    /// Whether to trim now, given the requests received so far and the monotonic `now` (called from
    /// housekeeping, about once a second).
    mutating func isDue(requests: Int64, now: Int64) -> Bool {
        if requests != requestsSeen {
            requestsSeen = requests
            quietSince = now
            return false
        }
        guard let since = quietSince, now - since >= Self.quiet else { return false }
        quietSince = nil
        return true
    }
}
