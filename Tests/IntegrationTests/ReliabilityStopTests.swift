import Foundation
import SegueCore
import Testing

/// SIGTERM under load (docs/reliability.md, "Graceful stop"): the daemon stops taking commands, finishes the group
/// commit and answers it, and exits 0 within 2 s; every command it acknowledged is in the log after a restart, and
/// every command in the log was answered.
@Suite(.ownThreads, .serialized) struct ReliabilityStopTests {
    @Test func sigtermUnderLoadLosesNothingAndExitsWithinTwoSeconds() throws {
        let daemon = try DaemonProcess()
        let client = try TestClient(endpoint: daemon.commandEndpoint)
        for n in 0..<8 {
            let created = try client.call(["cmd": "create", "navigator": .string("load\(n)"), "root": "Home"])
            #expect(created["ok"] == true)
        }
        // Pipelined load: requests keep flowing while the signal arrives.
        var acked: Set<String> = []
        var answered: Set<String> = []
        var sent = 0
        let start = ContinuousClock.now
        var stoppedAt: ContinuousClock.Instant?
        var lastReply: Duration = .zero
        func take(_ reply: JSON) {
            guard let id = reply["id"]?.stringValue else { return }
            answered.insert(id)
            if reply["ok"] == true { acked.insert(id) }
            if let stoppedAt { lastReply = ContinuousClock.now - stoppedAt }
        }
        while stoppedAt == nil {
            for _ in 0..<16 {
                sent += 1
                let navigator = JSON.string("load\(sent % 8)")
                let body: JSON =
                    sent % 2 == 0
                    ? [
                        "cmd": "push", "id": .string("t\(sent)"), "navigator": navigator, "screen": "Detail",
                        "animated": false,
                    ]
                    : ["cmd": "pop", "id": .string("t\(sent)"), "navigator": navigator, "animated": false]
                try client.send(raw: body.serializedBytes())
            }
            if ContinuousClock.now - start > .milliseconds(700) {
                kill(daemon.pid, SIGTERM)
                stoppedAt = .now
            }
            while let reply = try? client.receive(timeout: .milliseconds(1)) { take(reply) }
        }
        // Every reply the daemon sends before it exits, and then those still on their way: a loaded
        // machine may take longer than any fixed window to commit and answer the last group.
        while daemon.isRunning, ContinuousClock.now - stoppedAt! < .seconds(10) {
            if let reply = try? client.receive(timeout: .milliseconds(50)) { take(reply) }
        }
        let elapsed = ContinuousClock.now - stoppedAt!
        while let reply = try? client.receive(timeout: .milliseconds(500)) { take(reply) }
        let status = daemon.stop(timeout: .seconds(1))
        print("sigterm: \(acked.count) acknowledged; last reply \(lastReply), exit \(elapsed) after the signal")
        #expect(status == 0, "log:\n\(daemon.log)")
        #expect(elapsed < .seconds(2), "stopped in \(elapsed)")
        #expect(acked.count > 100, "only \(acked.count) of \(sent) acknowledged under load")

        let restarted = try daemon.restarted()
        let reader = try TestClient(endpoint: restarted.commandEndpoint)
        let logged = try Reliability.commandIDs(reader)
        #expect(acked.subtracting(logged).isEmpty, "lost: \(acked.subtracting(logged).sorted().prefix(10))")
        // A command committed by the last group but never answered would be applied twice by a client that
        // retries without an id.
        let unanswered = logged.filter { $0.hasPrefix("t") }.subtracting(answered)
        #expect(
            unanswered.count == 0,
            """
            \(unanswered.count) committed, never answered: \(unanswered.sorted().prefix(10)); the last reply came \
            \(lastReply) after the signal, the exit \(elapsed) after it; log:
            \(daemon.log)
            """)
        #expect(restarted.stop() == 0)
    }
}
