/// The line being edited at `segue raw`'s prompt, as a pure state machine: a key in, what the screen
/// needs out (`LineEditor` does the terminal I/O). Kept as `Character`s, so that the cursor and
/// Backspace move by what a reader sees as one character (an emoji ZWJ sequence, a letter and its
/// accent), never into the middle of one.
struct LineBuffer: Equatable {
    private(set) var characters: [Character] = []
    /// Where the next character goes, in `characters`.
    private(set) var cursor = 0
    private(set) var history: [String]
    /// The history line shown by ↑/↓; `history.count` for the line being typed.
    private var position: Int
    /// The line being typed, kept while ↑/↓ show older ones.
    private var draft: [Character] = []

    init(history: [String] = []) {
        self.history = history
        position = history.count
    }

    var text: String { String(characters) }

    /// What the screen needs after a key.
    enum Outcome: Equatable {
        /// Nothing changed.
        case none
        /// `text` was added at the end of the line, the cursor after it: writing it is enough.
        case appended(String)
        /// The line or the cursor changed: draw the line again.
        case redraw
        /// Clear the screen, then draw the line.
        case clearScreen
        /// Enter: send this line.
        case submit(String)
        /// Ctrl-C on a line with text: the line is dropped, and an empty one begins (as in bash and psql).
        case cancel
        /// Ctrl-C or Ctrl-D on an empty line.
        case quit
        /// Ctrl-Z: stop as a job, the line kept for `fg`.
        case suspend
    }

    mutating func apply(_ key: TerminalKey) -> Outcome {
        switch key {
        case .text(let text): return insert(text)
        case .tab: return insert(" ")
        case .enter: return .submit(text)
        case .interrupt where characters.isEmpty: return .quit
        case .interrupt: return .cancel
        case .endOfInput where characters.isEmpty: return .quit
        case .endOfInput, .delete:
            guard cursor < characters.count else { return .none }
            characters.remove(at: cursor)
        case .backspace:
            guard cursor > 0 else { return .none }
            cursor -= 1
            characters.remove(at: cursor)
        case .left: return move(to: cursor - 1)
        case .right: return move(to: cursor + 1)
        case .home: return move(to: 0)
        case .end: return move(to: characters.count)
        case .wordLeft: return move(to: wordStart(before: cursor))
        case .wordRight: return move(to: wordEnd(after: cursor))
        case .killToEnd:
            guard cursor < characters.count else { return .none }
            characters.removeSubrange(cursor...)
        case .killLine:
            guard !characters.isEmpty else { return .none }
            characters = []
            cursor = 0
        case .killWordBefore:
            let start = wordStart(before: cursor)
            guard start < cursor else { return .none }
            characters.removeSubrange(start..<cursor)
            cursor = start
        case .up: return recall(position - 1)
        case .down: return recall(position + 1)
        case .clearScreen: return .clearScreen
        case .suspend: return .suspend
        case .escape, .pageUp, .pageDown: return .none
        }
        return .redraw
    }

    /// Adds a line that was sent, unless it repeats the last one, and shows an empty line again.
    mutating func remember(_ line: String, limit: Int) {
        if history.last != line { history.append(line) }
        if history.count > limit { history.removeFirst(history.count - limit) }
        reset()
    }

    /// An empty line, for the next prompt.
    mutating func reset() {
        characters = []
        cursor = 0
        draft = []
        position = history.count
    }

    private mutating func insert(_ text: String) -> Outcome {
        let before = String(characters[..<cursor]) + text
        let atEnd = cursor == characters.count
        let count = characters.count
        characters = Array(before + String(characters[cursor...]))
        // A combining mark or a ZWJ joins the character before it: counted again, not assumed.
        cursor = min(Array(before).count, characters.count)
        return atEnd && characters.count == count + text.count ? .appended(text) : .redraw
    }

    private mutating func move(to index: Int) -> Outcome {
        let index = min(max(0, index), characters.count)
        guard index != cursor else { return .none }
        cursor = index
        return .redraw
    }

    private mutating func recall(_ index: Int) -> Outcome {
        guard index >= 0, index <= history.count, index != position else { return .none }
        if position == history.count { draft = characters }
        position = index
        characters = index == history.count ? draft : Array(history[index])
        cursor = characters.count
        return .redraw
    }

    /// Words as readline's Ctrl-W and Alt-B see them: a run of non-spaces.
    private func wordStart(before index: Int) -> Int {
        var index = index
        while index > 0, characters[index - 1].isWhitespace { index -= 1 }
        while index > 0, !characters[index - 1].isWhitespace { index -= 1 }
        return index
    }

    private func wordEnd(after index: Int) -> Int {
        var index = index
        while index < characters.count, characters[index].isWhitespace { index += 1 }
        while index < characters.count, !characters[index].isWhitespace { index += 1 }
        return index
    }
}
