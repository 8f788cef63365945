import Foundation
import SegueStore
import Synchronization
import Testing

@testable import SegueDaemon

/// The deferred quick check reads every page of the log; it starts once the engine is ready, not
/// beside its start-up (where, on a large log, it delayed the first reply).
@Suite struct DeferredCheckTests {
    @Test func theCheckStartsAfterTheEngineIsReadyAndReports() throws {
        let directory = try TemporaryDirectory()
        let order = Mutex<[String]>([])
        let checked = DispatchSemaphore(value: 0)
        let store = try EventStore(
            path: directory.path + "/segue.db",
            check: .deferred { error in
                order.withLock { $0.append(error == nil ? "sound" : "damaged: \(error!)") }
                checked.signal()
            })
        let options = EngineOptions(
            dataDirectory: directory.path, commandEndpoints: ["tcp://127.0.0.1:0"],
            publishEndpoints: ["tcp://127.0.0.1:0"])
        let engine = try Engine(options: options, store: store)
        let finished = DispatchSemaphore(value: 0)
        let thread = Thread {
            try? engine.run { order.withLock { $0.append("ready") } }
            finished.signal()
        }
        thread.start()
        let reported = checked.wait(timeout: .now() + .seconds(10))
        engine.stop()
        finished.wait()
        #expect(reported == .success, "the deferred check never reported")
        #expect(order.withLock { $0 } == ["ready", "sound"])
    }
}
