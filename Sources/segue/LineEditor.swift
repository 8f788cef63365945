import Foundation

/// The line input of `segue raw`'s prompt on a terminal: typing, backspace, Ctrl-U to clear the line,
/// ↑ and ↓ through the history, Enter to send; Ctrl-D on an empty line or Ctrl-C quits. Just what a
/// prompt needs, on the terminal's raw mode (libedit would be a new C dependency). The prompt and
/// the echo go to stderr, so that stdout holds the replies only.
struct LineEditor {
    var history: [String] = []

    /// The next line, or nil to quit (Ctrl-D on an empty line, Ctrl-C, or the end of input).
    mutating func read(prompt: String) -> String? {
        var saved = termios()
        guard tcgetattr(STDIN_FILENO, &saved) == 0 else {
            Self.echo(prompt)
            return readLine()
        }
        var raw = saved
        // Keys one at a time, unechoed; Ctrl-C as a key, so that the terminal is put back before quitting.
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO | ISIG)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        tcsetattr(STDIN_FILENO, TCSANOW, &raw)
        defer { tcsetattr(STDIN_FILENO, TCSANOW, &saved) }
        var line: [UInt8] = []
        var position = history.count
        var draft: [UInt8] = []
        func redraw() { Self.echo("\r\u{1B}[K" + prompt + String(decoding: line, as: UTF8.self)) }
        func recall(_ index: Int) {
            if position == history.count { draft = line }
            position = index
            line = index == history.count ? draft : Array(history[index].utf8)
            redraw()
        }
        redraw()
        while let byte = Self.byte() {
            switch byte {
            case 0x0D, 0x0A:
                Self.echo("\r\n")
                return String(decoding: line, as: UTF8.self)
            case 0x03:
                Self.echo("\r\n")
                return nil
            case 0x04 where line.isEmpty:
                Self.echo("\r\n")
                return nil
            case 0x7F, 0x08:
                // One character: its UTF-8 continuation bytes, then its first byte.
                while let last = line.last, last & 0xC0 == 0x80 { line.removeLast() }
                if !line.isEmpty { line.removeLast() }
                redraw()
            case 0x15:
                line = []
                redraw()
            case 0x1B:
                guard Self.byte() == UInt8(ascii: "["), let key = Self.byte() else { continue }
                if key == UInt8(ascii: "A"), position > 0 { recall(position - 1) }
                if key == UInt8(ascii: "B"), position < history.count { recall(position + 1) }
            case 0x20...0x7E, 0x80...0xFF:
                line.append(byte)
                redraw()
            default:
                continue
            }
        }
        Self.echo("\r\n")
        return line.isEmpty ? nil : String(decoding: line, as: UTF8.self)
    }

    /// One byte of input, nil at its end.
    private static func byte() -> UInt8? {
        var byte: UInt8 = 0
        while true {
            let count = Glibc.read(STDIN_FILENO, &byte, 1)
            if count == 1 { return byte }
            if count < 0, errno == EINTR { continue }
            return nil
        }
    }

    private static func echo(_ text: String) { FileHandle.standardError.write(Data(text.utf8)) }
}
