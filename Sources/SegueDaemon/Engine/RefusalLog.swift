/// The ZAP handler's refusals, as log lines an unauthenticated flood cannot multiply: anyone who can
/// reach the port can open connections with unlisted keys, thousands a second. A refusal is logged
/// whole at most once per `HeldBackLines.interval`; those in between are counted, with their keys,
/// and said in one line once the interval has passed.
struct RefusalLog {
    /// Distinct keys counted at most, so a flood of new keys cannot grow the set without bound.
    static let keysCounted = 1_000

    private var lines = HeldBackLines()
    private var heldKeys: Set<String> = []

    /// The line to log for a refusal at `now` (monotonic ns), or nil when it is only counted. `key` is
    /// the client's public key, nil for a client without CURVE.
    mutating func refused(_ line: String, key: String?, now: Int64) -> String? {
        guard let earlier = lines.noted(now: now) else {
            if let key, heldKeys.count < Self.keysCounted { heldKeys.insert(key) }
            return nil
        }
        guard let counted = described(earlier.held) else { return line }
        return "\(line) Before it, \(counted)."
    }

    /// The line for the refusals counted, once the interval has passed since the last line (at the
    /// end, `now: .max`: whatever is left).
    mutating func flush(now: Int64) -> String? {
        guard let pending = lines.pending(now: now), let counted = described(pending.held) else { return nil }
        return "Refused more clients: \(counted)."
    }

    /// "12 more refusals in 10 s, from 5 keys"; nil when none were held back.
    private mutating func described(_ held: Int) -> String? {
        defer { heldKeys = [] }
        guard held > 0 else { return nil }
        let more = heldKeys.count == Self.keysCounted ? " or more" : ""
        let keys = heldKeys.isEmpty ? "" : ", from \(heldKeys.count.counted("key"))\(more)"
        return "\(held.counted("more refusal")) in \(HeldBackLines.interval / 1_000_000_000) s\(keys)"
    }
}
