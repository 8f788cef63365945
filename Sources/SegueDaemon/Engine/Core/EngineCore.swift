import SegueCore
import SeguePostgres
import SegueProtocol
import SegueStore
import SegueWire

/// The engine's rules, with no I/O: it takes one input at a time (`EngineInput`, with the instant it
/// happened) and answers with actions (`EngineAction`) that the loop (`Engine`) performs. It decides
/// commands, closes frames, numbers events, holds replies and publications until the log is durable
/// up to what they show, and schedules heartbeats and checkpoints.
///
/// It reads the log only through `EngineLogReading` (command ids, `state --at`, `history`, the fold
/// at start) and measures itself only through `EngineClock`, so tests drive it with a fake store and
/// a clock they advance by hand.
final class EngineCore {
    /// A random id of this run of the daemon, in `ping` and heartbeats: a client that sees it change
    /// checks that the log still holds the events it has (a restart may be on a restored older copy).
    let instance: String
    var options: EngineOptions
    let clock: FrameClock
    let timer: any EngineClock
    let store: any EngineLogReading
    let decoder: RequestDecoder

    var fleet: Fleet
    var outbox = Outbox()
    /// What the loop is to do, in order (`takeActions`).
    var actions: [EngineAction] = []
    /// The ticks of the frame being closed that go out at once (`publishTick`), and an emptied
    /// array for the next frame's, so a frame's ticks cost no allocation.
    var frameTicks: [Tick] = []
    /// Final ticks of frames a command passed over while the lease did not cover them yet
    /// (`passHeldFrames`), each with the seq it shows: published once the lease covers its frame.
    var heldFinals: [(tick: Tick, seq: Int64)] = []
    var spareTicks: [Tick] = []
    /// Units decided in this loop turn, committed together before the loop sleeps (`.commit`).
    var uncommitted: [AppendUnit] = []
    /// Group commit's siblings: when each client last sent a mutating command, and which clients have
    /// a request waiting on the next commit (`siblingDeadline`).
    var writerActivity: [[UInt8]: Int64] = [:]
    var batchClients: Set<[UInt8]> = []
    var stats = EngineStats()
    /// The highest seq known durable.
    var durableSeq: Int64 = 0
    /// The log's last seq when this run opened it (before recovery's events): in `ping` and
    /// heartbeats as `since`, so a client that knows more of the log than that can tell that this
    /// run did not continue the log it knew (a restore to an older copy).
    var openedAt: Int64 = 0
    /// Bumped on every commit failure: completions of units handed out before it are already voided.
    var epoch = 0
    /// When the next heartbeat is due (monotonic, so a wall clock set back does not silence them;
    /// 0: at the first `.housekeeping`).
    var nextHeartbeat: Int64 = 0
    /// The wall and monotonic clocks at the last look, to notice the wall clock stepped back.
    var lastClocks: (wall: Int64, monotonic: Int64)?
    /// When the rate-limited reports are next looked at: once a second, not with the heartbeat, whose
    /// interval may be up to a minute. Monotonic, so a wall clock set back does not silence them.
    var nextHousekeeping: Int64 = 0
    /// When the loop next reads other daemons' appends (with shards): a second on, or at once
    /// while a page read left more (`followStep`).
    var nextFollow: Int64 = 0
    /// When the open file descriptors are next counted (monotonic; every 5 s).
    var nextDescriptorCheck: Int64 = 0
    /// How long the last frame close took, to notice overload.
    var lastCloseNanoseconds: Int64 = 0
    /// Where the loop's time went since its previous frame close began, to explain skipped frames.
    var profile = LoopProfile(now: 0, cpu: 0)
    /// The last time the loop skipped frames, for `stats`; and the rate limit of its log lines.
    var lastStall: LoopProfile.Stall?
    /// The frame that was due when frames began to wait for the frame lease (its write failed or was
    /// slow), while they still wait: a stall that ends the wait is the lease's (`closeFrames`).
    var leaseHoldBegan: Int64?
    /// The frame that was due when the last stall was found: the frames up to it that the lease still
    /// held back then are that stall's, not a new one when the lease lets them go (`closeFrames`).
    var stallDueFrame: Int64 = .min
    var stallLog = StallLog()
    /// When the heap's free pages go back to the kernel: once the requests stop (`housekeeping`).
    var idleTrim = IdleTrim()
    var eventTopics: [String: [UInt8]] = [:]
    var recentCommands = RecentCommands(capacity: EngineCore.rememberedReplies)
    /// The store's WAL checkpoint failures when last logged (`reportCheckpointFailures`).
    var walCheckpointFailuresReported = 0
    /// Failed commits are logged at most once a second (a full disk fails every command).
    var commitFailureLog = CommitFailureLog()
    /// Batches that lost the race for the next seqs to another daemon: a line every 10 s at most.
    var raceLog = HeldBackLines()
    /// What such a batch's commands become, decided again at the next input with an instant
    /// (`EngineCore+Races.swift`), and whether the store's turn is to be given back after them.
    var raceReruns: [RaceRerun] = []
    var yieldsLogTurn = false
    /// Asked the loop to stop: the log's other daemons run with a setting this one does not share.
    var stopsMisconfigured = false
    /// The same for command id lookups that fail (a client retrying under one id during an outage
    /// commits nothing, so only these say it is refused).
    var lookupFailureLog = CommitFailureLog()
    /// Which command ids may be stored: lets a new id skip the store lookup (`KnownCommandIDs`).
    var knownCommandIDs = KnownCommandIDs()
    var dirty: Set<String> = []
    var lastCheckpointSeq: Int64 = 0
    var pendingCheckpoint: (seq: Int64, snapshots: [Snapshot])?
    /// Several daemons on one log: the shards this daemon leads (each with the epoch it took it at,
    /// which fences its lease writes), changes not applied yet, and where the leaders of the others
    /// are (`EngineCore+Shards.swift`).
    var led: [Int: Int64] = [:]
    var pendingLeadership: [LeadershipChange] = []
    var leaderOf: (Int) -> String? = { _ in nil }
    /// With shards: every navigator of the log, folded from its durable events in seq order (this
    /// daemon's and the others'), so a shard is taken without reading its history again, and reads
    /// of navigators led elsewhere are answered from it.
    var logFold: Fleet?
    /// Navigators `logFold` changed since its last checkpoint.
    var logFoldDirty: Set<String> = []
    /// How far ticks may go out (`FrameLease`); nil without `options.frameLease`.
    var lease: FrameLease?

