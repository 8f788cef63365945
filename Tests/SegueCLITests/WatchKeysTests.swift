import Testing

@testable import segue

/// The keys `watch` acts on, from the bytes each turn of its loop reads.
@Suite struct WatchKeysTests {
    static let start = ContinuousClock.now
    static func b(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// Reads, each with its time in ms after `start`, then the keys taken.
    static let cases: [(String, [([UInt8], Int)], [TerminalKey])] = [
        ("letters", [(b("jk/"), 0)], [.text("j"), .text("k"), .text("/")]),
        ("a filter in UTF-8", [(b("é中"), 0)], [.text("é"), .text("中")]),
        ("a UTF-8 character split across reads", [([0xC3], 0), ([0xA9], 16)], [.text("é")]),
        ("PgDn and PgUp", [(b("\u{1B}[6~\u{1B}[5~"), 0)], [.pageDown, .pageUp]),
        ("F5 types nothing", [(b("a\u{1B}[15~b"), 0)], [.text("a"), .text("b")]),
        ("↓ split across reads", [(b("\u{1B}"), 0), (b("[B"), 16)], [.down]),
        ("a lone Esc, once the wait is over", [(b("\u{1B}"), 0), (b(""), 16), (b(""), 66)], [.escape]),
        ("a lone Esc, not yet", [(b("\u{1B}"), 0), (b(""), 16), (b(""), 40)], []),
        ("Esc twice", [(b("\u{1B}\u{1B}"), 0), (b(""), 16), (b(""), 80)], [.escape, .escape]),
        ("Enter, as CR or LF", [(b("\r\n"), 0)], [.enter, .enter]),
        ("Backspace", [(b("\u{7F}"), 0)], [.backspace]),
    ]

    @Test(arguments: cases)
    func keys(name: String, reads: [([UInt8], Int)], keys: [TerminalKey]) {
        var reader = WatchKeys()
        for (bytes, ms) in reads { reader.read(bytes, now: Self.start + .milliseconds(ms)) }
        var taken: [TerminalKey] = []
        while let key = reader.next() { taken.append(key) }
        #expect(taken == keys, "\(name)")
    }
}
