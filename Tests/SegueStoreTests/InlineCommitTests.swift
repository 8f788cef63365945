import Foundation
import SegueCore
import Synchronization
import Testing

@testable import SegueStore

/// `commitIfIdle`: the daemon's loop commits its own batches on its thread while the writer is idle,
/// and must never overtake or run beside the group committer.
@Suite struct InlineCommitTests {
    @Test(arguments: Backend.allCases)
    func idleWriterCommitsOnTheCallingThreadInOrder(backend: Backend) throws {
        let place = try LogPlace(backend)
        let store = try place.open()
        defer { store.close() }
        var numberer = Numberer()
        let units = [numberer.unit("a"), numberer.unit("b", count: 2, commandID: "c1", reply: ["ok": true])]
        let results = try #require(store.commitIfIdle(units))
        #expect(results.count == 2)
        for result in results { try result.get() }
        #expect(store.lastSeq == 3)
        #expect(try store.reply(forCommand: "c1") == ["ok": true])
        #expect(checkGapless(try store.allEvents()) == nil)
    }

    @Test(arguments: Backend.allCases)
    func misnumberedUnitFailsAloneAndTheRestCommit(backend: Backend) throws {
        let place = try LogPlace(backend)
        let store = try place.open()
        defer { store.close() }
        var numberer = Numberer()
        let good = numberer.unit("a")
        var stale = Numberer()
        let bad = stale.unit("b")  // seq 1 again
        let results = try #require(store.commitIfIdle([good, bad]))
        try results[0].get()
        #expect(throws: StoreError.self) { try results[1].get() }
        #expect(store.lastSeq == 1)
    }

    @Test(arguments: Backend.allCases)
    func busyWriterDeclinesAndNothingOvertakesQueuedWork(backend: Backend) throws {
        let place = try LogPlace(backend)
        let store = try place.open()
        defer { store.close() }
        var numberer = Numberer()
        let first = numberer.unit("a")
        let second = numberer.unit("a")
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        // Hold the writer with a task, as a checkpoint's snapshot save does.
        Thread {
            try? store.withWriterForTesting {
                entered.signal()
                release.wait()
            }
        }.start()
        entered.wait()
        #expect(store.commitIfIdle([first]) == nil)
        let committed = DispatchSemaphore(value: 0)
        let outcome = Mutex<Result<Void, StoreError>?>(nil)
        store.submit(first) { result in
            outcome.withLock { $0 = result }
            committed.signal()
        }
        // `first` is queued behind the task: `second` must not jump ahead of it.
        #expect(store.commitIfIdle([second]) == nil)
        release.signal()
        committed.wait()
        try #require(outcome.withLock { $0 }).get()
        // The committer thread marks itself idle just after the completions it fires; until then an
        // inline commit declines (the caller would submit instead), so give it a moment.
        var inline = store.commitIfIdle([second])
        for _ in 0..<5000 where inline == nil {
            usleep(1000)
            inline = store.commitIfIdle([second])
        }
        try #require(inline)[0].get()
        #expect(store.lastSeq == 2)
        #expect(checkGapless(try store.allEvents()) == nil)
    }
}
