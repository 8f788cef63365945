import Testing

@testable import SegueDaemon

/// The `history` pages one client, and the daemon, may wait for at once (`ReplyOrder`).
@Suite struct ReplyOrderBoundsTests {
    /// (pages asked by client 1, by client 2, read for client 1; is a page for client 1 refused?)
    static let cases: [(Int, Int, Int, Bool)] = [
        (0, 0, 0, false), (7, 0, 0, false), (8, 0, 0, true), (8, 0, 1, false), (8, 56, 1, false),
        (7, 57, 0, true), (7, 57, 1, false), (0, 64, 0, true),
    ]

    @Test(arguments: cases)
    func boundsPerClientAndInAll(first: Int, second: Int, read: Int, refused: Bool) {
        var order = ReplyOrder()
        let tickets = (0..<first).map { _ in order.expectPage(for: [[1]]) }
        for _ in 0..<second { _ = order.expectPage(for: [[2], []]) }
        for ticket in tickets.prefix(read) { _ = order.pageRead(ticket, [[1], Array("page".utf8)]) }
        #expect((order.refusal(for: [[1]]) != nil) == refused)
        #expect(order.pages == first + second - read)
    }
}
