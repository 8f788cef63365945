/// Draws `segue raw`'s prompt and line on a terminal, and remembers which row of a wrapped line the
/// cursor is on: a line wider than the terminal takes several rows, and `\r` only returns to the
/// start of the cursor's row, so a redraw first moves up to the prompt's row and clears from there
/// down (`ESC [nA`, `\r`, `ESC [J`), as linenoise's multi-line mode does.
///
/// A character of width 2 at the last column wraps early on a terminal, which these sums do not
/// follow: the rare line that puts one there draws one column off.
struct LineView: Equatable {
    let prompt: String
    /// The cursor's row, counted from the prompt's.
    private(set) var cursorRow = 0

    init(prompt: String) { self.prompt = prompt }

    /// The prompt and the line, from the prompt's row, the cursor placed where the buffer has it.
    mutating func redraw(_ buffer: LineBuffer, columns: Int) -> String {
        let columns = max(1, columns)
        var out = cursorRow > 0 ? "\u{1B}[\(cursorRow)A" : ""
        out += "\r\u{1B}[J" + prompt + buffer.text
        let end = Self.width(prompt) + Self.width(buffer.characters)
        // Written up to the last column, the cursor waits there; a new row makes the sums hold.
        if end > 0, end % columns == 0 { out += "\r\n" }
        let target = Self.width(prompt) + Self.width(buffer.characters[..<buffer.cursor])
        let up = end / columns - target / columns
        if up > 0 { out += "\u{1B}[\(up)A" }
        out += "\r"
        if target % columns > 0 { out += "\u{1B}[\(target % columns)C" }
        cursorRow = target / columns
        return out
    }

    /// `text` added at the end, the cursor after it: written as it is (a paste is not drawn again
    /// for each character).
    mutating func append(_ text: String, to buffer: LineBuffer, columns: Int) -> String {
        let columns = max(1, columns)
        let end = Self.width(prompt) + Self.width(buffer.characters)
        cursorRow = end / columns
        return end % columns == 0 ? text + "\r\n" : text
    }

    /// Below the line, for what Enter prints next; `marker` (Ctrl-C's `^C`) is written after the
    /// line's end first.
    mutating func finish(_ buffer: LineBuffer, appending marker: String = "", columns: Int) -> String {
        let columns = max(1, columns)
        let end = Self.width(prompt) + Self.width(buffer.characters)
        let down = end / columns - cursorRow
        cursorRow = 0
        let out = down > 0 ? "\u{1B}[\(down)B" : ""
        if !marker.isEmpty {
            return out + "\r" + (end % columns > 0 ? "\u{1B}[\(end % columns)C" : "") + marker + "\r\n"
        }
        // A line that ends at the last column has its cursor on a new row already.
        return out + (end % columns == 0 ? "\r" : "\r\n")
    }

    /// Clears the screen; the next redraw starts at its top.
    mutating func clearScreen() -> String {
        cursorRow = 0
        return "\u{1B}[H\u{1B}[2J"
    }

    static func width(_ text: String) -> Int { width(Array(text)) }

    static func width<C: Collection<Character>>(_ characters: C) -> Int {
        characters.reduce(0) { $0 + width($1) }
    }

    /// Columns a terminal gives a character: 2 for East Asian wide and full-width characters and
    /// for emoji (UAX #11 and #51, in outline), 0 for a lone combining mark or format character, else 1.
    static func width(_ character: Character) -> Int {
        let scalars = character.unicodeScalars
        guard let first = scalars.first else { return 0 }
        switch first.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format, .control: return 0
        default: break
        }
        if first.properties.isEmojiPresentation || scalars.contains("\u{FE0F}") { return 2 }
        return isWide(first.value) ? 2 : 1
    }

    private static func isWide(_ value: UInt32) -> Bool {
        switch value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
            0xA000...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60,
            0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x3FFFD:
            true
        default: false
        }
    }
}
