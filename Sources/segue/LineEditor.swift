import Foundation

/// The line input of `segue raw`'s prompt on a terminal, on its raw mode (libedit would be a new C
/// dependency): `KeyDecoder` reads the keys, `LineBuffer` edits, `LineView` draws; this type does the
/// reading and writing. The prompt and the echo go to stderr, so that stdout holds the replies only
/// (to stdout when only it is a terminal: `segue raw 2>log` does not type blind).
struct LineEditor {
    var buffer = LineBuffer()
    /// Bytes read past the end of the last line (typed ahead, or pasted without bracketed paste).
    private var pending: [UInt8] = []
    private var decoder = KeyDecoder()
    /// How long a lone ESC waits for the rest of a sequence before it counts as the Escape key.
    private static let escapeWait: Int32 = 50
    /// Bracketed paste (xterm): the terminal marks pasted text, so its line breaks send nothing.
    private static let pasteOn = "\u{1B}[?2004h"
    private static let pasteOff = "\u{1B}[?2004l"

    /// The next line, or nil to quit (Ctrl-C or Ctrl-D on an empty line, or the end of input).
    mutating func read(prompt: String) -> String? {
        guard var saved = Self.enterRawMode() else {
            Self.echo(prompt)
            return readLine()
        }
        Self.echo(Self.pasteOn)
        defer {
            Self.echo(Self.pasteOff)
            Self.restore(saved)
        }
        var view = LineView(prompt: prompt)
        buffer.reset()
        Self.echo(view.redraw(buffer, columns: Self.columns()))
        while let bytes = nextBytes() {
            var out = ""
            var redraw = false
            for (index, byte) in bytes.enumerated() {
                guard let key = decoder.feed(byte) else { continue }
                switch buffer.apply(key) {
                case .none: continue
                case .appended(let text):
                    if !redraw { out += view.append(text, to: buffer, columns: Self.columns()) }
                case .redraw: redraw = true
                case .clearScreen:
                    out = view.clearScreen()
                    redraw = true
                case .cancel:
                    // The line stays on the screen, marked, as bash leaves it; a new prompt below.
                    if redraw { out += view.redraw(buffer, columns: Self.columns()) }
                    redraw = false
                    out += view.finish(buffer, appending: "^C", columns: Self.columns())
                    buffer.reset()
                    view = LineView(prompt: prompt)
                    out += view.redraw(buffer, columns: Self.columns())
                case .suspend:
                    // What was typed before it, on the screen before the shell writes below it.
                    if redraw { out += view.redraw(buffer, columns: Self.columns()) }
                    Self.echo(out)
                    out = ""
                    redraw = false
                    guard Self.suspend(restoring: &saved) else { continue }
                    // Continued (`fg`): the shell has written below the line; drawn again there.
                    view = LineView(prompt: prompt)
                    redraw = true
                case .submit, .quit:
                    if redraw { out += view.redraw(buffer, columns: Self.columns()) }
                    Self.echo(out + view.finish(buffer, columns: Self.columns()))
                    pending = Array(bytes[(index + 1)...])
                    return key == .enter ? buffer.text : nil
                }
            }
            // One redraw for all the keys of a read: a paste without bracketed paste is drawn once.
            if redraw { out += view.redraw(buffer, columns: Self.columns()) }
            if !out.isEmpty { Self.echo(out) }
        }
        Self.echo(view.finish(buffer, columns: Self.columns()))
        return buffer.characters.isEmpty ? nil : buffer.text
    }

    /// Runs `body` (a request) with the terminal raw and unechoed, so that keys typed meanwhile are
    /// not printed among the replies, and Ctrl-C is a key that `interrupted` sees rather than SIGINT.
    /// Keys other than Ctrl-C typed meanwhile are dropped.
    static func whileWaiting<T>(_ body: () throws -> T) rethrows -> T {
        guard let saved = enterRawMode() else { return try body() }
        defer {
            tcflush(STDIN_FILENO, TCIFLUSH)
            restore(saved)
        }
        return try body()
    }

    /// Whether Ctrl-C was typed since the last look; reads without waiting.
    static func interrupted() -> Bool {
        var poller = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
        var seen = false
        while poll(&poller, 1, 0) > 0, poller.revents & Int16(POLLIN) != 0 {
            var bytes = [UInt8](repeating: 0, count: 256)
            let count = Glibc.read(STDIN_FILENO, &bytes, bytes.count)
            guard count > 0 else { break }
            if bytes[..<count].contains(0x03) { seen = true }
        }
        return seen
    }

    /// Keys one at a time, unechoed; Ctrl-C as a key, so that the terminal is put back before quitting.
    private static func enterRawMode() -> termios? {
        var saved = termios()
        guard tcgetattr(STDIN_FILENO, &saved) == 0 else { return nil }
        var raw = TerminalSettings.raw(from: saved, signals: false, waitForKey: true)
        tcsetattr(STDIN_FILENO, TCSANOW, &raw)
        return saved
    }

    /// Ctrl-Z: the terminal as it was, then the stop itself, as a job (readline's programs stop the
    /// same way); on `fg` raw again, with the settings the terminal has then. False, and nothing
    /// done, where SIGTSTP is ignored (no job control: the parent would never continue it).
    private static func suspend(restoring saved: inout termios) -> Bool {
        var current = sigaction()
        sigaction(SIGTSTP, nil, &current)
        guard !NotedSignals.isIgnore(current.__sigaction_handler.sa_handler) else { return false }
        echo(pasteOff)
        restore(saved)
        NotedSignals.raiseWithDefaultAction(SIGTSTP)
        if let again = enterRawMode() { saved = again }
        echo(pasteOn)
        return true
    }

    private static func restore(_ saved: termios) {
        var saved = saved
        tcsetattr(STDIN_FILENO, TCSANOW, &saved)
    }

    /// The bytes left from the last line, else the next read; nil at the end of input. After a lone
    /// ESC, waits `escapeWait` ms for the rest of its sequence before taking it as the Escape key.
    private mutating func nextBytes() -> [UInt8]? {
        if !pending.isEmpty {
            defer { pending = [] }
            return pending
        }
        if decoder.awaitsEscape {
            var poller = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
            if poll(&poller, 1, Self.escapeWait) == 0 { _ = decoder.escapeTimedOut() }
        }
        var bytes = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = Glibc.read(STDIN_FILENO, &bytes, bytes.count)
            if count > 0 { return Array(bytes[..<count]) }
            if count < 0, errno == EINTR { continue }
            return nil
        }
    }

    /// The terminal's width, read at each draw so that a resize is followed.
    private static func columns() -> Int {
        var size = winsize()
        guard ioctl(screen, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
        return Int(size.ws_col)
    }

    private static func echo(_ text: String) { Output.write(Array(text.utf8), to: screen) }

    /// Where the prompt and the echo go: stderr, unless only stdout is a terminal.
    private static var screen: Int32 {
        isatty(STDERR_FILENO) == 0 && isatty(STDOUT_FILENO) == 1 ? STDOUT_FILENO : STDERR_FILENO
    }
}
