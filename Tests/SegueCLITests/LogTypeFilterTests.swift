import Testing

@testable import segue

/// `log --type`: what a pattern keeps, and the warning for one that keeps nothing this build knows
/// (the prefix's `.` forgotten, a typo), which would otherwise print nothing and exit 0.
@Suite struct LogTypeFilterTests {
    @Test(arguments: [
        ("transition.started", "transition.started", true), ("transition.", "transition.started", true),
        ("transition*", "transition.started", true), ("transition", "transition.started", false),
        ("navigator.", "transition.started", false),
    ])
    func matches(pattern: String, type: String, kept: Bool) {
        #expect(LogPrinter.matches(pattern, type) == kept)
    }

    @Test(
        arguments: [
            ("transition.", nil), ("interaction.updated", nil), ("nav*", nil),
            (
                "transition",
                "warning: --type transition matches no event type this segue knows (a prefix ends in '.': "
                    + "--type transition.)"
            ),
            ("bogus", "warning: --type bogus matches no event type this segue knows (known: navigator.created, "),
        ] as [(String, String?)])
    func warnsOfAPatternNothingMatches(pattern: String, warning: String?) {
        let said = LogPrinter.unmatched(pattern)
        if let warning { #expect(said?.hasPrefix(warning) == true, "\(said ?? "nil")") } else { #expect(said == nil) }
    }
}