    /// Rebuilds every navigator from the log (the newest checkpoint, then the tail): `fold` says
    /// what it did, for the loop's log line.
    /// `keepFolding` is asked every few thousand events of the fold at start; false (a stop asked for)
    /// ends it with `FoldStopped`.
    init(
        options: EngineOptions, store: any EngineLogReading, timer: any EngineClock,
        instance: String = String(UInt64.random(in: 1...UInt64.max), radix: 16),
        keepFolding: () -> Bool = { true }
    ) throws {
        self.options = options
        self.store = store
        self.timer = timer
        self.instance = instance
        clock = try FrameClock(rate: options.frameRate)
        var limits = options.decoderLimits
        limits.maxStringBytes = min(limits.maxStringBytes, options.maxMessageBytes)
        decoder = RequestDecoder(limits: limits)
        fleet = Fleet(clock: clock)
        fleet.presentationDelay = options.presentationDelay.inNanoseconds
        if let span = options.frameLease {
            lease = FrameLease(span: max(2, span.inNanoseconds * Int64(clock.rate) / 1_000_000_000))
        }
        fold = try rebuild(keepFolding: keepFolding)
        if let (name, other) = fleet.navigators.first(where: { $0.value.clock.rate != clock.rate }) {
            throw FrameRateMismatch(logRate: other.clock.rate, navigator: name, configuredRate: clock.rate)
        }
        if options.shards != nil { followFromPosition() }
        fleet.journaling = true
    }

    /// What the fold at start found.
    private(set) var fold = Fold(checkpoint: 0, events: 0)

    struct Fold: Equatable {
        /// The seq of the checkpoint folded from (0: none), and the events of the tail folded onto it.
        var checkpoint: Int64
        var events: Int
    }

