import Foundation
import SegueClient
import SegueCore
import Synchronization
import Testing

/// SegueClient against the real daemon: typed errors, retries that reuse the id, the catch-up view.
@Suite(.ownThreads, .serialized) struct CliClientLibraryTests {
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

    /// A call that timed out says which request it was: the caller's next call with that id is a
    /// retry the daemon applies once, even when the first reached it after the deadline.
    @Test func aTimedOutCallCarriesItsIdForASafeRetry() throws {
        let d = try DaemonProcess()
        defer { d.stop() }
        let client = try SegueClient(endpoint: d.commandEndpoint, timeout: .milliseconds(300), retries: 1)
        try client.create("main", root: ScreenSpec(name: "Home"))
        kill(d.pid, SIGSTOP)
        let error = try #require(throws: SegueClientError.self) {
            try client.push("main", ScreenSpec(name: "Detail"), options: TransitionOptions(animated: false))
        }
        kill(d.pid, SIGCONT)
        #expect(error.kind == .timeout)
        let id = try #require(error.requestID)
        client.timeout = .seconds(5)
        let retried = try client.push(
            "main", ScreenSpec(name: "Detail"), options: TransitionOptions(animated: false),
            envelope: CommandEnvelope(requestID: id))
        #expect(retried.revision == 3)
        #expect(try client.state("main").revision == 3, "the late first copy and the retry pushed once")
        // Kept in range whatever a caller sets: 0 attempts more would divide the timeout by zero.
        client.retries = -1
        #expect(client.retries == 0)
        client.retries = .max
        #expect(client.retries == 1000)
    }

    /// `estimateClock` against the daemon on this host: the same clock on both sides, so the true
    /// offset is 0 and must lie within the estimate's own bound (half its best round trip).
    @Test func theClockEstimateOfTheSameHostIsZeroWithinItsBound() throws {
        let d = try DaemonProcess()
        defer { d.stop() }
        let client = try SegueClient(endpoint: d.commandEndpoint)
        let estimate = try client.estimateClock(pings: 5, spacing: .milliseconds(2))
        #expect(estimate.roundTrips.count == 5)
        #expect(estimate.roundTrip == estimate.roundTrips.first)
        // 2 µs of slack: the wall clock is read just after the monotonic one, and may be slewed.
        #expect(abs(estimate.offset) <= estimate.uncertainty + 2_000, "\(estimate)")
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
        // A peer that accepts the connection and never answers is silence: a timeout, which says the
        // peer never greeted.
        let (fd, port) = DataDirFootprintTests.busyPort()
        defer { close(fd) }
        let endpoint = "tcp://127.0.0.1:\(port)"
        let silent = try SegueClient(endpoint: endpoint, timeout: .milliseconds(200), retries: 1)
        let error = try #require(throws: SegueClientError.self) { try silent.ping() }
        #expect(error == .silentPeer(command: "ping", waited: .milliseconds(200), endpoint: endpoint))
        #expect(error.kind == .timeout)
        // Nobody listening at all is said at once.
        let nobody = "tcp://127.0.0.1:\(DaemonProcess.freePort())"
        let refused = try SegueClient(endpoint: nobody, timeout: .seconds(10), retries: 1)
        #expect(throws: SegueClientError.unreachable(endpoint: nobody)) { try refused.ping() }
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
        // A 0.1 s push has 7 ticks, less any frames a loaded daemon skipped (`missedFrames`); one
        // is spare, as before frames were counted.
        let missed = try TestClient(endpoint: d.commandEndpoint).missedFrames()
        #expect(Int64(ticks) + missed >= 6)
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
