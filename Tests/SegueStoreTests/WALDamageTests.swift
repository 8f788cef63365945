import Foundation
import Testing

@testable import SegueStore

/// One damaged frame in the middle of the WAL makes SQLite's recovery drop every commit after it,
/// silently. The writer's open reports them (and keeps a copy of the WAL); a crash's torn last
/// transaction, which was never acknowledged, is not reported.
@Suite struct WALDamageTests {
    /// A log of 100 one-unit commits left in the WAL by a writer that stopped without closing, with
    /// one byte flipped in the page of the frame `damagedFrame` frames before the end (nil: none).
    private static func crashedLog(flippingFrameFromTheEnd damagedFrame: Int?) throws -> (TemporaryDirectory, String) {
        let directory = TemporaryDirectory()
        let written = directory.file("written.db")
        // A threshold its frames never reach: every commit stays in the WAL, none copied back.
        let first = try EventStore(path: written, durability: .full, checkpointThreshold: 2_000)
        var numberer = Numberer()
        for n in 0..<100 { try first.append(numberer.unit("n\(n % 10)", count: 2)) }
        #expect(first.walCheckpoints.background == 0)
        // The files as a killed process leaves them, minus the shared-memory index: a process sharing
        // the writer's index (as this one does) would not recover the WAL, the next daemon does.
        let path = directory.file("log.db")
        for suffix in ["", "-wal"] { try FileManager.default.copyItem(atPath: written + suffix, toPath: path + suffix) }
        first.close()
        guard let damagedFrame else { return (directory, path) }
        let wal = try #require(FileHandle(forUpdatingAtPath: path + "-wal"))
        defer { try? wal.close() }
        let header = try #require(try wal.read(upToCount: 32))
        let pageSize = header[8..<12].reduce(0) { $0 << 8 | Int($1) }
        let salts = Array(header[16..<24])
        // The frames of this generation, found by their salts, as SQLite finds them.
        var frames = 0
        while true {
            try wal.seek(toOffset: UInt64(32 + frames * (24 + pageSize)))
            guard let frame = try wal.read(upToCount: 24), frame.count == 24, Array(frame[8..<16]) == salts else {
                break
            }
            frames += 1
        }
        #expect(frames > 150, "\(frames) frames in the WAL")
        let offset = UInt64(32 + (frames - damagedFrame) * (24 + pageSize) + 24 + 100)
        try wal.seek(toOffset: offset)
        let byte = try #require(try wal.read(upToCount: 1))
        try wal.seek(toOffset: offset)
        try wal.write(contentsOf: [byte[0] ^ 0x40])
        return (directory, path)
    }

    @Test func commitsAfterADamagedFrameAreReportedAndTheWALKept() throws {
        let (directory, path) = try Self.crashedLog(flippingFrameFromTheEnd: 120)
        let store = try EventStore(path: path)
        defer { store.close() }
        let damage = try #require(store.walDamage)
        #expect(damage.lostCommits >= 30, "\(damage)")
        #expect(store.lastSeq < 200, "the log kept \(store.lastSeq) of 200 events")
        let copy = try #require(damage.copy)
        #expect(copy.hasPrefix(path + "-wal.damaged-"))
        #expect(FileManager.default.fileExists(atPath: copy))
        withExtendedLifetime(directory) {}
    }

    @Test(arguments: [nil, 1] as [Int?])
    func aCleanCrashOrATornLastFrameIsNoDamage(flipping frame: Int?) throws {
        let (directory, path) = try Self.crashedLog(flippingFrameFromTheEnd: frame)
        let store = try EventStore(path: path)
        defer { store.close() }
        #expect(store.walDamage == nil)
        #expect(store.lastSeq >= 198, "the log kept \(store.lastSeq) of 200 events")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: directory.path).allSatisfy { !$0.contains("damaged") })
    }

    /// A frame past the valid ones, as the WAL file holds it: of this generation (the header's salts)
    /// or an earlier one, ending a commit or not; or never written.
    enum Frame {
        case current(commit: Bool)
        case earlier(commit: Bool)
        case damaged, zeros
    }

    /// A WAL file of `frames` after `valid` frames of this generation, 4 KiB pages.
    private static func wal(valid: Int, then frames: [Frame], at path: String) throws {
        func word(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value.bigEndian) { Array($0) } }
        let salts = word(0x1234_5678) + word(0x9abc_def0)
        var bytes = word(0x377f_0682) + word(3_007_000) + word(4096) + word(7) + salts + word(1) + word(2)
        func frame(commit: Bool, salts: [UInt8]) {
            bytes += word(1) + word(commit ? 9 : 0) + salts + word(3) + word(4) + [UInt8](repeating: 0x5a, count: 4096)
        }
        for n in 0..<valid { frame(commit: n == valid - 1, salts: salts) }
        for f in frames {
            switch f {
            case .current(let commit): frame(commit: commit, salts: salts)
            case .earlier(let commit): frame(commit: commit, salts: word(0x0bad_0bad) + word(1))
            case .damaged: frame(commit: true, salts: word(0xdead_beef) + word(2))
            case .zeros: bytes += [UInt8](repeating: 0, count: 24 + 4096)
            }
        }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    /// (what follows the valid frames, commits found, at most this many frames read): the look ends
    /// 64 frames into a run that is not this generation's, so a WAL reset over an older one, or
    /// preallocated, costs 64 frames at a start and not the file's length.
    @Test(
        arguments: [
            ([Frame](repeating: .earlier(commit: true), count: 2_000), 0, 64),
            ([Frame](repeating: .zeros, count: 2_000), 0, 64),
            (
                [.damaged] + [Frame](repeating: .current(commit: true), count: 5)
                    + Array(repeating: .earlier(commit: true), count: 2_000), 5, 70
            ),
            (
                [.current(commit: false), .current(commit: true)] + Array(repeating: .zeros, count: 63) + [
                    .current(commit: true)
                ] + Array(repeating: .zeros, count: 500), 2, 130
            ),
        ] as [([Frame], Int, Int)])
    func theLookEndsWithinARunOfFramesOfNoGeneration(after frames: [Frame], commits: Int, atMost: Int) throws {
        let directory = TemporaryDirectory()
        let path = directory.file("log.db-wal")
        try Self.wal(valid: 3, then: frames, at: path)
        let look = try #require(WALDamage.look(walPath: path, validFrames: 3))
        #expect(look.commits == commits)
        #expect(look.framesRead <= atMost, "read \(look.framesRead) frames")
        #expect((WALDamage.find(walPath: path, validFrames: 3)?.lostCommits ?? 0) == max(0, commits - 1))
    }
}
