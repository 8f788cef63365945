import Foundation
import SegueStore
import Synchronization
import Testing

/// The daemon's serial queues: jobs in order on one named thread at the starter's nice value.
@Suite struct SerialWorkerTests {
    /// The calling thread's nice value (`getpriority` of thread id 0 is the calling thread on Linux).
    static func ownNice() -> Int32 { getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0) }

    @Test func jobsRunInOrderOnOneNamedThreadThatKeepsTheNiceValue() throws {
        let seen = Mutex<[Int]>([])
        let names = Mutex<Set<String>>([])
        let nices = Mutex<Set<Int32>>([])
        let starter = Mutex<Int32?>(nil)
        // Started from a thread at nice 7 (lowering is always allowed): a libdispatch pool thread
        // would run at 0 whatever its starter's value.
        let done = Atomic<Bool>(false)
        Thread {
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 7)
            starter.withLock { $0 = Self.ownNice() }
            let worker = SerialWorker(named: "segue-test")
            for index in 0..<200 {
                worker.async {
                    seen.withLock { $0.append(index) }
                    let name = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
                    names.withLock { _ = $0.insert(name.trimmingCharacters(in: .newlines)) }
                    nices.withLock { _ = $0.insert(Self.ownNice()) }
                }
            }
            worker.drain()
            worker.stop()
            done.store(true, ordering: .releasing)
        }.start()
        while !done.load(ordering: .acquiring) { usleep(1_000) }
        #expect(starter.withLock { $0 } == 7)
        #expect(seen.withLock { $0 } == Array(0..<200))
        #expect(names.withLock { $0 } == ["segue-test"])
        #expect(nices.withLock { $0 } == [7])
    }

    @Test func stopRunsWhatWasHandedOverAndDropsTheRest() throws {
        let worker = SerialWorker(named: "segue-test")
        let count = Atomic<Int>(0)
        for _ in 0..<10 {
            worker.async {
                usleep(1_000)
                count.add(1, ordering: .relaxed)
            }
        }
        worker.stop()
        worker.async { count.add(100, ordering: .relaxed) }
        worker.drain()
        #expect(count.load(ordering: .relaxed) == 10)
    }
}
