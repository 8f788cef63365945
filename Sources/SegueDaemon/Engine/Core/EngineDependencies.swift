import SegueCore
import SegueStore

/// The clock the core measures itself with: how long a frame close took (to notice overload), where
/// a stalled loop's time went, when a rate-limited log line is due. Instants that decide anything
/// (frames, event times) come with the inputs. The loop passes the system's; tests pass one they
/// advance by hand.
protocol EngineClock: AnyObject {
    /// Monotonic nanoseconds.
    func monotonic() -> Int64
    /// The calling thread's CPU time in nanoseconds.
    func threadCPU() -> Int64
    /// The wall clock, Unix nanoseconds: read beside `monotonic` to tell a clock step from a stall
    /// (the `now` of a loop turn may be older than the monotonic time read later in it).
    func wall() -> Int64
}

/// What the core reads from the log, synchronously, on its own thread: command ids already applied,
/// `state --at`, the fold at start (`history` is read on a connection of its own: `BackgroundReads`).
/// Read-only: appends go out as `.append` actions.
protocol EngineLogReading: PastReading {
    var lastSeq: Int64 { get }
    var walCheckpoints: WALCheckpointCounts { get }
    func command(_ id: String) throws(StoreError) -> StoredCommand?
    func latestSnapshots() throws(StoreError) -> [Snapshot]
    func forEachEvent(after seq: Int64, _ body: (EventRecord) throws(StoreError) -> Void) throws(StoreError)
    func navigators() throws(StoreError) -> [String]
}

/// Any store, read by the core.
final class StoreLogReader: EngineLogReading {
    let store: any EventStoring

    init(_ store: any EventStoring) { self.store = store }

    var lastSeq: Int64 { store.lastSeq }
    var walCheckpoints: WALCheckpointCounts { store.walCheckpoints }
    func command(_ id: String) throws(StoreError) -> StoredCommand? { try store.command(id) }
    func events(after seq: Int64, navigator: String?, limit: Int) throws(StoreError) -> [EventRecord] {
        try store.events(after: seq, navigator: navigator, limit: limit)
    }
    func events(of navigator: String, after seq: Int64, upTo last: Int64) throws(StoreError) -> [EventRecord] {
        try store.events(of: navigator, after: seq, upTo: last)
    }
    func latestSnapshots() throws(StoreError) -> [Snapshot] { try store.latestSnapshots() }
    func navigators() throws(StoreError) -> [String] { try store.navigators() }
    func snapshot(of navigator: String, atOrBefore seq: Int64) throws(StoreError) -> Snapshot? {
        try store.snapshot(of: navigator, atOrBefore: seq)
    }
    func forEachEvent(after seq: Int64, _ body: (EventRecord) throws(StoreError) -> Void) throws(StoreError) {
        try store.forEachEvent(after: seq, body)
    }
}
