import Foundation
import SegueClient
import SegueCore
import SegueProtocol
import Synchronization
import Testing

/// `CatchUpSubscription` across daemon restarts, on the same log and on a restored older copy of it
/// (protocol.md, "Restarts and restores"): a restore makes the view start over (`rewound`, then new
/// snapshots), an ordinary restart never does. A restore here is a copy of SQLite's files
/// (`copyOfLog`), so the suite runs in the SQLite pass.
@Suite(.ownThreads, .serialized, .sqliteOnly) struct CatchUpRestoreTests {
    static let options = TransitionOptions(animated: false)

    /// A daemon whose log holds `create main Home` (seq 1), restarted once; `backup` is the log as it
    /// was then, to restore later with `restore`.
    struct Scenario {
        let daemon: DaemonProcess
        let backup: String

        init() throws {
            let first = try DaemonProcess()
            try SegueClient(endpoint: first.commandEndpoint).create("main", root: ScreenSpec(name: "Home"))
            #expect(first.stop() == 0)
            backup = try first.copyOfLog()
            daemon = try first.restarted()
        }

        func push(_ screens: String..., on daemon: DaemonProcess? = nil) throws {
            let writer = try SegueClient(endpoint: (daemon ?? self.daemon).commandEndpoint)
            for screen in screens { try writer.push("main", ScreenSpec(name: screen), options: options) }
        }

        func subscribe(_ navigators: [String]) throws -> Reader {
            Reader(
                try CatchUpSubscription(
                    client: SegueClient(endpoint: daemon.commandEndpoint), publishEndpoint: daemon.publishEndpoint,
                    navigators: navigators, ticks: false))
        }

        /// Stops the daemon and starts it again on the backup (a restore).
        func restore() throws -> DaemonProcess {
            #expect(daemon.stop() == 0)
            try daemon.restoreLog(from: backup)
            return try daemon.restarted()
        }
    }

    /// A subscription's updates, read into `seen`.
    final class Reader {
        let subscription: CatchUpSubscription
        var seen: [CatchUpSubscription.Update] = []

        init(_ subscription: CatchUpSubscription) { self.subscription = subscription }

        /// Reads until `done` holds or `duration` passes.
        func read(for duration: Duration = .seconds(8), until done: (Reader) -> Bool = { _ in false }) throws {
            let deadline = ContinuousClock.now + duration
            while ContinuousClock.now < deadline, !done(self) {
                if let update = try subscription.next(timeout: .milliseconds(200)) { seen.append(update) }
            }
        }

        var revisions: [Int64] { seen.compactMap { if case .event(let e) = $0 { e.revision } else { nil } } }

        /// What an ordinary restart must leave: no `rewound`, each event the next revision after the
        /// snapshot or event before it, and the view ending at `final`, the log's revision.
        func expectContinuousView(upTo final: Int64, _ context: String) {
            #expect(!rewound, "\(context): \(CatchUpRestoreTests.summary(seen))")
            var revision: Int64?
            for update in seen {
                switch update {
                case .snapshot(let snapshot): revision = snapshot.revision
                case .event(let event):
                    let expected = (revision ?? 0) + 1
                    #expect(event.revision == expected, "\(context): revision \(event.revision) after \(expected - 1)")
                    revision = event.revision
                default: break
                }
            }
            #expect(revision == final, "\(context): the view ends at \(revision ?? -1), the log at \(final)")
        }
        var snapshots: [NavigatorSnapshot] { seen.compactMap { if case .snapshot(let s) = $0 { s } else { nil } } }
        var rewound: Bool { seen.contains { if case .rewound = $0 { true } else { false } } }
    }

