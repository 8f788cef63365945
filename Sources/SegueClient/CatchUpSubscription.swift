import SegueCore
import SegueProtocol

/// A late joiner's view of one or more navigators (docs/protocol.md, "Late joiners (the Clone pattern)"): subscribe
/// first, then take `state`, then apply only events above the snapshot's revision, filling any gap
/// from `history`. Every event of a followed navigator is yielded exactly once, in revision order.
///
/// Blocking and single-threaded, like `SegueClient`: call `next(timeout:)` in a loop, or `forEach`.
public final class CatchUpSubscription {
    public enum Update: Equatable, Sendable {
        /// The starting state of a navigator: one per followed navigator, first, and again for each
        /// after the daemon's log went back (a restore from a backup): then it replaces what was built.
        case snapshot(NavigatorSnapshot)
        case event(EventRecord)
        case tick(PublishedTick)
        case heartbeat(Heartbeat)
        /// The daemon's log no longer holds events already yielded (it restarted on a copy restored
        /// from a backup, or another daemon answers at the endpoint); it now ends at `seq`. Drop what
        /// was built from them; new snapshots follow.
        case rewound(seq: Int64)
    }

    public let client: SegueClient
    public let subscriber: SegueSubscriber
    /// Followed navigators; empty means every navigator, including ones created later.
    public let navigators: [String]
    public private(set) var catchUp = CatchUp()
    /// Whether `next` yields heartbeats; the subscription receives them either way, to find losses.
    public let yieldsHeartbeats: Bool
    private var pending: [Update] = []
    /// Which daemon instance the events taken in come from, to tell a restart on a restored copy.
    public private(set) var lineage = Lineage(instance: nil)
    /// A rewind's new snapshots are still to be taken (the daemon stopped answering midway).
    private var restarting = false
    /// A rewind whose `rewound` update is still to be queued (its `ping` got no answer).
    private var rewindToAnnounce = false
    /// A rewind happened while something was being processed: the rest of it belongs to the old log.
    private var aborted = false
    /// Reading the log from a seq (`after:`): where it started, and whether pages of it are still to be
    /// read before the subscription's own events (`readBacklog`).
    public let startsAfter: Int64?
    private var backlogOpen = false
    /// The last backlog page got no answer (a daemon stopping): the next heartbeat tries again.
    private var backlogStalled = false

    /// Subscribes, then snapshots. A navigator named in `navigators` that does not exist yet starts
    /// at revision 0 (its `navigator.created` arrives as an event). Following every navigator, the
    /// log's position is `list`'s `seq`, taken before the snapshots.
    ///
    /// - Parameter after: instead of snapshots, every event after this seq, read from the log page by
    ///   page as `next` is called, then the subscription's (`segue log --follow`): a reader of the log
    ///   gets the same once-each, in-order and restore guarantees as a view.
    public init(
        client: SegueClient, publishEndpoint: String, navigators: [String] = [], ticks: Bool = true,
        heartbeats: Bool = false, curve: CurveCredentials? = nil, after: Int64? = nil
    ) throws(SegueClientError) {
        self.client = client
        self.navigators = navigators
        startsAfter = after
        yieldsHeartbeats = heartbeats
        subscriber = try SegueSubscriber(
            endpoint: publishEndpoint,
            topics: SegueSubscriber.topics(navigators: navigators, ticks: ticks, heartbeats: true), curve: curve)
        try start()
    }

