import Foundation
import SegueCore
import SegueStore
import SegueWire
import Synchronization

/// Closures handed to the engine thread.
final class TaskQueue: Sendable {
    private let list = Mutex<[@Sendable (Engine) -> Void]>([])
    func append(_ task: @escaping @Sendable (Engine) -> Void) { list.withLock { $0.append(task) } }
    func drain() -> [@Sendable (Engine) -> Void] {
        list.withLock { items in
            defer { items.removeAll() }
            return items
        }
    }
}

/// The CURVE client keys the ZAP handler admits, shared with its thread and replaced on reload.
final class AdmittedClients: Sendable {
    private let clients = Mutex<[String: ClientRole]>([:])
    func replace(_ new: [String: ClientRole]) { clients.withLock { $0 = new } }
    func role(of key: String) -> ClientRole? { clients.withLock { $0[key] } }
}

/// Commit results handed from the group committer's thread to the engine's.
final class CompletionQueue: Sendable {
    typealias Completion = (epoch: Int, seq: Int64, result: Result<Void, StoreError>)
    private let list = Mutex<[Completion]>([])

    func append(_ completion: Completion) { list.withLock { $0.append(completion) } }

    func drain() -> [Completion] {
        list.withLock { items in
            defer { items.removeAll(keepingCapacity: true) }
            return items
        }
    }
}

/// The daemon's heart: one thread that owns the sockets and the fleet, decides commands, closes
/// frames on the clock, and releases replies, events and ticks only once the log is durable.
///
/// Single-threaded by design (like a NIO event loop): every decision is made in one order, the same
/// order the log records, so there are no races between gestures, the clock and other clients.
/// Only the store's group committer runs beside it; its completions come back through `wakeup`.
public final class Engine: @unchecked Sendable {
    public static let version = SegueVersion.current
    /// A random id of this run of the daemon, in `ping` and heartbeats: a client that sees it change
    /// checks that the log still holds the events it has (a restart may be on a restored older copy).
    let instance = String(UInt64.random(in: 1...UInt64.max), radix: 16)

    var options: EngineOptions
    let log: EngineLog
    let store: any EventStoring
    let clock: FrameClock
    let decoder: RequestDecoder
    let wakeup = Wakeup()
    let stopRequested = Atomic<Bool>(false)
    let completions = CompletionQueue()
    let checkpointQueue = DispatchQueue(label: "segue.checkpoint")
    /// Work handed to the engine thread from elsewhere (a SIGHUP reload), run between requests.
    let tasks = TaskQueue()
    /// Called on the engine thread once per loop turn (at least every frame while anything is in
    /// flight, and every second otherwise): where the daemon pings the systemd watchdog, so a
    /// wedged loop stops the pings and gets restarted.
    public var onLoop: ((Engine) -> Void)?
    /// The longest the loop sleeps when idle (nanoseconds); set to the watchdog period so `onLoop`
    /// runs often enough. `nil`: until the next heartbeat or housekeeping pass (a second at most).
    public var wakeInterval: Int64?
    /// Client keys and roles the ZAP handler admits; replaced on reload.
    let admitted = AdmittedClients()

