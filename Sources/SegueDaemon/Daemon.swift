import Foundation
import SegueCore
import SegueStore
import SegueWire
import Synchronization

/// `segued` as a library: parses the command line and config, runs the engine under systemd's
/// notify protocol, and turns signals into a graceful stop or a reload. The executable only calls
/// `Daemon.main`.
package enum Daemon {
    /// Runs the daemon and returns the process exit code (0, 64 usage, 78 config, 1 failure).
    package static func main(arguments: [String], environment: [String: String]) -> Int32 {
        StandardDescriptors.holdClosedOnes()
        // Before any thread exists, so every thread inherits the mask and only the watcher reads them.
        SignalWatcher.blockInProcess()
        let invocation: DaemonInvocation
        do {
            invocation = try DaemonConfig.parse(arguments: arguments, environment: environment)
        } catch {
            // A bad config file is why the service did not start: a critical record, as the engine's own
            // config errors are, which journald files under its priority. --check-config and mistakes on the
            // command line answer the person typing.
            if error.kind == .config, !arguments.contains("--check-config") {
                Logger(label: "segued").critical(error.description)
            } else {
                FileHandle.standardError.write(Data(error.diagnostic.utf8))
            }
            return error.exitCode
        }
        switch invocation {
        case .help(let text):
            print(text)
            return 0
        case .version:
            print("segued \(Engine.version) (libzmq \(ZMQ.version))")
            return 0
        case .checkConfig(let config):
            do {
                _ = try options(from: config)
                if config.store == .sqlite, let problem = DataDirectoryError.accessProblem(config.dataDir) {
                    throw LateConfigError(dataDir: problem, in: config)
                }
            } catch {
                FileHandle.standardError.write(Data("segued: \(error)\n".utf8))
                return 78
            }
            var storeWarnings: [String] = []
            do {
                let check = try StoreOpening.check(config)
                storeWarnings = check.warnings
                if let store = check.summary {
                    FileHandle.standardError.write(Data("segued: store: \(store)\n".utf8))
                }
                if let mismatch = check.frameRateMismatch {
                    let error = LateConfigError(frameRate: mismatch, in: config)
                    FileHandle.standardError.write(Data("segued: \(error)\n".utf8))
                    return 78
                }
            } catch {
                let reason =
                    (error as? StoreError).map { $0.message + ($0.sqlState.map { " (SQLSTATE \($0))" } ?? "") }
                    ?? "\(error)"
                let key =
                    config.store == .sqlite
                    ? config.origin(of: "dataDir", flag: "--data-dir") : config.origin(of: "store", flag: "--store-url")
                FileHandle.standardError.write(
                    Data("segued: store error at \(key): \(reason)\(StoreOpening.damageAdvice(error, config))\n".utf8))
                return 78
            }
            print(config.json.prettyPrinted())
            for warning in config.warnings + storeWarnings {
                FileHandle.standardError.write(Data("segued: warning: \(warning)\n".utf8))
            }
            return 0
        case .run(let config):
            // Before any thread of the engine's allocates.
            HeapTrim.fixThresholds(environment: environment)
            return run(config)
        }
    }

    /// A config problem found after parsing (the engine's own validation), worded as the parser's
    /// (`ConfigError`): "config error in FILE at PATH: what", the file named when the path is in it.
    struct LateConfigError: Error, CustomStringConvertible {
        let error: ConfigError
        var description: String { error.description }

        /// `location`: a JSON path (`$.cluster`), or the option that set the value (`--data-dir`).
        init(at location: String, _ message: String, in config: DaemonConfig) {
            var error = ConfigError(.config, at: location, message)
            if location.hasPrefix("$") { error.file = config.configFile }
            self.error = error
        }

        /// A problem with the data dir, at the option or key that set it.
        init(dataDir message: String, in config: DaemonConfig) {
            self.init(
                at: config.origin(of: "dataDir", flag: "--data-dir"), message, in: config)
        }

        /// A log started at another frame rate, at the option or key that set the daemon's.
        init(frameRate mismatch: FrameRateMismatch, in config: DaemonConfig) {
            self.init(
                at: config.origin(of: "frameRate", flag: "--frame-rate"), "\(mismatch)",
                in: config)
        }

        /// The core's "PATH says what" as the config parser words it. The core words its checks for requests, as sentences; the parser's form has no full stop,
        /// and names an unknown key at its own path ("at $.animators[0].zzz: unknown key; expected
        /// one of …"), as it does everywhere else in the file.
        init(animators problem: CoreError, in config: DaemonConfig) {
            var message = problem.message
            if message.hasSuffix(".") { message.removeLast() }
            guard message.hasPrefix("$."), let space = message.firstIndex(of: " ") else {
                self.init(at: "$.animators", message, in: config)
                return
            }
            let path = String(message[..<space])
            let rest = message[message.index(after: space)...]
            let unknown = #/^has unknown key "(?<key>[^"]*)"; allowed keys are (?<known>.*)$/#
            if let match = rest.wholeMatch(of: unknown) {
                self.init(
                    at: ConfigPath.appending(String(match.key), to: path),
                    "unknown key; expected one of \(match.known)",
                    in: config)
            } else {
                self.init(at: path, String(rest), in: config)
            }
        }
    }

    /// The engine's options from a validated config.
    static func options(from config: DaemonConfig) throws -> EngineOptions {
        // A file where the data dir should be fails later as a lock file it cannot open: said here,
        // by `--check-config` too, as the mistake it is.
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: config.dataDir, isDirectory: &isDirectory), !isDirectory.boolValue {
            throw LateConfigError(
                dataDir: "\(config.dataDir) is a file, not a directory; give the directory segued keeps its files "
                    + "in (created if missing)", in: config)
        }
        var o = EngineOptions(
            dataDirectory: config.dataDir, commandEndpoints: config.command.map(\.description),
            publishEndpoints: config.publish.map(\.description))
        o.framesEndpoints = config.publishFrames.map(\.description)
        o.frameRate = config.frameRate
        o.durability = config.durability == .full ? .full : .relaxed
        o.heartbeatInterval = config.heartbeatInterval
        o.presentationDelay = config.presentationDelayDuration
        o.checkpointEvery = config.snapshotEvery
        o.maxMessageBytes = config.limits.maxMessageBytes
        o.publishHighWaterMark = config.limits.publishHighWaterMark
        o.decoderLimits.maxParamsBytes = config.limits.maxParamsBytes
        o.maxNavigators = config.limits.maxNavigators
        o.maxQueue = config.limits.maxQueue
        o.maxStackDepth = config.limits.maxStackDepth
        o.defaultInteractionTimeout = config.limits.interactionTimeoutSeconds
        o.commitOutcomeCanBeLost = config.store != .sqlite
        if let cluster = config.cluster {
            guard config.store != .sqlite else {
                throw LateConfigError(
                    at: "$.cluster",
                    "several daemons share a PostgreSQL log only; set store kind \"postgres\" (or --store-url), "
                        + "or remove cluster", in: config)
            }
            // `moved` replies send clients to the advertised endpoint, by default the first command
            // endpoint as bound: one on every interface (0.0.0.0) reaches nobody on another host.
            if cluster.advertise == nil, let first = config.command.first,
                let host = first.tcpHost, ["*", "0.0.0.0", "::"].contains(host)
            {
                throw LateConfigError(
                    at: "$.cluster.advertise",
                    "is required when the first command endpoint (\(first)) binds every interface: moved replies "
                        + "send clients there; give the address they reach this daemon at, e.g. "
                        + "\"tcp://10.0.0.5:\(first.address.split(separator: ":").last ?? "7400")\"", in: config)
            }
            o.shards = ShardMap(count: cluster.shards)
            o.advertise = cluster.advertise
        }
        if let rules = config.animators {
            // Held to what a request's animators must pass (rule routes are route names, keyframes in
            // range): the config is new input, not a stored event an earlier build accepted.
            let parsed: AnimatorRules
            do {
                parsed = try AnimatorRules(json: rules, path: "$.animators")
            } catch {
                throw LateConfigError(animators: error, in: config)
            }
            if let problem = parsed.requestProblem(path: "$.animators") {
                throw LateConfigError(animators: problem, in: config)
            }
            o.defaultAnimators = parsed
        }
        if let curve = config.security?.curve {
            var clients: [String: ClientRole] = [:]
            for client in curve.clients {
                clients[client.publicKey.z85] = client.role == .controller ? .controller : .observer
            }
            o.security = SecurityOptions(serverSecretKey: curve.serverSecretKey.z85, clients: clients)
        }
        return o
    }

    static func run(_ config: DaemonConfig) -> Int32 {
        let logger = Logger(label: "segued", threshold: LogThreshold(config.logLevel))
        let options: EngineOptions
        do {
            options = try self.options(from: config)
        } catch {
            logger.critical("\(error)")
            return 78
        }
        for warning in config.warnings { logger.warning(warning) }
        let notifier = SystemdNotifier()
        let cleanup = FailedStartCleanup(dataDirectory: config.dataDir)
        let starting = StartingEngine()
        let watcher = SignalWatcher()
        do {
            try watcher.start { signal in
                switch signal {
                case .terminate, .interrupt:
                    logger.notice("Received \(signal); finishing the group commit and stopping.")
                    _ = notifier.stopping(status: "Stopping")
                    starting.stop()
                case .hangup:
                    guard let reloader = starting.runningReloader else {
                        return logger.notice("SIGHUP during start-up: nothing to reload yet.")
                    }
                    reloader.reload()
                }
            }
        } catch {
            logger.critical("Could not watch signals: \(error)")
            return 1
        }
        defer { watcher.stop() }
        let engine: Engine
        do {
            let store = try StoreOpening.open(
                config.store, options: options, logger: logger, status: { _ = notifier.status($0) },
                extendStart: { notifier.extendStartTimeout(by: $0) }, keepWaiting: { !starting.stopRequested })
            engine = try Engine(
                options: options, store: store, logger: logger, keepFolding: { !starting.stopRequested })
        } catch {
            if let stopped = error as? EngineCore.FoldStopped {
                logger.notice(
                    "Stopped while folding the log at start-up, at seq \(stopped.seq) of \(stopped.lastSeq); the "
                        + "next start folds it again.")
                return 0
            }
            if starting.stopRequested {
                logger.notice("Stopped before the log was open.")
                return 0
            }
            if let mismatch = error as? FrameRateMismatch {
                logger.critical("\(LateConfigError(frameRate: mismatch, in: config))")
                return 78
            }
            // A StoreError's own text leads with its wire code (`bad_request: …`), which means
            // nothing to an operator reading why the daemon did not start: the message says it all.
            let reason =
                (error as? StoreError).map { $0.message + ($0.sqlState.map { " (SQLSTATE \($0))" } ?? "") }
                ?? "\(error)"
            let location = StoreOpening.location(config.store, dataDirectory: config.dataDir)
            logger.critical(
                "Could not open the log in \(location): \(reason)\(StoreOpening.damageAdvice(error, config))")
            // A log another process holds open is that process's, however new.
            if config.store == .sqlite, (error as? StoreError)?.kind != .inUse {
                cleanup.removeWhatThisStartCreated(store: nil)
            }
            return 1
        }
        let reloader = Reloader(config: config, engine: engine, logger: logger, notifier: notifier)
        starting.started(engine, reloader: reloader)
        installSupervision(engine, notifier: notifier, reloader: reloader)
        do {
            try engine.run {
                let endpoints = (engine.boundCommandEndpoints + engine.boundPublishEndpoints).joined(separator: " ")
                let batches = engine.boundFramesEndpoints
                let frames = batches.isEmpty ? "" : ", frame batches on \(batches.joined(separator: ", "))"
                logger.notice(
                    "Ready: commands on \(engine.boundCommandEndpoints.joined(separator: ", ")), publishing on \(engine.boundPublishEndpoints.joined(separator: ", "))\(frames), \(options.frameRate) Hz, durability \(options.durability.rawValue), log in \(StoreOpening.location(config.store, dataDirectory: config.dataDir))."
                )
                _ = notifier.ready(status: "Serving on \(endpoints)")
            }
        } catch {
            logger.critical("The daemon stopped on an error: \(error)")
            cleanup.removeWhatThisStartCreated(store: engine.store)
            return 1
        }
        if engine.stoppedMisconfigured {
            logger.critical("Stopped: this daemon's cluster.shards is not the one the log's other daemons use.")
            return 78
        }
        logger.notice("Stopped cleanly.")
        return 0
    }

    /// WATCHDOG=1 at half of WATCHDOG_USEC from the engine loop itself (a wedged loop stops pinging and
    /// systemd restarts it), and STATUS= with counts every few seconds, saying so while the last
    /// reload failed (`systemctl reload` returns before segued has read the file).
    static func installSupervision(_ engine: Engine, notifier: SystemdNotifier, reloader: Reloader) {
        guard notifier.isSupervised else { return }
        let period = notifier.watchdogInterval.map(\.inNanoseconds)
        var nextPing: Int64 = 0
        engine.wakeInterval = period.map { min($0, 5_000_000_000) } ?? 5_000_000_000
        var nextStatus: Int64 = 0
        engine.onLoop = { engine, now in
            if let period, now >= nextPing {
                _ = notifier.watchdog()
                nextPing = now + period
            }
            if now >= nextStatus {
                // The endpoints too: with a `*` port, the log's Ready line is otherwise the only place
                // that says which port was bound, and `systemctl status` shows only the latest STATUS=.
                let endpoints =
                    "commands on \(engine.boundCommandEndpoints.joined(separator: ", ")), publishing on "
                    + engine.boundPublishEndpoints.joined(separator: ", ")
                let reload = reloader.lastFailure.withLock { $0 }.map { "; the last reload failed: \($0)" } ?? ""
                _ = notifier.status(engine.statusLine + "; " + endpoints + reload)
                nextStatus = now + 5_000_000_000
            }
        }
    }
}

