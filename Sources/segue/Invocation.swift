import Foundation
import SegueClient
import SegueCommandLine
import SegueCore

/// One parsed run of `segue`: the command's parsed words plus the options every command shares.
struct Invocation {
    let path: String
    let parsed: ParsedArguments
    let endpoint: String
    /// A malformed endpoint, reported as a usage error by the commands that connect to it (and only
    /// by them: `export` or `keygen` must not fail over a variable they do not use).
    private let endpointError: UsageError?
    private let publishEndpointError: UsageError?
    let publishEndpoint: String
    let json: Bool
    let timeout: Duration
    /// `--server-key` and `--client-key` as given; read only by commands that reach the daemon, so a
    /// key in the environment never gets in the way of `export` or `verify`.
    let curveKeys: CurveKeyOptions
    private let curveMemo = CurveMemo()

    init(path: String, parsed: ParsedArguments, environment: [String: String]) throws(UsageError) {
        self.path = path
        self.parsed = parsed
        // A name no navigator can have is a mistake on the command line: said as one (status 64)
        // before anything is sent, with the daemon's own rule.
        // `--navigator` too, where a log is read or searched for one.
        let named = [
            parsed.argument("navigator").map { ($0, "<navigator>") },
            parsed.value("navigator").map { ($0, "--navigator") },
        ]
        for case (let navigator, let place)? in named where !NavigatorName.isValid(navigator) {
            throw UsageError.invalidValue(
                navigator, for: place, "expected a navigator name matching [A-Za-z0-9._-]{1,64}")
        }
        // An empty variable counts as unset (docs/cli.md), as for the key variables.
        func variable(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        endpoint = parsed.value("endpoint") ?? variable("SEGUE_ENDPOINT") ?? SegueClient.defaultEndpoint
        publishEndpoint =
            parsed.value("publish-endpoint") ?? variable("SEGUE_PUBLISH_ENDPOINT") ?? SegueClient.defaultPublishEndpoint
        // Checked here, reported by the commands that connect, so a bad publish endpoint is a usage
        // error naming it rather than a transport error, and a port past 65535 is not a timeout.
        func problem(_ value: String, _ option: String, _ variable: String) -> UsageError? {
            // SEGUE_ENDPOINT may list several daemons on one log, comma-separated: each must be good.
            let parts = option == "--endpoint" ? SegueClient.split(value) : [value]
            guard let problem = parts.lazy.compactMap(Self.endpointProblem).first else { return nil }
            let source = parsed.value(String(option.dropFirst(2))) == nil ? variable : option
            return UsageError.invalidValue(
                value, for: source, "expected a ZeroMQ endpoint like tcp://127.0.0.1:7400 (\(problem))")
        }
        endpointError = problem(endpoint, "--endpoint", "SEGUE_ENDPOINT")
        publishEndpointError = problem(publishEndpoint, "--publish-endpoint", "SEGUE_PUBLISH_ENDPOINT")
        json = parsed.flag("json")
        let seconds = try parsed.value("timeout").map { (t: String) throws(UsageError) in
            try ArgumentValues.seconds(t, for: "--timeout")
        }
        timeout = .milliseconds(Int64(((seconds ?? 5) * 1000).rounded(.up)))
        curveKeys = CurveKeyOptions(parsed: parsed, environment: environment)
    }

    func argument(_ name: String) -> String { parsed.argument(name) ?? "" }

    /// The publish endpoint, for the commands that subscribe; a malformed one is a usage error.
    func subscriptionEndpoint() throws(UsageError) -> String {
        if let publishEndpointError { throw publishEndpointError }
        return publishEndpoint
    }

    /// What is wrong with an endpoint a client connects to, or nil: `tcp://HOST:PORT` with a port
    /// from 1 to 65535, `ipc://PATH` (at most 107 bytes), `inproc://NAME`.
    static func endpointProblem(_ text: String) -> String? {
        guard let separator = text.firstRange(of: "://") else { return "no transport://" }
        let scheme = text[..<separator.lowerBound]
        let address = text[separator.upperBound...]
        guard !address.isEmpty else { return "nothing after ://" }
        switch scheme {
        case "tcp":
            guard let colon = address.lastIndex(of: ":"), colon != address.startIndex else {
                return "tcp needs host:port"
            }
            guard let port = Int(address[address.index(after: colon)...]), (1...65535).contains(port) else {
                return "the port must be a number from 1 to 65535"
            }
            return hostProblem(String(address[..<colon]))
        case "ipc": return address.utf8.count <= 107 ? nil : "an ipc path is at most 107 bytes"
        // libzmq's inproc reaches sockets of the same process only: segued and segue are two.
        case "inproc": return "inproc reaches sockets in the same process only; use tcp or ipc"
        default: return "the transport is tcp or ipc"
        }
    }

    /// What is wrong with an endpoint segue binds (`relay --publish`, `replay --publish`), or nil: the
    /// same shapes, but a tcp host may be `*` or an interface and the port `*` or 0 (one the system picks),
    /// so only the form is checked; what is left (an address not on this machine, a port taken) is
    /// the bind's to say.
    static func bindEndpointProblem(_ text: String) -> String? {
        guard let separator = text.firstRange(of: "://") else { return "no transport://" }
        let address = text[separator.upperBound...]
        guard text[..<separator.lowerBound] == "tcp" else { return endpointProblem(text) }
        guard let colon = address.lastIndex(of: ":"), colon != address.startIndex else {
            return "tcp needs host:port"
        }
        let port = address[address.index(after: colon)...]
        guard port == "*" || Int(port).map({ (0...65535).contains($0) }) == true else {
            return "the port must be a number up to 65535, or *"
        }
        return nil
    }

    /// `--publish`: a malformed endpoint to bind is a usage error, said before anything is read or bound.
    static func publishEndpoint(_ parsed: ParsedArguments) throws(UsageError) -> String? {
        guard let endpoint = parsed.value("publish") else { return nil }
        guard let problem = bindEndpointProblem(endpoint) else { return endpoint }
        throw UsageError.invalidValue(
            endpoint, for: "--publish", "expected a ZeroMQ endpoint to bind like tcp://127.0.0.1:7401 (\(problem))")
    }

    /// A host name that does not resolve: libzmq would retry it forever in silence, so it is a usage
    /// error at once (a typo in --endpoint, not a daemon that is down).
    static func hostProblem(_ host: String) -> String? {
        var name = host
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(name, nil, &hints, &result)
        if let result { freeaddrinfo(result) }
        guard status != 0 else { return nil }
        return "cannot resolve the host '\(host)': \(String(cString: gai_strerror(status)))"
    }

    /// The connected client; a malformed endpoint is a usage error.
    func client() throws -> SegueClient {
        if let endpointError { throw endpointError }
        let curve = try curve()
        let result = Result { () throws(SegueClientError) -> SegueClient in
            try SegueClient(endpoint: endpoint, timeout: timeout, retries: 2, curve: curve)
        }
        switch result {
        case .success(let client):
            return client
        case .failure(let error)
        where error.transportError?.code == .invalidArgument || error.transportError?.code == .protocolNotSupported:
            throw UsageError.invalidValue(
                endpoint, for: "--endpoint", "expected a ZeroMQ endpoint like tcp://127.0.0.1:7400")
        case .failure(let error):
            throw error
        }
    }

    /// The CURVE credentials from `--server-key` and `--client-key` (or the environment), read once
    /// per run (a `--wait` opens a subscriber and a client); `nil` without keys. Warns on stderr, once,
    /// when the secret key file is open to others.
    func curve() throws -> CurveCredentials? {
        if let result = curveMemo.result { return try result.get() }
        let result = Result { try curveKeys.credentials() }
        if case .success(let loaded?) = result, let warning = CurveKeyOptions.modeWarning(loaded.secretFile) {
            Output.error(warning)
        }
        curveMemo.result = result.map { $0?.credentials }
        return try result.get()?.credentials
    }

    func double(_ option: String) throws(UsageError) -> Double? {
        try parsed.value(option).map { (v: String) throws(UsageError) in
            try ArgumentValues.number(v, for: "--\(option)")
        }
    }

    /// `--velocity`, held to the daemon's range before anything is sent.
    func velocity() throws(UsageError) -> Double? {
        guard let velocity = try double("velocity") else { return nil }
        let range = NavigationCommand.velocities
        guard range.contains(velocity) else {
            throw UsageError.invalidValue(
                parsed.value("velocity") ?? "", for: "--velocity",
                "expected a velocity from \(Int(range.lowerBound)) to \(Int(range.upperBound)) (fractions per second)")
        }
        return velocity
    }

    func count(_ option: String) throws(UsageError) -> Int64? {
        try parsed.value(option).map { (v: String) throws(UsageError) in try ArgumentValues.count(v, for: "--\(option)")
        }
    }

    /// Prints a success: under `--json` its object, starting `"ok": true` as the daemon's replies do (an
    /// offline command's result, such as export's or keygen's, gets it here), else the human line.
    func print(_ reply: JSONObject, _ human: @autoclosure () -> String) {
        guard json else { return Output.line(human()) }
        let object = reply["ok"] == nil ? JSONObject([("ok", .bool(true))] + reply.members) : reply
        Output.line(JSON.object(object).serialized())
    }
}

/// The outcome of reading the CURVE keys, kept so that a run reads them (and warns) once.
final class CurveMemo {
    var result: Result<CurveCredentials?, any Error>?
}
