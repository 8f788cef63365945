/// A key typed at a terminal, as `KeyDecoder` reads it from the terminal's bytes: what `segue raw`'s
/// prompt edits with and what `segue watch` scrolls and filters with. Each ignores the keys it has no
/// use for.
enum TerminalKey: Equatable {
    /// Printable text: a character typed, or a bracketed paste (its line breaks as spaces).
    case text(String)
    case enter, tab, escape, interrupt, endOfInput, backspace, delete
    case left, right, home, end, wordLeft, wordRight, up, down, pageUp, pageDown
    case killToEnd, killLine, killWordBefore, clearScreen
    /// Ctrl-Z where it is a key (the prompt's raw mode): the prompt stops as a shell job.
    case suspend
}
