import SegueCore
import SegueProtocol
import SegueStore
import SegueWire

extension EngineCore {
    /// Splits the ROUTER envelope from the body: the routing id, then, up to the first empty
    /// frame, the addresses brokers in between pushed (ZeroMQ's extended request-reply: a REQ
    /// behind a ROUTER–DEALER proxy arrives as `[id, client id, "", request]`) and that delimiter.
    func handle(_ frames: [[UInt8]], userID: String?, now: Int64) {
        guard frames.count >= 2 else { return }
        var envelope = [frames[0]]
        var rest = frames.dropFirst()
        // A delimiter is always followed by the body: a last empty frame is a DEALER's empty body,
        // answered in one frame like any DEALER reply (a two-frame answer would leave that client
        // one reply out of step from then on).
        if let delimiter = rest.firstIndex(where: \.isEmpty), delimiter < rest.index(before: rest.endIndex) {
            envelope += rest[...delimiter]
            rest = rest[(delimiter + 1)...]
        }
        stats.commands += 1
        guard rest.count == 1, let body = rest.first else {
            stats.malformed += 1
            let what = rest.isEmpty ? "no body frame" : "\(rest.count) body frames"
            reply(
                envelope,
                Reply.error(
                    id: nil, .badRequest,
                    "A request is one frame of JSON (after the REQ delimiter, if any); this message had \(what)."))
            return
        }
        let request: Request
        switch decoder.decode(body) {
        case .success(let r): request = r
        case .failure(let failure):
            stats.malformed += 1
            reject(envelope, Reply.error(id: failure.id, failure.error))
            return
        }
        // One instant for both: every frame up to it is closed before the request is placed after
        // it. Reading the clock again for the command could cross a frame's instant in between,
        // placing the command after a frame not yet closed, whose tick would then show the command
        // a frame before its logged frame (and replay would differ). Under overload (a frame close
        // costs more than half a frame period) a command that changes a navigator resolves those
        // frames without ticks rather than wait behind them. A read places nothing: under overload
        // it is answered from the frames closed so far (`frame` in its reply says which) and leaves
        // the due ones to the loop, so that reads neither cost frames nor, in a flood, hold the loop
        // in frame closes with replies and commits waiting.
        if request.isMutating {
            closeFrames(now: now, publishTicks: !isOverloaded, after: .commands)
            passHeldFrames(now: now)
        } else if !isOverloaded {
            closeFrames(now: now, after: .commands)
        }
        noteClient(ClientKey.of(envelope[...]), mutating: request.isMutating, now: now)
        if options.security != nil, request.isMutating, userID != ClientRole.controller.rawValue {
            reject(
                envelope,
                Reply.error(
                    id: request.id, .forbidden,
                    "\(request.command) changes a navigator and needs a controller key; this client is an observer."))
            return
        }
        switch request.body {
        case .ping:
            let pong = Pong(
                version: SegueVersion.current, frameRate: clock.rate, frame: fleet.closedFrame, seq: fleet.lastSeq,
                heartbeatSeconds: Double(options.heartbeatInterval.inNanoseconds) / 1e9, instance: instance,
                since: openedAt, clock: now)
            reply(envelope, pong.json(id: request.id))
        case .navigation(let command):
            if let moved = movedReply(request) { return reject(envelope, moved) }
            execute(command, request, envelope, now: now)
        case .state(let at):
            reply(envelope, stateReply(request, at: at))
        case .list:
            // Behind the client's earlier replies, as `history`; voided with them if their commit fails.
            if let query = listQuery(request, envelope) {
                outbox.enqueue(.list(envelope: envelope, query), after: fleet.lastSeq)
            }
        case .history(let after, let limit):
            // Behind the client's earlier replies, as every reply; then read beside the loop.
            outbox.enqueue(
                .history(envelope: envelope, historyQuery(request, after: after, limit: limit)), after: fleet.lastSeq)
        case .stats:
            reply(envelope, statsReply(request))
        }
    }

