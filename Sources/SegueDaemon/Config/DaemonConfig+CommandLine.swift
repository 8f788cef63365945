import SegueCommandLine
import SegueCore

/// `segued`'s command line (docs/operations.md, "Command line"; clients and scripts depend on it): parsing argv into a
/// `DaemonInvocation`.
extension DaemonConfig {
    /// The environment variable naming the config file when `--config` is not given.
    package static let configEnvironmentVariable = "SEGUED_CONFIG"

    package static let usage = """
        USAGE: segued [--config FILE] [--data-dir DIR] [--store-url URL]
                      [--command ENDPOINT]... [--publish ENDPOINT]... [--publish-frames ENDPOINT]...
                      [--frame-rate HZ] [--durability full|relaxed] [--log-level LEVEL]
                      [--check-config] [--help] [--version]

        Coordinates navigation stacks for many frontends; see docs/operations.md.

        OPTIONS:
          --config FILE          JSON config file (default: $SEGUED_CONFIG, else built-in defaults)
          --data-dir DIR         where the event store lives (default: ./.segue)
          --store-url URL        keep the log in PostgreSQL at this postgresql:// URL instead (no password:
                                 libpq reads it from PGPASSFILE or ~/.pgpass)
          --command ENDPOINT     bind the command socket here; repeat for several (default: tcp://127.0.0.1:7400)
          --publish ENDPOINT     bind the publish socket here; repeat for several (default: tcp://127.0.0.1:7401)
          --publish-frames ENDPOINT
                                 also publish each frame's ticks as one compact message here (docs/protocol.md,
                                 "Frame batches"); repeat for several (default: none)
          --frame-rate HZ        frames per second, 1 to 1000 (default: 60)
          --durability MODE      full (fsync per group commit) or relaxed (default: full)
          --log-level LEVEL      trace, debug, info, notice, warning, error or critical (default: info)
          --check-config         validate the config (connecting to PostgreSQL and checking its schema
                                 version), print the effective config as JSON and exit
          -h, --help             show this help and exit
          --version              show the version and exit

        Options override the config file. Endpoints: tcp://HOST:PORT, ipc://PATH, inproc://NAME.
        Exit status: 0 success, 1 could not start (store, endpoint) or stopped on an error, 64 command-line error,
        78 config error.

        """

    /// Interprets `segued`'s arguments (without the program name) and, unless help or the version was
    /// asked for, reads the config file and applies the flags over it.
    ///
    /// Options are read left to right: the first error wins, and `--help` or `--version` wins over
    /// anything after it. Single-valued options may appear once; `--command`, `--publish` and
    /// `--publish-frames` may repeat, and together replace the file's list.
    ///
    /// - Throws: `ConfigError` of kind `usage` (exit 64) for the command line, `config` (exit 78) for
    ///   the file.
    package static func parse(arguments: [String], environment: [String: String]) throws(ConfigError)
        -> DaemonInvocation
    {
        var flags = Flags()
        // The package's one tokenizer (`SegueCommandLine`); the messages are segued's own, lower case
        // as its operators' scripts and docs/operations.md quote them.
        var tokens = ArgumentTokenizer.tokenize(arguments)[...]
        while let token = tokens.popFirst() {
            switch token {
            case .short("h"):
                return .help(usage)
            case .short(let letter):
                throw .usage("unknown option '-\(letter)'")
            case .terminator:
                continue
            case .value(let text):
                throw .usage("unexpected argument '\(text)'; segued takes only options")
            case .long(let name, let inline):
                guard let option = Option(rawValue: name) else { throw .usage("unknown option '--\(name)'") }
                guard option.takesValue else {
                    if inline != nil { throw .usage("option '--\(name)' takes no value") }
                    switch option {
                    case .help: return .help(usage)
                    case .version: return .version
                    default:
                        guard !flags.checkConfig else {
                            throw .usage("option '--check-config' was given more than once")
                        }
                        flags.checkConfig = true
                    }
                    continue
                }
                let value: String
                if let inline {
                    value = inline
                } else if case .value(let next)? = tokens.first {
                    value = next
                    tokens.removeFirst()
                } else {
                    throw .usage("option '--\(name)' needs a value")
                }
                try flags.set(option, value)
            }
        }

        let file = flags.configFile ?? environment[configEnvironmentVariable].flatMap { $0.isEmpty ? nil : $0 }
        // An endpoint list given on the command line replaces the file's: a clash in the file that it
        // resolves is none, and one it makes is found on the lists that will be bound (`apply`).
        let replacesEndpoints = !(flags.command.isEmpty && flags.publish.isEmpty && flags.publishFrames.isEmpty)
        var config = DaemonConfig()
        if let file {
            do throws(ConfigError) {
                config = try DaemonConfig(file: file, checkingEndpoints: !replacesEndpoints)
            } catch {
                // A file nobody named on this command line: say where its name came from.
                guard flags.configFile == nil, error.location == nil else { throw error }
                throw ConfigError(.config, "\(error.message) (the file \(configEnvironmentVariable) names)")
            }
        }
        try flags.apply(to: &config)
        if case .postgres = config.store, let problem = passwordInEnvironment(environment) {
            let location = config.origin(of: "store", flag: "--store-url")
            var error = ConfigError(.config, at: location, problem)
            if location.hasPrefix("$") { error.file = config.configFile }
            throw error
        }
        return flags.checkConfig ? .checkConfig(config) : .run(config)
    }