    /// A daemon restarted on an older copy of its log (a restore from a backup) ends before events
    /// already yielded: the subscription says so and starts over from new snapshots, rather than
    /// taking the new log's events for duplicates of the old one's.
    @Test(arguments: [["main"], []])
    func aRestoredLogStartsTheViewOver(navigators: [String]) throws {
        let scenario = try Scenario()
        let reader = try scenario.subscribe(navigators)
        try scenario.push("A")
        try reader.read { $0.revisions.last == 3 }
        #expect(reader.revisions == [2, 3])

        let third = try scenario.restore()
        defer { third.stop() }
        reader.seen = []
        try reader.read { !$0.snapshots.isEmpty }
        #expect(reader.seen.first == .rewound(seq: 1), "\(reader.seen)")
        #expect(reader.snapshots.contains { $0.revision == 1 && $0.stack.map(\.name) == ["Home"] })
        reader.seen = []
        try scenario.push("B", on: third)
        try reader.read { $0.revisions.last == 3 }
        #expect(reader.revisions == [2, 3], "the new log's push, not taken for old events")
    }

    /// A subscription that holds only snapshots (no event seen since) when the daemon restarts on an
    /// older, shorter copy of its log: there is no event to compare, so the new instance's heartbeat
    /// below the snapshots' seq is checked against the log's end, and the view starts over.
    @Test func aRestoredLogBelowTheSnapshotsStartsTheViewOver() throws {
        let scenario = try Scenario()
        try scenario.push("A")
        let reader = try scenario.subscribe(["main"])
        try reader.read { !$0.seen.isEmpty }
        #expect(reader.snapshots.first?.revision == 3, "\(reader.seen)")

        let third = try scenario.restore()
        defer { third.stop() }
        reader.seen = []
        try reader.read { !$0.snapshots.isEmpty }
        #expect(reader.seen.first == .rewound(seq: 1), "\(reader.seen)")
        #expect(reader.snapshots.contains { $0.revision == 1 })
    }

    /// A subscription holding only snapshots reads late: by then the daemon restarted on an older copy
    /// of its log and that log grew past the snapshots. The new instance's `since` (where it opened the
    /// log) is below what the snapshots knew: the view starts over.
    @Test(arguments: [["main"], []])
    func aLateReaderHoldingOnlySnapshotsSeesARestoreThatGrew(navigators: [String]) throws {
        let scenario = try Scenario()
        try scenario.push("A")
        let reader = try scenario.subscribe(navigators)
        let third = try scenario.restore()
        defer { third.stop() }
        try scenario.push("B", "C", on: third)
        func restarted(_ reader: Reader) -> Bool {
            guard let rewound = reader.seen.firstIndex(of: .rewound(seq: 5)) else { return false }
            return reader.seen[rewound...].contains { if case .snapshot = $0 { true } else { false } }
        }
        try reader.read(until: restarted)
        #expect(restarted(reader), "\(reader.seen)")
        let snapshot = reader.snapshots.last
        #expect(snapshot?.revision == 5 && snapshot?.stack.map(\.name) == ["Home", "B", "C"])
    }

    /// A gap fill answered by the restarted daemon while the old one's last heartbeat is still in the
    /// queue: the page comes from another instance, so it is checked before its events are taken
    /// (taken unchecked, they would be credited to the old log, and the old instance's heartbeat
    /// would then vouch for them).
    @Test func aFillAnsweredByARestoredDaemonIsCheckedFirst() throws {
        let scenario = try Scenario()
        let reader = try scenario.subscribe(["main"])
        try scenario.push("A")
        try reader.read { $0.revisions.contains(3) }
        let third = try scenario.restore()
        defer { third.stop() }
        try scenario.push("B", "C", "D", on: third)
        reader.seen = []
        try reader.subscription.poll("main")
        try reader.read { !$0.snapshots.isEmpty }
        #expect(reader.seen.first == .rewound(seq: 7), "\(reader.seen)")
        #expect(reader.snapshots.contains { $0.revision == 7 })
    }

