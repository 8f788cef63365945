import Foundation
import SegueCore
import Testing

@testable import SegueStore

/// One appending process per log: a second writer is refused at open, and the lock never outlives
/// its holder's store, nor passes to a child it spawned.
@Suite struct WriterLockTests {
    @Test func aSecondWriterIsRefusedUntilTheFirstCloses() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("log.db")
        let first = try EventStore(path: path)
        var numberer = Numberer()
        try first.append(numberer.unit("a"))
        let refusal = #expect(throws: StoreError.self) { try EventStore(path: path) }
        #expect(refusal?.kind == .inUse)
        #expect(refusal?.code == .unavailable)
        #expect(refusal?.message.contains("(pid \(getpid()))") == true, "\(refusal?.message ?? "")")
        // The refused open touched nothing: the first writer goes on.
        try first.append(numberer.unit("a"))
        first.close()

        let second = try EventStore(path: path)
        defer { second.close() }
        try second.append(numberer.unit("a"))
        #expect(second.lastSeq == 3)
    }

    /// A failed start, import or migrate removes the log it made only while it is empty and nobody
    /// holds its lock: never one another writer made and filled meanwhile.
    @Test func removeLogTakesOnlyAnEmptyUnlockedLog() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("log.db")
        let empty = try EventStore(path: path)
        #expect(!WriterLock.removeLog(at: path), "held by the store")
        empty.close()
        #expect(WriterLock.removeLog(at: path))
        for suffix in ["", "-wal", "-shm", ".lock"] { #expect(!FileManager.default.fileExists(atPath: path + suffix)) }

        let filled = try EventStore(path: path)
        var numberer = Numberer()
        try filled.append(numberer.unit("a"))
        filled.close()
        #expect(!WriterLock.removeLog(at: path), "a log with an event")
        #expect(try EventLog(path: path).lastSeq() == 1)
    }

    /// The lock file is opened close-on-exec: a process the writer spawned (segued running a hook, a
    /// test harness) must not keep the log locked after the writer closed it.
    @Test func aChildOfTheWriterDoesNotInheritTheLock() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("log.db")
        let first = try EventStore(path: path)
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/bin/sleep")
        child.arguments = ["30"]
        try child.run()
        defer {
            child.terminate()
            child.waitUntilExit()
        }
        first.close()
        let second = try EventStore(path: path)
        second.close()
    }

    /// Between its fork and its exec, a child spawned by another thread holds a copy of the lock
    /// file's descriptor (O_CLOEXEC closes it only at the exec): closing the store must release the
    /// lock all the same. A `dup` stands for that copy. (A CI run hit this: a store closed and
    /// reopened in one test was refused while another test spawned a process.)
    @Test func aCopyOfTheDescriptorDoesNotKeepTheLock() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("log.db")
        var lock: WriterLock? = try WriterLock(logPath: path)
        let copy = dup(lock!.fd)
        defer { close(copy) }
        #expect(copy >= 0)
        lock = nil
        let again = try WriterLock(logPath: path)
        #expect(again.fd >= 0)
    }

    @Test func readersDoNotNeedTheLock() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("log.db")
        let writer = try EventStore(path: path)
        defer { writer.close() }
        var numberer = Numberer()
        try writer.append(numberer.unit("a", count: 3))
        let log = try EventLog(path: path)
        var count = 0
        try log.forEachEvent { _ in count += 1 }
        #expect(count == 3)
    }
}
