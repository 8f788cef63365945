import Foundation
import SegueCore
import SegueStore
import Synchronization

/// Store-level measurements, in one run, for `segue-bench` (timings live here, never in tests).
///
/// Each figure is paired with the baseline it should be judged against: a one-event durable commit
/// against a raw `write` + `fdatasync` on the same file system, the store's append path against a
/// plain prepared SQLite INSERT with the same settings.
enum StoreBenchmark {
    struct Measurement: Sendable, CustomStringConvertible {
        var name: String
        var value: Double
        var unit: String
        /// How it was measured (sizes, threads), so a number is never read without its setting.
        var detail: String

        var description: String {
            "\(name): \(String(format: "%.1f", value)) \(unit) (\(detail))"
        }
    }

    /// Runs every measurement with files in `directory` (created if needed, files removed after).
    ///
    /// - Parameters:
    ///   - largeLogEvents: size of the log for the open and rebuild figures (10 million by default).
    ///   - progress: called with each measurement as it completes.
    static func run(
        directory: String, largeLogEvents: Int = 10_000_000, progress: (Measurement) -> Void = { _ in }
    ) throws(StoreError) -> [Measurement] {
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var results: [Measurement] = []
        func record(_ measurement: Measurement) {
            results.append(measurement)
            progress(measurement)
        }
        let latency = try commitLatencies(directory: directory, commits: 1000, warmup: 2000)
        let steady = latency.steady
        record(
            Measurement(
                name: "raw write+fdatasync", value: steady.fsync, unit: "µs",
                detail: "4 KiB pwrite at rotating offsets, median of \(steady.rounds), interleaved with the three below"
            ))
        record(
            Measurement(
                name: "one-event durable commit", value: steady.inline, unit: "µs",
                detail: String(
                    format: "EventStore.commitIfIdle (the daemon's path), steady state: %@, median of %d, "
                        + "%.2fx raw fdatasync (median of per-round ratios)", latency.walNote, steady.rounds,
                    steady.inlineRatio)))
        record(
            Measurement(
                name: "one-event durable append via committer thread", value: steady.append, unit: "µs",
                detail: String(
                    format: "EventStore.append (submit + wait), same store, median of %d, %.2fx raw fdatasync",
                    steady.rounds, steady.appendRatio)))
        record(
            Measurement(
                name: "raw SQLite insert, transaction per row", value: steady.raw, unit: "µs",
                detail: String(
                    format: "same schema, WAL, synchronous=FULL, prepared BEGIN/COMMIT, steady state, "
                        + "median of %d, %.2fx raw fdatasync", steady.rounds, steady.rawRatio)))
        let cold = latency.cold
        record(
            Measurement(
                name: "one-event durable commit, fresh file", value: cold.inline, unit: "µs",
                detail: String(
                    format: "EventStore.commitIfIdle, first %d commits of a new log (WAL still growing), "
                        + "%.2fx raw fdatasync of %.0f µs; plain SQLite %.0f µs (%.2fx)", cold.rounds,
                    cold.inlineRatio, cold.fsync, cold.raw, cold.rawRatio)))
        let producers = 16
        let group = try groupCommitThroughput(
            path: directory + "/bench-group.db", producers: producers, eventsPerProducer: 40_000)
        record(
            Measurement(
                name: "group commit, 16 producers", value: group.eventsPerSecond, unit: "events/s",
                detail: String(
                    format: "durable, EventStore.submit from %d threads, 1 event per unit, up to 64 in flight per "
                        + "producer (refilled once half are acknowledged), %.0f units per commit, %.1f µs CPU "
                        + "per event (all threads)", producers, group.unitsPerCommit, group.cpuMicrosPerEvent)))
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

    /// Medians (µs) of one phase of interleaved durable commits.
    struct Latencies {
        var rounds = 0
        var fsync = 0.0
        var inline = 0.0
        var append = 0.0
        var raw = 0.0
        var inlineRatio = 0.0
        var appendRatio = 0.0
        var rawRatio = 0.0
    }

    /// Durable one-event commits, interleaved round by round so that a shared or noisy disk slows
    /// all kinds alike: a raw 4 KiB `pwrite` + `fdatasync` (the floor under any durable commit),
    /// `EventStore.commitIfIdle` of one event (the daemon's path), `EventStore.append` (submit to
    /// the committer thread and wait) and a plain prepared SQLite INSERT in its own transaction with
    /// the store's schema and pragmas.
    ///
    /// Two phases: `cold` is the first `commits` commits of new files, whose WAL is still growing
    /// (each sync also writes the file's new size); `steady` follows `warmup` more commits, once
    /// both WAL files have been checkpointed and restarted, so that commits overwrite a WAL of fixed
    /// size as a running daemon's do (and as a restarted one's do, since the store keeps its WAL).
    static func commitLatencies(directory: String, commits: Int, warmup: Int) throws(StoreError)
        -> (cold: Latencies, steady: Latencies, walNote: String)
    {
        let rig = try CommitLatencyRig(directory: directory)
        defer { rig.close() }
        let cold = try rig.phase(commits, append: false)
        for _ in 0..<warmup {
            _ = try rig.storeCommit(inline: true)
            _ = try rig.rawCommit()
        }
        let walBefore = (rig.walSize(rig.storePath), rig.walSize(rig.rawPath))
        let steady = try rig.phase(commits, append: true)
        let walAfter = (rig.walSize(rig.storePath), rig.walSize(rig.rawPath))
        // A WAL restarts once it passes the auto-checkpoint size, at whatever frame the crossing
        // commit ends; a few frames more than before is that, not growth.
        let slack = 16 * 4120
        let grew = walAfter.0 > walBefore.0 + slack || walAfter.1 > walBefore.1 + slack
        let sizes = String(
            format: "%.1f MB (plain SQLite's %.1f MB)", Double(walAfter.0) / 1e6, Double(walAfter.1) / 1e6)
        let note =
            "after \(commits + warmup) warm-up commits, WAL \(grew ? "still growing, now" : "recycled") at \(sizes), "
            + "\(rig.queuedBehindCommitter) of \(2 * commits + warmup) inline commits (fresh file, warm-up, steady "
            + "state) found the committer thread busy and queued behind it"
        return (cold, steady, note)
    }

    /// Durable events/s with `producers` threads (real threads, all running at once), each keeping 64
    /// one-event units in flight through `EventStore.submit`.
    static func groupCommitThroughput(path: String, producers: Int, eventsPerProducer: Int) throws(StoreError)
        -> (eventsPerSecond: Double, unitsPerCommit: Double, cpuMicrosPerEvent: Double)
    {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        let store = try EventStore(path: path, durability: .full)
        defer { store.close() }
        let numbering = NSLock()
        nonisolated(unsafe) var seq: Int64 = 0
        let failures = Atomic<Int>(0)
        let ready = DispatchSemaphore(value: 0)
        let go = DispatchSemaphore(value: 0)
        let finished = DispatchGroup()
        for producer in 0..<producers {
            finished.enter()
            let thread = Thread {
                let window = Window(limit: 64)
                let navigator = "nav-\(producer)"
                var revision: Int64 = 0
                ready.signal()
                go.wait()
                for _ in 0..<eventsPerProducer {
                    window.acquire()
                    revision += 1
                    numbering.lock()
                    seq += 1
                    let unit = AppendUnit(events: [event(seq: seq, navigator: navigator, revision: revision)])
                    store.submit(unit) { result in
                        if case .failure = result { failures.add(1, ordering: .relaxed) }
                        window.release()
                    }
                    numbering.unlock()
                }
                window.drain()
                finished.leave()
            }
            thread.name = "bench-producer-\(producer)"
            thread.start()
        }
        for _ in 0..<producers { ready.wait() }
        let commitsBefore = store.commitCount
        let cpuBefore = processCPUSeconds()
        let start = ContinuousClock.now
        for _ in 0..<producers { go.signal() }
        finished.wait()
        let elapsed = seconds(ContinuousClock.now - start)
        let cpu = processCPUSeconds() - cpuBefore
        guard failures.load(ordering: .relaxed) == 0 else {
            throw StoreError(kind: .io, message: "The group commit benchmark saw failed appends.")
        }
        let total = Double(producers * eventsPerProducer)
        return (total / elapsed, total / Double(max(1, store.commitCount - commitsBefore)), cpu / total * 1e6)
    }

    /// A producer's flow control: at most `limit` units in flight; a full producer sleeps until half
    /// of them are acknowledged, not until the first one is. With a plain semaphore every
    /// completion of a sleeping producer wakes it for one more submit and it sleeps again, so the
    /// committer thread spends its time waking producers (tens of µs a wake on this VM), which
    /// measures the harness rather than the store.
    final class Window: @unchecked Sendable {
        private let limit: Int
        private let lock = NSLock()
        private let wake = DispatchSemaphore(value: 0)
        private var inFlight = 0
        /// While the producer sleeps: the in-flight count at which to wake it.
        private var wakeAt: Int?

        init(limit: Int) { self.limit = limit }

        /// Takes a slot, waiting while the window is full.
        func acquire() {
            wait(until: limit / 2) { $0 >= limit }
            lock.withLock { inFlight += 1 }
        }

        /// Gives a slot back (from a completion), waking the producer when its threshold is reached.
        func release() {
            lock.lock()
            inFlight -= 1
            let wakeUp = wakeAt.map { inFlight <= $0 } ?? false
            if wakeUp { wakeAt = nil }
            lock.unlock()
            if wakeUp { wake.signal() }
        }

        /// Waits until nothing is in flight.
        func drain() { wait(until: 0) { $0 > 0 } }

        private func wait(until threshold: Int, if blocked: (Int) -> Bool) {
            lock.lock()
            guard blocked(inFlight) else {
                lock.unlock()
                return
            }
            wakeAt = threshold
            lock.unlock()
            wake.wait()
        }
    }

    /// User + system CPU time of the whole process so far: on a shared two-core machine, CPU per
    /// event is steadier than events/s, which also measures the neighbours.
    static func processCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6
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