    /// An ordinary restart on the same log, noticed first through a fill (`poll`) answered by the new
    /// run while the old run's last heartbeat is still in the subscription's queue: the new run holds
    /// what was yielded, so it is taken; the old run's late heartbeat (with its old `since`) is then
    /// no sign of a restore. No `rewound`, every event once, in order.
    /// The daemon restarts while a subscription starts (before its `ping`, between it and the
    /// snapshots, or just after them) and a writer pushes and pops throughout: an ordinary restart is
    /// no restore, so the view goes on from its snapshot with every later event once, in order, up
    /// to the revision the new run holds. The delays place the stop at different points of the
    /// start-up; `CatchUpSubscription.init` may time out if the daemon is down when it asks, and is
    /// then simply tried again, as a client would.
    @Test(arguments: [["main"], []])
    func aRestartDuringStartUpIsNoRestore(navigators: [String]) throws {
        let scenario = try Scenario()
        var daemon = scenario.daemon
        for delay in [0, 3, 15] {
            let stop = Atomic<Bool>(false)
            let endpoint = daemon.commandEndpoint
            let writer = Thread {
                guard let client = try? SegueClient(endpoint: endpoint, timeout: .milliseconds(600), retries: 1)
                else { return }
                var push = true
                while !stop.load(ordering: .relaxed) {
                    _ =
                        try?
                        (push
                        ? client.push("main", ScreenSpec(name: "A"), options: Self.options)
                        : client.pop("main", options: Self.options))
                    push.toggle()
                }
            }
            writer.start()
            usleep(100_000)
            let restarting = daemon
            let restarted = Mutex<DaemonProcess?>(nil)
            let restarter = Thread {
                usleep(UInt32(delay * 1000))
                _ = restarting.stop()
                let next = try? restarting.restarted()
                restarted.withLock { $0 = next }
            }
            restarter.start()
            var subscription: CatchUpSubscription?
            let deadline = ContinuousClock.now + .seconds(20)
            while subscription == nil, ContinuousClock.now < deadline {
                subscription = try? CatchUpSubscription(
                    client: SegueClient(endpoint: endpoint, timeout: .seconds(2)),
                    publishEndpoint: daemon.publishEndpoint, navigators: navigators, ticks: false)
            }
            let reader = Reader(try #require(subscription, "no subscription started (delay \(delay) ms)"))
            while restarted.withLock({ $0 }) == nil, ContinuousClock.now < deadline { usleep(10_000) }
            daemon = try #require(restarted.withLock { $0 }, "the daemon did not restart")
            try reader.read(for: .milliseconds(700))
            stop.store(true, ordering: .relaxed)
            while !writer.isFinished { usleep(10_000) }
            let final = try SegueClient(endpoint: daemon.commandEndpoint).state("main").revision
            try reader.read { $0.revisions.last == final }

            reader.expectContinuousView(upTo: final, "delay \(delay) ms")
        }
        #expect(daemon.stop() == 0)
    }

    /// The daemon restarts while a subscription is far behind: a burst of pushes and pops waits
    /// unread in its queue (the old run's events and last heartbeat), and the new run goes on
    /// writing. An ordinary restart: every event once, in order, no `rewound`, up to the new run's
    /// revision.
    @Test(arguments: [["main"], []])
    func aRestartWhileFarBehindIsNoRestore(navigators: [String]) throws {
        let scenario = try Scenario()
        let reader = try scenario.subscribe(navigators)
        try reader.read { !$0.snapshots.isEmpty }
        let writer = try SegueClient(endpoint: scenario.daemon.commandEndpoint)
        for index in 0..<400 {
            if index % 2 == 0 {
                try writer.push("main", ScreenSpec(name: "A"), options: Self.options)
            } else {
                try writer.pop("main", options: Self.options)
            }
        }
        #expect(scenario.daemon.stop() == 0)
        let next = try scenario.daemon.restarted()
        defer { next.stop() }
        try scenario.push("B", "C", on: next)
        let final = try SegueClient(endpoint: next.commandEndpoint).state("main").revision
        try reader.read { $0.revisions.last == final }
        reader.expectContinuousView(upTo: final, "far behind")
    }

    /// `seen` in short: `S` snapshots (revision@seq), events as revision@seq (runs collapsed), `R`ewinds.
    static func summary(_ seen: [CatchUpSubscription.Update]) -> String {
        var parts: [String] = []
        var run: (first: String, last: String, count: Int)?
        func flush() {
            if let r = run { parts.append(r.count == 1 ? r.first : "\(r.first)…\(r.last) (\(r.count))") }
            run = nil
        }
        for update in seen {
            switch update {
            case .event(let e):
                let text = "\(e.revision)@\(e.seq)"
                if run != nil {
                    run!.last = text
                    run!.count += 1
                } else {
                    run = (text, text, 1)
                }
            case .snapshot(let s):
                flush()
                parts.append("S\(s.revision)@\(s.seq)")
            case .rewound(let seq):
                flush()
                parts.append("R\(seq)")
            default: break
            }
        }
        flush()
        return parts.joined(separator: " ")
    }

    /// A reader of the log from a seq (`after:`, `segue log --follow`) is between backlog pages when
    /// the daemon restarts on a shorter, restored log: the next page rewinds, and the new log's
    /// backlog is read at once, not at the next heartbeat (a minute away here).
    @Test func aRestoreDuringTheBacklogReadsTheNewLogAtOnce() throws {
        let slowHeartbeats = try DaemonProcess.configFile(#"{"heartbeatSeconds": 60}"#)
        let first = try DaemonProcess(arguments: slowHeartbeats)
        let writer = try SegueClient(endpoint: first.commandEndpoint)
        try writer.create("main", root: ScreenSpec(name: "Home"))
        #expect(first.stop() == 0)
        let backup = try first.copyOfLog()
        let second = try first.restarted(arguments: slowHeartbeats)
        for index in 0..<1100 {
            if index % 2 == 0 {
                try writer.push("main", ScreenSpec(name: "A"), options: Self.options)
            } else {
                try writer.pop("main", options: Self.options)
            }
        }
        let reader = Reader(
            try CatchUpSubscription(
                client: SegueClient(endpoint: second.commandEndpoint), publishEndpoint: second.publishEndpoint,
                ticks: false, after: 0))
        try reader.read { $0.revisions.count >= 1000 }
        #expect(reader.revisions.count == 1000, "one page of 2,201 events read: \(Self.summary(reader.seen))")

        #expect(second.stop() == 0)
        try second.restoreLog(from: backup)
        let third = try second.restarted(arguments: slowHeartbeats)
        defer { third.stop() }
        try writer.push("main", ScreenSpec(name: "B"), options: Self.options)
        reader.seen = []
        try reader.read(for: .seconds(10)) { $0.revisions.last == 3 }
        #expect(Self.summary(reader.seen) == "R3 1@1…3@3 (3)")
    }

    @Test func anOldRunsLateHeartbeatAfterASwitchIsNoRestore() throws {
        let scenario = try Scenario()
        let reader = try scenario.subscribe(["main"])
        try scenario.push("A")
        try reader.read { $0.revisions.last == 3 }
        // Stopped: its last heartbeat waits, unread, in the subscription's queue.
        let next = try scenario.daemon.restarted()
        defer { next.stop() }
        try scenario.push("B", on: next)
        try reader.subscription.poll("main")
        try reader.read(for: .milliseconds(1500))
        #expect(!reader.rewound, "\(reader.seen)")
        #expect(reader.revisions == [2, 3, 4, 5])
        #expect(reader.subscription.lineage.retired.count == 1)
    }

    /// A restored log that grew past what the subscription had yielded before it read again (a
    /// reader far behind): seqs cannot tell, the events differ. The new daemon instance in its
    /// heartbeats makes the subscription compare; it rewinds to the new log and starts over.
    @Test(arguments: [["main"], []])
    func aRestoredLogThatGrewPastWhatWasSeenStartsTheViewOver(navigators: [String]) throws {
        let scenario = try Scenario()
        let reader = try scenario.subscribe(navigators)
        try scenario.push("A")
        try reader.read { $0.revisions.contains(3) }
        let third = try scenario.restore()
        defer { third.stop() }
        try scenario.push("B", "C", on: third)
        reader.seen = []
        try reader.read { !$0.snapshots.isEmpty }
        #expect(reader.seen.contains(.rewound(seq: 5)), "\(reader.seen)")
        #expect(reader.snapshots.first?.revision == 5)
        #expect(reader.snapshots.first?.stack.map(\.name) == ["Home", "B", "C"])
    }
}
