import Foundation
import SegueClient
import SegueCommandLine
import SegueCore
import SegueStore
import SegueWire

/// `segue relay --from ENDPOINT… --publish ENDPOINT`: ticks and events fanned out through a tree of
/// relays (docs/operations.md, "Relays"); `segue relay --stats --control ENDPOINT` asks a running one
/// for its counters.
enum RelayCommand {
    static let configuration = CommandConfiguration(
        name: "relay", abstract: "Forward daemons' publications to subscribers elsewhere, on zmq_proxy_steerable.",
        discussion:
            "An XSUB connects to every --from (a segued's publish endpoint, or another relay's) and an XPUB binds "
            + "--publish; libzmq's proxy forwards between them. Messages pass unchanged, heartbeats included, and "
            + "subscriptions flow upstream, so only what a subscriber below asked for is sent. Relays chain into a "
            + "tree. --server-key and --client-key are the CURVE keys towards --from; --publish-key and --allow "
            + "make --publish a CURVE server. The counters are logged on stderr every --stats-interval and when "
            + "the relay stops; --control serves them to 'segue relay --stats --control ENDPOINT'. Runs until "
            + "SIGTERM or Ctrl-C; status 69 when an endpoint cannot be used.",
        options: [
            OptionSpec(
                "from", value: "endpoint", takesList: true,
                help: "A publish endpoint to forward: a segued's, or another relay's. Several: repeat it, list them "
                    + "after it, or separate them with commas."),
            OptionSpec("publish", value: "endpoint", help: "Where subscribers connect (bound here)."),
            OptionSpec(
                "control", value: "endpoint",
                help: "Serve the counters here (ipc:// or loopback); with --stats, the relay to ask."),
            .flag("stats", help: "Print the counters of the relay at --control, then exit."),
            OptionSpec(
                "stats-interval", value: "seconds",
                help: "Log the counters this often (default 60s; 0 only when stopping)."),
            OptionSpec(
                "publish-key", value: "name", completion: .file,
                help: "Make --publish a CURVE server with the pair NAME.key and NAME.pub ('segue keygen')."),
            OptionSpec(
                "allow", value: "key|file", repeats: true,
                help: "With --publish-key: a subscriber's public key to admit (40 Z85 characters or a file). Repeat."),
            OptionSpec(
                "high-water-mark", value: "n",
                help: "Messages queued per subscriber, and from upstream, before new ones are dropped (default 100000; "
                    + "0: no limit)."
            ),
        ],
        examples: [
            "segue relay --from tcp://10.0.0.1:7401 tcp://10.0.0.2:7401 --publish tcp://*:7501",
            "segue relay --from tcp://relay-a:7501 --publish tcp://*:7501 --control ipc:///run/segue/relay.ctl",
            "segue relay --stats --control ipc:///run/segue/relay.ctl",
        ])

    /// The options of the shared set that `relay` takes: the others name a daemon's sockets.
    static let sharedOptions: Set<String> = ["json", "timeout", "server-key", "client-key"]

    /// `0`, `0.0`, `0s`, `0ms`: no counters logged.
    static func isZero(_ text: String) -> Bool { Seconds.parse(Substring(text)) == 0 }

    static func run(_ inv: Invocation) throws {
        if inv.parsed.flag("stats") { return try printStatistics(inv) }
        let settings = try settings(inv)
        // Signals are read by one thread; every thread the relay starts inherits the mask.
        var signals = sigset_t()
        sigemptyset(&signals)
        for signal in [SIGTERM, SIGINT, SIGHUP] { sigaddset(&signals, signal) }
        pthread_sigmask(SIG_BLOCK, &signals, nil)
        let relay = try Relay(settings)
        let (stop, mask) = (relay.stopping, signals)
        Thread(named: "segue-signals") {
            var set = mask
            var received: Int32 = 0
            sigwait(&set, &received)
            stop.raise()
        }.start()
        try relay.run()
    }

