import SegueCore
import SegueProtocol
import SegueStore
import SegueWire
import Testing

@testable import SegueDaemon

/// A monotonic clock the tests move by hand (NIO's `EmbeddedEventLoop.advanceTime(by:)`).
final class TestClock: EngineClock {
    private(set) var nanoseconds: Int64 = 1_000_000_000
    private(set) var cpu: Int64 = 0
    /// How far every read moves the clock: a frame close, which reads it before and after, then
    /// measures this much (the way to make closing frames look expensive).
    var costPerRead: Int64 = 0

    func monotonic() -> Int64 {
        defer { nanoseconds += costPerRead }
        return nanoseconds
    }

    func threadCPU() -> Int64 { cpu }

    /// The wall clock moves with the monotonic one, from where the harness last set it (`setWall`).
    private var wallOffset: Int64 = 0
    func wall() -> Int64 { nanoseconds + wallOffset }
    func setWall(_ now: Int64) { wallOffset = now - nanoseconds }

    func advance(by delta: Int64) {
        nanoseconds += delta
        cpu += delta
    }
}

/// The log in memory: what the core reads, and what the tests commit into it in place of a store.
final class FakeLog: EngineLogReading {
    var events: [EventRecord] = []
    var commands: [String: StoredCommand] = [:]
    var snapshots: [Snapshot] = []
    /// Makes every read fail, as a store whose disk went away.
    var failure: StoreError?
    private(set) var commandLookups = 0

    var lastSeq: Int64 { events.last?.seq ?? 0 }
    var walCheckpoints: WALCheckpointCounts {
        WALCheckpointCounts(background: 0, catchUps: 0, forced: 0, failures: 0, restarts: 0)
    }

    func command(_ id: String) throws(StoreError) -> StoredCommand? {
        commandLookups += 1
        if let failure { throw failure }
        return commands[id]
    }

    func events(after seq: Int64, navigator: String?, limit: Int) throws(StoreError) -> [EventRecord] {
        if let failure { throw failure }
        return Array(events.filter { $0.seq > seq && (navigator == nil || $0.navigator == navigator) }.prefix(limit))
    }

    func events(of navigator: String, after seq: Int64, upTo last: Int64) throws(StoreError) -> [EventRecord] {
        if let failure { throw failure }
        return events.filter { $0.navigator == navigator && $0.seq > seq && $0.seq <= last }
    }

    func navigators() throws(StoreError) -> [String] { Array(Set(events.map(\.navigator))).sorted() }
    func latestSnapshots() throws(StoreError) -> [Snapshot] {
        Dictionary(grouping: snapshots, by: \.navigator).values.compactMap { $0.max { $0.seq < $1.seq } }
            .sorted { $0.navigator < $1.navigator }
    }

    func snapshot(of navigator: String, atOrBefore seq: Int64) throws(StoreError) -> Snapshot? {
        snapshots.filter { $0.navigator == navigator && $0.seq <= seq }.max { $0.seq < $1.seq }
    }

    func forEachEvent(after seq: Int64, _ body: (EventRecord) throws(StoreError) -> Void) throws(StoreError) {
        for record in events where record.seq > seq { try body(record) }
    }

    /// What a store does with a unit it committed.
    func store(_ unit: AppendUnit) {
        // A store keeps no digest: they are derived from the log (`EventRecord.digest`).
        events += unit.events.map { record in
            var stored = record
            stored.digest = nil
            return stored
        }
        if let id = unit.commandID { commands[id] = StoredCommand(reply: unit.reply, fingerprint: unit.fingerprint) }
    }
}

/// An engine core with a fake log and a hand-moved clock, driven the way the loop drives it: one
/// input at a time, the actions compared.
final class EngineHarness {
    let log: FakeLog
    let timer = TestClock()
    let core: EngineCore
    /// The wall clock, Unix ns: starts on a frame's instant. The clock's own wall clock is set with
    /// it, and then moves with its monotonic clock (as while the process is stopped).
    var now: Int64 { didSet { timer.setWall(now) } }
    /// What the next commit answers (nil: success).
    var commitFailure: StoreError?

    static let start: Int64 = 1_700_000_000_000_000_000

    init(
        log: FakeLog = FakeLog(), now: Int64 = EngineHarness.start,
        _ configure: (inout EngineOptions) -> Void = { _ in }
    )
        throws
    {
        var options = EngineOptions(dataDirectory: "", commandEndpoints: [], publishEndpoints: [])
        // Ticks without leases, unless a test is about them (`EngineCoreLeaseTests`).
        options.frameLease = nil
        configure(&options)
        self.log = log
        self.now = now
        timer.setWall(now)
        core = try EngineCore(options: options, store: log, timer: timer, instance: "test")
    }

    var clock: FrameClock { core.clock }

