import Foundation
import SegueClient
import SegueCore
import Synchronization
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

    /// Events dropped at the very end of a navigator's activity show no gap, since nothing follows
    /// them; heartbeats reveal them. Here the subscriber's connection is down while the push is
    /// published: libzmq attaches its new connection (and sends its subscriptions) only once the
    /// application calls into the socket again, which this test does only after the push.
    @Test(arguments: [["main"], []])
    func aHeartbeatRevealsEventsMissedAtTheEnd(navigators: [String]) throws {
        let first = try DaemonProcess()
        let client = try SegueClient(endpoint: first.commandEndpoint)
        try client.create("main", root: ScreenSpec(name: "Home"))
        let watcher = try SegueClient(endpoint: first.commandEndpoint)
        let subscription = try CatchUpSubscription(
            client: watcher, publishEndpoint: first.publishEndpoint, navigators: navigators, ticks: false,
            heartbeats: true)
        // A heartbeat received means the subscription is in place.
        var received: [CatchUpSubscription.Update] = []
        while received.allSatisfy({ if case .heartbeat = $0 { false } else { true } }) {
            guard let update = try subscription.next(timeout: .seconds(3)) else { break }
            received.append(update)
        }
        #expect(received.contains { if case .snapshot(let s) = $0 { s.revision == 1 } else { false } })
        #expect(first.stop() == 0)
        let second = try first.restarted()
        defer { second.stop() }
        let pusher = try SegueClient(endpoint: second.commandEndpoint)
        let pushed = try pusher.push("main", ScreenSpec(name: "A"), options: TransitionOptions(animated: false))
        #expect(pushed.revision == 3)
        var revisions: [Int64] = []
        let deadline = ContinuousClock.now + .seconds(6)
        while ContinuousClock.now < deadline, revisions.last != 3 {
            if case .event(let e)? = try subscription.next(timeout: .milliseconds(200)) { revisions.append(e.revision) }
        }
        #expect(revisions == [2, 3], "the push's two events, once each, from history")
    }

    /// A daemon restarted on an older copy of its log (a restore from a backup) ends before events
    /// already yielded: the subscription says so and starts over from new snapshots, rather than
    /// taking the new log's events for duplicates of the old one's.
    @Test(arguments: [["main"], []])
    func aRestoredLogStartsTheViewOver(navigators: [String]) throws {
        let first = try DaemonProcess()
        let client = try SegueClient(endpoint: first.commandEndpoint)
        try client.create("main", root: ScreenSpec(name: "Home"))
        #expect(first.stop() == 0)
        let backup = try first.copyOfLog()
        let second = try first.restarted()
        let subscription = try CatchUpSubscription(
            client: SegueClient(endpoint: second.commandEndpoint), publishEndpoint: second.publishEndpoint,
            navigators: navigators, ticks: false)
        func updates(until done: ([CatchUpSubscription.Update]) -> Bool) throws -> [CatchUpSubscription.Update] {
            var seen: [CatchUpSubscription.Update] = []
            let deadline = ContinuousClock.now + .seconds(8)
            while ContinuousClock.now < deadline, !done(seen) {
                if let update = try subscription.next(timeout: .milliseconds(200)) { seen.append(update) }
            }
            return seen
        }
        func revisions(_ updates: [CatchUpSubscription.Update]) -> [Int64] {
            updates.compactMap { if case .event(let e) = $0 { e.revision } else { nil } }
        }
        try SegueClient(endpoint: second.commandEndpoint).push(
            "main", ScreenSpec(name: "A"), options: TransitionOptions(animated: false))
        #expect(revisions(try updates { revisions($0).last == 3 }) == [2, 3])

        #expect(second.stop() == 0)
        try second.restoreLog(from: backup)
        let third = try second.restarted()
        defer { third.stop() }
        let restart = try updates { $0.contains { if case .snapshot = $0 { true } else { false } } }
        #expect(restart.first == .rewound(seq: 1), "\(restart)")
        #expect(
            restart.contains {
                if case .snapshot(let s) = $0 { s.revision == 1 && s.stack.map(\.name) == ["Home"] } else { false }
            })
        try SegueClient(endpoint: third.commandEndpoint).push(
            "main", ScreenSpec(name: "B"), options: TransitionOptions(animated: false))
        #expect(
            revisions(try updates { revisions($0).last == 3 }) == [2, 3], "the new log's push, not taken for old events"
        )
    }

    /// A subscription that holds only snapshots (no event seen since) when the daemon restarts on an
    /// older, shorter copy of its log: there is no event to compare, so the new instance's heartbeat
    /// below the snapshots' seq is checked against the log's end, and the view starts over.
    @Test func aRestoredLogBelowTheSnapshotsStartsTheViewOver() throws {
        let first = try DaemonProcess()
        try SegueClient(endpoint: first.commandEndpoint).create("main", root: ScreenSpec(name: "Home"))
        #expect(first.stop() == 0)
        let backup = try first.copyOfLog()
        let second = try first.restarted()
        try SegueClient(endpoint: second.commandEndpoint).push(
            "main", ScreenSpec(name: "A"), options: TransitionOptions(animated: false))
        let subscription = try CatchUpSubscription(
            client: SegueClient(endpoint: second.commandEndpoint), publishEndpoint: second.publishEndpoint,
            navigators: ["main"], ticks: false)
        let opening = try subscription.next(timeout: .seconds(1))
        guard case .snapshot(let snapshot)? = opening else {
            Issue.record("expected the snapshot first, got \(String(describing: opening))")
            return
        }
        #expect(snapshot.revision == 3)
        #expect(second.stop() == 0)
        try second.restoreLog(from: backup)
        let third = try second.restarted()
        defer { third.stop() }
        var seen: [CatchUpSubscription.Update] = []
        let deadline = ContinuousClock.now + .seconds(8)
        while ContinuousClock.now < deadline, !seen.contains(where: { if case .snapshot = $0 { true } else { false } })
        {
            if let update = try subscription.next(timeout: .milliseconds(200)) { seen.append(update) }
        }
        #expect(seen.first == .rewound(seq: 1), "\(seen)")
        #expect(seen.contains { if case .snapshot(let s) = $0 { s.revision == 1 } else { false } })
    }

    /// A subscription holding only snapshots reads late: by then the daemon restarted on an older copy
    /// of its log and that log grew past the snapshots. The new instance's `since` (where it opened the
    /// log) is below what the snapshots knew: the view starts over.
    @Test(arguments: [["main"], []])
    func aLateReaderHoldingOnlySnapshotsSeesARestoreThatGrew(navigators: [String]) throws {
        let first = try DaemonProcess()
        try SegueClient(endpoint: first.commandEndpoint).create("main", root: ScreenSpec(name: "Home"))
        #expect(first.stop() == 0)
        let backup = try first.copyOfLog()
        let second = try first.restarted()
        let options = TransitionOptions(animated: false)
        try SegueClient(endpoint: second.commandEndpoint).push("main", ScreenSpec(name: "A"), options: options)
        let subscription = try CatchUpSubscription(
            client: SegueClient(endpoint: second.commandEndpoint), publishEndpoint: second.publishEndpoint,
            navigators: navigators, ticks: false)
        #expect(second.stop() == 0)
        try second.restoreLog(from: backup)
        let third = try second.restarted()
        defer { third.stop() }
        let writer = try SegueClient(endpoint: third.commandEndpoint)
        for name in ["B", "C"] { try writer.push("main", ScreenSpec(name: name), options: options) }
        var seen: [CatchUpSubscription.Update] = []
        let deadline = ContinuousClock.now + .seconds(8)
        func restarted() -> Bool {
            guard let rewound = seen.firstIndex(of: .rewound(seq: 5)) else { return false }
            return seen[rewound...].contains { if case .snapshot = $0 { true } else { false } }
        }
        while ContinuousClock.now < deadline, !restarted() {
            if let update = try subscription.next(timeout: .milliseconds(200)) { seen.append(update) }
        }
        #expect(restarted(), "\(seen)")
        let snapshot = seen.last { if case .snapshot = $0 { true } else { false } }
        guard case .snapshot(let s)? = snapshot else { return }
        #expect(s.revision == 5 && s.stack.map(\.name) == ["Home", "B", "C"])
    }

    /// A gap fill answered by the restarted daemon while the old one's last heartbeat is still in the
    /// queue: the page comes from another instance, so it is checked before its events are taken
    /// (they were credited to the old log, and the old instance's heartbeat then vouched for them).
    @Test func aFillAnsweredByARestoredDaemonIsCheckedFirst() throws {
        let first = try DaemonProcess()
        try SegueClient(endpoint: first.commandEndpoint).create("main", root: ScreenSpec(name: "Home"))
        #expect(first.stop() == 0)
        let backup = try first.copyOfLog()
        let second = try first.restarted()
        let options = TransitionOptions(animated: false)
        let subscription = try CatchUpSubscription(
            client: SegueClient(endpoint: second.commandEndpoint), publishEndpoint: second.publishEndpoint,
            navigators: ["main"], ticks: false)
        try SegueClient(endpoint: second.commandEndpoint).push("main", ScreenSpec(name: "A"), options: options)
        var seen: [CatchUpSubscription.Update] = []
        func read(until done: () -> Bool) throws {
            let deadline = ContinuousClock.now + .seconds(8)
            while ContinuousClock.now < deadline, !done() {
                if let update = try subscription.next(timeout: .milliseconds(200)) { seen.append(update) }
            }
        }
        try read { seen.contains { if case .event(let e) = $0 { e.revision == 3 } else { false } } }
        #expect(second.stop() == 0)
        try second.restoreLog(from: backup)
        let third = try second.restarted()
        defer { third.stop() }
        let writer = try SegueClient(endpoint: third.commandEndpoint)
        for name in ["B", "C", "D"] { try writer.push("main", ScreenSpec(name: name), options: options) }
        seen = []
        try subscription.poll("main")
        try read { seen.contains { if case .snapshot = $0 { true } else { false } } }
        #expect(seen.first == .rewound(seq: 7), "\(seen)")
        #expect(seen.contains { if case .snapshot(let s) = $0 { s.revision == 7 } else { false } })
    }

    /// An ordinary restart on the same log, noticed first through a fill (`poll`) answered by the new
    /// run while the old run's last heartbeat is still in the subscription's queue: the new run holds
    /// what was yielded, so it is taken; the old run's late heartbeat (with its old `since`) is then
    /// no sign of a restore. No `rewound`, every event once, in order.
    @Test func anOldRunsLateHeartbeatAfterASwitchIsNoRestore() throws {
        let first = try DaemonProcess()
        let options = TransitionOptions(animated: false)
        try SegueClient(endpoint: first.commandEndpoint).create("main", root: ScreenSpec(name: "Home"))
        let subscription = try CatchUpSubscription(
            client: SegueClient(endpoint: first.commandEndpoint), publishEndpoint: first.publishEndpoint,
            navigators: ["main"], ticks: false)
        try SegueClient(endpoint: first.commandEndpoint).push("main", ScreenSpec(name: "A"), options: options)
        var seen: [CatchUpSubscription.Update] = []
        func read(for duration: Duration, until done: () -> Bool = { false }) throws {
            let deadline = ContinuousClock.now + duration
            while ContinuousClock.now < deadline, !done() {
                if let update = try subscription.next(timeout: .milliseconds(100)) { seen.append(update) }
            }
        }
        func revisions() -> [Int64] { seen.compactMap { if case .event(let e) = $0 { e.revision } else { nil } } }
        try read(for: .seconds(8)) { revisions().last == 3 }
        // Stopped: its last heartbeat waits, unread, in the subscription's queue.
        #expect(first.stop() == 0)
        let second = try first.restarted()
        defer { second.stop() }
        try SegueClient(endpoint: second.commandEndpoint).push("main", ScreenSpec(name: "B"), options: options)
        try subscription.poll("main")
        try read(for: .milliseconds(1500))
        #expect(!seen.contains { if case .rewound = $0 { true } else { false } }, "\(seen)")
        #expect(revisions() == [2, 3, 4, 5])
        #expect(subscription.lineage.retired.count == 1)
    }

    /// A restored log that grew past what the subscription had yielded before it read again (a
    /// reader far behind): seqs cannot tell, the events differ. The new daemon instance in its
    /// heartbeats makes the subscription compare; it rewinds to the new log and starts over.
    @Test(arguments: [["main"], []])
    func aRestoredLogThatGrewPastWhatWasSeenStartsTheViewOver(navigators: [String]) throws {
        let first = try DaemonProcess()
        try SegueClient(endpoint: first.commandEndpoint).create("main", root: ScreenSpec(name: "Home"))
        #expect(first.stop() == 0)
        let backup = try first.copyOfLog()
        let second = try first.restarted()
        let subscription = try CatchUpSubscription(
            client: SegueClient(endpoint: second.commandEndpoint), publishEndpoint: second.publishEndpoint,
            navigators: navigators, ticks: false)
        let options = TransitionOptions(animated: false)
        try SegueClient(endpoint: second.commandEndpoint).push("main", ScreenSpec(name: "A"), options: options)
        var seen: [CatchUpSubscription.Update] = []
        func read(until done: () -> Bool) throws {
            let deadline = ContinuousClock.now + .seconds(8)
            while ContinuousClock.now < deadline, !done() {
                if let update = try subscription.next(timeout: .milliseconds(200)) { seen.append(update) }
            }
        }
        try read { seen.contains { if case .event(let e) = $0 { e.revision == 3 } else { false } } }

        #expect(second.stop() == 0)
        try second.restoreLog(from: backup)
        let third = try second.restarted()
        defer { third.stop() }
        let writer = try SegueClient(endpoint: third.commandEndpoint)
        try writer.push("main", ScreenSpec(name: "B"), options: options)
        try writer.push("main", ScreenSpec(name: "C"), options: options)
        seen = []
        try read { seen.contains { if case .snapshot = $0 { true } else { false } } }
        #expect(seen.contains(.rewound(seq: 5)), "\(seen)")
        let snapshot = seen.compactMap { if case .snapshot(let s) = $0 { s } else { nil } }.first
        #expect(snapshot?.revision == 5)
        #expect(snapshot?.stack.map(\.name) == ["Home", "B", "C"])
    }

    /// Heartbeats every 50 ms while commands keep the log moving: a heartbeat often waits in the
    /// subscription's queue behind a `history` or `state` reply that already taught the client a
    /// later seq. That is no restore (`ping` says the log reaches further): the view goes on, every
    /// event once, in order.
    @Test(arguments: [["main"], []])
    func heartbeatsQueuedBehindRepliesAreNoRestore(navigators: [String]) throws {
        let d = try DaemonProcess.configured(#"{"heartbeatSeconds": 0.05}"#)
        defer { d.stop() }
        let writer = try SegueClient(endpoint: d.commandEndpoint)
        try writer.create("main", root: ScreenSpec(name: "Home"))
        let stop = Atomic<Bool>(false)
        let load = Thread {
            guard let client = try? SegueClient(endpoint: d.commandEndpoint) else { return }
            var push = true
            while !stop.load(ordering: .relaxed) {
                let options = TransitionOptions(animated: false)
                _ =
                    try?
                    (push
                    ? client.push("main", ScreenSpec(name: "A"), options: options)
                    : client.pop("main", options: options))
                push.toggle()
            }
        }
        load.start()
        defer { stop.store(true, ordering: .relaxed) }
        usleep(300_000)
        let subscription = try CatchUpSubscription(
            client: SegueClient(endpoint: d.commandEndpoint), publishEndpoint: d.publishEndpoint,
            navigators: navigators,
            ticks: false)
        var revision: Int64?
        var events = 0
        let deadline = ContinuousClock.now + .seconds(3)
        while ContinuousClock.now < deadline {
            guard let update = try subscription.next(timeout: .milliseconds(100)) else { continue }
            switch update {
            case .snapshot(let s): revision = s.revision
            case .event(let e):
                #expect(e.revision == (revision ?? 0) + 1, "revision \(e.revision) after \(revision ?? 0)")
                revision = e.revision
                events += 1
            case .rewound(let seq): Issue.record("no restore happened, yet rewound to seq \(seq)")
            default: break
            }
            // Slow, so that heartbeats pile up behind the replies of the catch-up's requests.
            if events % 50 == 0 { usleep(20_000) }
        }
        #expect(events > 50)
    }

    /// Heartbeats the caller did not ask for are read and dropped, yet `next`'s timeout still ends the
    /// call: a quiet log answers nil, however often heartbeats come.
    @Test func nextReturnsNilOnAQuietLogDespiteHeartbeats() throws {
        let d = try DaemonProcess.configured(#"{"heartbeatSeconds": 0.05}"#)
        defer { d.stop() }
        try SegueClient(endpoint: d.commandEndpoint).create("main", root: ScreenSpec(name: "Home"))
        let subscription = try CatchUpSubscription(
            client: SegueClient(endpoint: d.commandEndpoint), publishEndpoint: d.publishEndpoint, navigators: ["main"])
        guard case .snapshot? = try subscription.next(timeout: .seconds(2)) else {
            Issue.record("the first update is the snapshot")
            return
        }
        nonisolated(unsafe) var quiet: CatchUpSubscription.Update??
        nonisolated(unsafe) let reader = subscription
        let done = DispatchSemaphore(value: 0)
        Thread {
            quiet = try? reader.next(timeout: .milliseconds(300))
            done.signal()
        }.start()
        // Generous: the point is that it returns at all (it waited forever while heartbeats came).
        #expect(done.wait(timeout: .now() + 10) == .success, "next(timeout: 0.3 s) did not return")
        #expect(quiet == .some(nil))
    }
}
