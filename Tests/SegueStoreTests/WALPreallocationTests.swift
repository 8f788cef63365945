import Foundation
import SegueCore
import Testing

@testable import SegueStore

/// A new log's WAL gets its working length at open (`WALPreallocation`), so its first commits
/// overwrite zeros instead of extending the file; nothing committed depends on it.
@Suite struct WALPreallocationTests {
    static let threshold: Int32 = 32
    static let frameBytes = 24 + 4096
    /// `restartAt` (4 × threshold) plus half a pass of frames, and the WAL header.
    static let expectedLength = 32 + Int(threshold * 4 + threshold / 2) * frameBytes

    /// A log at `path` with `count` one-event appends (the navigator of each by its index), closed.
    static func closedLog(
        at path: String, appending count: Int, _ numberer: inout Numberer, navigator: (Int) -> String
    ) throws {
        let store = try EventStore(path: path, checkpointThreshold: threshold)
        defer { store.close() }
        for index in 0..<count { try store.append(numberer.unit(navigator(index))) }
    }

    static func size(_ path: String) throws -> Int {
        try #require(FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
    }

    @Test func aNewLogsWALHasItsWorkingLengthAndCommitsDoNotGrowIt() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("log.db")
        let store = try EventStore(path: path, checkpointThreshold: Self.threshold)
        defer { store.close() }
        #expect(try Self.size(path + "-wal") == Self.expectedLength)
        // 30 one-event commits write about 60 frames: below `restartAt`, so the WAL has not wrapped,
        // and without the zeros the file would be about 60 frames long.
        var numberer = Numberer()
        for _ in 0..<30 {
            for result in try #require(store.commitIfIdle([numberer.unit("main")])) { try result.get() }
        }
        #expect(try Self.size(path + "-wal") == Self.expectedLength)
        #expect(try store.allEvents().count == 30)
    }

    @Test(arguments: [Durability.full, .relaxed])
    func aCopyTakenAfterCommitsOpensWithEveryEventDespiteTheZeros(durability: Durability) throws {
        let directory = TemporaryDirectory()
        let path = directory.file("log.db")
        let image = directory.file("image.db")
        var numberer = Numberer()
        do {
            let store = try EventStore(path: path, durability: durability, checkpointThreshold: Self.threshold)
            defer { store.close() }
            for index in 0..<40 {
                let unit = numberer.unit(index % 2 == 0 ? "a" : "b", count: 1 + index % 3)
                for result in try #require(store.commitIfIdle([unit])) { try result.get() }
            }
            // What a killed process leaves: the database file and a WAL whose frames end in zeros,
            // copied while the store is open (nothing is checkpointed or cut by a close).
            for suffix in ["", "-wal"] {
                try FileManager.default.copyItem(atPath: path + suffix, toPath: image + suffix)
            }
        }
        let reopened = try EventStore(path: image, durability: durability, checkpointThreshold: Self.threshold)
        defer { reopened.close() }
        let events = try reopened.allEvents()
        #expect(events.count == Int(numberer.seq))
        #expect(checkGapless(events) == nil)
        #expect(try reopened.integrityCheck() == [])
        try reopened.append(numberer.unit("a"))
        #expect(try reopened.allEvents().count == Int(numberer.seq))
    }

    @Test func onlyBytesPastTheEndAreWritten() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("file-wal")
        let prefix = (0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        try Data(prefix).write(to: URL(fileURLWithPath: path))
        #expect(try WALPreallocation.extend(path, to: 20_000) == 15_000)
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(bytes.count == 20_000)
        #expect(Array(bytes[..<5000]) == prefix)
        #expect(bytes[5000...].allSatisfy { $0 == 0 })
        // Long enough already, or missing: nothing is written or created.
        #expect(try WALPreallocation.extend(path, to: 10_000) == 0)
        #expect(try Self.size(path) == 20_000)
        #expect(try WALPreallocation.extend(directory.file("missing-wal"), to: 10_000) == 0)
        #expect(!FileManager.default.fileExists(atPath: directory.file("missing-wal")))
    }

    @Test func aLongerWALIsLeftAsItIs() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("log.db")
        var numberer = Numberer()
        try Self.closedLog(at: path, appending: 10, &numberer) { _ in "main" }
        // Reopened with a smaller threshold: its working length is shorter than the file already is.
        let before = try Self.size(path + "-wal")
        let store = try EventStore(path: path, checkpointThreshold: 8)
        defer { store.close() }
        #expect(try Self.size(path + "-wal") == before)
        try store.append(numberer.unit("main"))
        #expect(try store.allEvents().count == 11)
    }

    /// What a clean close leaves in the kept WAL: the next open's recovery reads every valid frame
    /// into its index as not yet copied, so a WAL left full would be copied back again at each start.
    @Test func aCleanCloseLeavesOneFrameForTheNextOpenAndTheWALsLength() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("log.db")
        var numberer = Numberer()
        try Self.closedLog(at: path, appending: 40, &numberer) { $0 % 2 == 0 ? "a" : "b" }
        #expect(try Self.size(path + "-wal") == Self.expectedLength)
        // A plain connection, as the next open's first: its recovery finds the WAL's valid frames.
        do {
            let database = try Database(path: path, create: false)
            #expect(try database.scalarInt("SELECT COUNT(*) FROM events") == 40)
            let frames = try database.checkpointPassive().walFrames
            #expect((0...1).contains(frames), "the next open would replay \(frames) frames")
        }
        let store = try EventStore(path: path, checkpointThreshold: Self.threshold)
        defer { store.close() }
        #expect(try store.allEvents().count == 40)
        #expect(try store.integrityCheck() == [])
        try store.append(numberer.unit("a"))
        #expect(try store.allEvents().count == 41)
    }
}
