import Foundation

/// When the store runs `PRAGMA quick_check` on open.
///
/// The quick check reads every page, so it costs time in proportion to the file (about 2.5 s for
/// a 10-million-event log on the reference machine). `.quick` pays that before `init` returns;
/// `.deferred` lets a daemon serve reads at once and runs the same check on its own read connection
/// in the background, reporting the outcome, for logs too large to check inside a start-up budget;
/// it starts when the owner calls `EventStore.startDeferredCheck()` (the daemon: once it is ready).
package enum OpenCheck: Sendable {
    case quick
    /// `report` is called once from a background thread: nil when the file is sound, otherwise an
    /// error whose `code` is `.internal` (or `.unavailable` if the file could not be read).
    case deferred(report: @Sendable (StoreError?) -> Void)

    package var checksBeforeOpen: Bool { if case .quick = self { true } else { false } }

    /// Starts the deferred check of the file at `path`, if this is `.deferred`; `then` is told
    /// whether the file is sound once it is known (at once when there is no deferred check).
    func startDeferred(path: String, busyTimeoutMilliseconds: Int32, then: @escaping @Sendable (Bool) -> Void) {
        guard case .deferred(let report) = self else { return then(true) }
        let thread = Thread(named: "segue-check") {
            // Background work: started from the daemon's frame loop, whose realtime policy a new
            // thread inherits, so back to the normal policy first (nice means nothing under FIFO);
            // then at the lowest priority (nice 19 for this thread alone), it takes no CPU from
            // the frame loop.
            BackgroundThread.leaveRealtimePolicy()
            if let tid = BackgroundThread.currentThreadID() {
                _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(tid), 19)
            }
            let failure = Self.quickCheck(path: path, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
            report(failure)
            then(failure == nil)
        }
        thread.start()
    }

    /// Runs `PRAGMA quick_check` on a fresh connection; nil when SQLite answers "ok". It waits out a
    /// lock as the store's other connections do (a WAL reader can meet `SQLITE_BUSY` while another
    /// connection recovers or resets the WAL), rather than reporting a busy moment as a failed check.
    static func quickCheck(path: String, busyTimeoutMilliseconds: Int32) -> StoreError? {
        do throws(StoreError) {
            let database = try Database(path: path, create: false)
            database.setBusyTimeout(milliseconds: busyTimeoutMilliseconds)
            try database.execute("PRAGMA query_only = 1")
            database.keepWALFile()
            let answer = try database.scalarText("PRAGMA quick_check")
            guard answer == "ok" else {
                return StoreError(
                    kind: .sqlite, extendedCode: 11 /* SQLITE_CORRUPT */,
                    // quick_check answers a line per problem; a log record holds one line.
                    message: "The event store at \(path) failed its quick check: "
                        + "\(answer.map { $0.split(separator: "\n").joined(separator: "; ") } ?? "no answer"). "
                        + "Restore it from an export or a backup.", sql: "PRAGMA quick_check")
            }
            return nil
        } catch {
            return error
        }
    }
}