    /// Takes the snapshots everything after builds on (again after the daemon's log was rewound).
    private func start() throws(SegueClientError) {
        catchUp = CatchUp()
        // The instance before the snapshots: if another one answers them, its first heartbeat finds
        // nothing held to compare, and the snapshots are its own anyway.
        let pong = try client.ping()
        let instance = pong.instance
        var retired = lineage.retired
        if let old = lineage.instance, old != instance { retired.insert(old) }
        lineage = Lineage(instance: instance, retired: retired)
        if let startsAfter {
            try startReading(after: startsAfter)
            _ = lineage.heartbeat(instance: instance, known: catchUp.known, reported: pong.seq)
            return
        }
        var names = navigators
        if names.isEmpty {
            let listing = try client.listing()
            catchUp = .following(everyNavigatorFrom: listing.seq)
            names = listing.navigators.map(\.navigator)
        }
        for name in names {
            do {
                try takeSnapshot(name)
            } catch  where error.code == .unknownNavigator {
                continue
            }
        }
        // The snapshots are this instance's knowledge of the log (as far as it said its log reaches:
        // a run that replaced it meanwhile may have answered them): a run that opens a shorter log is
        // not a continuation of it.
        _ = lineage.heartbeat(instance: instance, known: catchUp.known, reported: pong.seq)
    }

    /// Reading from a seq: every navigator from that log position, or each named one at its revision as
    /// of that seq (`state --at`; 0 for one that did not exist then).
    private func startReading(after seq: Int64) throws(SegueClientError) {
        backlogOpen = true
        backlogStalled = false
        guard !navigators.isEmpty else {
            catchUp = .following(everyNavigatorFrom: seq)
            return
        }
        for name in navigators {
            var revision: Int64 = 0
            if seq > 0 {
                do {
                    revision = try client.state(name, at: seq).revision
                } catch  where error.code == .unknownNavigator {
                    revision = 0
                }
            }
            catchUp.snapshot(navigator: name, revision: revision, seq: seq)
        }
    }

    /// One page of the backlog (`after:`) per followed navigator, or of the whole log; closes the
    /// backlog once every page came back without `more`. False: a page was left (another run answered
    /// it, or a rewind began).
    private func readBacklog() throws(SegueClientError) -> Bool {
        var more = false
        if let position = catchUp.position {
            let page = try client.history(after: position, limit: 1000)
            guard try mayTake(page) else { return false }
            for event in page.events {
                try accept(event)
                if aborted { return false }
            }
            more = page.more
        } else {
            for name in navigators {
                let page = try client.history(navigator: name, after: catchUp.seqs[name] ?? 0, limit: 1000)
                guard try mayTake(page) else { return false }
                for event in page.events where catchUp.offer(event) == .apply { applied(event) }
                more = more || page.more
            }
        }
        if !more { backlogOpen = false }
        return true
    }

    /// The next update, or `nil` when nothing arrived within `timeout` (`nil`: wait forever).
    ///
    /// A heartbeat whose `seq` is beyond what the subscription has seen makes it ask `history` for
    /// what it missed (events dropped at the end of a navigator's activity, or while the link was
    /// down, show no gap otherwise): following every navigator only when the log moved past its
    /// position, following named ones once per heartbeat while the log moves.
    public func next(timeout: Duration?) throws(SegueClientError) -> Update? {
        // Heartbeats that are not yielded still end a wait; the timeout bounds the whole call.
        let deadline = timeout.map { ContinuousClock.now + $0 }
        while true {
            if !pending.isEmpty { return pending.removeFirst() }
            // The backlog first, a page at a time; one the daemon does not answer (or that another run
            // answered) waits for the next heartbeat.
            if backlogOpen, !backlogStalled, !restarting {
                aborted = false
                do {
                    // A rewind while reading started the backlog over: it is read on at once.
                    backlogStalled = try !readBacklog() && !aborted
                } catch {
                    guard Self.isSilence(error) else { throw error }
                    backlogStalled = true
                }
                continue
            }
            let left = deadline.map { max(.zero, $0 - ContinuousClock.now) }
            guard let publication = try subscriber.next(timeout: left) else { return nil }
            aborted = false
            switch publication {
            case .tick(let tick): return .tick(tick)
            case .heartbeat(let hb):
                try tolerating { () throws(SegueClientError) in try check(heartbeat: hb) }
                if yieldsHeartbeats { pending.append(.heartbeat(hb)) }
            // While a rewind's snapshots are still to be taken, events wait for them (they cover them).
            case .event where restarting: continue
            // A gap to fill when the daemon does not answer: the event is left; the next heartbeat's
            // check reads it from the log with what else is missing.
            case .event(let event): try tolerating { () throws(SegueClientError) in try accept(event) }
            }
        }
    }

