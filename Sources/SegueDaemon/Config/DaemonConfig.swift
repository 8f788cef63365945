import Foundation
import SegueCore

/// Everything `segued` needs to start, after the config file and the command line are merged.
///
/// Precedence: command-line flags, then the config file (`--config FILE`, else `$SEGUED_CONFIG`), then
/// the embedded defaults below, which are enough to run on a developer's machine with no file at all
/// (docs/operations.md, "Configuration", documents every key; keep the two in step).
package struct DaemonConfig: Sendable, Equatable {
    /// The config file this was read from, if any; SIGHUP rereads it.
    package var configFile: String?
    /// Where the event store lives. Relative paths are relative to the working directory.
    package var dataDir: String = "./.segue"
    /// Which database keeps the log: SQLite in `dataDir` (the default) or PostgreSQL.
    package var store: StoreConfig = .sqlite
    /// Endpoints the command (ROUTER) socket binds.
    package var command: [Endpoint] = [try! Endpoint(parsing: "tcp://127.0.0.1:7400")]
    /// Endpoints the publish (PUB) socket binds.
    package var publish: [Endpoint] = [try! Endpoint(parsing: "tcp://127.0.0.1:7401")]
    /// Endpoints the frames socket binds (one compact message of ticks a frame); none by default.
    package var publishFrames: [Endpoint] = []
    /// Frames per second of the frame clock (docs/design.md, "The frame clock"). Changing it on an existing data dir
    /// changes the frame numbers of new events only; recorded ones keep theirs.
    package var frameRate: Int = 60
    package var durability: Durability = .full
    package var logLevel: LogLevel = .info
    /// Seconds between `hb/` heartbeats.
    package var heartbeatSeconds: Double = 1
    /// Seconds from a frame's instant to its `presentAt`: frontends on slower links than this one
    /// still get each tick before they are to show it, so all show it at once.
    package var presentationDelay: Double = 0
    /// Events in the log (all navigators) between checkpoints: lower restarts faster, higher writes less.
    package var snapshotEvery: Int = 1000
    package var limits = Limits()
    /// CURVE security; `nil` means plaintext, acceptable on loopback and ipc only.
    package var security: SecurityConfig?
    /// Default animator rules, passed through for the engine to validate.
    package var animators: JSON?
    /// Several daemons on one PostgreSQL log, each leading some shards; nil: one daemon, all navigators.
    package var cluster: ClusterConfig?
    /// Keys set on the command line, which a SIGHUP reload must not override (only `logLevel` of
    /// the reloadable keys has a flag).
    var commandLineKeys: Set<String> = []

    /// Where an error says `key` was set: its `flag` when the command line set it, else its JSON path.
    func origin(of key: String, flag: String) -> String { commandLineKeys.contains(key) ? flag : "$.\(key)" }

    /// The embedded defaults.
    package init() {}

    package static let frameRateRange = 1...1000
    package static let heartbeatRange = 0.05...60.0
    package static let presentationDelayRange = 0.0...10.0
    package static let snapshotEveryRange = 1...1_000_000

    /// `durability`: what an `ok: true` reply promises about the events it reports (docs/reliability.md, "Durability").
    package enum Durability: String, Sendable, Equatable, CaseIterable {
        /// fsync once per group commit: acknowledged events survive power loss.
        case full
        /// Written to the WAL without waiting for fsync: survives a crash of segued, not of the machine.
        case relaxed
    }

    /// `limits`: bounds that keep one client or one navigator from exhausting the daemon.
    package struct Limits: Sendable, Equatable {
        /// Largest message accepted on the command socket (`ZMQ_MAXMSGSIZE`); larger ones drop the peer.
        package var maxMessageBytes: Int = 1_048_576
        /// Largest `params` object of one screen, serialized; must not exceed `maxMessageBytes`.
        package var maxParamsBytes: Int = 16_384
        /// Navigators that may be open at once; `create` beyond it fails with `too_large`.
        package var maxNavigators: Int = 100_000
        /// Commands one navigator may queue behind a transition with busy policy `queue`.
        package var maxQueue: Int = 64
        /// Screens on one navigator's stack plus modals.
        package var maxStackDepth: Int = 512
        /// Messages queued per subscriber before ZeroMQ drops its messages (`ZMQ_SNDHWM`), so a
        /// subscriber that never reads costs bounded memory and never blocks the daemon.
        package var publishHighWaterMark: Int = 100_000
        /// Seconds without an `update` after which an interactive transition is cancelled (`timeout`).
        package var interactionTimeoutSeconds: Double = 10

        package init() {}

        package static let maxMessageBytesRange = 1024...67_108_864
        package static let maxParamsBytesRange = 64...16_777_216
        package static let maxNavigatorsRange = 1...10_000_000
        package static let maxQueueRange = 1...10_000
        package static let maxStackDepthRange = 2...65_536
        package static let publishHighWaterMarkRange = 1...100_000_000
        package static let interactionTimeoutRange = 0.05...86_400.0

        package var interactionTimeout: Duration { .nanoseconds(Int64((interactionTimeoutSeconds * 1e9).rounded())) }
    }

    package var heartbeatInterval: Duration { .nanoseconds(Int64((heartbeatSeconds * 1e9).rounded())) }
    package var presentationDelayDuration: Duration { .nanoseconds(Int64((presentationDelay * 1e9).rounded())) }

    /// Things that are allowed but probably a mistake, one sentence each, for the daemon to log as
    /// warnings at start-up (and `--check-config` to print).
    package var warnings: [String] {
        var warnings: [String] = []
        if security == nil {
            for (socket, endpoints) in [("command", command), ("publish", publish), ("frames", publishFrames)] {
                let risk =
                    switch socket {
                    case "command": "send commands"
                    case "publish": "read every event"
                    default: "read every tick"
                    }
                for endpoint in endpoints where endpoint.isNonLoopbackTCP {
                    warnings.append(
                        "\(socket) endpoint \(endpoint) accepts connections from other hosts without CURVE; "
                            + "anyone who can reach it can \(risk). Bind to 127.0.0.1 or ipc, or configure security.curve."
                    )
                }
            }
        }
        if let curve = security?.curve, let warning = Self.secretKeyFileWarning(curve.serverSecretKeyFile) {
            warnings.append(warning)
        }
        return warnings
    }

    /// OpenSSH refuses a private key others can read; segued warns instead. Group read counts: the
    /// unit's group `segue` is the local clients', who must not hold the server's key.
    static func secretKeyFileWarning(_ path: String) -> String? {
        // stat(2), not FileManager's attributes, which describe a symbolic link itself (mode 777) and
        // not the key it points to (secret mounts and configuration tools link keys into place).
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        let mode = Int(info.st_mode) & 0o7777
        let risk: String
        if mode & 0o004 != 0 {
            risk = "can be read by every user, and whoever reads it can pose as this segued"
        } else if mode & 0o040 != 0 {
            let group = getgrgid(info.st_gid).map { String(cString: $0.pointee.gr_name) } ?? "\(info.st_gid)"
            risk = "can be read by group \(group), and any member of it can pose as this segued"
        } else if mode & 0o022 != 0 {
            risk = "can be replaced by users other than its owner, who could then pose as this segued"
        } else {
            return nil
        }
        return "security.curve.serverSecretKeyFile \(path) \(risk) (mode 0\(String(mode, radix: 8))). "
            + "Make it 0600, owned by the user segued runs as."
    }
}
