import Foundation
import SegueCore
import SeguePostgres
import SegueStore
import Synchronization

/// Opening the log the config names, before the engine rebuilds its navigators from it: SQLite in
/// the data dir, or a PostgreSQL database, waited for while its server is down.
enum StoreOpening {
    /// Where the log is, for messages: the data dir, or the PostgreSQL conninfo without secrets.
    static func location(_ store: StoreConfig, dataDirectory: String) -> String {
        switch store {
        case .sqlite: dataDirectory
        case .postgres: "PostgreSQL at \(store.redactedConninfo ?? "")"
        }
    }

    /// Opens `store`. A PostgreSQL server that cannot be reached (down, starting, out of connections)
    /// is tried again with backoff (`PostgresOpenRetry.untilStopped`); each failed attempt goes to the
    /// log and to `status` (systemd's STATUS=), until `keepWaiting` returns false (SIGTERM). While a
    /// PostgreSQL schema migration runs, `extendStart` is called every few seconds (systemd's
    /// EXTEND_TIMEOUT_USEC=), so a long one is not taken for a hung start.
    static func open(
        _ store: StoreConfig, options: EngineOptions, logger: Logger, status: (String) -> Void,
        extendStart: @escaping @Sendable (Duration) -> Void = { _ in }, keepWaiting: @escaping @Sendable () -> Bool
    ) throws -> any EventStoring {
        switch store {
        case .sqlite:
            return try sqlite(options: options, logger: logger)
        case .postgres(let conninfo):
            var settings = try ConnectionSettings(conninfo: conninfo)
            let server = "PostgreSQL at \(settings.redacted)"
            settings.notices = noticeHandler(server, logger: logger)
            let reconnections = reconnectionLog(server, logger: logger)
            let keepAlive = StartKeepAlive(extend: extendStart)
            defer { keepAlive.stop() }
            let opened = try PostgresEventStore(
                settings: settings, durability: options.durability, retry: .untilStopped(when: { !keepWaiting() }),
                leases: options.shards.map(ShardLeases.init(map:)),
                progress: { attempt in
                    guard keepWaiting() else { return false }
                    let line = "Waiting for \(server): \(attempt)."
                    logger.log(level: attempt.attempt == 1 ? .warning : .notice, line)
                    status(line)
                    return true
                },
                willMigrate: { upgrade in
                    var line =
                        "Migrating the log's schema from version \(upgrade.from) to \(upgrade.to) (once, after an "
                        + "upgrade)"
                    if let rewrite = upgrade.rewrite {
                        line += "; it rewrites the log's tables (\(rewrite.description)): seconds per million events"
                    }
                    logger.notice(line + ".")
                    status(line)
                    keepAlive.start()
                }, reconnected: reconnections)
            logMigration(opened.migration, logger: logger)
            logger.notice(
                "Opened the log in \(server): seq \(opened.lastSeq), durability \(options.durability.rawValue).")
            if (try? opened.mayThinSnapshots()) == false {
                logger.warning(PostgresPrivileges.snapshotsKeptWithoutDelete)
            }
            return opened
        }
    }

    /// The server's notices (a WARNING to each session as it shuts down) as log lines at their level.
    static func noticeHandler(_ server: String, logger: Logger) -> PostgresNoticeHandler {
        PostgresNoticeHandler { notice in
            logger.log(level: level(ofNotice: notice.severity), "\(server) says: \(notice)")
        }
    }

    /// The writer's reconnections as log lines, at most one each `HeldBackLines.interval` with a count
    /// of those held back since: a cut whose batch is read back as committed fails no command, so
    /// this is where a flapping link to the server shows.
    static func reconnectionLog(_ server: String, logger: Logger) -> @Sendable (PostgresReconnection) -> Void {
        let lines = Mutex(HeldBackLines())
        return { reconnection in
            let committed = reconnection.readBack?.stored == true
            guard
                let (held, heldCommitted) = lines.withLock({
                    $0.noted(weight: committed ? 1 : 0, now: WallClock.monotonic())
                })
            else { return }
            logger.notice(reconnectionLine(reconnection, server: server, held: held, heldCommitted: heldCommitted))
        }
    }

    static func reconnectionLine(_ reconnection: PostgresReconnection, server: String, held: Int, heldCommitted: Int64)
        -> String
    {
        var line =
            "The writer's session to \(server) was lost; connected again after "
            + "\(reconnection.lostFor.inNanoseconds / 1_000_000) ms."
        if let readBack = reconnection.readBack {
            let seqs =
                readBack.seqs.count == 1
                ? "seq \(readBack.seqs.lowerBound)" : "seqs \(readBack.seqs.lowerBound)–\(readBack.seqs.upperBound)"
            line +=
                " The batch it was committing (\(seqs), \(readBack.commands) command(s)) was read back: the server had "
                + (readBack.stored ? "committed it." : "not committed it.")
        }
        if held > 0 {
            line += " \(held) more reconnection(s) since the last such line"
            line += heldCommitted > 0 ? ", \(heldCommitted) with a batch read back as committed." : "."
        }
        return line
    }

    static func level(ofNotice severity: String) -> LogLevel {
        switch severity {
        // An error that reaches a session between statements (a FATAL as the server ends it).
        case "ERROR", "FATAL", "PANIC": .error
        case "WARNING": .warning
        case "NOTICE": .notice
        case "INFO", "LOG": .info
        default: .debug
        }
    }