    /// libpq takes a password from `PGPASSWORD` too, which Segue refuses as it refuses one in the
    /// conninfo: a process's environment is readable by its user's other processes, and `systemctl
    /// show` prints a unit's `Environment=`. The password goes in a password file.
    static func passwordInEnvironment(_ environment: [String: String]) -> String? {
        guard let value = environment["PGPASSWORD"], !value.isEmpty else { return nil }
        return "PGPASSWORD is set in segued's environment: Segue takes passwords only from a password file, since "
            + "an environment is readable by the user's other processes (and systemctl show prints a unit's). Put "
            + "the password in a file named by passfile= or PGPASSFILE (mode 0600, one line "
            + "host:port:dbname:user:password) and unset PGPASSWORD."
    }

    /// The long options, by name without dashes.
    enum Option: String {
        case config
        case dataDir = "data-dir"
        case storeURL = "store-url"
        case command, publish
        case publishFrames = "publish-frames"
        case frameRate = "frame-rate"
        case durability
        case logLevel = "log-level"
        case checkConfig = "check-config"
        case help, version

        var takesValue: Bool {
            switch self {
            case .checkConfig, .help, .version: false
            default: true
            }
        }
    }

    /// Flag values as given, checked as they are read, applied over the file's values at the end.
    private struct Flags {
        var configFile: String?
        var dataDir: String?
        var store: StoreConfig?
        var command: [Endpoint] = []
        var publish: [Endpoint] = []
        var publishFrames: [Endpoint] = []
        var frameRate: Int?
        var durability: Durability?
        var logLevel: LogLevel?
        var checkConfig = false
        var seen: Set<String> = []

        mutating func set(_ option: Option, _ value: String) throws(ConfigError) {
            let name = "--\(option.rawValue)"
            if ![.command, .publish, .publishFrames].contains(option) {
                guard seen.insert(option.rawValue).inserted else {
                    throw .usage("option '\(name)' was given more than once")
                }
            }
            func invalid(_ reason: String) -> ConfigError {
                ConfigError(.usage, at: name, "invalid value '\(value)' for '\(name)': \(reason)")
            }
            switch option {
            case .config, .dataDir:
                guard !value.isEmpty else { throw invalid("must be a non-empty path") }
                if option == .config { configFile = value } else { dataDir = value }
            case .storeURL:
                store = try StoreConfig.read(url: value)
            case .command, .publish, .publishFrames:
                let endpoint: Endpoint
                do throws(EndpointError) { endpoint = try Endpoint(binding: value) } catch {
                    throw invalid(error.reason)
                }
                switch option {
                case .command: command.append(endpoint)
                case .publish: publish.append(endpoint)
                default: publishFrames.append(endpoint)
                }
            case .frameRate:
                guard let rate = Int(value), DaemonConfig.frameRateRange.contains(rate), value.first != "+" else {
                    let range = DaemonConfig.frameRateRange
                    throw invalid("must be an integer from \(range.lowerBound) to \(range.upperBound)")
                }
                frameRate = rate
            case .durability:
                guard let mode = Durability(rawValue: value) else {
                    throw invalid("must be " + ConfigReader.oneOf(Durability.allCases.map(\.rawValue)))
                }
                durability = mode
            case .logLevel:
                guard let level = LogLevel(rawValue: value) else {
                    throw invalid("must be " + ConfigReader.oneOf(LogLevel.names))
                }
                logLevel = level
            case .checkConfig, .help, .version:
                preconditionFailure("\(name) takes no value")
            }
        }

