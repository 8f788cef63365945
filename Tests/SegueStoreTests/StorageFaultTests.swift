import Foundation
import SegueCore
import Testing

@testable import SegueStore

/// Disk full and locked files: appends fail `unavailable`, nothing unstored is acknowledged, reads
/// keep working, and once the fault clears appends resume with no gap.
@Suite struct StorageFaultTests {
    @Test func diskFullMidBatchLeavesNoPartialBatchAndNoGap() throws {
        let directory = TemporaryDirectory()
        let store = try EventStore(path: directory.file("events.db"))
        var numberer = Numberer()
        try store.append(numberer.unit("main", count: 3))
        let pages = try store.pageCount()
        try store.setMaxPageCount(pages)

        // A batch of units big enough to need new pages, all submitted while the writer is held, so
        // they are committed as one transaction.
        let outcomes = Outcomes()
        let unitCount = 40
        try store.withWriter { _ in
            for _ in 0..<unitCount {
                let unit = numberer.unit("main", count: 5)
                store.submit(unit) { outcomes.record(unit.events[0].seq, $0) }
            }
        }
        store.flush()
        #expect(outcomes.all.count == unitCount)
        for (seq, result) in outcomes.all {
            guard case .failure(let error) = result else {
                Issue.record("unit at seq \(seq) was acknowledged on a full disk")
                continue
            }
            #expect(error.code == .unavailable)
        }
        #expect(outcomes.all.contains { $0.1.failure?.primaryCode == 13 })  // SQLITE_FULL

        // Reads keep working while the writer fails.
        #expect(try store.allEvents().count == 3)
        #expect(store.lastSeq == 3)
        #expect(try store.lastRevision(of: "main") == 3)

        // The fault clears; the caller renumbers from lastSeq and appends resume with no gap.
        try store.setMaxPageCount(1_000_000)
        var renumbered = Numberer(seq: store.lastSeq, revisions: ["main": try store.lastRevision(of: "main")])
        for _ in 0..<5 { try store.append(renumbered.unit("main", count: 5)) }
        let events = try store.allEvents()
        #expect(checkGapless(events) == nil)
        #expect(events.count == 28)
    }

    @Test func unitsNumberedOnTopOfAFailedBatchFailWithTheStorageError() throws {
        let directory = TemporaryDirectory()
        let store = try EventStore(path: directory.file("events.db"))
        var numberer = Numberer()
        try store.append(numberer.unit("main"))
        try store.setMaxPageCount(try store.pageCount())
        #expect(throws: StoreError.self) { try store.append(numberer.unit("main", count: 200)) }
        try store.setMaxPageCount(1_000_000)
        // Numbered after the failed unit, submitted before the caller learned of the failure.
        do {
            try store.append(numberer.unit("main"))
            Issue.record("a unit numbered after a failed batch was stored with a gap")
        } catch {
            #expect(error.code == .unavailable)
        }
        var renumbered = Numberer(seq: 1, revisions: ["main": 1])
        try store.append(renumbered.unit("main"))
        #expect(checkGapless(try store.allEvents()) == nil)
    }

    @Test func aFileLockedByAnotherWriterFailsAppendsUnavailableAndReadsWork() throws {
        let directory = TemporaryDirectory()
        let store = try EventStore(path: directory.file("events.db"), busyTimeout: .milliseconds(50))
        var numberer = Numberer()
        try store.append(numberer.unit("main"))
        let other = try Database(path: directory.file("events.db"))
        try other.execute("BEGIN IMMEDIATE")
        do {
            try store.append(numberer.unit("main"))
            Issue.record("an append succeeded while another connection held the write lock")
        } catch {
            #expect(error.code == .unavailable)
            #expect(error.primaryCode == 5)  // SQLITE_BUSY
        }
        #expect(try store.allEvents().count == 1)
        try other.execute("ROLLBACK")
        var renumbered = Numberer(seq: store.lastSeq, revisions: ["main": 1])
        try store.append(renumbered.unit("main"))
        #expect(checkGapless(try store.allEvents()) == nil)
    }
}

/// Completion results gathered from the committer thread.
final class Outcomes: @unchecked Sendable {
    private let lock = NSLock()
    private var results: [(Int64, Result<Void, StoreError>)] = []
    func record(_ seq: Int64, _ result: Result<Void, StoreError>) { lock.withLock { results.append((seq, result)) } }
    var all: [(Int64, Result<Void, StoreError>)] { lock.withLock { results } }
}

extension Result {
    var failure: Failure? { if case .failure(let error) = self { error } else { nil } }
}

extension StorageFaultTests {
    /// A log on a file system mounted read-only (an operator's remount, or the kernel's after an
    /// error) is said as that, not as a file this user may not write, whose advice (chown) cannot help.
    @Test func aReadOnlyMountIsSaidAsOne() throws {
        guard getuid() == 0 else {
            print("⚠︎ SKIPPED: aReadOnlyMountIsSaidAsOne mounts a tmpfs, which needs root")
            return
        }
        let directory = TemporaryDirectory()
        func mount(_ arguments: [String]) throws -> Int32 {
            let process = try Process.run(URL(fileURLWithPath: "/bin/mount"), arguments: arguments)
            process.waitUntilExit()
            return process.terminationStatus
        }
        try #require(try mount(["-t", "tmpfs", "-o", "size=8m", "tmpfs", directory.path]) == 0)
        defer { _ = try? Process.run(URL(fileURLWithPath: "/bin/umount"), arguments: [directory.path]).waitUntilExit() }
        let path = directory.file("events.db")
        var numberer = Numberer()
        try EventStore(path: path).append(numberer.unit("main"))
        #expect(LogWriter.notWritable(path).contains("chown"))
        try #require(try mount(["-o", "remount,ro", directory.path]) == 0)
        // As a writer connection opened again after a failed write finds it (at a first open, the
        // lock file fails first, with EROFS).
        let message = LogWriter.notWritable(path)
        #expect(message.contains("is on a file system mounted read-only"), "\(message)")
        #expect(!message.contains("chown"))
    }
}