    var context: ZMQContext?
    var router: ZMQSocket?
    var publisher: ZMQSocket?
    var fleet: Fleet
    var outbox = Outbox()
    /// Units decided in this loop turn, committed together before the loop sleeps (`commitDecided`).
    var uncommitted: [AppendUnit] = []
    /// Group commit's siblings: when each client last sent a mutating command, and which clients have
    /// a request waiting on the next commit (see `gatherSiblings`).
    var writerActivity: [[UInt8]: Int64] = [:]
    var batchClients: Set<[UInt8]> = []
    var waitTimer: ZMQWaitTimer?
    var stats = EngineStats()
    /// The highest seq known durable.
    var durableSeq: Int64 = 0
    /// The log's last seq when this run opened it (before recovery's events): in `ping` and
    /// heartbeats as `since`, so a client that knows more of the log than that can tell that this
    /// run did not continue the log it knew (a restore to an older copy).
    var openedAt: Int64 = 0
    /// Bumped on every commit failure: completions of units submitted before it are already voided.
    var epoch = 0
    var nextHeartbeat: Int64 = 0
    /// When the loop next logs what its rate-limited reports held back (`housekeeping`): once a
    /// second, not with the heartbeat, whose interval may be up to a minute. Monotonic, so a wall
    /// clock set back does not silence the reports.
    var nextHousekeeping: Int64 = 0
    /// How long the last `closeFrames` took, to notice overload.
    var lastCloseNanoseconds: Int64 = 0
    /// Where the loop's time went since its previous frame close began, to explain skipped frames.
    var profile = LoopProfile(now: 0, cpu: 0)
    /// The last time the loop skipped frames, for `stats`; and the rate limit of its log lines
    /// (`reportStall`).
    var lastStall: LoopProfile.Stall?
    var stallLog = StallLog()
    var eventTopics: [String: [UInt8]] = [:]
    var recentCommands = RecentCommands(capacity: Engine.rememberedReplies)
    /// `store.walCheckpoints.failures` when last logged (`reportCheckpointFailures`).
    var walCheckpointFailuresReported = 0
    /// Failed commits are logged at most once a second (a full disk fails every command):
    /// `commitFailureLog` says when the last line went out and what has failed since.
    var commitFailureLog = CommitFailureLog()
    /// Which command ids may be stored: lets a new id skip the store lookup (`Engine+CommandIDs`).
    var knownCommandIDs = KnownCommandIDs()
    var dirty: Set<String> = []
    var lastCheckpointSeq: Int64 = 0
    var pendingCheckpoint: (seq: Int64, frame: Int64, time: Int64, snapshots: [Snapshot])?
    /// The endpoints actually bound (port 0 / `*` resolved), command then publish.
    public private(set) var boundCommandEndpoints: [String] = []
    public private(set) var boundPublishEndpoints: [String] = []

    /// Rebuilds every navigator from `store`, already opened (`StoreOpening`): snapshots, then the
    /// tail of the log.
    public init(options: EngineOptions, store: any EventStoring, log: @escaping EngineLog = { _, _ in }) throws {
        self.options = options
        self.log = log
        self.store = store
        clock = try FrameClock(rate: options.frameRate)
        var limits = options.decoderLimits
        limits.maxStringBytes = min(limits.maxStringBytes, options.maxMessageBytes)
        decoder = RequestDecoder(limits: limits)
        fleet = Fleet(clock: clock)
        try rebuild()
        fleet.journaling = true
    }

    /// Runs `task` on the engine thread at the next loop turn (from any thread).
    public func perform(_ task: @escaping @Sendable (Engine) -> Void) {
        tasks.append(task)
        wakeup.signal()
    }

    /// Replaces the defaults for navigators created from now on (SIGHUP reload; engine thread).
    public func setDefaultAnimators(_ rules: AnimatorRules?) { options.defaultAnimators = rules }

    /// Replaces the admitted CURVE client keys (SIGHUP reload; any thread).
    public func setAdmittedClients(_ clients: [String: ClientRole]) { admitted.replace(clients) }

    /// A one-line summary for systemd's STATUS= (engine thread).
    public var statusLine: String {
        "\(fleet.navigators.count) navigators, \(fleet.active.count) in flight, seq \(durableSeq), "
            + "\(stats.commands) commands, \(stats.ticks) ticks, \(stats.subscriptions) subscriptions"
    }

    /// Stops the loop from any thread; `run` returns after the graceful shutdown.
    public func stop() {
        stopRequested.store(true, ordering: .releasing)
        wakeup.signal()
    }

