import SegueCore
import Testing

@testable import SegueDaemon

@Suite struct ConfigCommandLineTests {
    private func parse(_ arguments: [String], environment: [String: String] = [:]) throws(ConfigError)
        -> DaemonInvocation
    {
        try DaemonConfig.parse(arguments: arguments, environment: environment)
    }

    private func runConfig(_ arguments: [String], environment: [String: String] = [:]) throws -> DaemonConfig {
        guard case .run(let config) = try parse(arguments, environment: environment) else {
            Issue.record("expected .run for \(arguments)")
            return DaemonConfig()
        }
        return config
    }

    @Test func noArgumentsRunsOnTheEmbeddedDefaults() throws {
        #expect(try parse([]) == .run(DaemonConfig()))
    }

    @Test func flagsSetTheirValuesInBothSpellings() throws {
        let config = try runConfig([
            "--data-dir", "/tmp/segue", "--command=ipc:///tmp/c.sock", "--command", "tcp://127.0.0.1:9400",
            "--publish", "inproc://pub", "--frame-rate=120", "--durability", "relaxed", "--log-level=trace",
        ])
        #expect(config.dataDir == "/tmp/segue")
        #expect(config.command.map(\.description) == ["ipc:///tmp/c.sock", "tcp://127.0.0.1:9400"])
        #expect(config.publish.map(\.description) == ["inproc://pub"])
        #expect(config.frameRate == 120)
        #expect(config.durability == .relaxed)
        #expect(config.logLevel == .trace)
        #expect(config.configFile == nil)
    }

