import Foundation
import SegueCore
import Testing

@testable import SeguePostgres
@testable import SegueStore

/// Which older snapshots a checkpoint deletes: the recent ones kept whole, older ones one per
/// `spacing` seqs, each judged once as it leaves the recent ones.
@Suite struct SnapshotThinningTests {
    static let thinning = SnapshotThinning(recent: 3, spacing: 50)

    /// The seqs of a navigator's newest snapshots after a checkpoint, newest first, and the one to
    /// delete.
    static let decisions: [(String, [Int64], Int64?)] = [
        ("fewer than the recent ones", [30, 20], nil),
        ("the recent ones and one more: the oldest is the first kept", [40, 30, 20, 10], nil),
        ("the one leaving is close to the kept one before it", [50, 40, 30, 20, 10], 20),
        ("the one leaving is a spacing after it", [90, 80, 70, 60, 10], nil),
        ("the one leaving is just short of a spacing after it", [90, 80, 70, 59, 10], 59),
        ("more seqs than the window: the rest is not looked at", [90, 80, 70, 60, 55, 10], 60),
    ]

    @Test(arguments: decisions)
    func dropped(name: String, newestFirst: [Int64], dropped: Int64?) {
        #expect(
            Self.thinning.dropped(newestFirst: Array(newestFirst.prefix(Self.thinning.window))) == dropped, "\(name)")
    }

    @Test func theDefaultKeepsEightThenOnePerThirtyTwoCheckpoints() {
        #expect(SnapshotThinning(checkpointEvery: 1000) == SnapshotThinning(recent: 8, spacing: 32_000))
        #expect(SnapshotThinning.thins("main") && !SnapshotThinning.thins("#checkpoint"))
    }

    /// 200 checkpoints of two navigators, every 10 seqs, on each backend: each keeps its 3 newest
    /// and one per 50 seqs before them, counted from its first; the marker rows (`#`) are all kept;
    /// a store asked for no thinning keeps every row.
    @Test(arguments: Backend.allCases)
    func aStoreKeepsTheRecentSnapshotsAndOnePerSpacing(backend: Backend) throws {
        let place = try LogPlace(backend)
        let store = try place.open()
        let other = try place.sibling()
        let plain = try other.open()
        for checkpoint in 1...200 {
            let seq = Int64(checkpoint * 10)
            let snapshots = ["a", "b", "#checkpoint"].map {
                Snapshot(navigator: $0, seq: seq, revision: Int64(checkpoint), state: ["at": .int(seq)])
            }
            try store.saveSnapshots(snapshots, thinning: Self.thinning)
            try plain.saveSnapshots(snapshots)
        }
        let kept = Set(stride(from: Int64(10), through: 1960, by: 50)).union([1980, 1990, 2000])
        for navigator in ["a", "b"] {
            #expect(try Self.seqs(of: navigator, in: store) == kept, "\(backend) \(navigator)")
            #expect(try store.snapshot(of: navigator, atOrBefore: 1000)?.state == ["at": 960])
        }
        #expect(try Self.seqs(of: "#checkpoint", in: store).count == 200)
        #expect(try Self.seqs(of: "a", in: plain).count == 200)
        #expect(try store.latestSnapshots().map(\.seq) == [2000, 2000, 2000])
    }

    /// A PostgreSQL role granted what the docs asked before thinning (no `DELETE` on `snapshots`)
    /// still saves its checkpoints, whole, and is told so; granted `DELETE`, its next checkpoint thins.
    @Test func aRoleWithoutDeleteOnSnapshotsKeepsEverySnapshot() throws {
        let place = try LogPlace(.postgres)
        let schema = try #require(place.schema)
        do { _ = try place.open() }  // the tables, made by their owner
        let role = "r_" + UUID().uuidString.prefix(12).lowercased().replacingOccurrences(of: "-", with: "")
        let admin = try LogPlace.server().admin()
        try admin.execute(
            """
            CREATE ROLE \(role) LOGIN;
            GRANT USAGE ON SCHEMA \(schema) TO \(role);
            GRANT SELECT, INSERT ON ALL TABLES IN SCHEMA \(schema) TO \(role);
            GRANT UPDATE ON \(schema).snapshots TO \(role);
            """)
        let store = try PostgresEventStore(conninfo: try #require(place.conninfo) + " user=\(role)", durability: .full)
        #expect(try store.mayThinSnapshots() == false)
        func checkpoint(_ number: Int) throws {
            let seq = Int64(number * 10)
            try store.saveSnapshots(
                [Snapshot(navigator: "a", seq: seq, revision: Int64(number), state: ["at": .int(seq)])],
                thinning: Self.thinning)
        }
        for number in 1...20 { try checkpoint(number) }
        #expect(try Self.seqs(of: "a", in: store).count == 20)
        try admin.execute("GRANT DELETE ON \(schema).snapshots TO \(role)")
        #expect(try store.mayThinSnapshots())
        try checkpoint(21)
        // 180 leaves the newest three, 10 seqs after 170: deleted.
        #expect(try Self.seqs(of: "a", in: store).count == 20)
        #expect(try store.snapshot(of: "a", atOrBefore: 180)?.seq == 170)
    }

    /// Checkpoint seqs of one navigator: regular, irregular, and too few to judge any.
    static let schedules: [(String, [Int64])] = [
        ("every 10 seqs", Array(stride(from: 10, through: 2000, by: 10))),
        ("gaps of 1 to 97", (1...150).reduce(into: [Int64]()) { $0.append(($0.last ?? 0) + Int64($1 * 37 % 97 + 1)) }),
        ("a spacing apart or more", Array(stride(from: 100, through: 3000, by: 60))),
        ("only the recent ones and one more", [5, 10, 15, 20]),
    ]

    /// The seqs a checkpoint after each seq of `schedule` leaves.
    static func thinnedByCheckpoints(_ schedule: [Int64]) -> [Int64] {
        var kept: [Int64] = []
        for seq in schedule {
            kept.append(seq)
            if let dropped = thinning.dropped(newestFirst: Array(kept.reversed().prefix(thinning.window))) {
                kept.removeAll { $0 == dropped }
            }
        }
        return kept
    }

    /// The seqs a pass over `seqs` (one navigator's rows, oldest first) leaves.
    static func thinnedByPass(_ seqs: [Int64], navigator: String = "a") -> [Int64] {
        var pass = SnapshotBacklog(thinning)
        let recentFrom = seqs.count >= thinning.recent ? seqs[seqs.count - thinning.recent] : nil
        return seqs.filter { !pass.deletes(navigator, $0, recentFrom: recentFrom) }
    }

    /// A pass over snapshots no checkpoint judged leaves what checkpoints would have; over what
    /// they left, it deletes nothing.
    @Test(arguments: schedules)
    func aPassLeavesWhatCheckpointsWouldHave(name: String, schedule: [Int64]) {
        let checkpoints = Self.thinnedByCheckpoints(schedule)
        #expect(Self.thinnedByPass(schedule) == checkpoints, "\(name)")
        #expect(Self.thinnedByPass(checkpoints) == checkpoints, "\(name)")
        #expect(Self.thinnedByPass(schedule, navigator: "#checkpoint") == schedule, "\(name)")
    }

    /// Unjudged rows below rows checkpoints judged (an upgrade): the newest and the recent ones stay,
    /// and no two kept rows below them are two spacings apart.
    @Test func aPassOverAnUpgradedLogKeepsTheSpacing() {
        let old = Array(stride(from: Int64(10), through: 1000, by: 10))
        var kept = old
        for seq in stride(from: Int64(1010), through: 2000, by: 10) {
            kept.append(seq)
            if let dropped = Self.thinning.dropped(newestFirst: Array(kept.reversed().prefix(Self.thinning.window))) {
                kept.removeAll { $0 == dropped }
            }
        }
        let left = Self.thinnedByPass(kept)
        #expect(left.suffix(3) == [1980, 1990, 2000])
        #expect(left.first == 10)
        #expect(zip(left, left.dropFirst()).allSatisfy { $1 - $0 < 2 * Self.thinning.spacing }, "\(left)")
        #expect(left.count < 50, "\(left)")
    }

    /// On each backend, a log whose snapshots no checkpoint judged (saved with no thinning), thinned
    /// by a pass of 7 rows a part: what checkpoints would have left, the `#` rows untouched, the
    /// newest snapshots unchanged; a second pass deletes nothing.
    @Test(arguments: Backend.allCases)
    func aStoreThinsTheSnapshotsNoCheckpointJudged(backend: Backend) throws {
        let place = try LogPlace(backend)
        let store = try place.open()
        for checkpoint in 1...200 {
            let seq = Int64(checkpoint * 10)
            try store.saveSnapshots(
                ["a", "b", "#checkpoint"].map {
                    Snapshot(navigator: $0, seq: seq, revision: Int64(checkpoint), state: ["at": .int(seq)])
                })
        }
        try store.raiseLease(shards: nil, to: 500)
        let latest = try store.latestSnapshots()
        var pass = SnapshotBacklog(Self.thinning)
        var parts = 0
        while !pass.done {
            try store.thin(&pass, rows: 7)
            parts += 1
        }
        let kept = Set(stride(from: Int64(10), through: 1960, by: 50)).union([1980, 1990, 2000])
        #expect(pass.read == 600 && pass.deleted == 2 * (200 - kept.count), "\(pass.read) \(pass.deleted)")
        #expect(parts == 600 / 7 + 2)
        for navigator in ["a", "b"] { #expect(try Self.seqs(of: navigator, in: store) == kept, "\(backend)") }
        #expect(try Self.seqs(of: "#checkpoint", in: store).count == 200)
        #expect(try store.latestSnapshots() == latest)
        var again = SnapshotBacklog(Self.thinning)
        while !again.done { try store.thin(&again, rows: 1000) }
        #expect(again.read == 2 * kept.count + 200 && again.deleted == 0)
    }

    /// The pass's commits leave the WAL's checkpoint due as appends do: with no append at all, the
    /// WAL stays within the checkpointer's limit (it grew by the whole pass when only appends did).
    @Test func aPassKeepsTheWALWithinItsLimit() throws {
        let directory = TemporaryDirectory()
        let threshold: Int32 = 32
        let store = try EventStore(path: directory.file("log.db"), durability: .full, checkpointThreshold: threshold)
        defer { store.close() }
        let state: JSON = ["padding": .string(String(repeating: "x", count: 3000))]
        for checkpoint in 1...40 {
            try store.saveSnapshots(
                (0..<20).map { Snapshot(navigator: "n\($0)", seq: Int64(checkpoint * 10), revision: 1, state: state) })

        }
        func walFrames() throws -> Int32 {
            try store.withWriter { writer throws(StoreError) in try writer.withDatabase { $0.walFrames } }
        }
        var most: Int32 = 0
        var pass = SnapshotBacklog(Self.thinning)
        while !pass.done {
            try store.thin(&pass, rows: 10)
            // The decision the part left due, and the background pass, done: the same on a loaded machine.
            store.flush()
            store.committer.checkpointer.waitUntilIdle()
            most = max(most, try walFrames())
        }
        #expect(pass.deleted > 500)
        #expect(most < threshold * 8 + 40, "the WAL reached \(most) frames")
    }

    /// A navigator's snapshot seqs, found by asking for the one at or before each seq.
    static func seqs(of navigator: String, in store: any EventStoring) throws -> Set<Int64> {
        var seqs: Set<Int64> = []
        var at: Int64 = 2000
        while let snapshot = try store.snapshot(of: navigator, atOrBefore: at) {
            seqs.insert(snapshot.seq)
            at = snapshot.seq - 1
        }
        return seqs
    }
}