    /// Calls `body` with each update until it returns `false`; `idle` runs after each quiet `timeout`.
    public func forEach(
        timeout: Duration? = nil, idle: () throws(SegueClientError) -> Bool = { true },
        _ body: (Update) throws(SegueClientError) -> Bool
    ) throws(SegueClientError) {
        while true {
            if let update = try next(timeout: timeout) {
                guard try body(update) else { return }
            } else {
                guard try idle() else { return }
            }
        }
    }

    /// Looks for events the subscription may have missed at its very end (no later event reveals
    /// such a gap): asks `history` for a navigator's events after the last one seen.
    public func poll(_ navigator: String) throws(SegueClientError) {
        guard !restarting else { return }
        aborted = false
        _ = try fill(navigator, after: catchUp.seqs[navigator] ?? 0)
    }

    private func accept(_ event: EventRecord) throws(SegueClientError) {
        switch catchUp.offer(event) {
        case .apply: applied(event)
        case .duplicate: break
        case .gap(let navigator, let after):
            if catchUp.position == nil {
                try fill(navigator, after: after)
            } else if startsAfter != nil {
                // Reading the log from a seq: the navigator's earlier events lie before it, and this one
                // is next. (A snapshot now would show its state today, and cover this event and every
                // later one read from the log.)
                catchUp.snapshot(navigator: navigator, revision: event.revision - 1, seq: event.seq - 1)
            } else {
                // Following every navigator the log has no hole here: the navigator's earlier events
                // lie before the position, where no snapshot of it was taken. Take one now.
                try takeSnapshot(navigator)
            }
            if !aborted { try reoffer(event) }
        case .logGap(let after):
            try fillLog(after: after)
            if !aborted { try reoffer(event) }
        }
    }

    /// An event to yield: queued, and remembered for the lineage check.
    private func applied(_ event: EventRecord) {
        pending.append(.event(event))
        lineage.saw(event)
    }

    /// Offers an event again after its gap was filled: it applies, or the fill already covered it.
    private func reoffer(_ event: EventRecord) throws(SegueClientError) {
        if catchUp.offer(event) == .apply { applied(event) }
    }

    /// Work that asks the daemon, where a daemon that does not answer is no failure: the last
    /// heartbeat of a daemon going away (SIGTERM sends one) can ask about events it will no longer
    /// serve. The work is left undone, and the next heartbeat (of this daemon, or of the one that
    /// replaces it) asks again: a subscription outlives a daemon's restart.
    private func tolerating(_ work: () throws(SegueClientError) -> Void) throws(SegueClientError) {
        do {
            try work()
        } catch {
            guard Self.isSilence(error) else { throw error }
        }
    }

    /// A daemon that did not answer, or answered that it cannot serve now (stopping, storage down).
    public static func isSilence(_ error: SegueClientError) -> Bool {
        error.kind == .timeout || error.kind == .unreachable || error.code == .unavailable
    }

