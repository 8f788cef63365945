import Foundation
import SegueCore
import SegueStore
import Synchronization

/// The write side of a PostgreSQL log: one session, the numbering it checks, and what it does when
/// the server goes away.
///
/// Only the group committer's thread (or an inline caller holding it) touches a writer. A batch is
/// one transaction sent as one pipeline (the inserts and a Sync, which commits them: no `BEGIN` and
/// `COMMIT` for the server to run): one round trip and, with `synchronous_commit = on`, one WAL
/// flush on the server. Units that do not continue the log are
/// rejected before anything is sent; a failed batch is rolled back whole.
///
/// A lost connection fails the batch `unavailable`, and the next batch connects again (at once the
/// first time, then after a growing pause, so that an outage costs no connect per command). When the
/// connection was lost after the batch was sent, the server may or may not have committed it: the
/// writer reconnects, makes sure its old server process has ended (it holds the log's writer lock,
/// which the new session then takes), and reads the batch's seqs and command ids back. Present: the
/// batch committed and its units succeed; absent: it failed. Until that read-back could run, the
/// outcome is unknown: the batch fails, and the next session settles it before anything else, which
/// may move `lastSeq` forward.
final class PostgresLogWriter: BatchWriter {
    let settings: ConnectionSettings
    let durability: Durability
    let lockTimeoutMilliseconds: Int64
    var session: PostgresSession?
    /// When `session` was last handed out; after `idleCheckAfter` it is checked before use.
    var lastUse = ContinuousClock.now
    static let idleCheckAfter = Duration.milliseconds(100)
    private(set) var lastSeq: Int64 = 0
    private var numbering = UnitNumbering()
    var reconnect = ReconnectBackoff()
    /// The batch whose commit outcome was lost and has not been read back yet.
    var unresolved: PostgresBatch?
    /// What the last read-back of an unknown outcome found: true when the batch had committed.
    var lastResolution: Bool?
    /// The server process of the last session, until a new session has seen it end.
    var previousBackend: (pid: Int32, start: Int64)?
    /// When the last session was lost, until a new one is open; then `reconnected` is told.
    var lostAt: ContinuousClock.Instant?
    var reconnected: @Sendable (PostgresReconnection) -> Void = { _ in }
    /// Called with the connection after a batch's pipeline is sent, before its results are read:
    /// tests break the connection there to make a commit's outcome unknown.
    var afterSendingForTesting: ((PostgresConnection) -> Void)?
    /// The schema migration the first session ran on an existing database (after an upgrade).
    var migration: SchemaMigration?
    /// The last committed batch's remains, freed after its replies (`PostgresLogWriter+Retired`).
    var retired = RetiredBatch()
    /// Set while `retired` holds something (`upkeepDue`, read from any thread).
    let retiredKept = Atomic<Bool>(false)
    /// Set when several daemons share the log: the shards this one leads. Then there is no writer
    /// lock; every batch is fenced instead (`segue_fence`: the shards' epochs and the log's end).
    let leases: ShardLeases?
    /// The leases' generation the cached revisions were read under.
    private var leasesGeneration = -1
    /// Whether this writer's session holds the log's turn alone (`PostgresLogWriter+Turn`), and
    /// how many times it took it.
    var holdsTurn = false
    let turns = TurnCount()
    /// While an import's transaction is open (`PostgresLogWriter+Import`): its session, the log's end
    /// before it, and the seq its parts reached.
    var importing: (session: PostgresSession, before: Int64, seq: Int64)?

    var location: String { settings.redacted }

    init(settings: ConnectionSettings, durability: Durability, lockTimeout: Duration, leases: ShardLeases? = nil) {
        self.settings = settings
        self.durability = durability
        self.leases = leases
        lockTimeoutMilliseconds = ConnectionSettings.milliseconds(lockTimeout)
    }

    /// Opens the first session: schema created or migrated, writer lock taken.
    func open(willMigrate: (PostgresSchemaUpgrade) -> Void = { _ in }) throws(StoreError) {
        try openSession(first: true, willMigrate: willMigrate)
    }

