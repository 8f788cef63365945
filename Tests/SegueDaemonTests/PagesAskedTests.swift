import Testing

@testable import SegueDaemon

/// The `history` pages one client, and the daemon, may wait for at once.
@Suite struct PagesAskedTests {
    /// (pages asked by client 1, by client 2, answered for client 1; is a page for client 1 refused?)
    static let cases: [(Int, Int, Int, Bool)] = [
        (0, 0, 0, false), (7, 0, 0, false), (8, 0, 0, true), (8, 0, 1, false), (8, 56, 1, false),
        (7, 57, 0, true), (7, 57, 1, false), (0, 64, 0, true),
    ]

    @Test(arguments: cases)
    func boundsPerClientAndInAll(first: Int, second: Int, answered: Int, refused: Bool) {
        var asked = PagesAsked()
        for _ in 0..<first { asked.ask(for: [[1]]) }
        for _ in 0..<second { asked.ask(for: [[2], []]) }
        for _ in 0..<answered { asked.answered(for: [[1]]) }
        #expect((asked.refusal(for: [[1]]) != nil) == refused)
        #expect(asked.count == first + second - answered)
    }
}