    /// The SQLite log, `segue.db` in the data dir (created with the directory if missing).
    static func sqlite(options: EngineOptions, logger: Logger) throws -> EventStore {
        do {
            try FileManager.default.createDirectory(atPath: options.dataDirectory, withIntermediateDirectories: true)
        } catch {
            throw DataDirectoryError(path: options.dataDirectory, underlying: error)
        }
        let path = (options.dataDirectory as NSString).appendingPathComponent("segue.db")
        // The quick check reads every page, which alone takes seconds on a 10-million-event log; it
        // runs once the daemon is ready (`Engine.run`), and a damaged file is reported the moment it
        // is found.
        let store = try EventStore(
            path: path, durability: options.durability,
            check: .deferred(report: { error in
                if let error {
                    logger.critical(
                        "The log failed its integrity check: \(error.message)\(error.message.hasSuffix(".") ? "" : ".") "
                            + "Stop the daemon and restore a backup; "
                            + "a restored segue.db goes in without the -wal and -shm files beside it, which SQLite "
                            + "would apply to it.")
                }
            }))
        logMigration(store.migration, logger: logger)
        if let damage = store.walDamage {
            logger.critical(
                "The log's WAL held \(damage.lostCommits) committed transactions after a damaged frame (SQLite "
                    + "kept its first \(damage.validFrames) frames); SQLite's recovery dropped them, and the log now "
                    + "ends at seq \(store.lastSeq). A copy of the WAL is at \(damage.copy ?? "no path: it could not be copied"). "
                    + "If they were acknowledged, stop the daemon and restore a backup.")
        }
        return store
    }

    private static func logMigration(_ migration: SchemaMigration?, logger: Logger) {
        guard let migration else { return }
        logger.notice(
            "Migrated the log's schema from version \(migration.from) to \(migration.to) in "
                + "\(migration.took.inNanoseconds / 1_000_000) ms (once, after an upgrade).")
    }

    /// For a start that failed on a damaged SQLite file: which file, and what to do (the error is
    /// SQLite's own, `database disk image is malformed`); nothing for any other failure.
    static func damageAdvice(_ error: any Error, _ config: DaemonConfig) -> String {
        guard config.store == .sqlite, (error as? StoreError)?.isDamage == true else { return "" }
        let path = (config.dataDir as NSString).appendingPathComponent("segue.db")
        return ". The file \(path) is damaged: 'segue verify --data-dir \(config.dataDir)' lists what it finds; "
            + "restore a backup (docs/operations.md, \"Backup\")."
    }

    /// What `--check-config` learns of the store, read only (a running segued may hold the log):
    /// for PostgreSQL, the sentence to print; and a frame rate the log was not started at.
    struct Check {
        var summary: String?
        /// What the start would warn of.
        var warnings: [String] = []
        var frameRateMismatch: FrameRateMismatch?
    }

    /// `--check-config`: connects to PostgreSQL as the daemon would and reads the schema version,
    /// then reads an existing log's first event (a navigator's creation, which records the frame
    /// rate the log was started at: a start at another is refused). Throws what a start would fail
    /// on; never waits.
    static func check(_ config: DaemonConfig) throws -> Check {
        var check = Check()
        let first: EventRecord?
        switch config.store {
        case .sqlite:
            let path = (config.dataDir as NSString).appendingPathComponent("segue.db")
            do throws(StoreError) {
                let log = FileManager.default.fileExists(atPath: path) ? try EventLog(path: path) : nil
                if let log, log.schemaVersion < Schema.currentVersion {
                    check.summary =
                        "SQLite at \(path): schema version \(log.schemaVersion); segued migrates it to "
                        + "\(Schema.currentVersion) at its next start (in place, in milliseconds), after which an older "
                        + "segued refuses the file: copy the data dir first to keep a way back"
                }
                first = try log?.firstEvent()
                // The start reads the log's end too: a damaged last page fails there, as here.
                _ = try log?.lastEvent()
            } catch {
                // Said of the file, where the data dir (not a `store` key) chose it.
                var named = error
                named.message = "SQLite at \(path): \(error.message)"
                throw named
            }
        case .postgres(let conninfo):
            let settings = try ConnectionSettings(conninfo: conninfo)
            let schema = try PostgresStoreCheck(settings: settings, shards: config.cluster?.shards)
            check.summary = "PostgreSQL at \(settings.redacted): \(schema.summary)"
            check.warnings = schema.warnings
            first = schema.schemaVersion > 0 ? try PostgresEventLog(conninfo: conninfo).firstEvent() : nil
        }
        if let first, first.type == "navigator.created", let rate = first.data["frameRate"]?.int64Value,
            rate != config.frameRate
        {
            check.frameRateMismatch = FrameRateMismatch(
                logRate: Int(rate), navigator: first.navigator, configuredRate: config.frameRate)
        }
        return check
    }
}

extension Engine {
    /// An engine on the SQLite log in `options.dataDirectory` (tests and tools that need no other store).
    package convenience init(options: EngineOptions, logger: Logger = .discarding) throws {
        try self.init(options: options, store: StoreOpening.sqlite(options: options, logger: logger), logger: logger)
    }
}

/// The engine once the store is open, for the signal handler that runs from before: SIGTERM while
/// segued still waits for its database ends the wait instead of being lost.
final class StartingEngine: @unchecked Sendable {
    private let lock = NSLock()
    private var engine: Engine?
    private var reloader: Reloader?
    private var stopped = false

    /// Whether a stop was asked for (so the store wait gives up).
    var stopRequested: Bool { lock.withLock { stopped } }

    func started(_ engine: Engine, reloader: Reloader) {
        let stopNow = lock.withLock {
            self.engine = engine
            self.reloader = reloader
            return stopped
        }
        if stopNow { engine.stop() }
    }

    func stop() {
        let engine = lock.withLock {
            stopped = true
            return self.engine
        }
        engine?.stop()
    }

    /// The reloader, once the engine runs; nil during start-up.
    var runningReloader: Reloader? { lock.withLock { reloader } }
}