    @Test func flagsOverrideTheFileAndTheFileOverridesDefaults() throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write(
            "segued.json", #"{"frameRate": 30, "command": ["tcp://127.0.0.1:1"], "snapshotEvery": 7}"#)
        let config = try runConfig(["--config", file, "--frame-rate", "90"])
        #expect(config.frameRate == 90)
        #expect(config.command.map(\.description) == ["tcp://127.0.0.1:1"])
        #expect(config.snapshotEvery == 7)
        #expect(config.configFile == file)

        let fromEnvironment = try runConfig([], environment: ["SEGUED_CONFIG": file])
        #expect(fromEnvironment.frameRate == 30)
        let missing = directory.path + "/none.json"
        #expect(throws: ConfigError(.config, "cannot open \(missing): No such file or directory (errno 2)")) {
            try parse(["--config", missing], environment: ["SEGUED_CONFIG": file])
        }
    }

    /// `store` in the file, `--store-url` over it; the printed config reads back the same.
    @Test func theStoreComesFromTheFileOrTheStoreURL() throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write(
            "segued.json", #"{"store": {"kind": "postgres", "conninfo": "host=/run/postgresql dbname=segue"}}"#)
        let fromFile = try runConfig(["--config", file])
        #expect(fromFile.store == .postgres(conninfo: "host=/run/postgresql dbname=segue"))
        #expect(try DaemonConfig(json: fromFile.json).store == fromFile.store)
        let url = "postgresql://segue@db.example/segue?sslmode=require"
        let overridden = try runConfig(["--config", file, "--store-url", url])
        #expect(overridden.store == .postgres(conninfo: url))
        #expect(overridden.store.redactedConninfo == "user=segue dbname=segue host=db.example sslmode=require")
        #expect(try runConfig([]).store == .sqlite)
        // A URL's scheme is case-insensitive, as segue reads it; libpq itself knows only lower case.
        for scheme in ["POSTGRESQL", "Postgres"] {
            let upper = try runConfig(["--store-url", "\(scheme)://segue@db.example/segue"])
            #expect(upper.store.redactedConninfo == "user=segue dbname=segue host=db.example")
        }
    }

    @Test func checkConfigHelpAndVersion() throws {
        #expect(try parse(["--check-config"]) == .checkConfig(DaemonConfig()))
        #expect(try parse(["--help"]) == .help(DaemonConfig.usage))
        #expect(try parse(["-h"]) == .help(DaemonConfig.usage))
        #expect(try parse(["--version"]) == .version)
        // Help wins over anything after it, including a missing config file.
        #expect(try parse(["--help", "--config", "/nonexistent.json"]) == .help(DaemonConfig.usage))
        #expect(try parse(["--frame-rate", "30", "--version", "--bogus"]) == .version)
        #expect(DaemonConfig.usage.split(separator: "\n").allSatisfy { $0.count <= 120 })
    }

    static let usageErrors: [([String], String)] = [
        (["--frobnicate"], "unknown option '--frobnicate'"),
        (["-x"], "unknown option '-x'"),
        (["-xh"], "unknown option '-x'"),
        (["run"], "unexpected argument 'run'; segued takes only options"),
        (["--", "--help"], "unexpected argument '--help'; segued takes only options"),
        (["--config"], "option '--config' needs a value"),
        (["--data-dir", "--frame-rate", "30"], "option '--data-dir' needs a value"),
        (["--command", "--", "tcp://127.0.0.1:1"], "option '--command' needs a value"),
        (["--check-config=yes"], "option '--check-config' takes no value"),
        (["--help=1"], "option '--help' takes no value"),
        (["--frame-rate", "30", "--frame-rate", "60"], "option '--frame-rate' was given more than once"),
        (["--frame-rate", "fast"], "invalid value 'fast' for '--frame-rate': must be an integer from 1 to 1000"),
        (["--frame-rate=0"], "invalid value '0' for '--frame-rate': must be an integer from 1 to 1000"),
        (["--frame-rate=+60"], "invalid value '+60' for '--frame-rate': must be an integer from 1 to 1000"),
        (["--durability", "fast"], #"invalid value 'fast' for '--durability': must be "full" or "relaxed""#),
        (
            ["--log-level", "loud"],
            #"invalid value 'loud' for '--log-level': must be one of "trace", "debug", "info", "notice", "warning", "error", "critical""#
        ),
        (["--data-dir="], "invalid value '' for '--data-dir': must be a non-empty path"),
        (["--config="], "invalid value '' for '--config': must be a non-empty path"),
        (
            ["--store-url", "/var/lib/segue"],
            "invalid value for '--store-url': must be a postgresql:// URL (an SQLite log is chosen with --data-dir)"
        ),
        (
            ["--store-url", "postgresql://segue:hunter2@db/segue"],
            "invalid value for '--store-url': The PostgreSQL connection string user=segue password=<redacted> "
                + "dbname=segue host=db sets a password: Segue takes passwords only from a password file. Remove it "
                + "and put it in a file named by passfile= (or PGPASSFILE), mode 0600, one line "
                + "host:port:dbname:user:password."
        ),
        (
            ["--command", "tcp://127.0.0.1"],
            "invalid value 'tcp://127.0.0.1' for '--command': 'tcp://127.0.0.1' needs a port: tcp://host:port"
        ),
        (
            ["--publish", "inproc://a", "--publish", "inproc://a"],
            "endpoint 'inproc://a' was given twice to '--publish'"
        ),
        (
            ["--publish", "tcp://127.0.0.1:7400"],
            "endpoint 'tcp://127.0.0.1:7400' is both a publish endpoint (--publish) and a command endpoint "
                + "(the default)"
        ),
        (
            ["--publish-frames", "tcp://127.0.0.1:7401"],
            "endpoint 'tcp://127.0.0.1:7401' is both a frames endpoint (--publish-frames) and a publish endpoint "
                + "(the default)"
        ),
        (["--check-config", "--check-config"], "option '--check-config' was given more than once"),
        // The same socket written another way: a port with a leading zero, every interface.
        (
            ["--command", "tcp://127.0.0.1:7400", "--publish", "tcp://127.0.0.1:07400"],
            "publish endpoint 'tcp://127.0.0.1:07400' (--publish) binds what command endpoint "
                + "'tcp://127.0.0.1:7400' (--command) binds"
        ),
        (
            ["--publish-frames", "tcp://*:7401"],
            "frames endpoint 'tcp://*:7401' (--publish-frames) binds what publish endpoint 'tcp://127.0.0.1:7401' "
                + "(the default) binds"
        ),
        (
            ["--command", "tcp://::1:7400"],
            "invalid value 'tcp://::1:7400' for '--command': 'tcp://::1:7400' has host '::1'; write an IPv6 address "
                + "in brackets: tcp://[::1]:7400"
        ),
        (
            ["--publish-frames", "inproc://f", "--publish-frames", "inproc://f"],
            "endpoint 'inproc://f' was given twice to '--publish-frames'"
        ),
        (
            ["--publish-frames", "udp://x:1"],
            "invalid value 'udp://x:1' for '--publish-frames': 'udp://x:1' has transport 'udp'; segued binds tcp, ipc or inproc"
        ),
    ]

    @Test(arguments: usageErrors)
    func usageErrorsHaveExactMessagesAndExit64(arguments: [String], message: String) {
        do {
            let invocation = try parse(arguments)
            Issue.record("\(arguments) parsed as \(invocation)")
        } catch {
            #expect(error.description == message)
            #expect(error.kind == .usage)
            #expect(error.exitCode == 64)
            #expect(error.diagnostic == "segued: \(message)\nRun 'segued --help' for usage.\n")
        }
    }

    /// A list on the command line replaces the file's: a clash in the file it resolves is none, and
    /// one between the two names where each side came from.
    @Test func endpointFlagsReplaceTheFilesListsBeforeTheClashCheck() throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write(
            "segued.json", #"{"command": ["tcp://127.0.0.1:17400"], "publish": ["tcp://127.0.0.1:17400"]}"#)
        let fixed = try runConfig(["--config", file, "--publish", "tcp://127.0.0.1:17402"])
        #expect(fixed.publish.map(\.description) == ["tcp://127.0.0.1:17402"])
        #expect(throws: ConfigError.self) { try parse(["--config", file]) }
        let clash = try directory.write("clash.json", #"{"publish": ["tcp://127.0.0.1:17403"]}"#)
        #expect(
            throws: ConfigError(
                .usage,
                "endpoint 'tcp://127.0.0.1:17403' is both a publish endpoint (\(clash)'s $.publish) and a command "
                    + "endpoint (--command)")
        ) { try parse(["--config", clash, "--command", "tcp://127.0.0.1:17403"]) }
    }

    /// A file named by SEGUED_CONFIG that cannot be read says where its name came from.
    @Test func aMissingFileFromTheEnvironmentNamesTheVariable() {
        #expect(
            throws: ConfigError(
                .config,
                "cannot open /nonexistent/segued.json: No such file or directory (errno 2) (the file "
                    + "SEGUED_CONFIG names)")
        ) { try parse([], environment: ["SEGUED_CONFIG": "/nonexistent/segued.json"]) }
    }

    /// A file where the data dir should be is said as such before anything starts (a start would
    /// fail on its lock file), by --check-config too.
    @Test func aDataDirThatIsAFileIsAConfigError() throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write("not-a-dir", "x")
        let config = try runConfig(["--data-dir", file])
        #expect(throws: (any Error).self) { try Daemon.options(from: config) }
        do { _ = try Daemon.options(from: config) } catch {
            #expect(
                "\(error)"
                    == "config error at --data-dir: \(file) is a file, not a directory; give the directory segued keeps "
                    + "its files in (created if missing)")
        }
    }

    /// `tcp://HOST:*` is a free port chosen at each bind: the same text twice is two endpoints.
    @Test func wildcardPortsAreNotTheSameEndpoint() throws {
        let config = try runConfig([
            "--command", "tcp://127.0.0.1:*", "--command", "tcp://127.0.0.1:*", "--publish", "tcp://127.0.0.1:*",
        ])
        #expect(config.command.map(\.description) == ["tcp://127.0.0.1:*", "tcp://127.0.0.1:*"])
        #expect(config.publish.map(\.description) == ["tcp://127.0.0.1:*"])
    }

    @Test func aBadConfigFileExits78() throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write("segued.json", #"{"limits": {"maxMessageBytes": 10}}"#)
        for arguments in [["--config", file], ["--config", file, "--check-config"]] {
            var expected = ConfigError(
                .config, at: "$.limits.maxMessageBytes", "must be an integer from 1024 to 67108864; got 10")
            expected.file = file
            #expect(throws: expected) { try parse(arguments) }
        }
        #expect(throws: ConfigError.self) { try parse([], environment: ["SEGUED_CONFIG": file]) }
        let error = ConfigError(.config, at: "$.frameRate", "must be an integer from 1 to 1000")
        #expect(error.exitCode == 78)
        #expect(error.diagnostic == "segued: config error at $.frameRate: must be an integer from 1 to 1000\n")
    }
}
