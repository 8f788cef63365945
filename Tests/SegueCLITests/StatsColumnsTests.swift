import Testing

@testable import segue

/// `stats --watch` in a narrow terminal: names are cut before values.
@Suite struct StatsColumnsTests {
    static let pairs: [(name: String, value: String)] = [
        ("commands", "1234"), ("store.walCheckpoints.background", "7"),
    ]

    /// Each row: the terminal's width, the lines.
    static let cases: [(width: Int, lines: [String])] = [
        (80, ["commands                         1234", "store.walCheckpoints.background  7"]),
        (30, ["commands                  1234", "store.walCheckpoints.ba…  7"]),
        (12, ["comma…  1234", "store…  7"]),
    ]

    @Test(arguments: cases.indices)
    func valuesStayWhereNamesAreCut(index: Int) {
        let (width, lines) = Self.cases[index]
        #expect(MonitorCommands.columned(Self.pairs, width: width) == lines)
    }
}
