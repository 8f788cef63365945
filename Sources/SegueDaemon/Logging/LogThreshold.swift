import Synchronization

/// The minimum level a family of loggers writes, shared by reference so that one SIGHUP reload
/// changes it for every logger copied from the same root, on every thread, at once.
///
/// An `Atomic<Int>` rather than a lock: it is read on every log call, including from the frame loop,
/// and written only on reload.
package final class LogThreshold: Sendable {
    private let storage: Atomic<Int>

    package init(_ level: LogLevel) {
        storage = Atomic(LogLevel.allCases.firstIndex(of: level)!)
    }

    package var level: LogLevel {
        get { LogLevel.allCases[storage.load(ordering: .relaxed)] }
        set { storage.store(LogLevel.allCases.firstIndex(of: newValue)!, ordering: .relaxed) }
    }

    /// Whether a message at `level` would be written now.
    package func admits(_ level: LogLevel) -> Bool { level >= self.level }
}