    /// The relay's settings from the command line; usage errors for what cannot work.
    static func settings(_ inv: Invocation) throws -> Relay.Settings {
        guard !inv.parsed.values("from").isEmpty else { throw UsageError.missingOption("from", value: "endpoint") }
        let upstream = upstreamEndpoints(inv.parsed)
        for endpoint in upstream {
            if let problem = Invocation.endpointProblem(endpoint) {
                throw UsageError.invalidValue(
                    endpoint, for: "--from", "expected a ZeroMQ endpoint like tcp://127.0.0.1:7401 (\(problem))")
            }
        }
        guard let publish = try Invocation.publishEndpoint(inv.parsed) else {
            throw UsageError.missingOption("publish", value: "endpoint")
        }
        var interval: Duration? = .seconds(60)
        if let text = inv.parsed.value("stats-interval") {
            if Self.isZero(text) {
                interval = nil
            } else {
                do throws(UsageError) {
                    // At least a millisecond: a shorter one would log without pause.
                    let seconds = try ArgumentValues.seconds(text, for: "--stats-interval")
                    interval = .milliseconds(max(1, Int64((seconds * 1000).rounded(.up))))
                } catch {
                    throw UsageError.invalidValue(
                        text, for: "--stats-interval",
                        "expected a positive duration like 60, 60s or 500ms, or 0 for none")
                }
            }
        }
        if inv.parsed.value("publish-key") == nil, !inv.parsed.values("allow").isEmpty {
            throw UsageError("--allow needs --publish-key <name>: without it --publish does not use CURVE.")
        }
        let allowed = try Set(
            inv.parsed.values("allow").map {
                try CurveKeyOptions.publicKey(.init($0, from: "--allow"), of: "a subscriber's")
            })
        var serverKeys: CurveCredentials?
        if let name = inv.parsed.value("publish-key") {
            guard !allowed.isEmpty else {
                throw UsageError(
                    "--publish-key needs at least one --allow <key|file>: the public keys of the subscribers to admit.")
            }
            let (keys, secretFile) = try CurveCredentials.keyPair(named: name, serverPublicKey: "")
            if let warning = CurveKeyOptions.modeWarning(secretFile) { Output.error(warning) }
            serverKeys = keys
        }
        if let control = inv.parsed.value("control"), !isLocal(control) {
            Output.error(
                "warning: --control \(control) is neither ipc:// nor a loopback address: anyone who can reach it "
                    + "may read the counters.")
        }
        return Relay.Settings(
            upstream: upstream, publish: publish, control: inv.parsed.value("control"), statsInterval: interval,
            highWaterMark: Int(try inv.count("high-water-mark") ?? 100_000), upstreamCurve: try inv.curve(),
            serverKeys: serverKeys, allowed: allowed)
    }

    /// Whether only this host can reach `endpoint`: `ipc://`, `inproc://`, or `tcp://` on a loopback
    /// address.
    static func isLocal(_ endpoint: String) -> Bool {
        guard endpoint.hasPrefix("tcp://") else {
            return endpoint.hasPrefix("ipc://") || endpoint.hasPrefix("inproc://")
        }
        let address = endpoint.dropFirst("tcp://".count)
        let host = address.lastIndex(of: ":").map { address[..<$0] } ?? address
        return host == "localhost" || host.hasPrefix("127.") || host == "[::1]"
    }

    /// Every endpoint to forward, in the order given: each value of `--from` (the words after it too,
    /// `--from A B`, as docs/cli.md spells it), a comma-separated list split as `SEGUE_ENDPOINT` is.
    /// An empty item stays, for the check to refuse.
    static func upstreamEndpoints(_ parsed: ParsedArguments) -> [String] {
        parsed.values("from").flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }.map {
            $0.trimmingCharacters(in: .whitespaces)
        }
    }

    /// `--stats`: one `STATISTICS` request to the relay at `--control`.
    static func printStatistics(_ inv: Invocation) throws {
        guard let endpoint = inv.parsed.value("control") else {
            throw UsageError("--stats needs --control <endpoint>: the control endpoint of the relay to ask.")
        }
        for option in ["from", "publish", "publish-key", "allow"] where !inv.parsed.values(option).isEmpty {
            throw UsageError("--stats asks a running relay and takes --control only, not --\(option).")
        }
        // An ipc path with no socket is said at once, not after the whole timeout.
        if let path = IPCSocketFile.path(of: endpoint), !FileManager.default.fileExists(atPath: path) {
            throw TransportFailure(
                "No relay listens at \(endpoint): there is no socket at \(path); is 'segue relay --control "
                    + "\(endpoint)' running?")
        }
        let context = try ZMQContext()
        let socket = try ZMQSocket(context, .req)
        defer {
            socket.close()
            context.terminate()
        }
        try socket.setSendTimeout(inv.timeout)
        try socket.setReceiveTimeout(inv.timeout)
        do {
            try socket.connect(endpoint)
        } catch {
            throw UsageError.invalidValue(endpoint, for: "--control", "expected a ZeroMQ endpoint (\(error.message))")
        }
        let silence = TransportFailure(
            "No relay answered at \(endpoint) within \(SegueClientError.seconds(inv.timeout)) s; is 'segue relay --control \(endpoint)' running?",
            isTimeout: true)
        guard try socket.send(RelayControl.statistics), let frames = try socket.receiveMultipart() else {
            throw silence
        }
        // Something answered that is no relay's control socket (a daemon's command socket, say).
        guard let stats = try? ZMQProxy.Statistics(frames: frames) else {
            throw TransportFailure(
                "What answers at \(endpoint) is not a relay's control socket (its reply is not a relay's "
                    + "statistics); give the --control endpoint of 'segue relay'.")
        }
        inv.print(
            ["ok": true, "relay": .string(endpoint), "statistics": RelayControl.json(stats)],
            "\(endpoint): " + RelayControl.describe(stats) + ".")
    }
}