    /// Takes one input; its actions wait in `actions` (`takeActions`).
    func receive(_ input: EngineInput) {
        switch input {
        case .request(let frames, let userID, let now):
            // Ahead of any request read since: a client's replies keep the order of its requests.
            rerunRaced(now: now)
            handle(frames, userID: userID, now: now)
        case .frameDeadline(let now):
            rerunRaced(now: now)
            closeFrames(now: now)
        case .commit: commitDecided()
        case .committed(let completions): apply(completions)
        case .housekeeping(let now):
            // After the turn's replies: what their commit made durable is freed here, not before them.
            fleet.releaseDurableJournal()
            housekeepingIfDue(now: now)
        case .turnEnded: checkpointIfDue()
        case .subscriptions(let delta): stats.subscriptions += Int64(delta)
        case .subscribers(let count): stats.subscribers = Int64(count)
        case .reload(let rules): options.defaultAnimators = rules
        case .leadership(let changes, let now):
            pendingLeadership += changes
            applyLeadership(now: now)
        case .leased(let frame, let generation, let failure, let now):
            leased(frame, generation: generation, failure: failure, now: now)
        case .shutdown(let now):
            answerRacedUnavailable()
            // Before the store drains and closes: the others' appends must not wait for that.
            if yieldsLogTurn {
                yieldsLogTurn = false
                actions.append(.yieldLogTurn)
            }
            housekeeping(logNow: .max)
            heartbeat(now: now, monotonic: timer.monotonic())
        }
    }

    /// `receive`, then the actions it produced (tests; the loop swaps `actions` out instead).
    func step(_ input: EngineInput) -> [EngineAction] {
        receive(input)
        return takeActions()
    }

    func takeActions() -> [EngineAction] {
        defer { actions.removeAll() }
        return actions
    }

    /// The next instant the loop has something to do: the next frame while anything is in flight,
    /// otherwise the next heartbeat or housekeeping pass, and at the latest `now + interval`.
    func nextWake(now: Int64, monotonic: Int64, interval: Int64?) -> Int64 {
        // Housekeeping is due on the monotonic clock; the loop sleeps until a wall-clock instant.
        var wake = now + max(0, min(nextHeartbeat, nextHousekeeping, isSharded ? nextFollow : .max) - monotonic)
        if let interval { wake = min(wake, now + interval) }
        // A frame past the lease waits for its write, whose completion wakes the loop.
        if !fleet.active.isEmpty,
            let frame = lease.map({ $0.wakeFrame(after: fleet.closedFrame) }) ?? fleet.closedFrame + 1
        {
            wake = min(wake, clock.instant(ofFrame: frame))
        }
        return wake
    }

    /// When the next frame falls due while something animates, as `nextWake` finds it (frames held
    /// for a lease write in flight fall due at none): requests queued past it wait for that frame's
    /// close, so a client's heavy requests cannot hold every subscriber's ticks back.
    var nextFrameDue: Int64? {
        guard !fleet.active.isEmpty,
            let frame = lease.map({ $0.wakeFrame(after: fleet.closedFrame) }) ?? fleet.closedFrame + 1
        else { return nil }
        return clock.instant(ofFrame: frame)
    }

    /// The loop's time since the previous mark went to `phase` (`LoopProfile`).
    @inline(__always)
    func mark(_ phase: LoopProfile.Phase, now: Int64) { profile.mark(phase, now: now) }

    /// A one-line summary for systemd's STATUS=. In flight: a transition running. The active list
    /// also holds navigators whose final tick is still to go out, every recent one at start.
    var statusLine: String {
        let inFlight = fleet.active.lazy.filter { self.fleet.navigators[$0]?.transition != nil }.count
        return "\(fleet.navigators.count) navigators, \(inFlight) in flight, seq \(durableSeq), "
            + "\(stats.commands) commands, \(stats.ticks) ticks, \(stats.subscriptions) subscriptions"
    }

    func log(_ level: LogLevel, _ message: String) { actions.append(.log(level, message)) }

    // MARK: Output

    /// Releases everything the durable seq allows, in one `.send`.
    func flushOutbox() {
        let released = outbox.release(durable: durableSeq)
        if !released.isEmpty { actions.append(.send(released)) }
    }

    /// Answers a request that was refused (`body` is its error reply) and counts it in `stats.rejected`.
    func reject(_ envelope: [[UInt8]], _ body: JSON) {
        stats.rejected += 1
        reply(envelope, body)
    }

    /// Sends once the durable seq reaches what is already in flight, keeping replies to one client in
    /// the order its requests came.
    func reply(_ envelope: [[UInt8]], _ body: JSON) {
        let voided = VoidedReply.waiting(id: body["id"]?.stringValue)
        outbox.enqueue(.reply(envelope: envelope, body: body.serializedBytes(), ifVoided: voided), after: fleet.lastSeq)
    }
}