    /// Binds the sockets, resolves restart recovery, calls `ready`, then serves until `stop()`.
    public func run(ready: () -> Void = {}) throws {
        try bind()
        let confinement = RealtimeConfinement.confineToCurrentThread()
        if confinement.realtime {
            log(
                6,
                "The frame loop keeps its realtime priority; \(confinement.moved) helper threads run at normal "
                    + "priority.")
        }
        try recoverAtStart()
        loadCommandIDs()
        ready()
        defer { shutdown() }
        var poller = ZMQPoller()
        let commandIndex = poller.add(router!)
        let publishIndex = poller.add(publisher!)
        let wakeIndex = poller.add(fd: wakeup.fd)
        nextHeartbeat = WallClock.now()
        nextHousekeeping = WallClock.monotonic()
        profile = LoopProfile(now: WallClock.monotonic(), cpu: WallClock.threadCPU())
        while !stopRequested.load(ordering: .acquiring) {
            let now = WallClock.now()
            closeFrames(now: now)
            gatherSiblings()
            mark(.siblings)
            commitDecided()
            mark(.commit)
            flushOutbox()
            mark(.replies)
            // After the outbox: every event up to a heartbeat's seq is published before it, which is
            // how a subscriber tells that it missed the last ones (protocol.md, "Heartbeats").
            if now >= nextHeartbeat { heartbeat(now: now) }
            if WallClock.monotonic() >= nextHousekeeping { housekeeping() }
            mark(.heartbeat)
            // After the replies: a checkpoint decision may cost syncs, never before an acknowledgement.
            store.checkpointIfDue()
            mark(.walCheckpoint)
            let wakeAt = nextWake()
            let remaining = wakeAt - WallClock.now()
            let timeout: Duration = remaining >= 1_000_000 ? .milliseconds(remaining / 1_000_000) : .zero
            let ready = try poller.poll(timeout: timeout)
            mark(.waiting)
            var busy = false
            if ready[wakeIndex].contains(.readable) {
                wakeup.drain()
                busy = true
            }
            drainCompletions()
            mark(.completions)
            if ready[publishIndex].contains(.readable) {
                readSubscriptions()
                busy = true
            }
            mark(.subscriptions)
            if ready[commandIndex].contains(.readable) {
                serveRequests()
                busy = true
            }
            mark(.commands)
            if !busy, remaining > 0, remaining < 1_000_000 { waitForCommand(until: wakeAt) }
            for task in tasks.drain() { task(self) }
            mark(.tasks)
            checkpointIfDue()
            mark(.snapshots)
            onLoop?(self)
            mark(.tasks)
        }
    }

    /// The loop's time since the previous mark went to `phase` (`LoopProfile`).
    @inline(__always)
    func mark(_ phase: LoopProfile.Phase) { profile.mark(phase, now: WallClock.monotonic()) }

    /// The last stretch before a frame, shorter than `zmq_poll`'s millisecond: waits on the command
    /// socket with nanosecond precision rather than sleeping, so a command (a gesture's update above
    /// all) that arrives just before a frame is decided at once instead of up to a millisecond later.
    private func waitForCommand(until deadline: Int64) {
        defer { mark(.commands) }
        guard let router, let timer = commandWaitTimer() else {
            WallClock.sleep(until: deadline)
            return mark(.waiting)
        }
        let remaining = deadline - WallClock.now()
        guard remaining > 0 else { return }
        let readable = (try? router.waitReadable(nanoseconds: remaining, timer: timer)) == true
        mark(.waiting)
        if readable { serveRequests() }
    }

    /// The timer behind sub-millisecond waits on the command socket, created on first use; nil if
    /// the kernel refuses a timerfd (the callers then fall back to sleeping or committing at once).
    func commandWaitTimer() -> ZMQWaitTimer? {
        if waitTimer == nil { waitTimer = try? ZMQWaitTimer() }
        return waitTimer
    }

    /// The next instant the loop has something to do: the next frame while anything is in flight,
    /// otherwise the next heartbeat or housekeeping pass.
    private func nextWake() -> Int64 {
        let now = WallClock.now()
        // Housekeeping is due on the monotonic clock; the loop sleeps until a wall-clock instant.
        var wake = min(nextHeartbeat, now + max(0, nextHousekeeping - WallClock.monotonic()))
        if let wakeInterval { wake = min(wake, now + wakeInterval) }
        if !fleet.active.isEmpty { wake = min(wake, clock.instant(ofFrame: fleet.closedFrame + 1)) }
        return wake
    }

    // MARK: Sockets

