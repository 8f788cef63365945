import Foundation
import SegueCore
import SeguePostgres
import SegueStore

/// The PostgreSQL store against its raw limit, measured on the same server in one run: for
/// `segue-bench --store postgres`.
///
/// The limit is what no store can beat on that server: one prepared `INSERT` of one row in its
/// own transaction, sent as the `INSERT` and a Sync in one pipelined round trip through libpq with
/// `synchronous_commit = on` (the server commits the implicit transaction at the Sync, as the
/// store's batches do: `BEGIN` and `COMMIT` around it would cost the server two more statements),
/// so each costs one round trip and one WAL flush. The store's
/// one-event durable commit (`commitIfIdle`, the daemon's path) is timed in rounds interleaved with
/// it, so drift in the server's disk or load hits both alike; then 16 writers append at once.
enum PostgresStoreBench {
    struct Figures {
        var raw: Samples
        var store: Samples
        var writers: Int
        var eventsPerSecond: Double
        var unitsPerCommit: Double

        var lines: [String] {
            var raw = raw
            var store = store
            return [
                String(
                    format: "raw INSERT;COMMIT round trip: p50 %.0f µs, p99 %.0f µs (%d rounds)", raw.percentile(50),
                    raw.percentile(99), raw.count),
                String(
                    format: "store one-event durable commit: p50 %.0f µs (%.2fx raw), p99 %.0f µs (%.2fx raw)",
                    store.percentile(50), store.percentile(50) / raw.percentile(50), store.percentile(99),
                    store.percentile(99) / raw.percentile(99)),
                String(
                    format: "store, %d writers: %.0f events/s, %.1f units per commit", writers, eventsPerSecond,
                    unitsPerCommit),
            ]
        }
    }

    /// Measures on the database `conninfo` names, in a schema of its own that is dropped after.
    static func run(conninfo: String, rounds: Int = 2000, writers: Int = 16, eventsPerWriter: Int = 1000) throws
        -> Figures
    {
        let schema = "segue_bench_\(getpid())"
        let admin = try PostgresDaemonBench.connect(conninfo)
        try admin.execute("CREATE SCHEMA \(schema)")
        defer { _ = try? admin.execute("DROP SCHEMA \(schema) CASCADE") }
        let scoped = conninfo + " options='-c search_path=\(schema)'"
        let raw = try PostgresDaemonBench.connect(scoped)
        try raw.execute("SET synchronous_commit = on; CREATE TABLE raw_insert (seq bigint PRIMARY KEY, data json)")
        let store = try PostgresEventStore(conninfo: scoped, durability: .full)
        defer { store.close() }
        var rawSamples = Samples()
        var storeSamples = Samples()
        var numbering = (seq: Int64(0), revision: Int64(0))
        for round in 0..<(rounds + rounds / 10) {
            let rawTime = try timeRawInsert(raw, seq: Int64(round + 1))
            let storeTime = try timeStoreCommit(store, &numbering)
            // The first tenth warms caches and the server's WAL segment; it is not counted.
            guard round >= rounds / 10 else { continue }
            rawSamples.add(nanoseconds: rawTime)
            storeSamples.add(nanoseconds: storeTime)
        }
        let throughput = try concurrentWriters(store, writers: writers, eventsPerWriter: eventsPerWriter)
        return Figures(
            raw: rawSamples, store: storeSamples, writers: writers, eventsPerSecond: throughput.eventsPerSecond,
            unitsPerCommit: throughput.unitsPerCommit)
    }

    static let rawInsert = PreparedStatement(
        "bench_raw_insert", "INSERT INTO raw_insert (seq, data) VALUES ($1, $2)", [.int8, .json])

    static func timeRawInsert(_ connection: PostgresConnection, seq: Int64) throws -> Int64 {
        var parameters = PostgresParameters()
        parameters.append(seq)
        parameters.append(#"{"transition":1,"from":"a","to":"b"}"#, as: .json)
        let start = Bench.monotonic()
        let outcome = connection.transaction([.prepared(rawInsert, parameters)], afterSending: nil)
        let elapsed = Bench.monotonic() - start
        _ = try outcome.get()
        return elapsed
    }

    private static func timeStoreCommit(_ store: PostgresEventStore, _ numbering: inout (seq: Int64, revision: Int64))
        throws -> Int64
    {
        numbering.seq += 1
        numbering.revision += 1
        let event = EventRecord(
            seq: numbering.seq, navigator: "bench", revision: numbering.revision, type: "transition.started",
            frame: numbering.seq, time: numbering.seq, command: "c\(numbering.seq)",
            data: ["transition": 1, "from": "a", "to": "b"])
        let unit = AppendUnit(events: [event], commandID: event.command, navigator: "bench", reply: ["ok": true])
        store.flush()  // the committer thread idles right after a completion: commit inline, as the daemon does
        let start = Bench.monotonic()
        guard let results = store.commitIfIdle([unit]) else { throw BenchError("the store's writer was busy") }
        let elapsed = Bench.monotonic() - start
        try results[0].get()
        return elapsed
    }

    /// `writers` threads appending one-event units closed-loop (each waits for its acknowledgement),
    /// numbered under one lock as the daemon's loop numbers them.
    private static func concurrentWriters(_ store: PostgresEventStore, writers: Int, eventsPerWriter: Int) throws
        -> (eventsPerSecond: Double, unitsPerCommit: Double)
    {
        let numbering = NSLock()
        nonisolated(unsafe) var revisions: [String: Int64] = [:]
        nonisolated(unsafe) var lastSeq = store.lastSeq
        let failures = Box(0)
        let commitsBefore = store.commitCount
        let start = Bench.monotonic()
        let joiners = (0..<writers).map { index in
            Bench.thread {
                let navigator = "writer-\(index)"
                for _ in 0..<eventsPerWriter {
                    let done = DispatchSemaphore(value: 0)
                    numbering.lock()
                    lastSeq += 1
                    let seq = lastSeq
                    let revision = revisions[navigator, default: 0] + 1
                    revisions[navigator] = revision
                    let event = EventRecord(
                        seq: seq, navigator: navigator, revision: revision, type: "transition.started", frame: seq,
                        time: seq, command: nil, data: ["transition": .int(revision)])
                    store.submit(AppendUnit(events: [event])) { result in
                        if case .failure = result { failures.update { $0 += 1 } }
                        done.signal()
                    }
                    numbering.unlock()
                    done.wait()
                }
            }
        }
        for joiner in joiners { joiner.join() }
        let seconds = Double(Bench.monotonic() - start) / 1e9
        guard failures.get == 0 else { throw BenchError("\(failures.get) appends failed in the writers' run") }
        let commits = store.commitCount - commitsBefore
        let units = Double(writers * eventsPerWriter)
        return (units / seconds, units / Double(max(1, commits)))
    }
}