    private func check(heartbeat: Heartbeat) throws(SegueClientError) {
        let seq = heartbeat.seq
        let instance = heartbeat.instance
        // A heartbeat of a run already replaced, still in the queue: it says nothing of the log now.
        if lineage.isRetired(instance) { return }
        if restarting {
            // The rewind was cut short by a daemon that stopped answering: finish it.
            try finishRewind()
            return
        }
        // Another daemon instance: does its log still hold what was yielded (restored copy)?
        let changed = instance != nil && instance != lineage.instance
        guard try followLineage(instance: instance, since: heartbeat.since, reported: seq) else {
            return
        }
        // Retired by that check: a run that is not the one answering, such as another daemon whose
        // publications a relay merges with this one's. Its seq is of its own log.
        if lineage.isRetired(instance) { return }
        // The backlog is still being read: it reaches the heartbeat's seq by itself, page by page.
        if backlogOpen {
            backlogStalled = false
            return
        }
        switch catchUp.heartbeat(seq: seq) {
        case .none: break
        case .navigators:
            var complete = true
            for name in navigators {
                complete = try fill(name, after: catchUp.seqs[name] ?? 0) && complete
                if aborted { return }
            }
            // A fill cut short (a page from yet another run) leaves the check to the next heartbeat.
            if complete { catchUp.checked(through: seq) }
        case .log(let after): try fillLog(after: after)
        case .rewound:
            // From the instance the held events come from, it waited in the queue behind what a reply
            // taught us. From a new instance (holding no event to compare, only snapshots) or a daemon
            // that does not say, the log's end says which.
            guard instance == nil || changed, try client.ping().seq < catchUp.known else { return }
            try rewind()
        }
    }

    /// Whether what was yielded is still the log of daemon `instance` (`SegueClient.stays`); if not,
    /// rewinds and answers false.
    private func followLineage(instance: String?, since: Int64?, reported: Int64?) throws(SegueClientError) -> Bool {
        let same = try client.stays(
            &lineage, on: instance, since: since, reported: reported, known: catchUp.known,
            byNavigator: catchUp.position == nil)
        if !same { try rewind() }
        return same
    }

    /// Whether a `history` page may be taken in (`SegueClient.judge`); a page from a run whose log
    /// no longer holds what was yielded rewinds.
    private func mayTake(_ page: HistoryPage) throws(SegueClientError) -> Bool {
        switch try client.judge(page, &lineage, known: catchUp.known, byNavigator: catchUp.position == nil) {
        case .take: return true
        case .leave: return false
        case .rewound:
            try rewind()
            return false
        }
    }

    /// The daemon's log no longer holds what was yielded: updates not yet yielded describe the old
    /// log, so they are dropped for `rewound` and new snapshots. Marked first, so that a daemon that
    /// stops answering midway leaves the rewind to be finished at the next heartbeat, and events wait.
    private func rewind() throws(SegueClientError) {
        aborted = true
        restarting = true
        rewindToAnnounce = true
        pending = []
        try finishRewind()
    }

    /// Announces the rewind (once, with the log's end) and takes the new snapshots.
    private func finishRewind() throws(SegueClientError) {
        if rewindToAnnounce {
            pending = [.rewound(seq: try client.ping().seq)]
            rewindToAnnounce = false
        } else {
            // Snapshots of a start cut short are taken again.
            pending.removeAll { if case .snapshot = $0 { true } else { false } }
        }
        try start()
        restarting = false
    }

    private func takeSnapshot(_ navigator: String) throws(SegueClientError) {
        let snapshot = try client.state(navigator)
        catchUp.snapshot(navigator: navigator, revision: snapshot.revision, seq: snapshot.seq)
        pending.append(.snapshot(snapshot))
    }

    /// A named navigator's events after `after`, page by page.
    /// Whether it read to the end (not cut short by a page from another run, or a rewind).
    @discardableResult
    private func fill(_ navigator: String, after: Int64) throws(SegueClientError) -> Bool {
        var after = after
        while true {
            let page = try client.history(navigator: navigator, after: after, limit: 1000)
            guard try mayTake(page) else { return false }
            for event in page.events where catchUp.offer(event) == .apply { applied(event) }
            guard page.more else { return true }
            after = page.next
        }
    }

    /// Every event of the log after `after`, page by page (following every navigator).
    private func fillLog(after: Int64) throws(SegueClientError) {
        var after = after
        while true {
            let page = try client.history(after: after, limit: 1000)
            guard try mayTake(page) else { return }
            for event in page.events {
                try accept(event)
                if aborted { return }
            }
            guard page.more else { return }
            after = page.next
        }
    }
}