    /// Decides a navigation command, submits its events, and queues the reply behind their commit.
    func execute(
        _ command: NavigationCommand, _ request: Request, _ envelope: [[UInt8]], now: Int64, raceAttempts: Int = 0
    ) {
        let navigator = request.navigator!
        if let id = request.id, let found = previousCommand(id, request, envelope) {
            guard case .applied(let previous) = found else { return }
            if let fingerprint = request.fingerprint, let first = previous.fingerprint, first != fingerprint {
                // Answering with the first request's reply would tell this client that its push (or
                // whatever it sent) happened when it did not; the IETF Idempotency-Key draft and
                // Stripe refuse a reused key with a different payload the same way.
                stats.rejected += 1
                let error = WireError(
                    .invalidArgument,
                    "\(command.name) on navigator \(navigator): id \"\(id.prefix(40))\" was already used by a different "
                        + "request; a retry must repeat the first "
                        + "request exactly. Send a new id for a new request.")
                outbox.enqueue(
                    .reply(
                        envelope: envelope, body: Reply.error(id: request.id, error).serializedBytes(),
                        ifVoided: .waiting(id: request.id)),
                    after: previous.seq)
                return
            }
            stats.idempotentReplays += 1
            outbox.enqueue(
                .reply(envelope: envelope, body: previous.body, ifVoided: .waiting(id: request.id)), after: previous.seq
            )
            return
        }
        if case .create(let root, var config) = command {
            if var error = applyDefaults(&config, given: request.givenConfig) {
                error.message = "create on navigator \(navigator): " + error.message
                reject(envelope, Reply.error(id: request.id, error))
                return
            }
            if fleet.navigators[navigator] == nil, fleet.navigators.count >= options.maxNavigators {
                // Closed ones count: a closed name is never reused, and the fleet keeps each.
                reject(
                    envelope,
                    Reply.error(
                        id: request.id, .tooLarge,
                        "create on navigator \(navigator): the daemon holds its limit of \(options.maxNavigators) "
                            + "navigators, closed ones included (a closed name is never reused); raise "
                            + "limits.maxNavigators."))
                return
            }
            decideAndSubmit(
                .create(root: root, config: config), request, envelope, now: now, raceAttempts: raceAttempts)
        } else {
            // Every other command as it came: no copy of it to change.
            decideAndSubmit(command, request, envelope, now: now, raceAttempts: raceAttempts)
        }
    }

    /// `execute`'s second half, for a command with the daemon's defaults applied.
    private func decideAndSubmit(
        _ command: NavigationCommand, _ request: Request, _ envelope: [[UInt8]], now: Int64, raceAttempts: Int
    ) {
        let navigator = request.navigator!
        let execution = fleet.execute(command, request.envelope, navigator: navigator, time: now)
        submit(execution.clockEvents, commandID: nil, navigator: navigator, reply: nil)
        if let error = execution.error {
            reject(envelope, Reply.error(id: request.id, WireError(error)))
            return
        }
        // The store keeps the reply only for a command with an id; the wire gets it written directly.
        let body = request.id.map { _ in JSON.object(okReply(id: request.id, navigator, execution)) }
        submit(
            execution.events, commandID: request.id, navigator: navigator, reply: body, fingerprint: request.fingerprint
        )
        let bytes = okReplyBytes(id: request.id, navigator, execution)
        let voided = VoidedReply(
            id: request.id, command: command.name, navigator: navigator,
            retry: rerunsLostBatches ? RaceRetry(request, attempts: raceAttempts + 1) : nil)
        outbox.enqueue(.reply(envelope: envelope, body: bytes, ifVoided: voided), after: fleet.lastSeq)
        if let id = request.id {
            remember(id, PreviousCommand(seq: fleet.lastSeq, body: bytes, fingerprint: request.fingerprint))
        }
    }

    /// A mutating command's reply (docs/protocol.md, "Replies of navigation commands"), built in one
    /// object in the protocol's member order (`CommandReply.encode`).
    func okReply(id: String?, _ navigator: String, _ execution: Fleet.Execution) -> JSONObject {
        let state = fleet.navigators[navigator]
        return CommandReply.encode(
            id: id, navigator: navigator, revision: state?.revision ?? 0,
            seq: execution.events.last?.seq ?? fleet.lastSeq, frame: execution.frame, events: execution.decided,
            inFlight: state?.transition)
    }

