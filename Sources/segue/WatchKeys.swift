/// The keys typed at `watch`, from the bytes read at each turn of its loop: escape sequences read
/// whole (one split across reads too), text a character at a time, and a lone ESC taken as the
/// Escape key once `escapeWait` has passed with nothing after it. Kept until taken one by one, so
/// that keys typed fast (ten steps) each have their action.
struct WatchKeys {
    private var pending: [TerminalKey] = []
    private var decoder = KeyDecoder()
    /// When a lone ESC was read.
    private var escapeRead: ContinuousClock.Instant?
    static let escapeWait = Duration.milliseconds(50)

    /// Takes the bytes read at `now` (none when nothing was typed).
    mutating func read(_ bytes: [UInt8], now: ContinuousClock.Instant) {
        for byte in bytes {
            guard let key = decoder.feed(byte) else { continue }
            if case .text(let text) = key {
                pending += text.map { .text(String($0)) }
            } else {
                pending.append(key)
            }
        }
        guard decoder.awaitsEscape else {
            escapeRead = nil
            return
        }
        guard let read = escapeRead, bytes.isEmpty else {
            escapeRead = now
            return
        }
        if now - read >= Self.escapeWait, let key = decoder.escapeTimedOut() {
            pending.append(key)
            escapeRead = nil
        }
    }

    /// The oldest key not taken yet.
    mutating func next() -> TerminalKey? { pending.isEmpty ? nil : pending.removeFirst() }
}
