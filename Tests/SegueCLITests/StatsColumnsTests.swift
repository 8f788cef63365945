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

/// What fits a terminal's rows: the counters that fit, the last row saying how many were cut.
@Suite struct StatsFittedTests {
    static let lines = ["a", "b", "c", "d"]

    /// Each row: the rows for counters, the lines shown.
    static let cases: [(rows: Int, shown: [String])] = [
        (5, ["a", "b", "c", "d"]),
        (4, ["a", "b", "c", "d"]),
        (3, ["a", "b", "… 2 more (a taller terminal shows them all)"]),
        (1, ["… 4 more (a taller terminal shows them all)"]),
        (0, []),
        (-2, []),
    ]

    @Test(arguments: cases.indices)
    func atMostTheRowsGiven(index: Int) {
        let (rows, shown) = Self.cases[index]
        #expect(MonitorCommands.fitted(Self.lines, rows: rows) == shown)
    }
}

/// The bytes of one screen drawn over the last (`Terminal.screen`): each line's old text erased at
/// its first column, never after a line as wide as the terminal, where the erase would take its last
/// character; the last line erases what lies below.
@Suite struct TerminalScreenTests {
    static let cases: [(lines: [String], clearing: Bool, bytes: String)] = [
        (["head", "", "x 1"], false, "\u{1B}[H\u{1B}[Khead\r\n\u{1B}[K\r\n\u{1B}[Jx 1"),
        (["only"], false, "\u{1B}[H\u{1B}[Jonly"),
        ([], false, "\u{1B}[H\u{1B}[J"),
        (["head", "x"], true, "\u{1B}[H\u{1B}[2J\u{1B}[Khead\r\n\u{1B}[Jx"),
    ]

    @Test(arguments: cases.indices)
    func erasesBeforeWriting(index: Int) {
        let (lines, clearing, bytes) = Self.cases[index]
        #expect(Terminal.screen(lines, clearing: clearing) == bytes)
    }
}