    /// `okReply` serialized, written without the tree (`CommandReplyWriter`).
    func okReplyBytes(id: String?, _ navigator: String, _ execution: Fleet.Execution) -> [UInt8] {
        let state = fleet.revisionAndPhase(of: navigator)
        return CommandReplyWriter.encode(
            id: id, navigator: navigator, revision: state?.revision ?? 0,
            seq: execution.events.last?.seq ?? fleet.lastSeq, frame: execution.frame, events: execution.decided,
            phase: state?.phase)
    }

    /// Fills what a `create` left out from the daemon's defaults, and enforces the daemon's caps.
    /// `given`: the members the request gave (nil: not known, and a built-in value counts as left out).
    func applyDefaults(_ config: inout NavigatorConfig, given: Set<String>? = nil) -> WireError? {
        let plain = NavigatorConfig()
        func leftOut(_ key: String, _ isBuiltIn: Bool) -> Bool { given.map { !$0.contains(key) } ?? isBuiltIn }
        if leftOut("animators", config.animators == plain.animators), let rules = options.defaultAnimators {
            config.animators = rules
        }
        if leftOut("interactionTimeout", config.interactionTimeout == plain.interactionTimeout) {
            config.interactionTimeout = options.defaultInteractionTimeout
        }
        if leftOut("queueLimit", config.queueLimit == plain.queueLimit) {
            config.queueLimit = min(plain.queueLimit, options.maxQueue)
        }
        if leftOut("maxDepth", config.maxDepth == plain.maxDepth) {
            config.maxDepth = min(plain.maxDepth, options.maxStackDepth)
        }
        if config.queueLimit > options.maxQueue {
            return WireError(
                .tooLarge,
                "queueLimit \(config.queueLimit) is past the daemon's limits.maxQueue of \(options.maxQueue).")
        }
        if config.maxDepth > options.maxStackDepth {
            return WireError(
                .tooLarge,
                "maxDepth \(config.maxDepth) is past the daemon's limits.maxStackDepth of \(options.maxStackDepth).")
        }
        return nil
    }

    // MARK: Idempotency

    static let rememberedReplies = 65_536

    /// The command already applied under `id`: from memory while recent (perhaps not yet durable),
    /// else from the store, where its reply and fingerprint were written with the events. The store
    /// is asked only when the filter of stored ids may hold `id` (`KnownCommandIDs`).
    ///
    /// When the store cannot answer, the request is refused with `unavailable` (`.refused`): taking
    /// the id for new would make a retry's commit fail on the `commands` key, and a failed commit voids
    /// every reply after the durable seq, other clients' included.
    func previousCommand(_ id: String, _ request: Request, _ envelope: [[UInt8]]) -> Previous? {
        if let recent = recentCommands[id] { return .applied(recent) }
        // Another daemon on the log may have stored the id: with shards, every id is looked up.
        guard isSharded || knownCommandIDs.needsLookup(id) else { return nil }
        let stored: StoredCommand?
        do throws(StoreError) {
            stored = try store.command(id)
            if let failed = lookupFailureLog.succeeded(now: timer.monotonic()) { logLookupsRecovered(failed) }
        } catch {
            if let reason = lookupFailureLog.reason(error, now: timer.monotonic()) {
                log(
                    .error,
                    "Could not look up a command id in the log: \(reason). Commands whose id must be looked up get "
                        + "unavailable until storage recovers.")
            }
            reject(
                envelope,
                Reply.error(
                    id: request.id, .unavailable,
                    "The log could not be read to check whether id \"\(id.prefix(40))\" was already applied "
                        + "(\(error.message)); nothing was applied. Retry when storage recovers."))
            return .refused
        }
        guard let stored, let reply = stored.reply else { return nil }
        return .applied(PreviousCommand(seq: 0, body: reply.serializedBytes(), fingerprint: stored.fingerprint))
    }

    /// What `previousCommand` found.
    enum Previous {
        case applied(PreviousCommand)
        /// Already answered (the lookup failed).
        case refused
    }

    /// Remembers the reply of a command decided under `id`, and notes the id as (about to be) stored.
    func remember(_ id: String, _ command: PreviousCommand) {
        recentCommands.remember(id, command, durableSeq: durableSeq)
        let phase = knownCommandIDs.phase
        knownCommandIDs.insert(id)
        if phase != .off, knownCommandIDs.phase == .off {
            log(
                .notice,
                "More than \(knownCommandIDs.maxIDs) command ids: the id filter is dropped, every new id is looked up in the store."
            )
        }
    }
}
