import Dispatch
import SegueCore
import SegueProtocol
import SegueStore

/// Answers `history` on a thread of its own, with a read connection of its own.
///
/// A page of thousands of events takes tens to hundreds of milliseconds to read, fold for its
/// digests and encode: on the loop's thread that was as many missed frames for every subscriber, and
/// on the store's shared reader it would hold up the loop's own reads (command ids) as long. Pages
/// are answered one at a time, in the order asked.
final class HistoryReads: @unchecked Sendable {
    private let queue = DispatchQueue(label: "segue.history")
    private let store: any EventStoring
    /// Opened at the first request; touched only on `queue`.
    private var reader: (any PastReading)?

    init(store: any EventStoring) { self.store = store }

    /// Reads and folds the page on the history thread, then hands its reply to `deliver` (there).
    func answer(_ query: HistoryQuery, deliver: @escaping @Sendable ([UInt8]) -> Void) {
        queue.async { [self] in
            // A pool thread may have inherited the loop's realtime policy: a long page must not
            // compete with frames at their priority.
            BackgroundThread.leaveRealtimePolicy()
            let body: JSON
            do throws(StoreError) {
                if self.reader == nil { self.reader = try store.pastReader() }
                body = query.reply(from: self.reader!)
            } catch {
                body = Reply.error(id: query.id, WireError(error.coreError))
            }
            deliver(body.serializedBytes())
        }
    }

    /// Returns once every page asked for so far has been delivered.
    func waitIdle() { queue.sync {} }
}
