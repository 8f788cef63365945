/// The `history` pages waiting to be read or sent, by client: at most `perClient` for one client and
/// `total` for the daemon, so that a client pipelining pages (or many clients filling gaps at once)
/// queue bounded work on the history thread. Past a bound the request gets `unavailable` at once.
struct PagesAsked {
    static let perClient = 8
    static let total = 64

    private var byClient: [[UInt8]: Int] = [:]
    private(set) var count = 0

    /// Why a page for the client of `envelope` cannot be asked for now; nil when it can.
    func refusal(for envelope: [[UInt8]]) -> String? {
        if byClient[envelope.first ?? [], default: 0] >= Self.perClient {
            return "This client already waits for \(Self.perClient) history pages; ask for the next once one arrives."
        }
        if count >= Self.total {
            return "segued is reading \(Self.total) history pages already; ask again in a moment."
        }
        return nil
    }

    mutating func ask(for envelope: [[UInt8]]) {
        byClient[envelope.first ?? [], default: 0] += 1
        count += 1
    }

    mutating func answered(for envelope: [[UInt8]]) {
        let client = envelope.first ?? []
        guard let asked = byClient[client] else { return }
        byClient[client] = asked > 1 ? asked - 1 : nil
        count -= 1
    }
}