        func apply(to config: inout DaemonConfig) throws(ConfigError) {
            if let dataDir {
                config.dataDir = dataDir
                config.commandLineKeys.insert("dataDir")
            }
            if let store {
                config.store = store
                config.commandLineKeys.insert("store")
            }
            if !command.isEmpty {
                config.command = command
                config.commandLineKeys.insert("command")
            }
            if !publish.isEmpty {
                config.publish = publish
                config.commandLineKeys.insert("publish")
            }
            if !publishFrames.isEmpty {
                config.publishFrames = publishFrames
                config.commandLineKeys.insert("publishFrames")
            }
            if let frameRate {
                config.frameRate = frameRate
                config.commandLineKeys.insert("frameRate")
            }
            if let durability {
                config.durability = durability
                config.commandLineKeys.insert("durability")
            }
            if let logLevel {
                config.logLevel = logLevel
                config.commandLineKeys.insert("logLevel")
            }
            // `tcp://HOST:*` asks the kernel for a free port each time it is bound, so the same text
            // twice is two endpoints, not one given twice.
            func isFixed(_ endpoint: Endpoint) -> Bool { !endpoint.description.hasSuffix(":*") }
            for (name, list) in [("--command", command), ("--publish", publish), ("--publish-frames", publishFrames)] {
                for (index, endpoint) in list.enumerated()
                where isFixed(endpoint) && list[..<index].contains(where: endpoint.repeats) {
                    throw ConfigError(.usage, at: name, "endpoint '\(endpoint)' was given twice to '\(name)'")
                }
            }
            // Where each list came from, for a clash between a flag and the file.
            func source(_ flag: [Endpoint], _ key: String) -> String {
                if !flag.isEmpty { return "--\(key == "publishFrames" ? "publish-frames" : key)" }
                return config.configFile.map { "\($0)'s $.\(key)" } ?? "the default"
            }
            func clash(
                _ endpoint: Endpoint, _ what: String, _ from: String, _ other: Endpoint, _ otherWhat: String,
                _ otherFrom: String
            ) -> ConfigError {
                ConfigError(
                    .usage,
                    other == endpoint
                        ? "endpoint '\(endpoint)' is both a \(what) endpoint (\(from)) and a \(otherWhat) endpoint (\(otherFrom))"
                        : "\(what) endpoint '\(endpoint)' (\(from)) binds what \(otherWhat) endpoint '\(other)' (\(otherFrom)) "
                            + "binds")
            }
            for endpoint in config.publish {
                guard let other = config.command.first(where: endpoint.clashes) else { continue }
                throw clash(
                    endpoint, "publish", source(publish, "publish"), other, "command", source(command, "command"))
            }
            for endpoint in config.publishFrames {
                let found =
                    config.command.first(where: endpoint.clashes).map { ("command", command, $0) }
                    ?? config.publish.first(where: endpoint.clashes).map { ("publish", publish, $0) }
                guard let (otherWhat, list, other) = found else { continue }
                throw clash(
                    endpoint, "frames", source(publishFrames, "publishFrames"), other, otherWhat,
                    source(list, otherWhat))
            }
        }
    }
}
