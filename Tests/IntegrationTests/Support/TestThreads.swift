import Foundation
import Synchronization
import Testing

/// Runs each test case of a suite on a thread of its own, a few cases at once.
///
/// The integration tests block: they wait for processes, sockets and deadlines. Swift Testing runs
/// test bodies on the cooperative pool, one thread a core, so two blocked bodies held every other
/// test back and the machine sat half idle. Here a body blocks a thread of its own, and the gate
/// keeps how many run at once to `TestThreads.width`.
///
/// Not for a suite with a `.timeLimit`: the limit counts from the case's start, and a case waiting
/// at the gate would spend it there. Those suites stay on the cooperative pool.
struct TestThreadsTrait: SuiteTrait, TestTrait, TestScoping {
    var isRecursive: Bool { true }

    func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? { testCase == nil ? nil : self }

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        // A case given the trait twice (by its suite and by itself) asks for this scope twice:
        // entering the gate twice could deadlock, so it is entered once.
        guard !TestThreads.entered else { return try await function() }
        await TestThreads.gate.enter()
        defer { TestThreads.gate.leave() }
        try await TestThreads.$entered.withValue(true) {
            try await withTaskExecutorPreference(TestThreads.executor) { try await function() }
        }
    }
}

extension Trait where Self == TestThreadsTrait {
    /// The suite's test cases run on threads of their own (`TestThreadsTrait`).
    static var ownThreads: Self { TestThreadsTrait() }
}

enum TestThreads {
    /// Test cases running at once on these threads: twice the cores, since most of a case's time
    /// is spent waiting; `SEGUE_TEST_THREADS` overrides it.
    static let width: Int = {
        if let given = ProcessInfo.processInfo.environment["SEGUE_TEST_THREADS"], let width = Int(given), width > 0 {
            return width
        }
        return max(2, 2 * ProcessInfo.processInfo.activeProcessorCount)
    }()

    static let gate = Gate(width: width)
    @TaskLocal static var entered = false
    static let executor = ThreadPerJobExecutor()

    /// A counting semaphore that suspends instead of blocking: waiting cases hold no thread.
    final class Gate: Sendable {
        private let state: Mutex<(free: Int, waiting: [CheckedContinuation<Void, Never>])>

        init(width: Int) { state = Mutex((width, [])) }

        func enter() async {
            await withCheckedContinuation { continuation in
                let admitted = state.withLock { state -> Bool in
                    guard state.free > 0 else {
                        state.waiting.append(continuation)
                        return false
                    }
                    state.free -= 1
                    return true
                }
                if admitted { continuation.resume() }
            }
        }

        func leave() {
            let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
                guard !state.waiting.isEmpty else {
                    state.free += 1
                    return nil
                }
                return state.waiting.removeFirst()
            }
            next?.resume()
        }
    }

    /// Every job on a new thread: a blocked body never waits for another to give its thread back.
    final class ThreadPerJobExecutor: TaskExecutor {
        func enqueue(_ job: consuming ExecutorJob) {
            let job = UnownedJob(job)
            let executor = asUnownedTaskExecutor()
            let thread = Thread { job.runSynchronously(on: executor) }
            thread.stackSize = 8 << 20
            thread.start()
        }
    }
}
