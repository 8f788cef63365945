import Foundation
import SegueCore
import Synchronization

/// Store-level measurements, in one run, for `segue-bench` (timings live here, never in tests).
///
/// Each figure is paired with the baseline it should be judged against: a one-event durable commit
/// against a raw `write` + `fdatasync` on the same file system, the store's append path against a
/// plain prepared SQLite INSERT with the same settings.
public enum StoreBenchmark {
    public struct Measurement: Sendable, CustomStringConvertible {
        public var name: String
        public var value: Double
        public var unit: String
        /// How it was measured (sizes, threads), so a number is never read without its setting.
        public var detail: String

        public var description: String {
            "\(name): \(String(format: "%.1f", value)) \(unit) (\(detail))"
        }
    }

    /// Runs every measurement with files in `directory` (created if needed, files removed after).
    ///
    /// - Parameters:
    ///   - largeLogEvents: size of the log for the open and rebuild figures (10 million by default).
    ///   - progress: called with each measurement as it completes.
    public static func run(
        directory: String, largeLogEvents: Int = 10_000_000, progress: (Measurement) -> Void = { _ in }
    ) throws(StoreError) -> [Measurement] {
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var results: [Measurement] = []
        func record(_ measurement: Measurement) {
            results.append(measurement)
            progress(measurement)
        }
        let commits = 1000
        let latency = try commitLatencies(directory: directory, commits: commits)
        record(
            Measurement(
                name: "raw write+fdatasync", value: latency.fsync, unit: "µs",
                detail: "4 KiB pwrite at rotating offsets, median of \(commits), interleaved with the two below"))
        record(
            Measurement(
                name: "one-event durable commit", value: latency.store, unit: "µs",
                detail: String(
                    format: "EventStore.append, median of %d, %.2fx raw fdatasync (median of per-round ratios)",
                    commits, latency.storeRatio)))
        record(
            Measurement(
                name: "raw SQLite insert, transaction per row", value: latency.raw, unit: "µs",
                detail: String(
                    format: "same schema, WAL, synchronous=FULL, median of %d, %.2fx raw fdatasync", commits,
                    latency.rawRatio)))
        let group = try groupCommitThroughput(
            path: directory + "/bench-group.db", producers: 16, eventsPerProducer: 40_000)
        record(
            Measurement(
                name: "group commit, 16 producers", value: group.eventsPerSecond, unit: "events/s",
                detail: String(
                    format: "durable, 1 event per unit, 64 in flight per producer, %.0f units per commit",
                    group.unitsPerCommit)))
        let large = directory + "/bench-large.db"
        let generated = try generateLog(path: large, events: largeLogEvents)
        record(
            Measurement(
                name: "generate log", value: generated, unit: "events/s",
                detail: "\(largeLogEvents) events, bulk insert, synchronous=OFF"))
        let rebuild = try rebuildThroughput(path: large)
        record(
            Measurement(
                name: "rebuild (read all events)", value: rebuild, unit: "events/s",
                detail: "\(largeLogEvents) events decoded to EventRecord in seq order"))
        for check in [OpenCheck.quick, .deferred(report: { _ in })] {
            let open = try openAndFirstRead(path: large, check: check)
            record(
                Measurement(
                    name: check.checksBeforeOpen
                        ? "open + first read, quick_check first" : "open + first read, deferred check",
                    value: open.total * 1000, unit: "ms",
                    detail: String(
                        format: "%d events; open %.1f ms, first read %.2f ms", largeLogEvents, open.open * 1000,
                        open.read * 1000)))
        }
        for name in ["bench-fsync.bin", "bench-single.db", "bench-raw.db", "bench-group.db", "bench-large.db"] {
            for suffix in ["", "-wal", "-shm"] {
                try? FileManager.default.removeItem(atPath: directory + "/" + name + suffix)
            }
        }
        return results
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
    }

