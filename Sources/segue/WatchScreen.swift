import Foundation

/// The interactive side of `watch` on a terminal: keys (scroll, filter, quit, and a replay's pause,
/// step and speed), the size, and redraws at most once a frame (60 Hz) and only when something changed.
struct WatchScreen {
    var layout: WatchLayout
    var header: String
    var keys: String
    private var dirty = true
    private var lastDraw = ContinuousClock.now - .seconds(1)
    private var keyReader = WatchKeys()

    enum Action: Equatable { case none, quit, pause, step, faster, slower }

    init(header: String, keys: String) {
        let (columns, rows) = Terminal.size()
        layout = WatchLayout(columns: columns, rows: rows, colour: Terminal.colour)
        self.header = header
        self.keys = keys
    }

    mutating func enter() { Terminal.enter() }

    mutating func changed() { dirty = true }

    /// Reads the keys typed; returns what the command must do, one action at a time (scrolling and
    /// filtering are done here).
    mutating func handleKeys(_ model: WatchModel) -> Action {
        keyReader.read(Terminal.typed(), now: .now)
        var action = Action.none
        while action == .none, let key = keyReader.next() {
            dirty = true
            if layout.editingFilter {
                switch key {
                case .enter: layout.editingFilter = false
                case .escape:
                    layout.editingFilter = false
                    layout.filter = ""
                case .backspace: _ = layout.filter.popLast()
                case .text(let text): layout.filter += text
                default: break
                }
                layout.scroll = 0
                continue
            }
            // From where the screen is (`scroll` may ask for more than the list has room to scroll).
            let maxScroll = layout.maxScroll(model)
            let scroll = min(layout.scroll, maxScroll)
            switch key {
            case .text("q"): return .quit
            case .text("j"), .down: layout.scroll = min(scroll + 1, maxScroll)
            case .text("k"), .up: layout.scroll = max(0, scroll - 1)
            // A page is the navigators on the screen, so none is passed over.
            case .pageDown: layout.scroll = min(scroll + layout.shownCount(model, from: scroll), maxScroll)
            case .pageUp: layout.scroll = max(0, scroll - layout.countAbove(model, first: scroll))
            case .text("g"), .home: layout.scroll = 0
            case .text("/"):
                // The filter kept is edited, not dropped: Esc clears it.
                layout.editingFilter = true
            case .escape: layout.filter = ""
            case .text(" "): action = .pause
            case .text("."), .text("n"): action = .step
            case .text("+"), .text("="): action = .faster
            case .text("-"): action = .slower
            default: break
            }
        }
        return action
    }

    /// Redraws if something changed (or the terminal was resized) and a frame has passed.
    mutating func draw(_ model: WatchModel, force: Bool = false) {
        if Terminal.resized.pointee == 1 {
            Terminal.resized.pointee = 0
            dirty = true
        }
        guard dirty || force, force || ContinuousClock.now - lastDraw >= .milliseconds(16) else { return }
        let (columns, rows) = Terminal.size()
        layout.columns = columns
        layout.rows = rows
        // Not clamped in place: a list that fits for a moment (between two transitions) would lose
        // the place scrolled to; `render` shows what there is room for.
        Terminal.draw(layout.render(model, header: header, keys: keys))
        lastDraw = ContinuousClock.now
        dirty = false
    }
}
