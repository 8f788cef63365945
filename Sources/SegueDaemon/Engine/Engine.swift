import Foundation
import SegueCore
import SeguePostgres
import SegueProtocol
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
    private let list = Mutex<[EngineCompletion]>([])

    func append(_ completion: EngineCompletion) { list.withLock { $0.append(completion) } }

    func drain() -> [EngineCompletion] {
        list.withLock { items in
            defer { items.removeAll(keepingCapacity: true) }
            return items
        }
    }
}

/// The daemon's loop: one thread that owns the sockets, the poller, the store and the clock, feeds
/// what happens to the engine's rules (`EngineCore`) one input at a time, and performs the actions
/// they answer with. It decides nothing itself.
///
/// Single-threaded by design (like a NIO event loop): every decision is made in one order, the same
/// order the log records, so there are no races between gestures, the clock and other clients.
/// Beside it run the store's group committer and the reader of `history` and `list`
/// (`BackgroundReads`); what they finish comes back through `wakeup`.
package final class Engine: @unchecked Sendable {
    package static let version = SegueVersion.current

    let options: EngineOptions
    let logger: Logger
    let store: any EventStoring
    let core: EngineCore
    let systemClock = SystemClock()
    let wakeup = Wakeup()
    let stopRequested = Atomic<Bool>(false)
    let completions = CompletionQueue()
    let snapshotWriter = SerialWorker(named: "segue-snapshot")
    /// Frame lease writes: their own thread, so a long checkpoint does not hold ticks back.
    let leaseWriter = SerialWorker(named: "segue-lease")
    /// The end of the last lease this run wrote (on `leaseWriter`), which a graceful stop lowers.
    let leaseWritten = Mutex<Int64?>(nil)
    /// `history` and `list`, answered on a thread and a read connection of its own.
    let backgroundReads: BackgroundReads
    /// Replies held behind a client's page still being read (engine thread).
    var replyOrder = ReplyOrder()
    /// Replies refused by a client's full queue (`deliver`).
    var droppedReplies = DroppedReplies()
    /// Work handed to the engine thread from elsewhere (a SIGHUP reload), run between requests.
    let tasks = TaskQueue()
    /// Called on the engine thread once per loop turn (at least every frame while anything is in
    /// flight, and every second otherwise) with the monotonic time: where the daemon pings the
    /// systemd watchdog, so a wedged loop stops the pings and gets restarted.
    package var onLoop: ((Engine, Int64) -> Void)?
    /// The longest the loop sleeps when idle (nanoseconds); set to the watchdog period so `onLoop`
    /// runs often enough. `nil`: until the next heartbeat or housekeeping pass (a second at most).
    package var wakeInterval: Int64?
    /// Client keys and roles the ZAP handler admits; replaced on reload.
    let admitted = AdmittedClients()
    /// Shard leadership, with several daemons on one log (`Engine+Leadership.swift`).
    var leadership: PostgresLeadership?
    let leadershipChanges = LeadershipQueue()

    var context: ZMQContext?
    var router: ZMQSocket?
    /// The socket files of the ipc endpoints bound so far, removed if a later bind fails.
    private var ipcFilesBound: [IPCSocketFile.Bound] = []
    var publisher: ZMQSocket?
    /// The frames socket (`EngineOptions.framesEndpoints`): one compact batch of ticks a frame.
    var framesPublisher: ZMQSocket?
    /// Who is connected to the publisher and the frames socket (`stats.subscribers`).
    var subscriberPeers: [SubscriberPeers] = []
    /// Open descriptors against the limit (`EngineAction.checkDescriptors`).
    let descriptorWatch = DescriptorWatch()
    var waitTimer: ZMQWaitTimer?
    /// The core's actions being performed (swapped with `core.actions`, so neither reallocates).
    var performing: [EngineAction] = []
    /// Scratch for ticks published at once: no allocation per tick.
    var tickWriter = TickWriter()
    /// The frame's ticks for the frames socket, gathered as they are published.
    let tickBatch = TickBatchWriter()
    /// Who takes ticks on the publisher (`tick/…`) and on the frames socket (`frames/`).
    var tickSubscriptions = Subscriptions(root: Topic.tickPrefix)
    var framesSubscriptions = Subscriptions(root: TickBatch.topic)
    /// Subscriptions and unsubscriptions read but not yet counted in `stats`.
    var subscriptionDelta = 0
    /// Whether the subscriptions were read since the last publication, before a tick (`publish(_:)`);
    /// every action that publishes clears it.
    var subscriptionsChecked = false
    /// When the loop last read the publisher's subscriptions (monotonic nanoseconds).
    var subscriptionsRead: Int64 = 0
    /// The endpoints actually bound (port 0 / `*` resolved), command then publish.
    package private(set) var boundCommandEndpoints: [String] = []
    package private(set) var boundPublishEndpoints: [String] = []
    package private(set) var boundFramesEndpoints: [String] = []

    /// Rebuilds every navigator from `store`, already opened (`StoreOpening`): snapshots, then the
    /// tail of the log, which ends with `EngineCore.FoldStopped` once `keepFolding` returns false.
    package init(
        options: EngineOptions, store: any EventStoring, logger: Logger = .discarding,
        keepFolding: () -> Bool = { true }
    ) throws {
        self.options = options
        self.logger = logger
        self.store = store
        backgroundReads = BackgroundReads(store: store)
        let started = WallClock.monotonic()
        core = try EngineCore(
            options: options, store: StoreLogReader(store), timer: systemClock, keepFolding: keepFolding)
        let ms = Double(WallClock.monotonic() - started) / 1e6
        logger.info(
            "Opened the log at seq \(core.fleet.lastSeq) with \(core.fleet.navigators.count.counted("navigator")) (checkpoint at "
                + "\(core.fold.checkpoint), \(core.fold.events.counted("event")) folded) in \(Int(ms)) ms.")
    }

    /// Runs `task` on the engine thread at the next loop turn (from any thread).
    package func perform(_ task: @escaping @Sendable (Engine) -> Void) {
        tasks.append(task)
        wakeup.signal()
    }

    /// Replaces the defaults for navigators created from now on (SIGHUP reload; engine thread).
    package func setDefaultAnimators(_ rules: AnimatorRules?) { feed(.reload(defaultAnimators: rules)) }

    /// Replaces the admitted CURVE client keys (SIGHUP reload; any thread).
    package func setAdmittedClients(_ clients: [String: ClientRole]) { admitted.replace(clients) }

    /// A one-line summary for systemd's STATUS= (engine thread).
    package var statusLine: String { core.statusLine }

    /// The longest a read on the loop waits for a database server that does not answer (a network
    /// cut, a stalled disk, an operator's lock) before it fails `unavailable`: 15 frames at 60 Hz,
    /// where a read of a healthy server takes well under a millisecond.
    static let loopReadTimeout = Duration.milliseconds(250)

    /// How long a commit on the loop's thread waits for the server to begin answering before the
    /// committer thread takes the wait over: a healthy commit answers in well under a millisecond,
    /// and past this the hand-off (tens of microseconds) costs less than the frames held.
    static let inlineCommitWait = Duration.milliseconds(10)

    /// The loop stopped because the log's other daemons run with another shard count
    /// (`EngineCore.stopMisconfigured`).
    package var stoppedMisconfigured: Bool { core.stopsMisconfigured }

    /// Stops the loop from any thread; `run` returns after the graceful shutdown.
    package func stop() {
        stopRequested.store(true, ordering: .releasing)
        wakeup.signal()
    }

    /// Binds the sockets, resolves restart recovery, calls `ready`, then serves until `stop()`.
    package func run(ready: () -> Void = {}) throws {
        do { try bind() } catch {
            closeAfterFailedStart()
            throw error
        }
        let confinement = RealtimeConfinement.confineToCurrentThread()
        if confinement.realtime {
            logger.info(
                "The frame loop keeps its realtime priority; \(confinement.moved) helper threads run at normal "
                    + "priority.")
        }
        // From before recovery: the frames that pass during it are explained by it.
        core.profile = LoopProfile(now: WallClock.monotonic(), cpu: WallClock.threadCPU())
        do { try recoverAtStart() } catch {
            closeAfterFailedStart()
            throw error
        }
        // A stop asked for during start-up (SIGTERM while recovery waited) is not answered with
        // READY=1 and a daemon that serves: what recovery appended is durable and published.
        if stopRequested.load(ordering: .acquiring) { return shutdown() }
        // Recovery may read for seconds; from here the loop's reads must not hold its frames.
        store.limitReadWaits(to: Self.loopReadTimeout)
        store.limitInlineCommitWaits(to: Self.inlineCommitWait)
        loadCommandIDs()
        startLeadership()
        ready()
        // Thinning after the check: a damaged file is not to be rewritten, and the check's read holds
        // the WAL from restarting, which a bulk delete beside it grew by hundreds of megabytes. Handed
        // back to the loop: the check's thread runs at nice 19, and a worker thread it started
        // (the checkpoints') would keep that.
        store.startDeferredCheck { [weak self] sound in
            if sound { self?.perform { $0.thinSnapshotBacklog() } }
        }
        mark(.recovery)
        defer { shutdown() }
        var poller = ZMQPoller()
        let commandIndex = poller.add(router!)
        // Subscriptions (counted, and which tick topics are taken) are read when libzmq signals the
        // socket, before ticks that could miss one (`publish(_:)`), and now and then unasked
        // (`subscriptionsDue`), which spares a look at its mailbox on every wait.
        let publishIndex = poller.add(publisher!, readiness: .signalled)
        let framesIndex = framesPublisher.map { poller.add($0, readiness: .signalled) }
        let peersIndices = subscriberPeers.map { poller.add($0.events, readiness: .signalled) }
        let wakeIndex = poller.add(fd: wakeup.fd)
        while !stopRequested.load(ordering: .acquiring) {
            let now = WallClock.now()
            feed(.frameDeadline(now: now))
            gatherSiblings()
            mark(.siblings)
            feed(.commit)
            mark(.replies)
            feed(.housekeeping(now: now))
            if let line = droppedReplies.flush(now: WallClock.monotonic()) { logger.warning(line) }
            mark(.heartbeat)
            // After the replies: a checkpoint decision may cost syncs, never before an acknowledgement.
            store.checkpointIfDue()
            mark(.walCheckpoint)
            let wakeAt = core.nextWake(now: WallClock.now(), monotonic: WallClock.monotonic(), interval: wakeInterval)
            let remaining = wakeAt - WallClock.now()
            let timeout: Duration = remaining >= 1_000_000 ? .milliseconds(remaining / 1_000_000) : .zero
            // Commands held (a leadership change waits for the commits in flight): their socket stays
            // readable, and a poll that looked at it would return at once, the loop spinning.
            poller.setEvents(core.holdsRequests ? [] : .readable, at: commandIndex)
            let ready = try poller.poll(timeout: timeout)
            mark(.waiting)
            var busy = false
            if ready[wakeIndex].contains(.readable) {
                wakeup.drain()
                busy = true
            }
            feed(.committed(completions.drain()))
            if leadership != nil { feed(.leadership(leadershipChanges.drain(), now: WallClock.now())) }
            mark(.completions)
            if ready[publishIndex].contains(.readable) || framesIndex.map({ ready[$0].contains(.readable) }) == true
                || peersIndices.contains(where: { ready[$0].contains(.readable) })
            {
                readSubscriptions()
                busy = true
            } else if subscriptionsDue() {
                readSubscriptions()
            }
            mark(.subscriptions)
            if ready[commandIndex].contains(.readable), !core.holdsRequests {
                serveRequests()
                busy = true
            }
            mark(.commands)
            if !busy, remaining > 0, remaining < 1_000_000 { waitForCommand(until: wakeAt) }
            for task in tasks.drain() { task(self) }
            mark(.tasks)
            feed(.turnEnded)
            mark(.snapshots)
            onLoop?(self, WallClock.monotonic())
            mark(.tasks)
        }
    }

    /// The loop's time since the previous mark went to `phase` (`LoopProfile`).
    @inline(__always)
    func mark(_ phase: LoopProfile.Phase) { core.mark(phase, now: WallClock.monotonic()) }

    /// The last stretch before a frame, shorter than `zmq_poll`'s millisecond: waits on the command
    /// socket with nanosecond precision rather than sleeping, so a command (a gesture's update above
    /// all) that arrives just before a frame is decided at once instead of up to a millisecond later.
    private func waitForCommand(until deadline: Int64) {
        defer { mark(.commands) }
        // Held commands leave the socket readable: the wait would end at once.
        guard !core.holdsRequests, let router, let timer = commandWaitTimer() else {
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

    // MARK: Sockets

    private func bind() throws {
        let context = try ZMQContext(ioThreads: 1, socketLinger: .milliseconds(500))
        self.context = context
        if let security = options.security {
            admitted.replace(security.clients)
            try ZAPHandler.start(context: context, clients: admitted, logger: logger)
        }
        let router = try ZMQSocket(context, .router)
        try router.setMaxMessageSize(options.maxMessageBytes)
        try router.setReceiveHighWaterMark(10_000)
        try router.setSendHighWaterMark(10_000)
        // A reply to a client whose queue is full fails instead of vanishing (`deliver`).
        try router.setRouterMandatory(true)
        try secure(router)
        let publisher = try publishingSocket(context, highWaterMark: options.publishHighWaterMark)
        subscriberPeers.append(try SubscriberPeers(publisher, name: "inproc://segued-publish-peers"))
        self.router = router
        self.publisher = publisher
        boundCommandEndpoints = try bind(router, to: options.commandEndpoints)
        boundPublishEndpoints = try bind(publisher, to: options.publishEndpoints)
        if !options.framesEndpoints.isEmpty {
            let frames = try publishingSocket(context, highWaterMark: options.framesHighWaterMark)
            framesPublisher = frames
            subscriberPeers.append(try SubscriberPeers(frames, name: "inproc://segued-frames-peers"))
            boundFramesEndpoints = try bind(frames, to: options.framesEndpoints)
        }
    }

    /// A bind or a recovery that failed leaves the endpoints bound before it: their sockets are closed,
    /// and the ipc socket files this start made are removed.
    private func closeAfterFailedStart() {
        removeIPCFiles()
        router?.close()
        router = nil
        publisher?.close()
        publisher = nil
        framesPublisher?.close()
        framesPublisher = nil
        for peers in subscriberPeers { peers.close() }
        subscriberPeers = []
        context?.terminate()
        context = nil
    }

    /// An XPUB with the publisher's limits and security: the publish socket, and the frames socket.
    private func publishingSocket(_ context: ZMQContext, highWaterMark: Int) throws -> ZMQSocket {
        let socket = try ZMQSocket(context, .xpub)
        try socket.setSendHighWaterMark(highWaterMark)
        try socket.setMaxMessageSize(4096)
        try secure(socket)
        return socket
    }

    /// CURVE with the server's key and the ZAP domain, when the daemon runs with security.
    private func secure(_ socket: ZMQSocket) throws {
        guard let security = options.security else { return }
        try socket.setCurveServer(true)
        try socket.setCurveSecretKey(security.serverSecretKey)
        try socket.setZAPDomain("segue")
    }

    /// Binds `socket` to each endpoint; returns the endpoints as bound (port 0 and `*` resolved).
    private func bind(_ socket: ZMQSocket, to endpoints: [String]) throws -> [String] {
        var bound: [String] = []
        for endpoint in endpoints {
            try Endpoints.prepare(endpoint)
            try socket.bind(endpoint)
            if let file = IPCSocketFile.Bound(endpoint: endpoint) { ipcFilesBound.append(file) }
            bound.append(try socket.lastEndpoint)
            try Endpoints.restrict(endpoint)
        }
        return bound
    }

    private func shutdown() {
        // No request is read from here on, but the router stays open until the last group's replies are
        // sent: a command committed and never answered would be applied twice by a client retrying it.
        feed(.commit)
        store.flush()
        feed(.committed(completions.drain()))
        // Every line the rate limits still hold back goes out now (the last commit's failure too).
        feed(.shutdown(now: WallClock.now()))
        if let line = droppedReplies.flush(now: .max) { logger.warning(line) }
        // The history pages and lists asked for are answered too (those not started, `unavailable`): their
        // replies come back as tasks.
        backgroundReads.stop()
        for task in tasks.drain() { task(self) }
        cutLeaseBack()
        router?.close()  // its linger sends the replies still queued
        router = nil
        // After the last commit: the standbys take the shards with everything acknowledged in the log.
        leadership?.stop()
        snapshotWriter.stop()
        snapshotWriter.drain()
        leaseWriter.stop()
        leaseWriter.drain()
        publisher?.close()
        publisher = nil
        framesPublisher?.close()
        framesPublisher = nil
        for peers in subscriberPeers { peers.close() }
        context?.terminate()
        context = nil
        removeIPCFiles()
        store.close()
    }

    /// The ipc socket files this start bound: libzmq's I/O thread would unlink them only once their
    /// listeners were torn down, and the process exits next.
    private func removeIPCFiles() {
        for file in ipcFilesBound { file.remove() }
        ipcFilesBound = []
    }

    /// Writes the lease back to the last frame closed, after the writes still queued: a restart, or
    /// the standby that takes a shard, starts at once instead of after the rest of it.
    private func cutLeaseBack() {
        guard let (frame, shards) = core.leaseAtStop else { return }
        leaseWriter.drain()
        guard let written = leaseWritten.withLock({ $0 }), written > frame else { return }
        do { try store.lowerLease(shards: shards, from: written, to: frame) } catch {
            logger.warning(
                "Could not cut the frame lease back to frame \(frame) (\(error)); the next start waits it out.")
        }
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
        while ContinuousClock.now < deadline, !stopRequested.load(ordering: .acquiring) {
            // In steps, so that a stop asked for meanwhile ends the wait.
            var wait = min(deadline - ContinuousClock.now, .milliseconds(50))
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

    // MARK: Start-up

    /// How long recovery waits at most for subscribers before publishing what it resolved: several
    /// of libzmq's reconnect intervals (100 to 200 ms) with their handshakes, on a busy machine too.
    /// Only a restart with something to resolve waits, and only until the subscriptions settle.
    static let recoveryPublishDelay: Duration = .seconds(1)

    /// Resolves what fell due while the daemon was down (`EngineCore.recover`), durable and published
    /// before the daemon reports ready. Subscribers reconnecting after the restart get a moment to be
    /// in place first.
    func recoverAtStart() throws {
        let events = core.recover(now: WallClock.now())
        guard !events.isEmpty else { return }
        do { try store.append(AppendUnit(events: events)) } catch {
            throw RecoveryNotStored(events: events.count, error: error, location: store.location)
        }
        let waitStarted = ContinuousClock.now
        awaitSubscribers(for: Self.recoveryPublishDelay)
        let waited = Int(((ContinuousClock.now - waitStarted) / .milliseconds(1)).rounded())
        core.recovered(events, waited: waited)
        performActions()
    }
}

/// Recovery's events could not be stored, so the start ends: nothing is served before they are.
/// Nothing is lost: the next start resolves them again.
struct RecoveryNotStored: Error, CustomStringConvertible {
    let events: Int
    let error: any Error
    let location: String

    var description: String {
        let reason = (error as? StoreError).map(\.message) ?? "\(error)"
        let remedy =
            (error as? StoreError).map { $0.code == .unavailable && !$0.isDamage } == true
            ? " Free space on its file system (or make it writable), then start again; the next start resolves "
                + "them again, and nothing is lost."
            : ""
        return "Could not store the \(events.counted("event")) that recovery resolved (transitions that fell due "
            + "while segued was down) in \(location): \(reason).\(remedy)"
    }
}
