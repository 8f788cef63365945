import Foundation
import SegueCore
import SegueStore

/// The four durable one-event commits `StoreBenchmark.commitLatencies` interleaves, each on a file of
/// its own in one directory: a raw 4 KiB `pwrite` + `fdatasync`, `EventStore.commitIfIdle` (the
/// daemon's path), `EventStore.append` and a plain prepared SQLite INSERT in its own transaction.
final class CommitLatencyRig {
    let storePath: String
    let rawPath: String
    private let fd: Int32
    private let store: EventStore
    private let database: Database
    private let insert: Statement
    private let begin: Statement
    private let commit: Statement
    private let page = [UInt8](repeating: 0x5a, count: 4096)
    private let clock = ContinuousClock()
    private var seq: Int64 = 0
    private var rawSeq: Int64 = 0
    /// Inline commits that found the writer busy and went through the committer thread instead.
    private(set) var queuedBehindCommitter = 0

    init(directory: String) throws(StoreError) {
        let filePath = directory + "/bench-fsync.bin"
        let fd = open(filePath, O_CREAT | O_WRONLY | O_TRUNC, 0o644)
        guard fd >= 0 else { throw StoreError(kind: .io, message: "Cannot create \(filePath) (errno \(errno)).") }
        let page = [UInt8](repeating: 0x5a, count: 4096)
        for index in 0..<64 { _ = page.withUnsafeBytes { pwrite(fd, $0.baseAddress, 4096, off_t(index * 4096)) } }
        fsync(fd)
        self.fd = fd

        storePath = directory + "/bench-single.db"
        rawPath = directory + "/bench-raw.db"
        for path in [storePath, rawPath] {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
        store = try EventStore(path: storePath, durability: .full)
        database = try Database(path: rawPath)
        _ = try database.scalarText("PRAGMA journal_mode = WAL")
        try database.execute("PRAGMA synchronous = FULL")
        try Schema.migrate(database)
        insert = try database.prepare(
            "INSERT INTO events (seq, navigator, revision, type, version, frame, time, command, data) "
                + "VALUES (?, 'main', ?, 'transition.started', 1, ?, ?, NULL, "
                + "'{\"transition\":1,\"operation\":\"push\"}')")
        begin = try database.prepare("BEGIN")
        commit = try database.prepare("COMMIT")
    }

    func close() {
        store.close()
        Foundation.close(fd)
    }

    func storeCommit(inline: Bool) throws(StoreError) -> Double {
        seq += 1
        let unit = AppendUnit(events: [StoreBenchmark.event(seq: seq, navigator: "main", revision: seq)])
        let start = clock.now
        if inline {
            // The writer is busy while the committer thread finishes a round: a WAL copy that an
            // inline commit handed to it, or what follows an `append`'s completion (its checkpoint
            // decision). The daemon's commit then queues behind it, and so does this.
            guard let results = store.commitIfIdle([unit]) else {
                queuedBehindCommitter += 1
                try store.append(unit)
                return StoreBenchmark.seconds(clock.now - start) * 1e6
            }
            try results[0].get()
        } else {
            try store.append(unit)
        }
        return StoreBenchmark.seconds(clock.now - start) * 1e6
    }

    func rawCommit() throws(StoreError) -> Double {
        rawSeq += 1
        let start = clock.now
        try begin.run()
        for index in Int32(1)...4 { insert.bind(rawSeq, at: index) }
        try insert.run()
        try commit.run()
        return StoreBenchmark.seconds(clock.now - start) * 1e6
    }

    func fileSync(_ round: Int) -> Double {
        let start = clock.now
        _ = page.withUnsafeBytes { pwrite(fd, $0.baseAddress, 4096, off_t(round % 64 * 4096)) }
        fdatasync(fd)
        return StoreBenchmark.seconds(clock.now - start) * 1e6
    }

    /// `rounds` rounds of each commit in turn, as medians and median ratios to the raw sync.
    func phase(_ rounds: Int, append: Bool) throws(StoreError) -> StoreBenchmark.Latencies {
        var fsyncs: [Double] = []
        var inlines: [Double] = []
        var appends: [Double] = []
        var raws: [Double] = []
        for round in 0..<rounds {
            fsyncs.append(fileSync(round))
            inlines.append(try storeCommit(inline: true))
            if append { appends.append(try storeCommit(inline: false)) }
            raws.append(try rawCommit())
        }
        func median(_ values: [Double]) -> Double { values.isEmpty ? 0 : values.sorted()[values.count / 2] }
        return StoreBenchmark.Latencies(
            rounds: rounds, fsync: median(fsyncs), inline: median(inlines), append: median(appends),
            raw: median(raws), inlineRatio: median(zip(inlines, fsyncs).map { $0 / $1 }),
            appendRatio: median(zip(appends, fsyncs).map { $0 / $1 }),
            rawRatio: median(zip(raws, fsyncs).map { $0 / $1 }))
    }

    func walSize(_ path: String) -> Int {
        (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0
    }
}
