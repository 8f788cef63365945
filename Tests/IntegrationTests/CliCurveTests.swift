import Foundation
import SegueClient
import SegueCore
import Testing

/// `segue --server-key --client-key` against a real CURVE-enabled `segued` whose keys were all written by
/// `segue keygen`: the right keys drive it, and every wrong key fails with its reason and a nonzero
/// status instead of a silent wait (libzmq never reports a failed handshake to the socket's user).
@Suite(.serialized, .timeLimit(.minutes(2))) struct CliCurveTests {
    /// Key pairs by name in `keys`: `server`, a listed controller `ops`, a listed observer `dash`, and
    /// `stranger`, listed nowhere.
    struct Setup {
        let keys: String
        let daemon: DaemonProcess

        init(curve: Bool = true) throws {
            let dir = DaemonProcess.temporaryDirectory()
            keys = try CurveFixture.keys(["server", "ops", "dash", "stranger"], in: dir)
            guard curve else {
                daemon = try DaemonProcess(dataDir: dir)
                return
            }
            daemon = try CurveFixture.daemon(
                in: dir, keys: keys, clients: [("ops", "controller"), ("dash", "observer")])
            // The harness's readiness probe speaks plaintext, so ask with the CLI itself.
            let deadline = ContinuousClock.now + .seconds(20)
            var last = ""
            while ContinuousClock.now < deadline {
                let ping = try run(["ping", "--timeout", "0.5"])
                if ping.status == 0 { return }
                last = ping.stderr
            }
            throw Reliability.Failure("the CURVE daemon did not answer (\(last)):\n\(daemon.log)")
        }

        /// `segue` with `--server-key KEYS/<server>.pub` and `--client-key KEYS/<client>` unless nil.
        func run(
            _ arguments: [String], server: String? = "server", client: String? = "ops",
            environment: [String: String] = [:]
        ) throws -> CliResult {
            var keyOptions: [String] = []
            if let server { keyOptions += ["--server-key", "\(keys)/\(server).pub"] }
            if let client { keyOptions += ["--client-key", "\(keys)/\(client)"] }
            return try Cli.run(arguments + keyOptions, daemon: daemon, environment: environment)
        }
    }

    /// SIGHUP applies a new client list; a later reload whose only change needs a restart (the
    /// security block removed) must keep running with the list of the last reload, not bring back
    /// the start-up one, which would re-admit the revoked key.
    @Test func aRevokedKeyStaysOutThroughLaterReloads() throws {
        let setup = try Setup()
        defer { setup.daemon.stop() }
        #expect(try setup.run(["ping"], client: "dash").status == 0)
        let dir = setup.daemon.dataDir
        func reload(_ config: JSON, expecting count: Int) throws {
            _ = try Reliability.writeConfig(config, in: dir)
            kill(setup.daemon.pid, SIGHUP)
            let deadline = ContinuousClock.now + .seconds(10)
            while setup.daemon.log.components(separatedBy: "Reloaded ").count - 1 < count {
                guard ContinuousClock.now < deadline else {
                    throw Reliability.Failure("no reload:\n\(setup.daemon.log)")
                }
                usleep(20_000)
            }
        }
        let onlyOps: JSON = [
            "security": [
                "curve": [
                    "serverSecretKeyFile": .string(setup.keys + "/server.key"),
                    "clients": [["publicKeyFile": .string(setup.keys + "/ops.pub"), "role": "controller"]],
                ]
            ]
        ]
        try reload(onlyOps, expecting: 1)
        #expect(setup.daemon.log.contains("Reloaded \(dir)/segued-test.json: security.curve.clients."))
        #expect(try setup.run(["ping", "--timeout", "2"], client: "dash").status == 69)

        try reload([:], expecting: 2)
        #expect(setup.daemon.log.contains("nothing that applies live has changed"))
        #expect(setup.daemon.log.contains("only applied on restart: $.security"))
        #expect(try setup.run(["ping", "--timeout", "2"], client: "dash").status == 69, "the revoked key came back")
        #expect(try setup.run(["ping"], client: "ops").status == 0)
    }

    @Test func theRightKeysDriveTheDaemon() throws {
        let setup = try Setup()
        defer { setup.daemon.stop() }
        let ping = try setup.run(["ping", "--json"])
        #expect(ping.status == 0, "\(ping.stderr)")
        #expect(ping.stderr == "")
        #expect(try JSON.parse(ping.stdout.trimmingCharacters(in: .newlines))["frameRate"] == 60)
        #expect(try setup.run(["create", "main", "Home"]).status == 0)
        // --wait subscribes on the publish socket first: CURVE there too.
        let push = try setup.run(["push", "main", "Detail", "--duration", "0.1", "--wait"])
        #expect(push.status == 0, "\(push.stderr)")

        // The same keys from the environment, and the server key inline.
        let environment = ["SEGUE_SERVER_KEY": setup.keys + "/server.pub", "SEGUE_CLIENT_KEY": setup.keys + "/ops"]
        let state = try setup.run(["state", "main"], server: nil, client: nil, environment: environment)
        #expect(state.status == 0, "\(state.stderr)")
        #expect(state.stdout.contains("stack: Home[s1] > Detail[s2]"), "\(state.stdout)")
        let inline = try String(contentsOfFile: setup.keys + "/server.pub", encoding: .utf8)
            .trimmingCharacters(in: .newlines)
        let pop = try setup.run(
            ["pop", "main", "--no-animate", "--server-key", inline], server: nil, environment: environment)
        #expect(pop.status == 0, "\(pop.stderr)")

        // An observer reads but may not navigate: that is the daemon's "no", not a key problem.
        #expect(try setup.run(["ls"], client: "dash").status == 0)
        let push2 = try setup.run(["push", "main", "Detail"], client: "dash")
        #expect(push2.status == 1)
        #expect(push2.stderr.hasPrefix("error: forbidden: "), "\(push2.stderr)")
    }

    @Test func aSecretKeyOpenToOthersWorksWithAWarning() throws {
        let setup = try Setup()
        defer { setup.daemon.stop() }
        #expect(chmod(setup.keys + "/ops.key", 0o644) == 0)
        let ping = try setup.run(["ping"])
        #expect(ping.status == 0, "\(ping.stderr)")
        #expect(
            ping.stderr
                == "warning: \(setup.keys)/ops.key is open to group or others (mode 0644); it holds a secret key, "
                + "which 'segue keygen' writes with mode 0600: chmod 600 \(setup.keys)/ops.key\n")
    }

    /// A wrong key, as the user meets it: status, then the exact message (`KEYS`, `COMMAND` and
    /// `PUBLISH` stand for the key directory and the daemon's endpoints). `--timeout 3` bounds each
    /// run; status 69 rather than 3 shows that the failure was recognised, not timed out.
    static let wrongKeys: [(arguments: [String], server: String?, client: String?, status: Int32, stderr: String)] = [
        (
            ["ping"], "stranger", "ops", 69,
            "error: handshake: segued at COMMAND hung up on the CURVE handshake: the server key given is not its "
                + "public key, it does not use CURVE, or this is its other endpoint (commands and subscriptions "
                + "have one each).\n"
                + "hint: --server-key must be the public half of the daemon's serverSecretKeyFile; for a daemon "
                + "without security.curve, drop --server-key and --client-key.\n"
        ),
        (
            ["ping"], "server", "stranger", 69,
            "error: handshake: segued at COMMAND refused this client's CURVE key (ZAP status 400); only keys listed "
                + "in its security.curve.clients (a relay's: its --allow) may connect.\n"
                + "hint: the public key of --client-key (its NAME.pub) must be listed in the daemon's config "
                + "(behind a relay's CURVE publish endpoint: in the relay's --allow).\n"
        ),
        (
            ["ping"], nil, nil, 69,
            "error: handshake: segued at COMMAND hung up on a handshake without keys: it requires CURVE.\n"
                + "hint: pass --server-key <key|file> and --client-key <name> (or set SEGUE_SERVER_KEY and "
                + "SEGUE_CLIENT_KEY); see 'segue --help'.\n"
        ),
        (
            ["push", "main", "Detail", "--wait"], "stranger", "ops", 69,
            "error: handshake: segued at PUBLISH hung up on the CURVE handshake: the server key given is not its "
                + "public key, it does not use CURVE, or this is its other endpoint (commands and subscriptions "
                + "have one each).\n"
                + "hint: --server-key must be the public half of the daemon's serverSecretKeyFile; for a daemon "
                + "without security.curve, drop --server-key and --client-key.\n"
        ),
        (
            ["ping"], "server", "nobody", 74,
            "error: key file: KEYS/nobody.key cannot be opened: No such file or directory (errno 2).\n"
        ),
        (
            ["ping"], "nobody", "ops", 74,
            "error: key file: KEYS/nobody.pub cannot be opened: No such file or directory (errno 2).\n"
        ),
        (
            ["ping"], "server", nil, 64,
            "error: A CURVE server key (--server-key) needs a client key pair too: add --client-key <name> (or set "
                + "SEGUE_CLIENT_KEY) naming the NAME.key and NAME.pub that 'segue keygen --out NAME' wrote.\n"
                + "See 'segue ping --help'.\n"
        ),
    ]

    @Test(arguments: wrongKeys)
    func aWrongKeyFailsWithItsReason(
        arguments: [String], server: String?, client: String?, status: Int32, stderr: String
    ) throws {
        let setup = try Setup()
        defer { setup.daemon.stop() }
        let result = try setup.run(arguments + ["--timeout", "3"], server: server, client: client)
        let expected = stderr.replacingOccurrences(of: "KEYS", with: setup.keys)
            .replacingOccurrences(of: "COMMAND", with: setup.daemon.commandEndpoint)
            .replacingOccurrences(of: "PUBLISH", with: setup.daemon.publishEndpoint)
        #expect(result.status == status, "\(result.stderr)")
        #expect(result.stderr == expected)
    }

    @Test func keysForADaemonWithoutCurveAreRefused() throws {
        let setup = try Setup(curve: false)
        defer { setup.daemon.stop() }
        let result = try setup.run(["ping", "--timeout", "3"])
        #expect(result.status == 69)
        #expect(
            result.stderr
                == "error: handshake: segued at \(setup.daemon.commandEndpoint) hung up on the CURVE handshake: the "
                + "server key given is not its public key, it does not use CURVE, or this is its other endpoint "
                + "(commands and subscriptions have one each).\nhint: --server-key must be the "
                + "public half of the daemon's serverSecretKeyFile; for a daemon without security.curve, drop "
                + "--server-key and --client-key.\n")
        #expect(try setup.run(["ping"], server: nil, client: nil).status == 0)
    }

    /// A port where something else listens (an SSH or HTTP server) is named as not ZeroMQ, with what
    /// it said, rather than blamed on CURVE: libzmq reports both as a handshake cut off. With keys or
    /// without, for commands and for subscriptions.
    @Test(arguments: [
        (["ping"], false, "SSH-2.0-OpenSSH_9.2\r\n", "SSH-2.0-OpenSSH_9.2"),
        (["ping"], true, "HTTP/1.1 400 Bad Request\r\n\r\n", "HTTP/1.1 400 Bad Request"),
        (["watch"], false, "SSH-2.0-OpenSSH_9.2\r\n", "SSH-2.0-OpenSSH_9.2"),
        (["watch"], true, "\u{16}\u{3}\u{1}hello", "???hello"),
    ])
    func aListenerThatIsNotZeroMQIsNamed(arguments: [String], keys: Bool, banner: String, line: String) throws {
        let listener = try BannerListener(banner: banner)
        defer { listener.close() }
        let endpoint = "tcp://127.0.0.1:\(listener.port)"
        var environment = ["SEGUE_ENDPOINT": endpoint, "SEGUE_PUBLISH_ENDPOINT": endpoint]
        if keys {
            let dir = DaemonProcess.temporaryDirectory()
            let keys = try CurveFixture.keys(["server", "ops"], in: dir)
            environment["SEGUE_SERVER_KEY"] = keys + "/server.pub"
            environment["SEGUE_CLIENT_KEY"] = keys + "/ops"
        }
        let result = try Cli.run(arguments + ["--timeout", "3"], environment: environment)
        #expect(result.status == 69, "\(result.stderr)")
        #expect(
            result.stderr
                == "error: handshake: \(endpoint) is not a ZeroMQ endpoint: what listens there answered \"\(line)\" and "
                + "hung up.\nhint: segued takes commands at --endpoint (SEGUE_ENDPOINT, default tcp://127.0.0.1:7400) "
                + "and publishes at --publish-endpoint (SEGUE_PUBLISH_ENDPOINT, default tcp://127.0.0.1:7401).\n")
    }
}

