import SegueCore
import Testing

@testable import SegueDaemon

@Suite struct ConfigFileTests {
    @Test func emptyObjectGivesTheDocumentedDefaults() throws {
        let defaults = try config("{}")
        #expect(defaults == DaemonConfig())
        #expect(defaults.dataDir == "./.segue")
        #expect(defaults.command.map(\.description) == ["tcp://127.0.0.1:7400"])
        #expect(defaults.publish.map(\.description) == ["tcp://127.0.0.1:7401"])
        #expect(defaults.frameRate == 60)
        #expect(defaults.durability == .full)
        #expect(defaults.logLevel == .info)
        #expect(defaults.heartbeatSeconds == 1)
        #expect(defaults.presentationDelay == 0 && defaults.presentationDelayDuration == .zero)
        #expect(defaults.snapshotEvery == 1000)
        #expect(defaults.limits.maxMessageBytes == 1_048_576)
        #expect(defaults.limits.maxParamsBytes == 16_384)
        #expect(defaults.limits.maxNavigators == 100_000)
        #expect(defaults.limits.maxQueue == 64)
        #expect(defaults.limits.maxStackDepth == 512)
        #expect(defaults.limits.publishHighWaterMark == 100_000)
        #expect(defaults.limits.interactionTimeoutSeconds == 10)
        #expect(defaults.limits.interactionTimeout == .seconds(10))
        #expect(defaults.heartbeatInterval == .seconds(1))
        #expect(defaults.security == nil)
        #expect(defaults.animators == nil)
        #expect(defaults.warnings.isEmpty)
    }

