import SegueCore
import SegueProtocol

/// Whether the events a client holds are still in the daemon's log after the daemon restarted.
///
/// A daemon restarted on a restored older copy of its log writes new events under seqs the old log
/// already used. Seqs alone cannot tell when the new log has grown past what the client saw (a reader
/// far behind, or a restore to a copy of the same length): the events must be compared. A backup is a
/// prefix of the log it was taken from, so when the newest event the client saw from the old daemon
/// is in the new log, everything before it is too.
///
/// Which daemon published an event is known only up to a heartbeat (each carries the daemon's random
/// `instance`): events seen after the last heartbeat of one instance may come from the next. So the
/// lineage keeps the newest event seen as of the last heartbeat (`anchor`) and every event seen
/// since (`recent`); when a heartbeat shows another instance, the client asks the log for those and
/// compares (`holds`), then `adopt`s the new instance, or starts over.
public struct Lineage: Equatable, Sendable {
    /// What identifies an event across logs: the same seq with another time is another event.
    public struct Digest: Equatable, Sendable {
        public var seq: Int64
        public var navigator: String
        public var revision: Int64
        public var type: String
        public var time: Int64

        public init(_ event: EventRecord) {
            seq = event.seq
            navigator = event.navigator
            revision = event.revision
            type = event.type
            time = event.time
        }
    }

    /// The daemon instance the held events are known to come from; nil until one said (an older
    /// daemon never does).
    public private(set) var instance: String?
    /// The newest event seen as of the last heartbeat of `instance`.
    public private(set) var anchor: Digest?
    /// How far the client knew the log (its events and snapshots) as of that heartbeat: a run that
    /// opened the log before that point (`since`) is not on the log the client knew.
    public private(set) var knownAtAnchor: Int64 = 0
    /// Events seen since that heartbeat, in the order seen.
    public private(set) var recent: [Digest] = []
    /// Runs the lineage moved past: a heartbeat of one of them that was still queued says nothing.
    public private(set) var retired: Set<String> = []
    /// At least this many of the newest `recent` digests are kept, at most twice as many: between two
    /// heartbeats there are far fewer, except in a backlog read before the first one.
    public let limit: Int

    public init(instance: String?, retired: Set<String> = [], limit: Int = 100_000) {
        self.instance = instance
        self.retired = retired
        self.limit = max(1, limit)
    }

    /// Records an event the client took in (applied, printed).
    public mutating func saw(_ event: EventRecord) {
        recent.append(Digest(event))
        // Trimmed by halves, so that a long backlog costs O(1) per event, not a shift of the array.
        if recent.count > 2 * limit { recent.removeFirst(recent.count - limit) }
    }

    public enum Check: Equatable, Sendable {
        /// The same daemon instance (or one that does not say): nothing to compare.
        case same
        /// Another instance, which opened a log shorter than what the client knew: not the log the
        /// client followed (a restore to an older copy).
        case rewound
        /// Another instance: ask the log whether it holds these events (`holds`), then `adopt` it.
        case verify([Digest])
    }

    /// Judges a heartbeat (or a reply) from daemon `instance`, which opened its log at `since`;
    /// `known` is how far the client knows the log now, and `reported` the seq this run itself said
    /// its log reaches (the heartbeat's or `ping`'s): only that much of `known` is surely this run's
    /// (replies of a run that replaced it may have taught the rest).
    public mutating func heartbeat(
        instance: String?, since: Int64? = nil, known: Int64 = 0, reported: Int64? = nil
    ) -> Check {
        if let instance, retired.contains(instance) { return .same }
        guard instance != self.instance else {
            settle(known: min(known, reported ?? known))
            return .same
        }
        // A daemon that stopped saying (downgraded): nothing to compare it by; the held instance stays.
        guard let instance else { return .same }
        if let since, since < knownAtAnchor { return .rewound }
        let digests = (anchor.map { [$0] } ?? []) + recent
        if digests.isEmpty {
            adopt(instance, known: known)
            return .same
        }
        return .verify(digests)
    }

    /// Takes `instance` as the one the held events come from (it answered with all of them).
    public mutating func adopt(_ instance: String, known: Int64 = 0) {
        if let old = self.instance, old != instance { retired.insert(old) }
        self.instance = instance
        settle(known: known)
    }

    /// Whether `instance` is a run the lineage moved past.
    public func isRetired(_ instance: String?) -> Bool { instance.map(retired.contains) ?? false }

    /// Notes `instance` as a run that came before the held one (its heartbeats say nothing now).
    public mutating func retire(_ instance: String) {
        if instance != self.instance { retired.insert(instance) }
    }