    func close() {
        session = nil
    }

    /// A new session is ready and the log ends at `lastSeq`: revisions are read afresh from it.
    func setOpened(_ session: PostgresSession, lastSeq: Int64) {
        self.session = session
        self.lastSeq = lastSeq
        holdsTurn = false
        numbering.forgetRevisions()
        previousBackend = nil
    }

    /// How long (ms) an inline commit waits for the server to begin answering before it leaves the
    /// rest to the committer thread (nil: it waits, as `commit` does).
    var inlineAnswerWait: Int32?

    // MARK: Committing

    func commit(_ units: ArraySlice<AppendUnit>) -> [Result<Void, StoreError>] {
        let session: PostgresSession
        do throws(StoreError) {
            session = try liveSession()
        } catch {
            return units.map { _ in .failure(error) }
        }
        if let leases { follow(leases, units) }
        let plan: Plan
        do throws(StoreError) {
            plan = try self.plan(units, duplicates: [], session)
        } catch {
            return fail(units, plan: nil, error)
        }
        guard !plan.batch.isEmpty else { return plan.results.map { $0 ?? .success(()) } }
        return conclude(units, plan, run(plan.batch, session))
    }

    /// Commits on the caller's thread (the frame loop's) only what needs no statement but the batch's
    /// own, over a session known live, and waits there at most `inlineAnswerWait` for the answer to
    /// begin. Everything else is the committer thread's: a new connection (up to `connect_timeout`),
    /// revisions to read, a lost outcome to read back, a failure to look into (`.notRun` before the
    /// batch is sent, `.continuing` after), and the rest of a slow answer. Without a wait set, a
    /// plain `commit`.
    func commitInline(_ units: ArraySlice<AppendUnit>) -> InlineAttempt {
        guard let answerWait = inlineAnswerWait else { return .done(commit(units)) }
        guard unresolved == nil, importing == nil, let session else { return .notRun }
        let now = ContinuousClock.now
        if now - lastUse >= Self.idleCheckAfter { session.connection.readIdleInput() }
        guard !session.isBroken else { return .notRun }
        if let leases { follow(leases, units) }
        guard numbering.unknownNavigators(in: units).isEmpty else { return .notRun }
        lastUse = now
        let plan: Plan
        do throws(StoreError) {
            plan = try self.plan(units, duplicates: [], known: [:])
        } catch {
            return .continuing { [self] in fail(units, plan: nil, error) }
        }
        guard !plan.batch.isEmpty else { return .done(plan.results.map { $0 ?? .success(()) }) }
        let sent: PostgresConnection.SentPipeline
        switch send(plan.batch, session) {
        case .success(let pipeline): sent = pipeline
        case .failure(let error):
            return .continuing { [self] in conclude(units, plan, outcome(of: error, plan.batch, session)) }
        }
        guard session.connection.answerArrives(withinMilliseconds: answerWait) else {
            return .continuing { [self] in conclude(units, plan, finish(sent, plan.batch, session)) }
        }
        switch session.connection.receive(sent) {
        case .success(let rows):
            retire(sent.steps, rows)
            return .done(conclude(units, plan, .committed))
        case .failure(let error):
            return .continuing { [self] in conclude(units, plan, outcome(of: error, plan.batch, session)) }
        }
    }

    /// What a batch's outcome means for its units. A command id found stored (a retry's that raced
    /// it, or another writer's) takes its unit out, and the rest is planned and run once more.
    private func conclude(
        _ units: ArraySlice<AppendUnit>, _ plan: Plan, _ outcome: Outcome, duplicates: Set<String> = []
    ) -> [Result<Void, StoreError>] {
        switch outcome {
        case .committed:
            retire(plan)
            return committed(plan)
        case .duplicates(let found) where duplicates.isEmpty:
            // The plan's revisions were rolled back with it: read them again for the next one.
            numbering.forgetRevisions()
            guard let session else { return fail(units, plan: plan, Self.unexpectedDuplicate) }
            let again: Plan
            do throws(StoreError) {
                again = try self.plan(units, duplicates: found, session)
            } catch {
                return fail(units, plan: nil, error)
            }
            guard !again.batch.isEmpty else { return again.results.map { $0 ?? .success(()) } }
            return conclude(units, again, run(again.batch, session), duplicates: found)
        case .duplicates:
            return fail(units, plan: plan, Self.unexpectedDuplicate)
        case .failed(let error):
            return fail(units, plan: plan, error)
        case .unknown(let error):
            return settle(units, plan: plan, error)
        }
    }