    /// Moves both clocks to the instant `frames` frames on (frame instants are not a whole number of
    /// nanoseconds apart), closing nothing.
    func move(frames: Int64) {
        let next = clock.instant(ofFrame: clock.frame(atOrBefore: now) + frames)
        timer.advance(by: next - now)
        now = next
    }

    /// A request from `client` (a DEALER: routing id, then the body), without its commit.
    func send(_ json: String, client: UInt8 = 1, userID: String? = nil) -> [EngineAction] {
        core.step(.request(frames: [[client], Array(json.utf8)], userID: userID, now: now)).map(answered)
    }

    /// The loop answers `history` and `list` on a thread of its own once the outbox releases them;
    /// here at once, in their place, from the log in memory.
    func answered(_ action: EngineAction) -> EngineAction {
        guard case .send(let messages) = action else { return action }
        return .send(
            messages.map { message in
                switch message {
                case .history(let envelope, let query):
                    .reply(
                        envelope: envelope, body: query.reply(from: log).serializedBytes(),
                        ifVoided: .waiting(id: query.id))
                case .list(let envelope, let query):
                    .reply(envelope: envelope, body: query.reply().serializedBytes(), ifVoided: .waiting(id: query.id))
                default: message
                }
            })
    }

    /// A request and the loop turn's commit: what a client gets back.
    func call(_ json: String, client: UInt8 = 1, userID: String? = nil) -> [EngineAction] {
        send(json, client: client, userID: userID) + commit()
    }

    /// `.commit`, then the store's answer to each unit handed out (stored unless `commitFailure`).
    func commit() -> [EngineAction] {
        var out = core.step(.commit).map(answered)
        for case .append(let units, let epoch) in out {
            let results: [EngineCompletion] = units.map { unit in
                if commitFailure == nil { log.store(unit) }
                let result: Result<Void, StoreError> = commitFailure.map { .failure($0) } ?? .success(())
                return EngineCompletion(epoch: epoch, for: unit, result: result)
            }
            out += core.step(.committed(results)).map(answered)
        }
        return out
    }

    /// Moves both clocks by `frames` frame periods, then closes the frames due and commits.
    func advance(frames: Int64) -> [EngineAction] {
        move(frames: frames)
        return core.step(.frameDeadline(now: now)) + commit()
    }
}

extension [EngineAction] {
    /// The messages sent, in the order the loop sends them (each batch's replies, then its publications).
    var messages: [Outbox.Message] {
        flatMap { action -> [Outbox.Message] in
            switch action {
            case .send(let batch):
                batch.filter {
                    switch $0 {
                    case .reply, .history, .list: true
                    case .publish, .tick: false
                    }
                }
                    + batch.compactMap { message -> Outbox.Message? in
                        switch message {
                        case .publish: message
                        case .tick(let tick): Self.published(tick)
                        case .reply, .history, .list: nil
                        }
                    }
            case .publishTicks(let ticks):
                ticks.map(Self.published)
            default: []
            }
        }
    }

    /// A tick as the loop publishes it on `tick/<navigator>/`.
    static func published(_ tick: Tick) -> Outbox.Message {
        .publish(topic: [UInt8]("tick/\(tick.navigator)/".utf8), body: tick.encoded())
    }

    /// The bodies of the replies, parsed.
    var replies: [JSON] {
        messages.compactMap { message in
            guard case .reply(_, let body, _) = message else { return nil }
            return try? JSON.parse(body)
        }
    }

    /// The single reply, parsed (a failed expectation otherwise).
    var reply: JSON {
        #expect(replies.count == 1, "\(self)")
        return replies.first ?? .null
    }

    /// The topics published, in order, ticks included.
    var topics: [String] {
        messages.compactMap { message in
            guard case .publish(let topic, _) = message else { return nil }
            return String(decoding: topic, as: UTF8.self)
        }
    }

    /// The events published, parsed.
    var events: [JSON] { published("event/") }

    /// The bodies published under topics starting with `prefix`, parsed.
    func published(_ prefix: String) -> [JSON] {
        messages.compactMap { message in
            guard case .publish(let topic, let body) = message, topic.starts(with: [UInt8](prefix.utf8)) else {
                return nil
            }
            return try? JSON.parse(body)
        }
    }

    /// The ticks published, at once or after the events they wait behind, as JSON.
    var tickBodies: [JSON] { published("tick/") }

    var ticks: [Tick] {
        flatMap { action -> [Tick] in
            guard case .publishTicks(let ticks) = action else { return [] }
            return ticks
        }
    }

    var appended: [AppendUnit] {
        flatMap { action -> [AppendUnit] in
            guard case .append(let units, _) = action else { return [] }
            return units
        }
    }

    /// How many times the store is told to give back the log's turn.
    var yields: Int { filter { if case .yieldLogTurn = $0 { true } else { false } }.count }

    var logLines: [String] {
        compactMap { action in
            guard case .log(_, let line) = action else { return nil }
            return line
        }
    }
}
