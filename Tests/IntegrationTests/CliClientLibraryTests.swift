import Foundation
import SegueClient
import SegueCore
import Testing

/// SegueClient against the real daemon: typed errors, retries that reuse the id, the catch-up view.
@Suite(.serialized) struct CliClientLibraryTests {
    @Test func retriesReuseTheIdSoAStalledDaemonAppliesOnce() throws {
        let d = try DaemonProcess()
        defer { d.stop() }
        let client = try SegueClient(endpoint: d.commandEndpoint, timeout: .milliseconds(1500), retries: 2)
        try client.create("main", root: ScreenSpec(name: "Home"))
        kill(d.pid, SIGSTOP)
        // Resume the daemon after the first attempt went unanswered: it then reads every copy.
        let resume = Thread {
            usleep(700_000)
            kill(d.pid, SIGCONT)
        }
        resume.start()
        let reply = try client.push("main", ScreenSpec(name: "Detail"), options: TransitionOptions(animated: false))
        #expect(reply.revision == 3)
        usleep(200_000)
        #expect(try client.state("main").revision == 3, "three sends of one id pushed once")
        #expect(try client.stats()["idempotentReplays"]?.int64Value ?? 0 >= 1)
    }

    @Test func errorsAreTypedAndSilenceIsATimeout() throws {
        let d = try DaemonProcess()
        defer { d.stop() }
        let client = try SegueClient(endpoint: d.commandEndpoint)
        #expect(throws: SegueClientError.self) { try client.pop("ghost") }
        do {
            try client.pop("ghost")
        } catch {
            #expect(error.code == .unknownNavigator)
        }
        let silent = try SegueClient(
            endpoint: "tcp://127.0.0.1:\(DaemonProcess.freePort())", timeout: .milliseconds(200), retries: 1)
        #expect(throws: SegueClientError.timeout(command: "ping", waited: .milliseconds(200))) { try silent.ping() }
    }

    @Test func catchUpStartsFromTheSnapshotAndYieldsEachLaterEventOnce() throws {
        let d = try DaemonProcess()
        defer { d.stop() }
        let client = try SegueClient(endpoint: d.commandEndpoint)
        try client.create("main", root: ScreenSpec(name: "Home"))
        try client.push("main", ScreenSpec(name: "A"), options: TransitionOptions(animated: false))
        let watcher = try SegueClient(endpoint: d.commandEndpoint)
        let subscription = try CatchUpSubscription(client: watcher, publishEndpoint: d.publishEndpoint)
        guard case .snapshot(let snapshot)? = try subscription.next(timeout: .seconds(1)) else {
            Issue.record("the first update is the snapshot")
            return
        }
        #expect(snapshot.revision == 3)
        #expect(snapshot.stack.map(\.name) == ["Home", "A"])
        try client.push("main", ScreenSpec(name: "B"), options: TransitionOptions(animator: ["duration": 0.1]))
        try client.create("other", root: ScreenSpec(name: "Home"))
        var revisions: [String: [Int64]] = [:]
        var ticks = 0
        try subscription.forEach(timeout: .milliseconds(300), idle: { false }) { update in
            switch update {
            case .event(let e): revisions[e.navigator, default: []].append(e.revision)
            case .tick: ticks += 1
            default: break
            }
            return true
        }
        #expect(revisions == ["main": [4, 5], "other": [1]])
        #expect(ticks >= 6)
    }
}