    private mutating func settle(known: Int64) {
        if let newest = recent.max(by: { $0.seq < $1.seq }), newest.seq >= anchor?.seq ?? 0 { anchor = newest }
        recent = []
        knownAtAnchor = max(knownAtAnchor, known)
    }

    /// Whether `events` (what the log returned for the digests' seqs) hold every digest: the same
    /// event at the same seq. A digest whose seq is missing is not held (the log is shorter).
    public static func holds(_ digests: [Digest], in events: [EventRecord]) -> Bool {
        var bySeq: [Int64: Digest] = [:]
        for event in events { bySeq[event.seq] = Digest(event) }
        return digests.allSatisfy { bySeq[$0.seq] == $0 }
    }
}

extension SegueClient {
    /// Whether the daemon's log holds each of `digests` (`Lineage.holds`), read with `history`: per
    /// navigator when `byNavigator` (a client following named navigators, whose events are far apart
    /// in the log), else as one range of the log.
    public func holds(_ digests: [Lineage.Digest], byNavigator: Bool) throws(SegueClientError) -> Bool {
        let groups =
            byNavigator
            ? Dictionary(grouping: digests, by: \.navigator).map { ($0.key as String?, $0.value) }
            : [(nil, digests)]
        for (navigator, group) in groups {
            guard let first = group.map(\.seq).min(), let last = group.map(\.seq).max() else { continue }
            var events: [EventRecord] = []
            var after = first - 1
            while true {
                let page = try history(navigator: navigator, after: after, limit: 1000)
                events += page.events.filter { $0.seq <= last }
                guard page.more, page.next < last else { break }
                after = page.next
            }
            guard Lineage.holds(group, in: events) else { return false }
        }
        return true
    }
}

/// What a client does with a `history` page (`SegueClient.judge`).
public enum PageVerdict: Equatable, Sendable {
    /// From the run the held events come from, or from a new one that holds them: take its events.
    case take
    /// From a run that no longer answers (yet another restart): leave the page to that run's
    /// successor's heartbeat.
    case leave
    /// From a run whose log no longer holds what the client took in: start over.
    case rewound
}

extension SegueClient {
    /// Carries `lineage` over a heartbeat (or `ping`) of daemon run `instance`, which opened its log
    /// at `since` and said it reaches `reported`; `known` is how far the client knows the log.
    /// Another run is checked (`Lineage.heartbeat`, then `holds`) and adopted if it holds what the
    /// client took in. `false`: it does not, what the client built no longer describes the log.
    ///
    /// A heartbeat from another run than the held one is judged only if that run answers now: the
    /// last heartbeat of a run that came before it (sent as it stopped, and still queued behind a
    /// start-up that took its snapshots from the successor) says nothing about the log, and its
    /// `since` would pass for a restore. Such a run is retired; one that is neither (yet another
    /// restart) is left to its successor's own heartbeat.
    public func stays(
        _ lineage: inout Lineage, on instance: String?, since: Int64?, reported: Int64?, known: Int64,
        byNavigator: Bool
    ) throws(SegueClientError) -> Bool {
        if let instance, instance != lineage.instance {
            let serving = try ping().instance
            guard serving == instance else {
                if let serving, serving == lineage.instance { lineage.retire(instance) }
                return true
            }
        }
        return try judgeRun(
            &lineage, on: instance, since: since, reported: reported, known: known, byNavigator: byNavigator)
    }

    /// `stays` for a run known to be the one answering now.
    private func judgeRun(
        _ lineage: inout Lineage, on instance: String?, since: Int64?, reported: Int64?, known: Int64,
        byNavigator: Bool
    ) throws(SegueClientError) -> Bool {
        switch lineage.heartbeat(instance: instance, since: since, known: known, reported: reported) {
        case .same:
            return true
        case .rewound:
            return false
        case .verify(let digests):
            guard let instance, try holds(digests, byNavigator: byNavigator) else { return false }
            lineage.adopt(instance, known: known)
            return true
        }
    }

    /// Judges a `history` page before its events are taken: one answered by another run than the
    /// held events' (a restart whose heartbeat is still to come) is checked first, as that run's
    /// heartbeat would be, so that its events are not credited to the old log.
    public func judge(_ page: HistoryPage, _ lineage: inout Lineage, known: Int64, byNavigator: Bool)
        throws(SegueClientError) -> PageVerdict
    {
        guard let other = page.instance, other != lineage.instance else { return .take }
        let pong = try ping()
        guard pong.instance == other else { return .leave }
        let same = try judgeRun(
            &lineage, on: other, since: pong.since, reported: pong.seq, known: known, byNavigator: byNavigator)
        return same ? .take : .rewound
    }
}
