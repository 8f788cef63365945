import SegueCommandLine
import Testing

/// Help text wrapped to a terminal: at spaces, a long word whole on its own line, breaks kept.
@Suite struct TextWrappingTests {
    @Test(arguments: [
        ("a bb ccc dddd", 6, 0, ["a bb", "ccc", "dddd"]),
        ("a bb ccc dddd", 8, 0, ["a bb ccc", "dddd"]),
        ("a bb ccc", 8, 4, ["a bb", "ccc"]),
        ("see tcp://127.0.0.1:7400 now", 10, 0, ["see", "tcp://127.0.0.1:7400", "now"]),
        ("one\ntwo three", 20, 0, ["one", "two three"]),
        ("", 10, 0, [""]),
    ])
    func wrapsAtSpaces(text: String, width: Int, indent: Int, lines: [String]) {
        #expect(text.wrapped(to: width, firstLineTakenBy: indent) == lines)
    }

    /// On a terminal every line of help fits (but for a word longer than a line); on a pipe each
    /// help text stays one line, as `grep` expects.
    @Test func helpWrapsToTheTerminalOnly() {
        let words = (1...40).map { "word\($0)" }.joined(separator: " ")
        let command = CommandConfiguration(
            name: "push", abstract: "Push a screen.", discussion: words,
            options: [OptionSpec("timeout", value: "seconds", help: words)])
        let wrapped = command.help(path: "segue push", width: 60)
        let lines = wrapped.split(separator: "\n")
        #expect(lines.allSatisfy { $0.count <= 60 }, "\(wrapped)")
        #expect(lines.contains("                            word6 word7 word8 word9 word10"), "\(wrapped)")
        let piped = command.help(path: "segue push", width: nil)
        #expect(piped.contains("\n\(words)\n") && piped.contains("  --timeout <seconds>       \(words)\n"))
    }
}
