import Foundation
import SegueStore
import Synchronization
import Testing

/// Helper threads carry their names where the kernel shows them (`top -H`, `ps -L`, `perf`), not only
/// in Foundation's `Thread.name`.
@Suite struct NamedThreadTests {
    @Test(arguments: ["segue-commit", "segue-checkpt", "a", "fifteen-bytes-x"])
    func theKernelShowsTheName(name: String) throws {
        let seen = Mutex<String?>(nil)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread(named: name) {
            let comm = try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)
            seen.withLock { $0 = comm?.trimmingCharacters(in: .newlines) }
            done.signal()
        }
        thread.start()
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(seen.withLock { $0 } == name)
    }
}
