import Testing

@testable import segue

/// The bytes terminals send for keys, read whole: no escape sequence is typed as its tail.
@Suite struct KeyDecoderTests {
    static let cases: [(String, String, [TerminalKey])] = [
        ("↑", "\u{1B}[A", [.up]), ("↓", "\u{1B}[B", [.down]), ("→", "\u{1B}[C", [.right]),
        ("←", "\u{1B}[D", [.left]), ("SS3 ↑", "\u{1B}OA", [.up]), ("SS3 ←", "\u{1B}OD", [.left]),
        ("Home CSI H", "\u{1B}[H", [.home]), ("End CSI F", "\u{1B}[F", [.end]),
        ("Home CSI 1~", "\u{1B}[1~", [.home]), ("End CSI 4~", "\u{1B}[4~", [.end]),
        ("Home CSI 7~", "\u{1B}[7~", [.home]), ("End CSI 8~", "\u{1B}[8~", [.end]),
        ("Home SS3 H", "\u{1B}OH", [.home]), ("End SS3 F", "\u{1B}OF", [.end]),
        ("Delete", "\u{1B}[3~", [.delete]), ("Ctrl-←", "\u{1B}[1;5D", [.wordLeft]),
        ("Ctrl-→", "\u{1B}[1;5C", [.wordRight]), ("Alt-←", "\u{1B}[1;3D", [.wordLeft]),
        ("Alt-B", "\u{1B}b", [.wordLeft]), ("Alt-F", "\u{1B}f", [.wordRight]),
        ("Alt-Backspace", "\u{1B}\u{7F}", [.killWordBefore]),
        ("F1", "\u{1B}OP", []), ("F5", "\u{1B}[15~", []), ("Insert", "\u{1B}[2~", []),
        ("Shift-Tab", "\u{1B}[Z", []), ("F1 between letters", "a\u{1B}OPb", [.text("a"), .text("b")]),
        ("F5 between letters", "a\u{1B}[15~b", [.text("a"), .text("b")]),
        ("Ctrl-A", "\u{01}", [.home]), ("Ctrl-B", "\u{02}", [.left]), ("Ctrl-C", "\u{03}", [.interrupt]),
        ("Ctrl-D", "\u{04}", [.endOfInput]), ("Ctrl-E", "\u{05}", [.end]), ("Ctrl-F", "\u{06}", [.right]),
        ("Ctrl-K", "\u{0B}", [.killToEnd]), ("Ctrl-L", "\u{0C}", [.clearScreen]), ("Ctrl-U", "\u{15}", [.killLine]),
        ("Ctrl-W", "\u{17}", [.killWordBefore]), ("Ctrl-P", "\u{10}", [.up]), ("Ctrl-N", "\u{0E}", [.down]),
        ("DEL", "\u{7F}", [.backspace]), ("Ctrl-H", "\u{08}", [.backspace]), ("CR", "\r", [.enter]),
        ("LF", "\n", [.enter]), ("Tab", "\t", [.tab]),
        ("PgUp", "\u{1B}[5~", [.pageUp]), ("PgDn", "\u{1B}[6~", [.pageDown]),
        ("Esc twice, then ↑", "\u{1B}\u{1B}[A", [.escape, .up]),
        ("UTF-8", "é中👩‍💻", [.text("é"), .text("中"), .text("👩"), .text("\u{200D}"), .text("💻")]),
        ("paste", "\u{1B}[200~ping\u{1B}[201~", [.text("ping")]),
        ("paste of lines", "\u{1B}[200~{\n  \"cmd\": \"ping\"\r\n}\n\u{1B}[201~", [.text("{   \"cmd\": \"ping\" } ")]),
        ("paste of keys", "\u{1B}[200~a\u{1B}[3~\u{03}b\u{1B}[201~", [.text("a[3~b")]),
        ("paste then Enter", "\u{1B}[200~ping\u{1B}[201~\r", [.text("ping"), .enter]),
        ("an unfinished CSI", "\u{1B}[1;\u{01}", [.home]),
        ("Esc then Enter", "\u{1B}\r", [.enter]), ("Esc then Ctrl-C", "\u{1B}\u{03}", [.interrupt]),
        (
            "a paste without its end", "\u{1B}[200~" + String(repeating: "x", count: 1 << 20) + "\u{03}",
            [
                .text(String(repeating: "x", count: 1 << 20))
            ]
        ),
    ]

    @Test(arguments: cases)
    func keys(name: String, input: String, keys: [TerminalKey]) {
        var decoder = KeyDecoder()
        #expect(Array(input.utf8).compactMap { decoder.feed($0) } == keys, "\(name)")
    }

    /// A lone ESC that nothing follows is the Escape key, and the next key is itself.
    @Test func aLoneEscapeTimesOut() {
        var decoder = KeyDecoder()
        #expect(decoder.feed(0x1B) == nil)
        #expect(decoder.awaitsEscape)
        #expect(decoder.escapeTimedOut() == .escape)
        #expect(decoder.escapeTimedOut() == nil)
        #expect(decoder.feed(UInt8(ascii: "b")) == .text("b"))
    }
}