    private func bind() throws {
        let context = try ZMQContext(ioThreads: 1, socketLinger: .milliseconds(500))
        self.context = context
        if let security = options.security {
            admitted.replace(security.clients)
            try ZAPHandler.start(context: context, clients: admitted, log: log)
        }
        let router = try ZMQSocket(context, .router)
        try router.setMaxMessageSize(options.maxMessageBytes)
        try router.setReceiveHighWaterMark(10_000)
        try router.setSendHighWaterMark(10_000)
        let publisher = try ZMQSocket(context, .xpub)
        try publisher.setSendHighWaterMark(options.publishHighWaterMark)
        try publisher.setMaxMessageSize(4096)
        if let security = options.security {
            for socket in [router, publisher] {
                try socket.setCurveServer(true)
                try socket.setCurveSecretKey(security.serverSecretKey)
                try socket.setZAPDomain("segue")
            }
        }
        for endpoint in options.commandEndpoints {
            try Endpoints.prepare(endpoint)
            try router.bind(endpoint)
            boundCommandEndpoints.append(try router.lastEndpoint)
            try Endpoints.restrict(endpoint)
        }
        for endpoint in options.publishEndpoints {
            try Endpoints.prepare(endpoint)
            try publisher.bind(endpoint)
            boundPublishEndpoints.append(try publisher.lastEndpoint)
            try Endpoints.restrict(endpoint)
        }
        self.router = router
        self.publisher = publisher
    }

    private func shutdown() {
        router?.close()  // stop taking commands first
        router = nil
        commitDecided()
        store.flush()
        drainCompletions()
        flushOutbox()
        // Every line the rate limits still hold back goes out now (the last commit's failure too).
        housekeeping(logNow: .max)
        heartbeat(now: WallClock.now())
        checkpointQueue.sync {}
        publisher?.close()
        publisher = nil
        context?.terminate()
        context = nil
        store.close()
    }

    /// Reads subscriptions for up to `limit`: after a restart, subscribers reconnect by themselves
    /// (libzmq retries every 100 to 200 ms), and what recovery publishes must find them in place.
    /// Ends early once subscriptions have come and then `settle` passed without another.
    func awaitSubscribers(for limit: Duration, settle: Duration = .milliseconds(250)) {
        guard let publisher else { return }
        var poller = ZMQPoller()
        let index = poller.add(publisher)
        let deadline = ContinuousClock.now + limit
        var lastArrival: ContinuousClock.Instant?
        while ContinuousClock.now < deadline {
            var wait = deadline - ContinuousClock.now
            if let lastArrival {
                let quiet = lastArrival + settle - ContinuousClock.now
                guard quiet > .zero else { return }
                wait = min(wait, quiet)
            }
            guard let ready = try? poller.poll(timeout: wait), ready[index].contains(.readable) else { continue }
            readSubscriptions()
            lastArrival = ContinuousClock.now
        }
    }

    /// Subscription frames (`\x01topic` / `\x00topic`) from the XPUB: only counted, for `stats`.
    func readSubscriptions() {
        guard let publisher else { return }
        while let frame = try? publisher.receive(dontWait: true) {
            if frame.first == 1 { stats.subscriptions += 1 } else if frame.first == 0 { stats.subscriptions -= 1 }
        }
    }

    // MARK: Output

    /// Sends everything the durable seq allows.
    func flushOutbox() {
        let released = outbox.release(durable: durableSeq)
        // Replies first: their clients are waiting on them, and the publications are on the other
        // socket, where ZeroMQ gives no order relative to replies anyway. Each socket still sends
        // its own messages in seq order.
        for message in released {
            if case .reply = message { send(message) }
        }
        for message in released {
            if case .publish = message { send(message) }
        }
    }

    func send(_ message: Outbox.Message) {
        switch message {
        case .reply(let envelope, let body, _):
            _ = try? router?.sendMultipart(envelope + [body], dontWait: true)
        case .publish(let topic, let body):
            topic.withUnsafeBytes { topic in
                body.withUnsafeBytes { body in _ = try? publisher?.sendMultipart(topic, body, dontWait: true) }
            }
        }
    }

    /// Answers a request that was refused (`body` is its error reply) and counts it in `stats.rejected`.
    func reject(_ envelope: [[UInt8]], _ body: JSON) {
        stats.rejected += 1
        reply(envelope, body)
    }

    /// Sends now, or after the durable seq reaches what is already in flight, keeping replies to one
    /// client in the order its requests came.
    func reply(_ envelope: [[UInt8]], _ body: JSON) {
        let voided = VoidedReply.waiting(id: body["id"]?.stringValue)
        outbox.enqueue(.reply(envelope: envelope, body: body.serializedBytes(), ifVoided: voided), after: fleet.lastSeq)
    }
}