    /// The default `maxParamsBytes` (16 KiB) follows a smaller `maxMessageBytes`; one given must fit it.
    @Test func theParamsLimitFollowsASmallerMessageLimit() throws {
        #expect(try config(#"{"limits": {"maxMessageBytes": 1024}}"#).limits.maxParamsBytes == 1024)
        #expect(
            try config(#"{"limits": {"maxMessageBytes": 1024, "maxParamsBytes": 512}}"#).limits.maxParamsBytes == 512)
    }

    /// `store.kind` takes its default when absent or null, as every key does.
    @Test(arguments: [#"{"store": {}}"#, #"{"store": {"kind": null}}"#, #"{"store": null}"#])
    func aStoreWithoutKindIsSQLite(json: String) throws {
        #expect(try config(json).store == .sqlite)
    }

    @Test func everyKeyIsRead() throws {
        let parsed = try config(
            """
            {"dataDir": "/var/lib/segue", "command": ["ipc:///run/segue/command.sock", "tcp://[::1]:7400"],
             "publish": ["ipc:///run/segue/publish.sock"], "frameRate": 120, "durability": "relaxed",
             "logLevel": "debug", "heartbeatSeconds": 0.5, "presentationDelay": 0.05, "snapshotEvery": 50,
             "limits": {"maxMessageBytes": 65536, "maxParamsBytes": 4096, "maxNavigators": 10, "maxQueue": 8,
                        "maxStackDepth": 32, "publishHighWaterMark": 1000, "interactionTimeoutSeconds": 2.5},
             "animators": [{"operation": "push", "animator": {"style": "fade"}}]}
            """)
        #expect(parsed.dataDir == "/var/lib/segue")
        #expect(parsed.command.map(\.description) == ["ipc:///run/segue/command.sock", "tcp://[::1]:7400"])
        #expect(parsed.publish.map(\.description) == ["ipc:///run/segue/publish.sock"])
        #expect(parsed.frameRate == 120)
        #expect(parsed.durability == .relaxed)
        #expect(parsed.logLevel == .debug)
        #expect(parsed.heartbeatInterval == .milliseconds(500))
        #expect(parsed.presentationDelayDuration == .milliseconds(50))
        #expect(parsed.snapshotEvery == 50)
        #expect(parsed.limits.maxMessageBytes == 65536)
        #expect(parsed.limits.maxParamsBytes == 4096)
        #expect(parsed.limits.maxNavigators == 10)
        #expect(parsed.limits.maxQueue == 8)
        #expect(parsed.limits.maxStackDepth == 32)
        #expect(parsed.limits.publishHighWaterMark == 1000)
        #expect(parsed.limits.interactionTimeout == .milliseconds(2500))
        #expect(parsed.animators == [["operation": "push", "animator": ["style": "fade"]]])
    }

    @Test func nullMeansTheDefault() throws {
        #expect(try config(#"{"frameRate": null, "limits": {"maxQueue": null}, "security": null}"#) == DaemonConfig())
    }

    static let invalid: [(String, String)] = [
        ("[]", "config error at $: must be an object; got an empty array"),
        (
            #"{"frameRte": 60}"#,
            "config error at $.frameRte: unknown key; expected one of dataDir, store, command, publish, publishFrames, frameRate, "
                + "durability, "
                + "logLevel, heartbeatSeconds, presentationDelay, snapshotEvery, limits, security, animators, cluster"
        ),
        (
            #"{"limits": {"maxMessageBytes": 100}}"#,
            "config error at $.limits.maxMessageBytes: must be an integer from 1024 to 67108864; got 100"
        ),
        (
            #"{"limits": {"maxMessageBytes": 1048576.5}}"#,
            "config error at $.limits.maxMessageBytes: must be an integer from 1024 to 67108864; got 1048576.5"
        ),
        (
            #"{"limits": {"maxMessageBytes": "1MiB"}}"#,
            "config error at $.limits.maxMessageBytes: must be an integer from 1024 to 67108864; got \"1MiB\""
        ),
        (
            #"{"limits": {"maxMessageBytes": 2048, "maxParamsBytes": 4096}}"#,
            "config error at $.limits.maxParamsBytes: must not exceed maxMessageBytes (2048): params travel inside one message"
        ),
        (
            #"{"limits": {"maxQueue": 0}}"#,
            "config error at $.limits.maxQueue: must be an integer from 1 to 10000; got 0"
        ),
        (
            #"{"limits": {"interactionTimeoutSeconds": 0}}"#,
            "config error at $.limits.interactionTimeoutSeconds: must be a number from 0.05 to 86400; got 0"
        ),
        (
            #"{"limits": {"max queue": 1}}"#,
            #"config error at $.limits["max queue"]: unknown key; expected one of maxMessageBytes, maxParamsBytes, "#
                + "maxNavigators, maxQueue, maxStackDepth, publishHighWaterMark, interactionTimeoutSeconds"
        ),
        // A key's control characters stay escaped: the message is one line, for the terminal and journald.
        (
            #"{"store": {"x\ny\u0007z\"q": 1}}"#,
            #"config error at $.store["x\ny\u0007z\"q"]: unknown key; expected one of kind, conninfo"#
        ),
        (#"{"limits": 5}"#, "config error at $.limits: must be an object; got 5"),
        // Unknown keys anywhere are named before any value is checked, outer objects first.
        (
            #"{"frameRate": 0, "limits": {"maxQueu": 1}}"#,
            "config error at $.limits.maxQueu: unknown key; expected one of maxMessageBytes, maxParamsBytes, "
                + "maxNavigators, maxQueue, maxStackDepth, publishHighWaterMark, interactionTimeoutSeconds"
        ),
        (
            #"{"limits": {"maxQueue": 0}, "store": {"knd": "sqlite"}}"#,
            "config error at $.store.knd: unknown key; expected one of kind, conninfo"
        ),
        (
            #"{"frameRate": 0, "security": {"curve": {"serverSecretKeyFile": "/nonexistent", "clients": [{"role": "observer", "publicKeyFil": "x"}]}}}"#,
            "config error at $.security.curve.clients[0].publicKeyFil: unknown key; expected one of publicKey, "
                + "publicKeyFile, role"
        ),
        (
            #"{"cluster": {"shard": 2}, "limits": {"bogus": 1}}"#,
            "config error at $.cluster.shard: unknown key; expected one of shards, advertise"
        ),
        (#"{"frameRate": 0}"#, "config error at $.frameRate: must be an integer from 1 to 1000; got 0"),
        (#"{"frameRate": 1001}"#, "config error at $.frameRate: must be an integer from 1 to 1000; got 1001"),
        (#"{"frameRate": true}"#, "config error at $.frameRate: must be an integer from 1 to 1000; got true"),
        (#"{"durability": "fast"}"#, #"config error at $.durability: must be "full" or "relaxed"; got "fast""#),
        (
            #"{"logLevel": "verbose"}"#,
            #"config error at $.logLevel: must be one of "trace", "debug", "info", "notice", "warning", "error", "critical"; got "verbose""#
        ),
        (#"{"heartbeatSeconds": 61}"#, "config error at $.heartbeatSeconds: must be a number from 0.05 to 60; got 61"),
        (
            #"{"presentationDelay": -0.01}"#,
            "config error at $.presentationDelay: must be a number from 0 to 10; got -0.01"
        ),
        (
            #"{"presentationDelay": 10.5}"#,
            "config error at $.presentationDelay: must be a number from 0 to 10; got 10.5"
        ),
        (
            #"{"presentationDelay": "50ms"}"#,
            "config error at $.presentationDelay: must be a number from 0 to 10; got \"50ms\""
        ),
        (#"{"snapshotEvery": 0}"#, "config error at $.snapshotEvery: must be an integer from 1 to 1000000; got 0"),
        (#"{"dataDir": ""}"#, "config error at $.dataDir: must be a non-empty string; got \"\""),
        (#"{"store": "postgres"}"#, "config error at $.store: must be an object; got \"postgres\""),
        (
            #"{"store": {"conninfo": "dbname=segue"}}"#,
            #"config error at $.store.conninfo: is only for kind "postgres"; an SQLite log lives in dataDir"#
        ),
        (
            #"{"store": {"kind": "mysql"}}"#,
            #"config error at $.store.kind: must be "sqlite" or "postgres"; got "mysql""#
        ),
        (
            #"{"store": {"kind": "sqlite", "host": "db"}}"#,
            "config error at $.store.host: unknown key; expected one of kind, conninfo"
        ),
        (
            #"{"store": {"kind": "sqlite", "conninfo": "dbname=segue"}}"#,
            #"config error at $.store.conninfo: is only for kind "postgres"; an SQLite log lives in dataDir"#
        ),
        (
            #"{"store": {"kind": "postgres"}}"#,
            #"config error at $.store.conninfo: is required for kind "postgres": a libpq connection string such as "host=/run/postgresql dbname=segue""#
        ),
        (
            #"{"store": {"kind": "postgres", "conninfo": ""}}"#,
            "config error at $.store.conninfo: must be a non-empty string; got \"\""
        ),
        (
            #"{"store": {"kind": "postgres", "conninfo": "dbname=segue password=hunter2"}}"#,
            "config error at $.store.conninfo: The PostgreSQL connection string password=<redacted> dbname=segue sets a "
                + "password: Segue takes passwords only from a password file. Remove it and put it in a file named by "
                + "passfile= (or PGPASSFILE), mode 0600, one line host:port:dbname:user:password."
        ),
        (#"{"dataDir": 7}"#, "config error at $.dataDir: must be a non-empty string; got 7"),
        (
            #"{"command": "tcp://127.0.0.1:7400"}"#,
            "config error at $.command: must be an array; got \"tcp://127.0.0.1:7400\""
        ),
        (#"{"command": []}"#, "config error at $.command: must list at least one endpoint"),
        (
            #"{"command": ["tcp://127.0.0.1:7400", 5]}"#,
            "config error at $.command[1]: must be a non-empty string; got 5"
        ),
        (
            #"{"command": ["tcp://127.0.0.1"]}"#,
            "config error at $.command[0]: 'tcp://127.0.0.1' needs a port: tcp://host:port"
        ),
        (
            #"{"command": ["tcp://127.0.0.1:70000"]}"#,
            "config error at $.command[0]: 'tcp://127.0.0.1:70000' has port '70000'; use 1 to 65535, or * for any free port"
        ),
        (
            #"{"publish": ["udp://127.0.0.1:7401"]}"#,
            "config error at $.publish[0]: 'udp://127.0.0.1:7401' has transport 'udp'; segued binds tcp, ipc or inproc"
        ),
        (
            #"{"publish": ["127.0.0.1:7401"]}"#,
            "config error at $.publish[0]: '127.0.0.1:7401' is not an endpoint; write tcp://host:port, ipc://path or inproc://name"
        ),
        (#"{"publish": ["ipc://"]}"#, "config error at $.publish[0]: 'ipc://' has no address after '://'"),
        (#"{"publish": ["inproc://a", "inproc://a"]}"#, "config error at $.publish[1]: 'inproc://a' is listed twice"),
        (
            #"{"command": ["inproc://a"], "publish": ["inproc://a"]}"#,
            "config error at $.publish[0]: 'inproc://a' is also a command endpoint"
        ),
        (
            #"{"command": ["inproc://a"], "publishFrames": ["inproc://f", "inproc://a"]}"#,
            "config error at $.publishFrames[1]: 'inproc://a' is also a command endpoint"
        ),
        (
            #"{"command": ["tcp://*:7400"], "publish": ["tcp://127.0.0.1:7400"]}"#,
            "config error at $.publish[0]: 'tcp://127.0.0.1:7400' is also a command endpoint (as 'tcp://*:7400')"
        ),
        (#"{"publishFrames": "inproc://f"}"#, "config error at $.publishFrames: must be an array; got \"inproc://f\""),
        (#"{"security": {}}"#, "config error at $.security.curve: is required in security"),
        (#"{"security": {"tls": {}}}"#, "config error at $.security.tls: unknown key; expected one of curve"),
        (
            #"{"security": {"curve": {}}}"#,
            "config error at $.security.curve.serverSecretKeyFile: is required: the file holding the server's Z85 secret key"
        ),
        (
            #"{"security": {"curve": {"serverSecretKeyFile": "/nonexistent/segue.key", "clients": []}}}"#,
            "config error at $.security.curve.serverSecretKeyFile: cannot open /nonexistent/segue.key: "
                + "No such file or directory (errno 2)"
        ),
    ]

    @Test(arguments: invalid)
    func invalidConfigsNameThePathAndTheRule(document: String, message: String) {
        let error = configError(document)
        #expect(error?.description == message)
        #expect(error?.kind == .config)
        #expect(error?.exitCode == 78)
    }

    /// An unknown key is named before any value is checked: a misspelt key (`shard` for `shards`)
    /// would otherwise show as the real one missing, and the typo never be named.
    @Test func anUnknownKeyIsReportedBeforeTheKnownKeysAreChecked() {
        #expect(configError(#"{"zzz": 1, "frameRate": 0}"#)?.location == "$.zzz")
        #expect(configError(#"{"frameRate": 0, "zzz": 1, "yyy": 2}"#)?.location == "$.zzz")
        #expect(configError(#"{"store": {"kind": "postgres", "connInfo": "x"}}"#)?.location == "$.store.connInfo")
    }

    /// What a hand-written file usually gets wrong, said as such; a NUL that C would cut a path at.
    @Test func commonMistakesInTheFileAreNamed() throws {
        let directory = try TemporaryDirectory()
        for (name, bytes, hint) in [
            (
                "bom.json", [0xEF, 0xBB, 0xBF] + Array("{}".utf8),
                "(the file starts with a UTF-8 byte-order mark; save it without one)"
            ),
            (
                "comment.json", Array("{\n  // the rate\n  \"frameRate\": 60\n}".utf8),
                "(JSON has no comments; remove it)"
            ),
        ] as [(String, [UInt8], String)] {
            let path = try directory.write(name, String(decoding: bytes, as: UTF8.self))
            #expect(throws: ConfigError.self) { try DaemonConfig(file: path) }
            do { _ = try DaemonConfig(file: path) } catch {
                #expect(error.message.hasPrefix("\(path) is not valid JSON: line "), "\(error)")
                #expect(error.message.hasSuffix(hint), "\(error)")
            }
        }
        #expect(
            configError(#"{"dataDir": "/tmp/a\u0000b"}"#)?.description
                == #"config error at $.dataDir: must not contain a NUL character (\u0000)"#)
    }

    @Test func effectiveConfigRoundTripsThroughJSON() throws {
        let directory = try TemporaryDirectory()
        let secretFile = try directory.write("server.key", TestKeys.serverSecret + "\n")
        let clientFile = try directory.write("client.pub", TestKeys.otherPublic)
        let original = try config(
            """
            {"command": ["tcp://*:7400"], "publish": ["tcp://0.0.0.0:*"], "heartbeatSeconds": 0.25,
             "security": {"curve": {"serverSecretKeyFile": "\(secretFile)", "clients": [
                 {"publicKey": "\(TestKeys.clientPublic)", "role": "controller"},
                 {"publicKeyFile": "\(clientFile)", "role": "observer"}]}},
             "animators": {"rules": []}}
            """)
        let printed = original.json.prettyPrinted()
        #expect(!printed.contains(TestKeys.serverSecret))
        #expect(try config(printed) == original)
        #expect(try config(DaemonConfig().json.serialized()) == DaemonConfig())
    }

    /// The default animators are checked when the engine's options are built (at start and on
    /// SIGHUP), as strictly as a request's, and reported in the parser's "at PATH: what" form.
    @Test(arguments: [
        (
            #"{"animators": {"rules": []}}"#,
            #"config error at $.animators: must be an array of rules; got an object with "rules""#
        ),
        (
            #"{"animators": [{"animator": {"style": "wobble"}}]}"#,
            "config error at $.animators[0].animator.style: must be one of slide, cover, reveal, push, fade, crossfade, "
                + #"flip, zoom, iris, none, keyframes; got "wobble""#
        ),
        (
            #"{"animators": [{"from": "Detail Screen", "animator": {"style": "fade"}}]}"#,
            #"config error at $.animators[0].from: must be a route name matching [A-Za-z0-9._-]{1,64}; got "Detail Screen""#
        ),
        (
            #"{"animators": [{"animator": {"style": "keyframes", "keyframes": {"to": {"tracks": {"alpha": [{"time": 0, "value": -5}]}}}}}]}"#,
            "config error at $.animators[0].animator.keyframes.to.tracks.alpha[0].value: must be in [0, 1]; got -5"
        ),
        // An unknown key is named at its own path, in the parser's words, as anywhere else in the file.
        (
            #"{"animators": [{"animator": {"style": "fade", "zzz": 1}}]}"#,
            "config error at $.animators[0].animator.zzz: unknown key; expected one of preset, style, edge, duration, "
                + "curve, parallax, scale, offset, fade, keyframes"
        ),
        (
            #"{"animators": [{"zzz": 1, "animator": {}}]}"#,
            "config error at $.animators[0].zzz: unknown key; expected one of operation, from, to, animator"
        ),
    ])
    func animatorErrorsSayWhere(document: String, message: String) throws {
        let parsed = try config(document)
        #expect(throws: (any Error).self) { try Daemon.options(from: parsed) }
        do {
            _ = try Daemon.options(from: parsed)
        } catch {
            #expect("\(error)" == message)
        }
    }

    @Test func fileErrorsSayWhichFile() throws {
        let directory = try TemporaryDirectory()
        let broken = try directory.write("broken.json", "{\"frameRate\": 60,}")
        #expect(
            throws: ConfigError(
                .config,
                "\(broken) is not valid JSON: line 1, column 18: a trailing comma before '}' is not allowed")
        ) {
            try DaemonConfig(file: broken)
        }
        let twice = try directory.write("twice.json", "{\n  \"frameRate\": 60,\n  \"frameRate\": 30\n}\n")
        #expect(
            throws: ConfigError(
                .config, "\(twice) is not valid JSON: line 3, column 3: duplicate object key \"frameRate\"")
        ) {
            try DaemonConfig(file: twice)
        }
        let missing = directory.path + "/missing.json"
        #expect(throws: ConfigError(.config, "cannot open \(missing): No such file or directory (errno 2)")) {
            try DaemonConfig(file: missing)
        }
        let good = try directory.write("good.json", #"{"frameRate": 30}"#)
        let loaded = try DaemonConfig(file: good)
        #expect(loaded.frameRate == 30)
        #expect(loaded.configFile == good)
    }
}

/// Which endpoints bind the same socket however they are written.
@Suite struct EndpointClashTests {
    @Test(arguments: [
        ("tcp://127.0.0.1:7400", "tcp://127.0.0.1:7400", true),
        ("tcp://127.0.0.1:7400", "tcp://127.0.0.1:07400", true),
        ("tcp://*:7400", "tcp://127.0.0.1:7400", true),
        ("tcp://0.0.0.0:7400", "tcp://10.0.0.5:7400", true),
        ("tcp://[::]:7400", "tcp://[::1]:7400", true),
        ("tcp://127.0.0.1:7400", "tcp://127.0.0.1:7401", false),
        ("tcp://127.0.0.1:7400", "tcp://127.0.0.2:7400", false),
        ("tcp://127.0.0.1:*", "tcp://127.0.0.1:*", false),
        ("ipc:///run/a.sock", "ipc:///run/a.sock", true),
        ("inproc://a", "ipc://a", false),
    ])
    func clash(_ a: String, _ b: String, _ expected: Bool) throws {
        let (x, y) = (try Endpoint(parsing: a), try Endpoint(parsing: b))
        #expect(x.clashes(with: y) == expected)
        #expect(y.clashes(with: x) == expected)
    }
}
