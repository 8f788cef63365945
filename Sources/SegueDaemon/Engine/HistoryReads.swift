import SegueCore
import SegueProtocol
import SegueStore
import Synchronization

/// Answers `history` on a thread of its own, with a read connection of its own.
///
/// A page of thousands of events takes tens to hundreds of milliseconds to read, fold for its
/// digests and encode: on the loop's thread that was as many missed frames for every subscriber, and
/// on the store's shared reader it would hold up the loop's own reads (command ids) as long. Pages
/// are read one at a time, clients taking turns (`TakingTurns`), each client's in the order it
/// asked: a client with eight long pages waiting holds another's up by one page, not eight. The
/// loop bounds how many wait (`ReplyOrder`).
final class HistoryReads: @unchecked Sendable {
    private let worker = SerialWorker(named: "segue-history")
    private typealias Page = (query: HistoryQuery, deliver: @Sendable ([UInt8]) -> Void)
    /// The pages not started yet; each job on `worker` takes the next in turn, whoever asked for it.
    private let pages = Mutex(TakingTurns<[UInt8], Page>())
    private let store: any EventStoring
    /// Opened at the first request; touched only on `worker`.
    private var reader: (any PastReading)?
    /// Set at shutdown: pages not started yet are answered `unavailable` instead of read.
    private let stopping = Atomic<Bool>(false)

    init(store: any EventStoring) { self.store = store }

    /// Reads and folds the page on the history thread, in `client`'s turn (`ClientKey`), then hands
    /// its reply to `deliver` (there).
    func answer(_ query: HistoryQuery, for client: [UInt8], deliver: @escaping @Sendable ([UInt8]) -> Void) {
        pages.withLock { $0.append((query, deliver), for: client) }
        worker.async { [self] in
            guard let next = pages.withLock({ $0.next() }) else { return }
            next.deliver(page(next.query).serializedBytes())
        }
    }

    private func page(_ query: HistoryQuery) -> JSON {
        guard !stopping.load(ordering: .relaxed) else {
            return Reply.error(
                id: query.id, .unavailable, "segued is stopping; ask for the page again once it is back.")
        }
        do throws(StoreError) {
            if reader == nil { reader = try store.pastReader() }
            return query.reply(from: reader!)
        } catch {
            return Reply.error(id: query.id, WireError(error.coreError))
        }
    }

    /// At shutdown: the page being read is finished, the others are answered `unavailable` at once
    /// (a queue of long pages must not outlast the service manager's stop timeout), and the read
    /// connection is closed. Every reply has been delivered when it returns.
    func stop() {
        stopping.store(true, ordering: .relaxed)
        worker.async { [self] in reader = nil }
        worker.stop()
        worker.drain()
    }
}