    /// With several daemons on the log, other daemons' events sit between this one's batches: the
    /// batch starts where the engine numbered it (the fence checks that the log ends there), and
    /// revisions cached before a change of leadership are read again.
    private func follow(_ leases: ShardLeases, _ units: ArraySlice<AppendUnit>) {
        let generation = leases.generation
        if generation != leasesGeneration {
            numbering.forgetRevisions()
            leasesGeneration = generation
        }
        if let first = units.lazy.compactMap({ $0.events.first?.seq }).first, first > lastSeq + 1 {
            lastSeq = first - 1
        }
    }

    struct Plan {
        var results: [Result<Void, StoreError>?]
        var batch = PostgresBatch()
        var lastSeq: Int64
    }

    /// `plan`, with the revisions of navigators not cached yet read over `session`.
    private func plan(_ units: ArraySlice<AppendUnit>, duplicates: Set<String>, _ session: PostgresSession)
        throws(StoreError) -> Plan
    {
        try plan(
            units, duplicates: duplicates, known: try lastRevisions(numbering.unknownNavigators(in: units), session))
    }

    /// Checks every unit's numbering and command id, and gathers the accepted ones' rows; `known`
    /// holds the stored revisions of the navigators the numbering has no revision of.
    private func plan(_ units: ArraySlice<AppendUnit>, duplicates: Set<String>, known: [String: Int64])
        throws(StoreError) -> Plan
    {
        var plan = Plan(results: Array(repeating: nil, count: units.count), lastSeq: lastSeq)
        var ids = Set<String>()
        numbering.beginBatch()
        for (index, unit) in units.enumerated() {
            let check = try numbering.check(unit, after: plan.lastSeq) { navigator throws(StoreError) in
                known[navigator] ?? 0
            }
            if let rejection = check {
                plan.results[index] = .failure(rejection)
                continue
            }
            if let id = unit.commandID, duplicates.contains(id) || !ids.insert(id).inserted {
                plan.results[index] = .failure(Self.duplicate(id))
                continue
            }
            numbering.accept()
            plan.batch.add(unit)
            plan.lastSeq = unit.events.last?.seq ?? plan.lastSeq
        }
        return plan
    }

    func committed(_ plan: Plan) -> [Result<Void, StoreError>] {
        lastSeq = plan.lastSeq
        numbering.committed(accepted: true)
        return plan.results.map { $0 ?? .success(()) }
    }

    /// Fails every unit the plan accepted (and every unit when there is no plan) with `error`. The
    /// revisions the plan accepted are forgotten with every other (`UnitNumbering.failed`): a copy
    /// of the numbering to restore would make each commit copy every navigator's revision.
    func fail(_ units: ArraySlice<AppendUnit>, plan: Plan?, _ error: StoreError) -> [Result<Void, StoreError>] {
        numbering.failed(error)
        if let session, !session.isBroken {
            if leases != nil, error.lostTheLogsRace { takeTurn(session) }
            if let end = try? session.lastSeq() { lastSeq = end }
        }
        if session?.isBroken == true { drop() }
        guard let plan else { return units.map { _ in .failure(error) } }
        return plan.results.map { $0 ?? .failure(error) }
    }

    static func duplicate(_ id: String) -> StoreError {
        StoreError(
            kind: .duplicateCommand,
            message: "Command id \"\(id)\" was already applied; its stored reply answers the retry.")
    }

    static let unexpectedDuplicate = StoreError(
        kind: .duplicateCommand,
        message: "A command id of the batch was stored by another writer while it committed; nothing of it was kept.")
}

@available(*, unavailable)
extension PostgresLogWriter: Sendable {}
