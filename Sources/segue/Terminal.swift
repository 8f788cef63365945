import Foundation

/// The terminal chores of `watch`: the alternate screen, no cursor, keys read one at a time without
/// echo, redraws that never scroll, the size (re-read on SIGWINCH), and everything put back on exit,
/// on Ctrl-C and on SIGTERM or SIGHUP, and for the while a Ctrl-Z stops it.
enum Terminal {
    /// The settings before `enter`, restored by `leave` and by the signal handler.
    nonisolated(unsafe) private static let saved = UnsafeMutablePointer<termios>.allocate(capacity: 1)
    nonisolated(unsafe) private static let hasSaved = UnsafeMutablePointer<sig_atomic_t>.allocate(capacity: 1)
    /// The settings `enter` made, put back after a stop (Ctrl-Z, then `fg`).
    nonisolated(unsafe) private static let raw = UnsafeMutablePointer<termios>.allocate(capacity: 1)
    /// Set by SIGWINCH: the next loop turn redraws at the new size.
    nonisolated(unsafe) static let resized = UnsafeMutablePointer<sig_atomic_t>.allocate(capacity: 1)
    /// Set while the view's screen is up: leaving it twice would move the cursor back over what was
    /// printed in between (an error said after an early `leave`, before the exit's).
    nonisolated(unsafe) private static let onScreen = UnsafeMutablePointer<sig_atomic_t>.allocate(capacity: 1)
    private static let restoreSequence = "\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l"

    /// Whether stdout should get colour: a terminal, and no `NO_COLOR` (no-color.org: any non-empty value).
    static var colour: Bool {
        isatty(STDOUT_FILENO) == 1 && (ProcessInfo.processInfo.environment["NO_COLOR"] ?? "").isEmpty
    }

    /// Whether stdout is a terminal that takes cursor movement: a terminal whose `TERM` is set and is
    /// not `dumb` (Emacs' shell, some CI consoles). Otherwise the screens print lines, as to a pipe.
    static var screenCapable: Bool {
        let term = ProcessInfo.processInfo.environment["TERM"] ?? ""
        return isatty(STDOUT_FILENO) == 1 && !term.isEmpty && term != "dumb"
    }

    static func enter() {
        hasSaved.pointee = 0
        resized.pointee = 0
        if isatty(STDIN_FILENO) == 1, tcgetattr(STDIN_FILENO, saved) == 0 {
            hasSaved.pointee = 1
            var raw = TerminalSettings.raw(from: saved.pointee, signals: true, waitForKey: false)
            tcsetattr(STDIN_FILENO, TCSANOW, &raw)
            Self.raw.pointee = raw
        }
        write(enterSequence)
        onScreen.pointee = 1
        atexit { Terminal.leave() }
        // The terminal given back, then the signal's own end (status 130 for Ctrl-C, as every other
        // command), so that a shell loop around the view stops too; `q` is the way to quit with 0.
        for sig in [SIGINT, SIGTERM, SIGHUP] {
            signal(sig) { sig in
                Terminal.restoreInHandler()
                NotedSignals.raiseWithDefaultAction(sig)
            }
        }
        signal(SIGWINCH) { _ in Terminal.resized.pointee = 1 }
        // A SIGTSTP ignored at start stays ignored: the parent will not continue a stopped job.
        if NotedSignals.isIgnore(signal(SIGTSTP, suspendHandler)) { signal(SIGTSTP, SIG_IGN) }
    }

    private static let enterSequence = "\u{1B}[?1049h\u{1B}[?25l\u{1B}[2J"

    /// Ctrl-Z: the terminal as it was, then the stop itself (the default action, unblocked for it);
    /// on `fg` the view's settings and screen again, redrawn whole at the next turn (as top and less
    /// do). The settings put back are those `enter` made, not what an `stty` meanwhile set. Only
    /// async-signal-safe calls.
    private static let suspendHandler: @convention(c) (Int32) -> Void = { _ in
        let wasRaw = Terminal.hasSaved.pointee == 1
        Terminal.restoreInHandler()
        NotedSignals.raiseWithDefaultAction(SIGTSTP)
        // Continued.
        signal(SIGTSTP, Terminal.suspendHandler)
        if wasRaw {
            tcsetattr(STDIN_FILENO, TCSANOW, Terminal.raw)
            Terminal.hasSaved.pointee = 1
        }
        _ = Terminal.enterSequence.withCString { Glibc.write(STDOUT_FILENO, $0, strlen($0)) }
        Terminal.onScreen.pointee = 1
        Terminal.resized.pointee = 1
    }

    /// Puts the terminal back (idempotent).
    static func leave() {
        restoreInHandler()
    }

    /// Only async-signal-safe calls: tcsetattr and write(2).
    private static func restoreInHandler() {
        if hasSaved.pointee == 1 {
            tcsetattr(STDIN_FILENO, TCSANOW, saved)
            hasSaved.pointee = 0
        }
        guard onScreen.pointee == 1 else { return }
        onScreen.pointee = 0
        _ = restoreSequence.withCString { Glibc.write(STDOUT_FILENO, $0, strlen($0)) }
    }

    /// Draws `lines` from the top left in one write, over what was there; nothing after the last
    /// line, so the screen never scrolls. `clearing` first clears the whole screen (on terminals
    /// that keep it, what was on it goes to the scrollback).
    static func draw(_ lines: [String], clearing: Bool = false) {
        write(screen(lines, clearing: clearing))
    }

    /// What `draw` writes. Each line's old text is erased before the new is written, at its first
    /// column: after a character in the last column the cursor stays there, so an erase after a
    /// line as wide as the terminal would take its last character. The last line erases all below.
    static func screen(_ lines: [String], clearing: Bool = false) -> String {
        var out = clearing ? "\u{1B}[H\u{1B}[2J" : "\u{1B}[H"
        for (index, line) in lines.enumerated() {
            if index > 0 { out += "\r\n" }
            out += (index == lines.count - 1 ? "\u{1B}[J" : "\u{1B}[K") + line
        }
        return lines.isEmpty ? out + "\u{1B}[J" : out
    }

    /// The columns help text wraps to: the terminal's, or none when stdout is not one.
    static var helpWidth: Int? { isatty(STDOUT_FILENO) == 1 ? size().columns : nil }

    static func size() -> (columns: Int, rows: Int) {
        var w = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &w) == 0, w.ws_col > 0, w.ws_row > 0 {
            return (Int(w.ws_col), Int(w.ws_row))
        }
        return (80, 24)
    }

    /// The bytes typed since the last call, without waiting (none when stdin is not a terminal).
    static func typed() -> [UInt8] {
        guard hasSaved.pointee == 1 else { return [] }
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = read(STDIN_FILENO, &buffer, buffer.count)
        return count > 0 ? Array(buffer[..<count]) : []
    }

    static func write(_ text: String) {
        Output.write(Array(text.utf8))
    }
}

extension String {
    /// At most `width` characters: a longer string keeps `width - 1` of them and ends in "…".
    func cut(to width: Int) -> String { count <= width ? self : String(prefix(max(0, width - 1))) + "…" }
}