extension CliCurveTests {
    /// segued's command endpoint given where its publish endpoint belongs, or the other way round,
    /// hangs up on the handshake as a CURVE daemon does: the client asks the socket what it is and
    /// says which endpoint it reached (status 69, a handshake failure), rather than blaming CURVE
    /// (`--wait` did so in some runs and not in others) or waiting out its timeout (`ping`, status 3).
    @Test(arguments: [
        (
            ["ping", "--timeout", "5"], true, "XPUB",
            "as segued's publish endpoint is: commands go to its command endpoint."
        ),
        (["watch"], false, "ROUTER", "as segued's command endpoint is: subscriptions go to its publish endpoint."),
        (
            ["pop", "main", "--wait", "--timeout", "5"], false, "ROUTER",
            "as segued's command endpoint is: subscriptions go to its publish endpoint."
        ),
    ])
    func theOtherEndpointOfSeguedIsNamed(arguments: [String], swapCommand: Bool, peer: String, what: String) throws {
        let daemon = try DaemonProcess()
        defer { daemon.stop() }
        try Cli.run(["create", "main", "Home"], daemon: daemon)
        try Cli.run(["push", "main", "A", "--no-animate"], daemon: daemon)
        let wrong = swapCommand ? daemon.publishEndpoint : daemon.commandEndpoint
        let environment = [
            "SEGUE_ENDPOINT": swapCommand ? wrong : daemon.commandEndpoint, "SEGUE_PUBLISH_ENDPOINT": wrong,
        ]
        let result = try Cli.run(arguments, environment: environment, killedAfter: 20)
        #expect(result.status == 69, "\(result.stderr)")
        #expect(
            result.stderr.hasPrefix("error: handshake: \(wrong) is a ZeroMQ \(peer) socket, \(what)\nhint: "),
            "\(result.stderr)")
        #expect(
            try SegueClient(endpoint: daemon.commandEndpoint).state("main").stack.count == 2, "the pop was not sent")
    }

    /// A peer that greets as ZeroMQ and then sends a command frame whose 8-byte length has its top
    /// bit set (read as a signed number, it was negative and crashed `segue` and the relay): the
    /// probe gives up on the frame, and the call fails as it would without the probe.
    @Test func aHugeFrameLengthFromAPeerIsNoCrash() throws {
        let greeting: [UInt8] =
            [0xFF, 0, 0, 0, 0, 0, 0, 0, 1, 0x7F, 3, 0] + Array("NULL".utf8) + [UInt8](repeating: 0, count: 16) + [1]
            + [UInt8](repeating: 0, count: 31)
        let listener = try BannerListener(bytes: greeting + [0x06, 0x80, 0, 0, 0, 0, 0, 0, 0])
        defer { listener.close() }
        let endpoint = "tcp://127.0.0.1:\(listener.port)"
        let result = try Cli.run(["ls", "--endpoint", endpoint, "--timeout", "3"], killedAfter: 20)
        // libzmq's own reading of the frame decides between a timeout (3) and a hang-up (69); either is
        // an ordinary failure, where the old reading died with a fatal error.
        #expect([3, 69].contains(result.status), "\(result.status): \(result.stderr)")
        #expect(result.stderr.hasPrefix("error: "), "\(result.stderr)")
        #expect(!result.stderr.contains("Fatal error"), "\(result.stderr)")
    }

    /// A port that takes the connection and never says anything (an HTTP server waiting for its
    /// request, a stopped process) is a timeout, status 3, whose message says the peer never greeted.
    @Test func aSilentListenerIsATimeoutThatSaysSo() throws {
        let (fd, port) = DataDirFootprintTests.busyPort()
        defer { close(fd) }
        let endpoint = "tcp://127.0.0.1:\(port)"
        let result = try Cli.run(["ping", "--endpoint", endpoint, "--timeout", "0.5"])
        #expect(result.status == 3, "\(result.stderr)")
        #expect(
            result.stderr
                == "error: timeout: ping got no reply within 0.5 s: \(endpoint) took the connection but never sent "
                + "ZeroMQ's greeting (not a ZeroMQ endpoint, say an HTTP port, or a process that is stopped or "
                + "hung).\n")
    }
}

/// A TCP listener on a free loopback port that greets every connection with `banner` and closes it,
/// as an SSH or HTTP server does with bytes it does not understand.
final class BannerListener: @unchecked Sendable {
    let port: Int
    private let fd: Int32
    private let thread: Thread

    convenience init(banner: String) throws { try self.init(bytes: Array(banner.utf8)) }

    init(bytes banner: [UInt8]) throws {
        let (fd, port) = DataDirFootprintTests.busyPort()
        self.fd = fd
        self.port = port
        listen(fd, 16)
        thread = Thread {
            while true {
                let connection = accept(fd, nil, nil)
                guard connection >= 0 else { return }
                _ = banner.withUnsafeBytes {
                    send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
                }
                usleep(20_000)
                Glibc.close(connection)
            }
        }
        thread.start()
    }

    /// Stops accepting: the blocked `accept` returns once the socket is shut down, and the descriptor
    /// is closed only after the thread left it (else another test's new socket could take its number).
    func close() {
        shutdown(fd, Int32(SHUT_RDWR))
        while !thread.isFinished { usleep(1_000) }
        Glibc.close(fd)
    }
}
