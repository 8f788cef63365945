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
        let slots = test.traits.contains { $0 is AloneTrait } ? TestThreads.width : 1
        let arrived = ContinuousClock.now
        await TestThreads.gate.enter(slots)
        defer { TestThreads.gate.leave(slots) }
        let started = ContinuousClock.now
        defer {
            TestThreads.times?.note(
                test, isCase: testCase?.isParameterized == true, waited: started - arrived, ran: .now - started,
                slots: slots)
        }
        try await TestThreads.$entered.withValue(true) {
            try await withTaskExecutorPreference(TestThreads.executor) { try await function() }
        }
    }
}

extension Trait where Self == TestThreadsTrait {
    /// The suite's test cases run on threads of their own (`TestThreadsTrait`).
    static var ownThreads: Self { TestThreadsTrait() }
}

/// A test that measures timing (how late a frame is, how long ticks stall) runs with no other case
/// on these threads: beside four others on two cores it would measure their load. Its case takes
/// every slot of the gate; the cases on the cooperative pool still run beside it, as before.
struct AloneTrait: TestTrait, SuiteTrait {
    var isRecursive: Bool { true }
}

extension Trait where Self == AloneTrait {
    /// The test's cases run with no other case on the test threads (`AloneTrait`).
    static var alone: Self { AloneTrait() }
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
    /// With `SEGUE_TEST_TIMES=FILE`, a line a case: what Swift Testing's durations do not say, since
    /// they count from the run's start, waits at the gate included.
    static let times = ProcessInfo.processInfo.environment["SEGUE_TEST_TIMES"].flatMap { CaseTimes(path: $0) }
    @TaskLocal static var entered = false
    static let executor = ThreadPerJobExecutor()

    /// A counting semaphore that suspends instead of blocking: waiting cases hold no thread. First
    /// come, first served, so a case that needs every slot is not passed over by single ones; but
    /// such cases (wider than one slot) go ahead of waiting single ones, so that those waiting at
    /// the same time run back to back and the gate empties for them once rather than once each.
    final class Gate: Sendable {
        private struct State {
            var free: Int
            var waiting: [(slots: Int, continuation: CheckedContinuation<Void, Never>)] = []
        }
        private let state: Mutex<State>

        init(width: Int) { state = Mutex(State(free: width)) }

        func enter(_ slots: Int) async {
            await withCheckedContinuation { continuation in
                let admitted = state.withLock { state -> Bool in
                    let ahead = state.waiting.firstIndex { $0.slots < slots } ?? state.waiting.endIndex
                    guard ahead == 0, state.free >= slots else {
                        state.waiting.insert((slots, continuation), at: ahead)
                        return false
                    }
                    state.free -= slots
                    return true
                }
                if admitted { continuation.resume() }
            }
        }

        func leave(_ slots: Int) {
            let admitted = state.withLock { state -> [CheckedContinuation<Void, Never>] in
                state.free += slots
                var admitted: [CheckedContinuation<Void, Never>] = []
                while let first = state.waiting.first, first.slots <= state.free {
                    state.free -= first.slots
                    admitted.append(state.waiting.removeFirst().continuation)
                }
                return admitted
            }
            for continuation in admitted { continuation.resume() }
        }
    }

    /// Appends `ran_seconds waited_seconds slots test` a case, to sort with `sort -rn`.
    final class CaseTimes: Sendable {
        private let file: Int32

        init?(path: String) {
            file = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
            guard file >= 0 else { return nil }
        }

        func note(_ test: Test, isCase: Bool, waited: Duration, ran: Duration, slots: Int) {
            func seconds(_ duration: Duration) -> String {
                String(
                    format: "%.3f", Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
                )
            }
            // A parameterized test's cases each get a line of their own (their arguments are not public).
            let line = "\(seconds(ran)) \(seconds(waited)) \(slots) \(test.id)\(isCase ? " (a case)" : "")\n"
            // One write(2) a line, in append mode: lines of cases ending at once do not interleave.
            _ = Array(line.utf8).withUnsafeBytes { write(file, $0.baseAddress, $0.count) }
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