    static func event(seq: Int64, navigator: String, revision: Int64) -> EventRecord {
        EventRecord(
            seq: seq, navigator: navigator, revision: revision, type: "transition.started", frame: seq, time: seq,
            command: nil, data: ["transition": .int(revision), "operation": "push"])
    }

    /// Median µs of three kinds of durable commit, interleaved round by round so that a shared or
    /// noisy disk slows all three alike: a raw 4 KiB `pwrite` + `fdatasync` (the floor under any
    /// durable commit), `EventStore.append` of one event, and a plain prepared SQLite INSERT in its
    /// own transaction with the store's schema and pragmas.
    static func commitLatencies(directory: String, commits: Int) throws(StoreError)
        -> (fsync: Double, store: Double, raw: Double, storeRatio: Double, rawRatio: Double)
    {
        let filePath = directory + "/bench-fsync.bin"
        let fd = open(filePath, O_CREAT | O_WRONLY | O_TRUNC, 0o644)
        guard fd >= 0 else { throw StoreError(kind: .io, message: "Cannot create \(filePath) (errno \(errno)).") }
        defer { close(fd) }
        let page = [UInt8](repeating: 0x5a, count: 4096)
        for index in 0..<64 { _ = page.withUnsafeBytes { pwrite(fd, $0.baseAddress, 4096, off_t(index * 4096)) } }
        fsync(fd)

        let store = try EventStore(path: directory + "/bench-single.db", durability: .full)
        defer { store.close() }

        let database = try Database(path: directory + "/bench-raw.db")
        _ = try database.scalarText("PRAGMA journal_mode = WAL")
        try database.execute("PRAGMA synchronous = FULL")
        try Schema.migrate(database)
        let insert = try database.prepare(
            "INSERT INTO events (seq, navigator, revision, type, version, frame, time, command, data) "
                + "VALUES (?, 'main', ?, 'transition.started', 1, ?, ?, NULL, "
                + "'{\"transition\":1,\"operation\":\"push\"}')")

        let clock = ContinuousClock()
        var fsyncs: [Double] = []
        var appends: [Double] = []
        var raws: [Double] = []
        for index in 0..<commits {
            let seq = Int64(index + 1)
            var start = clock.now
            _ = page.withUnsafeBytes { pwrite(fd, $0.baseAddress, 4096, off_t(index % 64 * 4096)) }
            fdatasync(fd)
            fsyncs.append(seconds(clock.now - start) * 1e6)

            start = clock.now
            try store.append(AppendUnit(events: [event(seq: seq, navigator: "main", revision: seq)]))
            appends.append(seconds(clock.now - start) * 1e6)

            start = clock.now
            try database.execute("BEGIN")
            insert.bind(seq, at: 1)
            insert.bind(seq, at: 2)
            insert.bind(seq, at: 3)
            insert.bind(seq, at: 4)
            try insert.run()
            try database.execute("COMMIT")
            raws.append(seconds(clock.now - start) * 1e6)
        }
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        return (
            median(fsyncs), median(appends), median(raws),
            median(zip(appends, fsyncs).map { $0 / $1 }), median(zip(raws, fsyncs).map { $0 / $1 })
        )
    }

