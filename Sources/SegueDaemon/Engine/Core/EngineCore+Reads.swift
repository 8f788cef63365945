import SegueCore
import SegueProtocol
import SegueStore
import SegueWire

extension EngineCore {
    /// `state`: the navigator now, or (with `at`) as of a seq, folded from the log.
    func stateReply(_ request: Request, at: Int64?) -> JSON {
        let name = request.navigator!
        var state: NavigatorState
        var seq = fleet.lastSeq
        // A command takes effect at the frame after the last closed one: the state already shows it,
        // so it is as of that frame (a tick of frame F shows only events of frames up to F).
        var frame = max(fleet.closedFrame, fleet.lastFrame)
        if let at {
            // Past the log's end there is no such state to travel to: saying so beats answering with
            // the current state as if it were that seq's.
            guard at <= durableSeq else {
                return Reply.error(
                    id: request.id, .invalidArgument,
                    "state on navigator \(name) at seq \(at): past the end of the log (seq \(durableSeq)); give a "
                        + "seq from 0 to \(durableSeq).")
            }
            do {
                state = try stateFromLog(name, at: at)
                seq = min(at, durableSeq)
                frame = state.frame
            } catch {
                return Reply.error(id: request.id, WireError(error))
            }
        } else if !leads(name) {
            // Led by another daemon on the log: its state as of the log's end, folded from the log.
            do {
                if isQuiescent { try catchUp() } else { try followLog() }
                seq = logFold?.lastSeq ?? fleet.lastSeq
                state = logFold?.state(of: name) ?? fleet.state(of: name)
                frame = max(frame, state.frame)
            } catch {
                return Reply.error(id: request.id, WireError(error.coreError))
            }
        } else {
            state = fleet.state(of: name)
        }
        guard state.status != .absent else {
            guard let at else {
                return Reply.error(
                    id: request.id, .unknownNavigator, "Navigator \(name) does not exist; create it first.")
            }
            // Time travel to before its creation: it exists now, so "create it" would be wrong advice.
            let later = fleet.state(of: name).status != .absent ? " yet (it was created later in the log)" : ""
            return Reply.error(
                id: request.id, .unknownNavigator, "Navigator \(name) did not exist at seq \(at)\(later).")
        }
        return Reply.ok(id: request.id, NavigatorSnapshot.encode(state, seq: seq, frame: frame))
    }

    /// Time travel: the newest snapshot at or before `seq`, then the navigator's events up to it.
    func stateFromLog(_ name: String, at seq: Int64) throws(CoreError) -> NavigatorState {
        try PastFold(clock: clock, reader: store).state(of: name, at: seq)
    }

    /// `list`: the navigators as of now, sorted and encoded beside the loop (`ListQuery`); with
    /// several daemons, every shard's, the others' from the log's fold. Nil after replying with the
    /// error when the log could not be read.
    func listQuery(_ request: Request, _ envelope: [[UInt8]]) -> ListQuery? {
        guard isSharded else { return ListQuery(id: request.id, navigators: fleet.navigators, seq: fleet.lastSeq) }
        do throws(StoreError) {
            if isQuiescent { try catchUp() } else { try followLog() }
        } catch {
            reply(envelope, Reply.error(id: request.id, WireError(error.coreError)))
            return nil
        }
        return ListQuery(
            id: request.id, navigators: fleet.navigators, others: logFold?.navigators ?? [:],
            seq: max(fleet.lastSeq, logFold?.lastSeq ?? 0))
    }

    /// `history`: durable events after a seq, from the store (so a gap-filling client never sees an
    /// event that a crash could take back), read and folded off the loop's thread (`BackgroundReads`)
    /// once the outbox releases it.
    func historyQuery(_ request: Request, after: Int64, limit: Int) -> HistoryQuery {
        HistoryQuery(
            id: request.id, navigator: request.navigator, after: after, limit: limit, instance: instance, clock: clock)
    }

    func statsReply(_ request: Request) -> JSON {
        let open = fleet.navigators.values.lazy.filter { $0.status == .open }.count
        var members: JSONObject = [
            "commands": .int(stats.commands), "rejected": .int(stats.rejected), "malformed": .int(stats.malformed),
            "idempotentReplays": .int(stats.idempotentReplays), "events": .int(stats.events),
            "ticks": .int(stats.ticks), "framesClosed": .int(stats.framesClosed),
            "lateFrames": .int(stats.lateFrames),
            "missedFrames": .int(stats.missedFrames), "stalls": .int(stats.stalls),
            "overloadStalls": .int(stats.overloadStalls),
            "lastStall": lastStall.map(\.json) ?? .null, "subscriptions": .int(stats.subscriptions),
            "subscribers": .int(stats.subscribers),
            "navigators": .int(fleet.navigators.count), "openNavigators": .int(open),
            "active": .int(fleet.active.count),
            "store": [
                "seq": .int(fleet.lastSeq), "durableSeq": .int(durableSeq),
                "durability": .string(options.durability.rawValue),
                "commitFailures": .int(stats.commitFailures), "checkpoints": .int(stats.checkpoints),
                "commits": .int(stats.commits), "units": .int(stats.committedUnits),
                "siblingWaits": .int(stats.siblingWaits),
                "lastCheckpointSeq": .int(lastCheckpointSeq), "pendingOutput": .int(outbox.count),
                "walCheckpoints": walCheckpointsJSON(),
            ],
            "commandIDs": [
                "filter": .string(knownCommandIDs.phase.rawValue), "ids": .int(Int64(knownCommandIDs.count)),
                "bytes": .int(Int64(knownCommandIDs.bytes)), "lookups": .int(knownCommandIDs.lookups),
                "skipped": .int(knownCommandIDs.skipped),
            ],
        ]
        // Only with several daemons on the log: one daemon's reply stays as it was.
        if let shards = shardsJSON() { members["shards"] = shards }
        return Reply.ok(id: request.id, members)
    }

    /// With several daemons on the log: how many shards, which this daemon leads, and the log's
    /// navigators (`navigators` above counts only those of the shards led here); nil with one.
    func shardsJSON() -> JSON? {
        guard let map = options.shards else { return nil }
        // As `list` counts them: the others' from the log's fold, brought up to date if it can be.
        if isQuiescent { try? catchUp() } else { try? followLog() }
        var names = Set(fleet.navigators.keys)
        if let fold = logFold { names.formUnion(fold.navigators.keys) }
        return [
            "count": .int(Int64(map.count)), "leads": .array(led.keys.sorted().map { .int(Int64($0)) }),
            "navigators": .int(Int64(names.count)), "lostRaces": .int(stats.lostRaces),
            "reruns": .int(stats.raceReruns), "refusedAfterReruns": .int(stats.raceRefusals),
        ]
    }

    /// The store's WAL checkpoints since open (`EventStore.walCheckpoints`).
    func walCheckpointsJSON() -> JSON {
        let counts = store.walCheckpoints
        return [
            "background": .int(Int64(counts.background)), "catchUps": .int(Int64(counts.catchUps)),
            "forced": .int(Int64(counts.forced)), "failures": .int(Int64(counts.failures)),
            "restarts": .int(Int64(counts.restarts)),
        ]
    }
}
