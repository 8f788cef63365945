import SegueCore
import SegueProtocol
import SegueStore
import Synchronization

/// The reads too long for the loop's thread, `history` pages and `list`, answered on a thread of its
/// own with a read connection of its own.
///
/// A page of thousands of events takes tens to hundreds of milliseconds to read, fold for its
/// digests and encode: on the loop's thread that was as many missed frames for every subscriber, and
/// on the store's shared reader it would hold up the loop's own reads (command ids) as long. So
/// does a `list` of a hundred thousand navigators to sort and encode. They are answered one at a
/// time, clients taking turns (`TakingTurns`), each client's in the order it asked: a client with
/// eight long pages waiting holds another's up by one page, not eight. The loop bounds how many
/// wait (`ReplyOrder`).
final class BackgroundReads: @unchecked Sendable {
    /// What is answered here.
    enum Read: Sendable {
        case history(HistoryQuery)
        case list(ListQuery)

        var id: String? {
            switch self {
            case .history(let query): query.id
            case .list(let query): query.id
            }
        }
    }

    private let worker = SerialWorker(named: "segue-history")
    private typealias Page = (read: Read, deliver: @Sendable ([UInt8]) -> Void)
    /// The pages not started yet; each job on `worker` takes the next in turn, whoever asked for it.
    private let pages = Mutex(TakingTurns<[UInt8], Page>())
    private let store: any EventStoring
    /// Opened at the first request; touched only on `worker`.
    private var reader: (any PastReading)?
    /// Set at shutdown: pages not started yet are answered `unavailable` instead of read.
    private let stopping = Atomic<Bool>(false)

    init(store: any EventStoring) { self.store = store }

    /// Reads and folds the page (or encodes the list) on the history thread, in `client`'s turn
    /// (`ClientKey`), then hands its reply to `deliver` (there).
    func answer(_ read: Read, for client: [UInt8], deliver: @escaping @Sendable ([UInt8]) -> Void) {
        pages.withLock { $0.append((read, deliver), for: client) }
        worker.async { [self] in
            guard let next = pages.withLock({ $0.next() }) else { return }
            next.deliver(reply(next.read).serializedBytes())
        }
    }

    private func reply(_ read: Read) -> JSON {
        guard !stopping.load(ordering: .relaxed) else {
            let what = if case .list = read { "list" } else { "page" }
            return Reply.error(
                id: read.id, .unavailable, "segued is stopping; ask for the \(what) again once it is back.")
        }
        switch read {
        case .history(let query): return page(query)
        case .list(let query): return query.reply()
        }
    }

    private func page(_ query: HistoryQuery) -> JSON {
        do throws(StoreError) {
            if reader == nil { reader = try store.pastReader() }
            return query.reply(from: reader!)
        } catch {
            return Reply.error(id: query.id, WireError(error.coreError))
        }
    }

    /// At shutdown: the page (or list) being made is finished, the others are answered `unavailable` at once
    /// (a queue of long pages must not outlast the service manager's stop timeout), and the read
    /// connection is closed. Every reply has been delivered when it returns.
    func stop() {
        stopping.store(true, ordering: .relaxed)
        worker.async { [self] in reader = nil }
        worker.stop()
        worker.drain()
    }
}
