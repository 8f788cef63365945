import Testing

@testable import SegueDaemon

/// Pages waiting for the history thread, clients taking turns (`TakingTurns`).
@Suite struct TakingTurnsTests {
    /// (steps: "a1" appends item 1 for client a, "-" takes the next; the items taken, in order)
    static let cases: [([String], [String])] = [
        ([], []),
        (["-"], []),
        (["a1", "a2", "a3", "-", "-", "-", "-"], ["a1", "a2", "a3"]),
        // A backlog holds another client up by the one item in progress only.
        (["a1", "a2", "a3", "a4", "b1", "-", "-", "-", "-", "-"], ["a1", "b1", "a2", "a3", "a4"]),
        (["a1", "a2", "b1", "b2", "c1", "-", "-", "-", "-", "-"], ["a1", "b1", "c1", "a2", "b2"]),
        // A client whose items were all taken joins at the end of the turns when it asks again.
        (["a1", "b1", "-", "a2", "-", "-"], ["a1", "b1", "a2"]),
        (["a1", "b1", "b2", "-", "-", "a2", "-", "-"], ["a1", "b1", "b2", "a2"]),
    ]

    @Test(arguments: cases)
    func clientsTakeTurns(steps: [String], taken: [String]) {
        var turns = TakingTurns<Character, String>()
        var out: [String] = []
        for step in steps {
            if step == "-" {
                if let item = turns.next() { out.append(item) }
            } else {
                turns.append(step, for: step.first!)
            }
        }
        #expect(out == taken)
        #expect(turns.isEmpty)
    }
}
