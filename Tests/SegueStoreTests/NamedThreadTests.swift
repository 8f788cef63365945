import Foundation
import SegueStore
import Synchronization
import Testing

/// Helper threads carry their names where the kernel shows them (`top -H`, `ps -L`, `perf`), not only
/// in Foundation's `Thread.name`, and naming one never renames the thread that started it.
@Suite struct NamedThreadTests {
    static func comm() -> String? {
        (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8))?.trimmingCharacters(in: .newlines)
    }

    @Test(arguments: ["segue-commit", "segue-checkpt", "a", "fifteen-bytes-x"])
    func theKernelShowsTheName(name: String) throws {
        let starter = Self.comm()
        // Many times: a name set as the thread starts must not race the starter.
        for _ in 0..<50 {
            let seen = Mutex<String?>(nil)
            let done = DispatchSemaphore(value: 0)
            Thread(named: name) {
                seen.withLock { $0 = Self.comm() }
                done.signal()
            }.start()
            #expect(done.wait(timeout: .now() + 10) == .success)
            #expect(seen.withLock { $0 } == name)
            #expect(Self.comm() == starter)
        }
    }
}
