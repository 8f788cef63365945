import Testing

@testable import segue

/// Drawing a line that wraps: every redraw starts from the prompt's row, so no key leaves a copy.
@Suite struct LineViewTests {
    static func buffer(_ text: String, cursor: Int? = nil) -> LineBuffer {
        var buffer = LineBuffer()
        _ = buffer.apply(.text(text))
        for _ in 0..<(text.count - (cursor ?? text.count)) { _ = buffer.apply(.left) }
        return buffer
    }

    /// Prompt "> " (2 columns) on a terminal 10 wide: the first redraw, then a second one.
    static let cases: [(String, String, Int?, String, Int, String)] = [
        ("a short line", "abc", nil, "\r\u{1B}[J> abc\r\u{1B}[5C", 0, "\r\u{1B}[J> abc\r\u{1B}[5C"),
        (
            "a line on two rows", "abcdefghijkl", nil, "\r\u{1B}[J> abcdefghijkl\r\u{1B}[4C", 1,
            "\u{1B}[1A\r\u{1B}[J> abcdefghijkl\r\u{1B}[4C"
        ),
        (
            "the cursor on the first row", "abcdefghijkl", 0, "\r\u{1B}[J> abcdefghijkl\u{1B}[1A\r\u{1B}[2C", 0,
            "\r\u{1B}[J> abcdefghijkl\u{1B}[1A\r\u{1B}[2C"
        ),
        (
            "a line that ends at the last column", "abcdefgh", nil, "\r\u{1B}[J> abcdefgh\r\n\r", 1,
            "\u{1B}[1A\r\u{1B}[J> abcdefgh\r\n\r"
        ),
        (
            "a line on three rows", String(repeating: "x", count: 25), nil,
            "\r\u{1B}[J> " + String(repeating: "x", count: 25) + "\r\u{1B}[7C", 2,
            "\u{1B}[2A\r\u{1B}[J> " + String(repeating: "x", count: 25) + "\r\u{1B}[7C"
        ),
        ("wide characters", "中文", nil, "\r\u{1B}[J> 中文\r\u{1B}[6C", 0, "\r\u{1B}[J> 中文\r\u{1B}[6C"),
    ]

    @Test(arguments: cases)
    func redraw(name: String, text: String, cursor: Int?, first: String, row: Int, second: String) {
        var view = LineView(prompt: "> ")
        let buffer = Self.buffer(text, cursor: cursor)
        #expect(view.redraw(buffer, columns: 10) == first, "\(name)")
        #expect(view.cursorRow == row, "\(name)")
        #expect(view.redraw(buffer, columns: 10) == second, "\(name)")
    }

    /// Typing at the end writes the character alone; reaching the last column moves to a new row.
    @Test(arguments: [("abcdef", "g", "g", 0), ("abcdefg", "h", "h\r\n", 1), ("abcdefghijk", "l", "l", 1)])
    func append(before: String, typed: String, out: String, row: Int) {
        var view = LineView(prompt: "> ")
        var buffer = Self.buffer(before)
        _ = view.redraw(buffer, columns: 10)
        #expect(buffer.apply(.text(typed)) == .appended(typed))
        #expect(view.append(typed, to: buffer, columns: 10) == out)
        #expect(view.cursorRow == row)
    }

    /// Enter leaves the cursor below the whole line, wherever it was in it.
    @Test(arguments: [
        ("abc", nil as Int?, "\r\n"), ("abcdefghijkl", 0, "\u{1B}[1B\r\n"), ("abcdefghijkl", nil, "\r\n"),
        ("abcdefgh", nil, "\r"),
    ])
    func finish(text: String, cursor: Int?, out: String) {
        var view = LineView(prompt: "> ")
        let buffer = Self.buffer(text, cursor: cursor)
        _ = view.redraw(buffer, columns: 10)
        #expect(view.finish(buffer, columns: 10) == out)
        #expect(view.cursorRow == 0)
    }

    @Test(arguments: [
        ("a", 1), ("é", 1), ("e\u{301}", 1), ("中", 2), ("ア", 2), ("한", 2), ("Ａ", 2), ("😀", 2), ("👩‍💻", 2),
        ("❤️", 2), ("\u{301}", 0),
    ])
    func width(character: Character, columns: Int) {
        #expect(LineView.width(character) == columns)
    }
}