    /// Durable events/s with `producers` threads, each keeping 64 one-event units in flight.
    static func groupCommitThroughput(path: String, producers: Int, eventsPerProducer: Int) throws(StoreError)
        -> (eventsPerSecond: Double, unitsPerCommit: Double)
    {
        let store = try EventStore(path: path, durability: .full)
        defer { store.close() }
        let numbering = NSLock()
        nonisolated(unsafe) var seq: Int64 = 0
        nonisolated(unsafe) var revisions = [Int64](repeating: 0, count: producers)
        let failures = Atomic<Int>(0)
        let commitsBefore = store.commitCount
        let start = ContinuousClock.now
        DispatchQueue.concurrentPerform(iterations: producers) { producer in
            let window = DispatchSemaphore(value: 64)
            let navigator = "nav-\(producer)"
            for _ in 0..<eventsPerProducer {
                window.wait()
                numbering.lock()
                seq += 1
                revisions[producer] += 1
                let unit = AppendUnit(events: [event(seq: seq, navigator: navigator, revision: revisions[producer])])
                store.submit(unit) { result in
                    if case .failure = result { failures.add(1, ordering: .relaxed) }
                    window.signal()
                }
                numbering.unlock()
            }
            // Drain, then give the permits back: libdispatch traps on releasing a semaphore that
            // holds fewer than it started with.
            for _ in 0..<64 { window.wait() }
            for _ in 0..<64 { window.signal() }
        }
        let elapsed = seconds(ContinuousClock.now - start)
        guard failures.load(ordering: .relaxed) == 0 else {
            throw StoreError(kind: .io, message: "The group commit benchmark saw failed appends.")
        }
        let total = Double(producers * eventsPerProducer)
        return (total / elapsed, total / Double(max(1, store.commitCount - commitsBefore)))
    }

    /// Writes `events` events quickly (big transactions, `synchronous=OFF`); returns events/s.
    static func generateLog(path: String, events: Int) throws(StoreError) -> Double {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        let database = try Database(path: path)
        _ = try database.scalarText("PRAGMA journal_mode = WAL")
        try database.execute("PRAGMA synchronous = OFF; PRAGMA cache_size = -262144")
        try Schema.migrate(database)
        let insert = try database.prepare(
            "INSERT INTO events (seq, navigator, revision, type, version, frame, time, command, data) "
                + "VALUES (?, ?, ?, 'transition.started', 1, ?, ?, ?, ?)")
        let navigators = (0..<100).map { "nav-\($0)" }
        let start = ContinuousClock.now
        try database.execute("BEGIN")
        for index in 0..<events {
            let seq = Int64(index + 1)
            insert.bind(seq, at: 1)
            insert.bind(navigators[index % 100], at: 2)
            insert.bind(Int64(index / 100 + 1), at: 3)
            insert.bind(seq * 16, at: 4)
            insert.bind(1_700_000_000_000_000_000 + seq * 16_666_666, at: 5)
            insert.bind(index % 3 == 0 ? "cmd-\(seq)" : nil, at: 6)
            insert.bind("{\"transition\":\(index / 100 + 1),\"operation\":\"push\"}", at: 7)
            try insert.run()
            if index % 500_000 == 499_999 { try database.execute("COMMIT; BEGIN") }
        }
        try database.execute("COMMIT; PRAGMA wal_checkpoint(TRUNCATE)")
        return Double(events) / seconds(ContinuousClock.now - start)
    }

    /// Seconds to open the store (quick check included) and serve what a restarting daemon reads
    /// first: the snapshots and the last page of history.
    static func openAndFirstRead(path: String, check: OpenCheck) throws(StoreError)
        -> (open: Double, read: Double, total: Double)
    {
        let clock = ContinuousClock()
        let start = clock.now
        let store = try EventStore(path: path, durability: .full, check: check)
        let opened = clock.now
        _ = try store.latestSnapshots()
        let page = try store.events(after: max(0, store.lastSeq - 100), limit: 100)
        let read = clock.now
        store.close()
        guard page.count == 100 || store.lastSeq < 100 else {
            throw StoreError(kind: .invalidData, message: "The first read returned \(page.count) events.")
        }
        return (seconds(opened - start), seconds(read - opened), seconds(read - start))
    }

    /// Events/s of reading the whole log into `EventRecord`s, as a rebuild from scratch does.
    static func rebuildThroughput(path: String) throws(StoreError) -> Double {
        let store = try EventStore(path: path, durability: .full)
        defer { store.close() }
        var count = 0
        var checksum: Int64 = 0
        let start = ContinuousClock.now
        try store.forEachEvent(after: 0) { event in
            count += 1
            checksum &+= event.revision
        }
        let elapsed = seconds(ContinuousClock.now - start)
        guard checksum != 0 || count == 0 else { return 0 }
        return Double(count) / elapsed
    }
}
