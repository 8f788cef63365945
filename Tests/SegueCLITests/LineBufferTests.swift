import Testing

@testable import segue

/// Editing at the prompt: bytes as a terminal sends them in, the line and the cursor out.
@Suite struct LineBufferTests {
    /// Feeds `input` to a decoder and a buffer; the buffer and the last outcome.
    static func typed(_ input: String, history: [String] = []) -> (LineBuffer, LineBuffer.Outcome?) {
        var decoder = KeyDecoder()
        var buffer = LineBuffer(history: history)
        var last: LineBuffer.Outcome?
        for byte in input.utf8 {
            if let key = decoder.feed(byte) { last = buffer.apply(key) }
        }
        return (buffer, last)
    }

    static let home = "\u{1B}[H", end = "\u{1B}[F", delete = "\u{1B}[3~", left = "\u{1B}[D", right = "\u{1B}[C"

    static let cases: [(String, String, String, Int)] = [
        ("typing", "ping", "ping", 4),
        ("Home, then typing", "ing" + home + "p", "ping", 1),
        ("Home (CSI 1~) and Delete", "xping\u{1B}[1~" + delete, "ping", 0),
        ("Home (SS3 H) and Delete", "xping\u{1B}OH" + delete, "ping", 0),
        ("End (CSI 4~)", "ping" + home + "\u{1B}[4~!", "ping!", 5),
        ("End (SS3 F)", "ping" + home + "\u{1B}OF!", "ping!", 5),
        ("← ← Delete", "pinxg" + left + left + delete, "ping", 3),
        ("Delete at the end", "ping" + delete, "ping", 4),
        ("→ past the end", "ping" + right, "ping", 4),
        ("← past the start", "p" + left + left + "x", "xp", 1),
        ("Backspace in the middle", "pixng" + left + left + "\u{7F}", "ping", 2),
        ("Backspace at the start", "ping" + home + "\u{7F}", "ping", 0),
        ("Ctrl-A, Ctrl-E", "ing\u{01}p\u{05}!", "ping!", 5),
        ("Ctrl-B, Ctrl-F", "pig\u{02}n\u{06}", "ping", 4),
        ("Ctrl-K", "ping main" + left + left + left + left + left + "\u{0B}", "ping", 4),
        ("Ctrl-U", "ping\u{15}", "", 0),
        ("Ctrl-W", "state main\u{17}", "state ", 6),
        ("Ctrl-W after spaces", "state main  \u{17}", "state ", 6),
        ("Ctrl-D deletes under the cursor", "xping" + home + "\u{04}", "ping", 0),
        ("Ctrl-←", "state main\u{1B}[1;5D", "state main", 6),
        ("Alt-B twice, Alt-F", "state main\u{1B}b\u{1B}b\u{1B}f", "state main", 5),
        ("F1, F5, Insert", "pi\u{1B}OP\u{1B}[15~\u{1B}[2~ng", "ping", 4),
        ("Backspace takes an emoji ZWJ sequence whole", "a👩‍💻\u{7F}", "a", 1),
        ("Backspace takes a letter and its accent", "ae\u{301}\u{7F}", "a", 1),
        ("Backspace takes a wide character", "a中\u{7F}", "a", 1),
        ("← over an emoji", "👩‍💻" + left + "a", "a👩‍💻", 1),
        ("paste in the middle", "pg" + left + "\u{1B}[200~in\u{1B}[201~", "ping", 3),
        ("Ctrl-L keeps the line", "ping\u{0C}", "ping", 4),
    ]

    @Test(arguments: cases)
    func editing(name: String, input: String, text: String, cursor: Int) {
        let (buffer, _) = Self.typed(input)
        #expect(buffer.text == text, "\(name)")
        #expect(buffer.cursor == cursor, "\(name)")
    }

    static let outcomes: [(String, String, LineBuffer.Outcome?)] = [
        ("a character at the end", "pin", .appended("n")),
        ("a paste at the end", "\u{1B}[200~ping\u{1B}[201~", .appended("ping")),
        ("a character in the middle", "pg" + left + "n", .redraw),
        ("an accent that joins the character before", "e\u{301}", .redraw),
        ("Delete", "pg" + left + delete, .redraw),
        ("Home at the start", home, LineBuffer.Outcome.none),
        ("an unknown key", "p\u{1B}[15~", nil),
        ("Enter", "ping\r", .submit("ping")),
        ("Enter in the middle", "ping" + home + "\r", .submit("ping")),
        ("Ctrl-C on a line", "ping\u{03}", .cancel),
        ("Ctrl-C on an empty line", "\u{03}", .quit),
        ("Tab", "ping\t", .appended(" ")),
        ("Esc, PgUp and PgDn", "ping\u{1B}[5~\u{1B}[6~\u{1B}\u{1B}", LineBuffer.Outcome.none),
        ("Ctrl-D on an empty line", "\u{04}", .quit),
        ("Ctrl-D on a line", "ping\u{04}", LineBuffer.Outcome.none),
        ("Ctrl-L", "\u{0C}", .clearScreen),
    ]

    @Test(arguments: outcomes)
    func outcome(name: String, input: String, outcome: LineBuffer.Outcome?) {
        var decoder = KeyDecoder()
        var buffer = LineBuffer()
        var last: LineBuffer.Outcome?
        for byte in input.utf8 {
            last = nil
            if let key = decoder.feed(byte) { last = buffer.apply(key) }
        }
        #expect(last == outcome, "\(name)")
    }

    /// ↑ and ↓ walk the history and come back to the line being typed.
    @Test(arguments: [
        ("\u{1B}[A", "two"), ("\u{1B}[A\u{1B}[A", "one"), ("\u{1B}[A\u{1B}[A\u{1B}[A", "one"),
        ("\u{1B}[A\u{1B}[B", "dra"), ("\u{1B}OA\u{1B}OA\u{1B}OB", "two"), ("\u{10}\u{0E}", "dra"),
    ])
    func history(keys: String, text: String) {
        let (buffer, _) = Self.typed("dra" + keys, history: ["one", "two"])
        #expect(buffer.text == text)
        #expect(buffer.cursor == buffer.characters.count)
    }

    @Test func rememberedLinesSkipRepeatsAndKeepTheLimit() {
        var buffer = LineBuffer(history: ["a", "b"])
        buffer.remember("b", limit: 3)
        buffer.remember("c", limit: 3)
        buffer.remember("d", limit: 3)
        #expect(buffer.history == ["b", "c", "d"])
        #expect(buffer.text.isEmpty)
    }
}
