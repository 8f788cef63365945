import Testing

@testable import SegueDaemon

/// Each client's replies leave in the order of its requests, `history` pages read beside the loop
/// included; nobody else waits for a page.
@Suite struct ReplyOrderTests {
    /// What the loop does, in order: a client asks for a page (`ask`), a reply is ready (`reply`),
    /// a page is read (`read`, by its body).
    enum Step {
        case ask(UInt8, String)
        case reply(UInt8, String)
        case read(String)
    }

    /// (steps, the bodies sent, in order)
    static let cases: [([Step], [String])] = [
        ([.reply(1, "a")], ["a"]),
        ([.ask(1, "p"), .read("p")], ["p"]),
        ([.ask(1, "p"), .reply(1, "a"), .read("p")], ["p", "a"]),
        ([.ask(1, "p"), .reply(2, "b"), .read("p")], ["b", "p"]),
        ([.ask(1, "p"), .reply(1, "a"), .reply(2, "b"), .read("p"), .reply(1, "c")], ["b", "p", "a", "c"]),
        ([.ask(1, "p"), .ask(1, "q"), .read("q"), .read("p")], ["p", "q"]),
        ([.ask(1, "p"), .reply(1, "a"), .ask(1, "q"), .reply(1, "b"), .read("q")], []),
        ([.ask(1, "p"), .reply(1, "a"), .ask(1, "q"), .reply(1, "b"), .read("p")], ["p", "a"]),
        ([.ask(1, "p"), .reply(1, "a"), .ask(1, "q"), .reply(1, "b"), .read("p"), .read("q")], ["p", "a", "q", "b"]),
        ([.ask(1, "p"), .ask(2, "q"), .read("q"), .reply(1, "a"), .read("p")], ["q", "p", "a"]),
    ]

    @Test(arguments: cases)
    func repliesLeaveInRequestOrderPerClient(steps: [Step], sent expected: [String]) {
        var order = ReplyOrder()
        var tickets: [String: (Int, UInt8)] = [:]
        var sent: [String] = []
        func body(_ message: [[UInt8]]) -> String { String(decoding: message.last!, as: UTF8.self) }
        for step in steps {
            switch step {
            case .ask(let client, let page):
                tickets[page] = (order.expectPage(for: [[client]]), client)
            case .reply(let client, let text):
                if let message = order.admit([[client], Array(text.utf8)]) { sent.append(body(message)) }
            case .read(let page):
                let (ticket, client) = tickets[page]!
                sent += order.pageRead(ticket, [[client], Array(page.utf8)]).map(body)
            }
        }
        #expect(sent == expected)
        #expect(
            order.isEmpty
                == (steps.filter { if case .ask = $0 { true } else { false } }.count
                    == steps.filter { if case .read = $0 { true } else { false } }.count))
    }
}

/// Clients behind one broker share its connection but not its order: each is its envelope's
/// addresses (`ClientKey`), so a page one of them waits for holds back none of the others' replies.
@Suite struct ClientKeyTests {
    @Test(
        arguments: [
            ([[1]], [[1], []], true),  // a DEALER and a REQ on one connection
            ([[9], [1], []], [[9], [2], []], false),  // two clients of one broker
            ([[9], [1], []], [[9], [1], []], true),
            ([[1, 2], [3], []], [[1], [2, 3], []], false),  // the same bytes, cut apart elsewhere
            ([[9], [1], []], [[9]], false),  // a broker's client and the broker's own request
        ] as [([[UInt8]], [[UInt8]], Bool)])
    func envelopesAreOneClientOnlyWithTheSameAddresses(_ a: [[UInt8]], _ b: [[UInt8]], same: Bool) {
        #expect((ClientKey.of(a[...]) == ClientKey.of(b[...])) == same)
    }

    @Test func aPageForOneClientOfABrokerHoldsBackOnlyThatClientsReplies() {
        var order = ReplyOrder()
        let first: [[UInt8]] = [[9], Array("client-1".utf8), []]
        let second: [[UInt8]] = [[9], Array("client-2".utf8), []]
        let ticket = order.expectPage(for: first)
        #expect(order.admit(second + [Array("b".utf8)]) != nil, "another client of the broker: at once")
        #expect(order.admit(first + [Array("a".utf8)]) == nil, "the same client: behind its page")
        let sent = order.pageRead(ticket, first + [Array("p".utf8)]).map { String(decoding: $0.last!, as: UTF8.self) }
        #expect(sent == ["p", "a"])
        #expect(order.isEmpty)
    }
}
