import Foundation
import SegueCore
import SegueStore

/// A progress line on stderr for long work (`verify`, `import`, `export`, `replay`, `timeline`, `view
/// --replay`), only when stderr
/// is a terminal: rewritten in place at most ten times a second, erased when the work is done, so
/// scripts and logs never see it.
struct Progress {
    let label: String
    let total: Int?
    private let shown = isatty(STDERR_FILENO) == 1
    private var last = ContinuousClock.now
    private var drawn = false

    init(_ label: String, total: Int? = nil) {
        self.label = label
        self.total = total
    }

    mutating func update(_ done: Int, detail: String = "") {
        guard shown, ContinuousClock.now - last >= .milliseconds(100) else { return }
        last = ContinuousClock.now
        var line = "\(label) \(done)"
        if let total, total > 0 { line += " of \(total) (\(done * 100 / total)%)" }
        if !detail.isEmpty { line += ", \(detail)" }
        Output.write(Array(("\r\u{1B}[K" + line).utf8), to: STDERR_FILENO)
        drawn = true
    }

    /// Erases the line.
    mutating func finish() {
        guard drawn else { return }
        Output.write(Array("\r\u{1B}[K".utf8), to: STDERR_FILENO)
        drawn = false
    }
}

/// A log read through with a progress line counting its events (`export`, whose writer is the
/// store's).
struct ProgressingLog: EventSequence {
    let base: any EventSequence
    let label: String

    init(_ base: any EventSequence, label: String = "exporting: event") {
        self.base = base
        self.label = label
    }

    func forEachEvent(after seq: Int64, _ body: (EventRecord) throws(StoreError) -> Void) throws(StoreError) {
        var progress = Progress(label)
        var count = 0
        defer { progress.finish() }
        try base.forEachEvent(after: seq) { event throws(StoreError) in
            try body(event)
            count += 1
            progress.update(count)
        }
    }
}
