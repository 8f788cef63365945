/// Keeps each client's replies in the order of its requests while `history` pages (and `list`s) are
/// read beside the loop (`BackgroundReads`): a reply to a client that still waits for one goes out after it.
/// Other clients' replies, and publications, wait for nothing.
///
/// Clients are told apart by their envelope (`ClientKey`): the ROUTER routing id, and behind a
/// broker the client's address within its connection.
///
/// It also bounds the pages waiting to be read or sent: at most `pagesPerClient` for one client and
/// `pagesInAll` for the daemon, so that a client pipelining pages (or many clients filling gaps at
/// once) queue bounded work on the history thread. Past a bound the request gets `unavailable`.
struct ReplyOrder {
    static let pagesPerClient = 8
    static let pagesInAll = 64

    private enum Entry {
        case page(Int)
        case reply([[UInt8]])
    }

    /// The clients with a page being read, and what waits behind it, in request order.
    private var waiting: [[UInt8]: [Entry]] = [:]
    private var nextTicket = 0
    /// Pages asked for and not yet read, every client's.
    private(set) var pages = 0

    /// Whether nothing waits: the common case, where every reply goes out at once.
    var isEmpty: Bool { waiting.isEmpty }

    /// Why a page for the client of `envelope` cannot be asked for now; nil when it can.
    func refusal(for envelope: [[UInt8]]) -> String? {
        let own = waiting[ClientKey.of(envelope[...])]?.count { if case .page = $0 { true } else { false } } ?? 0
        if own >= Self.pagesPerClient {
            return
                "This client already waits for \(Self.pagesPerClient) history pages or lists; ask for the next once "
                + "one arrives."
        }
        if pages >= Self.pagesInAll {
            return "segued is reading \(Self.pagesInAll) history pages or lists already; ask again in a moment."
        }
        return nil
    }

    /// A page is being read for the client of `envelope`; its reply comes back with the ticket.
    mutating func expectPage(for envelope: [[UInt8]]) -> Int {
        nextTicket += 1
        pages += 1
        waiting[ClientKey.of(envelope[...]), default: []].append(.page(nextTicket))
        return nextTicket
    }

    /// `message` (envelope and body) when it may go out now; nil when it waits behind a page.
    mutating func admit(_ message: [[UInt8]]) -> [[UInt8]]? {
        let client = Self.client(message)
        guard waiting[client] != nil else { return message }
        waiting[client]!.append(.reply(message))
        return nil
    }

    /// The page of `ticket` is read (`message`: its envelope and body): what may go out now, in order.
    mutating func pageRead(_ ticket: Int, _ message: [[UInt8]]) -> [[[UInt8]]] {
        let client = Self.client(message)
        guard waiting[client] != nil else { return [message] }
        // In place (the dictionary's `_modify`): the entries are not copied, whatever their number.
        guard let ready = Self.settle(&waiting[client, default: []], ticket, message) else { return [message] }
        pages -= 1
        if waiting[client]?.isEmpty == true { waiting[client] = nil }
        return ready
    }

    /// Puts the page in its place, then takes every reply before the first page still being read;
    /// nil when no such page waits.
    private static func settle(_ entries: inout [Entry], _ ticket: Int, _ message: [[UInt8]]) -> [[[UInt8]]]? {
        guard let index = entries.firstIndex(where: { if case .page(ticket) = $0 { true } else { false } }) else {
            return nil
        }
        entries[index] = .reply(message)
        let ends = entries.firstIndex { if case .page = $0 { true } else { false } } ?? entries.endIndex
        var ready: [[[UInt8]]] = []
        for case .reply(let out) in entries[..<ends] { ready.append(out) }
        entries.removeSubrange(..<ends)
        return ready
    }

    /// The client of `message`, an envelope and its body.
    private static func client(_ message: [[UInt8]]) -> [UInt8] { ClientKey.of(message.dropLast()) }
}
