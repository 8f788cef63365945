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
