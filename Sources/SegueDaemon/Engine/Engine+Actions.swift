import SegueCore
import SegueProtocol
import SegueStore
import SegueWire

extension Engine {
    // MARK: Actions

    /// Gives the core one input and performs what it answers.
    func feed(_ input: EngineInput) {
        core.receive(input)
        performActions()
    }

    /// Performs the core's actions in order. An action may feed the core again (an inline commit's
    /// results): what that adds is performed after the actions before it, never in between.
    func performActions() {
        while !core.actions.isEmpty {
            swap(&core.actions, &performing)
            // Each action is moved out, not copied (a tick's strings are not retained and released
            // once more per tick), and its slot refilled with one that has nothing to release.
            performing.withUnsafeMutableBufferPointer { buffer in
                guard let base = buffer.baseAddress else { return }
                for index in buffer.indices {
                    let action = (base + index).move()
                    (base + index).initialize(to: .confineHelperThreads)
                    perform(action)
                }
            }
            performing.removeAll(keepingCapacity: true)
        }
        sendFrameBatch()
        if subscriptionDelta != 0 {
            core.receive(.subscriptions(subscriptionDelta))
            subscriptionDelta = 0
        }
    }

    private func perform(_ action: consuming EngineAction) {
        // Consumed, so that a frame's tick array is this loop's alone and keeps its capacity.
        switch consume action {
        case .send(let messages):
            for message in messages {
                switch message {
                case .reply(let envelope, let body, _): sendReply(envelope + [body])
                case .history(let envelope, let query): readBeside(envelope, .history(query))
                case .list(let envelope, let query): readBeside(envelope, .list(query))
                case .publish, .tick: break
                }
            }
            // A publication may be what tells a subscriber its subscription is in place (a heartbeat):
            // the ticks after it look at the subscriptions again.
            subscriptionsChecked = false
            for message in messages {
                switch message {
                case .publish(let topic, let body):
                    topic.withUnsafeBytes { topic in
                        body.withUnsafeBytes { body in _ = try? publisher?.sendMultipart(topic, body, dontWait: true) }
                    }
                case .tick(let tick): publish(tick)
                case .reply, .history, .list: break
                }
            }
        case .publishTicks(var ticks):
            subscriptionsChecked = false
            // By index: each tick is lent to `publish`, where `for tick in ticks` would copy it
            // (retaining and releasing its strings) once more.
            for index in ticks.indices { publish(ticks[index]) }
            ticks.removeAll(keepingCapacity: true)
            core.recycle(ticks)
        case .append(let units, let epoch):
            commit(units, epoch: epoch)
            mark(.commit)
        case .saveSnapshots(let seq, let snapshots):
            let store = self.store
            let logger = self.logger
            let thinning = SnapshotThinning(checkpointEvery: options.checkpointEvery)
            snapshotWriter.async {
                do { try store.saveSnapshots(snapshots, thinning: thinning) } catch {
                    logger.warning(
                        "Checkpoint at seq \(seq) was not saved (\(error)); start-up folds from the previous one.")
                }
            }
        case .saveLease(let frame, let shards, let generation):
            let store = self.store
            leaseWriter.async { [weak self] in
                var failure: StoreError?
                do throws(StoreError) {
                    try store.raiseLease(shards: shards, to: frame)
                    self?.leaseWritten.withLock { $0 = max($0 ?? frame, frame) }
                } catch {
                    failure = error
                }
                self?.perform { [failure] in
                    $0.feed(.leased(frame: frame, generation: generation, failure: failure, now: WallClock.now()))
                }
            }
        case .confineHelperThreads:
            RealtimeConfinement.confineToCurrentThread()
        case .trimHeap:
            // On a helper thread: the walk holds each arena's lock in turn, and the loop may still
            // close frames for an animation.
            snapshotWriter.async { HeapTrim.trim() }
        case .checkDescriptors:
            // On a helper thread, as the heap trim: with thousands of connections the directory read
            // is not the frame loop's to pay for.
            snapshotWriter.async { [descriptorWatch, logger] in
                guard let (open, limit) = descriptorWatch.usage(),
                    let (level, line) = descriptorWatch.look(open: open, limit: limit)
                else { return }
                logger.log(level: level, line)
            }
        case .yieldLogTurn:
            store.yieldLogTurn()
        case .checkLeadership:
            leadership?.stepDown([])
        case .giveUp(let shards):
            leadership?.stepDown(shards)
        case .stop:
            stop()
        case .log(let level, let message):
            logger.log(level: level, message)
        }
    }