/// SIGHUP: reloads what can change live (log level, default animators, client keys) from the config
/// file, between RELOADING=1 and READY=1; anything else that changed is logged as needing a restart.
///
/// Each reload starts from the configuration running now, the start-up one with every earlier
/// reload applied: compared with the start-up file instead, a reload whose other changes need a
/// restart would hand the engine the start-up client list again, admitting a key an earlier reload
/// had revoked.
final class Reloader: Sendable {
    let running: Mutex<DaemonConfig>
    /// Why the last reload left the running configuration as it was; nil after one that applied.
    let lastFailure = Mutex<String?>(nil)
    let engine: Engine
    let logger: Logger
    let notifier: SystemdNotifier

    init(config: DaemonConfig, engine: Engine, logger: Logger, notifier: SystemdNotifier) {
        running = Mutex(config)
        self.engine = engine
        self.logger = logger
        self.notifier = notifier
    }

    func reload() {
        _ = notifier.reloading(status: "Reloading")
        var status = "Reloaded"
        defer { _ = notifier.ready(status: status) }
        let config = running.withLock { $0 }
        guard let file = config.configFile else {
            logger.notice("SIGHUP: no config file to reload (started without --config); nothing changed.")
            return
        }
        do {
            let reload = try config.reloadable(from: file)
            let options = try Daemon.options(from: reload.config)
            let rules = options.defaultAnimators
            engine.perform { $0.setDefaultAnimators(rules) }
            engine.setAdmittedClients(options.security?.clients ?? [:])
            running.withLock { $0 = reload.config }
            lastFailure.withLock { $0 = nil }
            var applied =
                reload.applied.isEmpty
                ? "Reloaded \(file): nothing that applies live has changed."
                : "Reloaded \(file): \(reload.applied.joined(separator: ", "))."
            if !reload.keptByCommandLine.isEmpty {
                applied +=
                    " Kept as the command line sets them (the file says otherwise): "
                    + "\(reload.keptByCommandLine.joined(separator: ", "))."
            }
            // Said whatever either level: an operator's reload confirms itself, a quieter one too.
            logger.logLevel = min(logger.logLevel, reload.config.logLevel, .notice)
            logger.notice(applied)
            logger.logLevel = reload.config.logLevel
            status = applied
            if !reload.needsRestart.isEmpty {
                var line =
                    "Changed in \(file) but only applied on restart: \(reload.needsRestart.joined(separator: ", "))."
                if let rate = reload.frameRateOnRestart, let refusal = Self.refusal(ofFrameRate: rate, config) {
                    line += " A restart with this file would be refused (exit 78): \(refusal)."
                }
                logger.warning(line)
            }
        } catch {
            logger.error("SIGHUP: \(file) was not reloaded, the running configuration stays: \(error)")
            lastFailure.withLock { $0 = "\(error)" }
            status = "Reload failed, the running configuration stays: \(error)"
        }
    }

    /// Why the log would refuse a restart at `rate` (`--check-config`'s look at the log's first
    /// event), or nil when it would not or the log cannot be read now.
    static func refusal(ofFrameRate rate: Int, _ config: DaemonConfig) -> FrameRateMismatch? {
        var probe = config
        probe.frameRate = rate
        // Only the rate is asked: a shard count the check also refuses would hide its answer.
        probe.cluster = nil
        return (try? StoreOpening.check(probe))?.frameRateMismatch
    }
}