    /// A reply, unless it waits behind a page its client asked for before (`ReplyOrder`).
    private func sendReply(_ message: [[UInt8]]) {
        guard let message = replyOrder.isEmpty ? message : replyOrder.admit(message) else { return }
        deliver(message)
    }

    /// Sends a reply now. One the client's full queue refuses is dropped and counted; one to a client
    /// that has gone (`EHOSTUNREACH`) has no one to go to.
    func deliver(_ message: [[UInt8]]) {
        guard (try? router?.sendMultipart(message, dontWait: true)) == false else { return }
        if let line = droppedReplies.dropped(now: WallClock.monotonic()) { logger.warning(line) }
    }

    /// Hands a `history` page or a `list` to `backgroundReads`; its reply comes back as a task and goes
    /// out in the client's order. Past the bounds of `ReplyOrder`, the request is answered
    /// `unavailable` at once.
    private func readBeside(_ envelope: [[UInt8]], _ read: BackgroundReads.Read) {
        if let refusal = replyOrder.refusal(for: envelope) {
            return sendReply(envelope + [Reply.error(id: read.id, .unavailable, refusal).serializedBytes()])
        }
        let ticket = replyOrder.expectPage(for: envelope)
        backgroundReads.answer(read, for: ClientKey.of(envelope[...])) { [weak self] body in
            self?.perform { engine in
                for message in engine.replyOrder.pageRead(ticket, envelope + [body]) { engine.deliver(message) }
            }
        }
    }

    /// Commits on this thread when the store's writer is idle, otherwise through the group committer,
    /// whose completions come back through `wakeup`, as do those of a commit whose answer was slow
    /// and is awaited on the committer thread.
    private func commit(_ units: [AppendUnit], epoch: Int) {
        let completions = self.completions
        let wakeup = self.wakeup
        let inline = store.commitIfIdle(units) {
            { results in
                for (unit, result) in zip(units, results) {
                    completions.append(EngineCompletion(epoch: epoch, for: unit, result: result))
                }
                wakeup.signal()
            }
        }
        switch inline {
        case .done(let results):
            let completed = zip(units, results).map { unit, result in
                EngineCompletion(epoch: epoch, for: unit, result: result)
            }
            // Behind the results of earlier batches that came since the loop last drained them: a
            // failure here taken first would void replies of batches that are stored.
            let earlier = completions.drain()
            return core.receive(.committed(earlier.isEmpty ? completed : earlier + completed))
        case .handedOff: return
        case .notRun: break
        }
        for unit in units {
            store.submit(unit) { result in
                completions.append(EngineCompletion(epoch: epoch, for: unit, result: result))
                wakeup.signal()
            }
        }
    }

    // MARK: Input

    /// Most requests served in one turn of the loop, so a flood of commands cannot make frames late;
    /// a turn also ends when a frame falls due (`EngineCore.nextFrameDue`), since one request of a
    /// megabyte takes milliseconds to parse.
    static let requestsPerTurn = 256

    /// Built once: an array literal in the loop would allocate on every read.
    private static let userIDMetadata = ["User-Id"]

    func serveRequests() {
        // Also for the waits just before a frame and for siblings, which read commands too.
        guard let router, !core.holdsRequests else { return }
        // The user id is a metadata lookup, asked only when roles are checked.
        let metadata = options.security == nil ? [] : Self.userIDMetadata
        var due = core.nextFrameDue ?? .max
        for served in 0..<Self.requestsPerTurn {
            // Read before the request, so the check after one request costs no clock read of its own.
            let now = WallClock.now()
            if served > 0, now >= due { return }
            guard let message = try? router.receiveMessage(dontWait: true, metadata: metadata) else { return }
            let userID = options.security == nil ? nil : message.userID
            feed(.request(frames: message.frames, userID: userID, now: now))
            // A command that starts the first animation makes a frame due.
            if due == .max { due = core.nextFrameDue ?? .max }
        }
    }

    /// Waits, up to the core's deadline, for the commands of recent writers not in this batch yet
    /// (`EngineCore.siblingDeadline`), serving them as they come.
    func gatherSiblings() {
        defer { core.endBatch() }
        guard !core.holdsRequests, let router, let deadline = core.siblingDeadline(now: WallClock.now()),
            let timer = commandWaitTimer()
        else { return }
        while core.awaitsSiblings {
            let remaining = deadline - WallClock.now()
            guard remaining > 0, (try? router.waitReadable(nanoseconds: remaining, timer: timer)) == true else {
                return
            }
            serveRequests()
        }
    }
}
