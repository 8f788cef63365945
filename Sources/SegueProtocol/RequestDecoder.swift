import SegueCore

/// Turns request bytes into a `Request`, or into the error reply's code and message.
///
/// Pure, so every malformed input can be tested without a socket. The id is recovered whenever the
/// bytes are a JSON object with a usable `id`, so even a rejected request's reply can be matched.
package struct RequestDecoder: Sendable {
    package var limits: Limits

    package struct Limits: Equatable, Sendable {
        /// The largest serialized `params` of one screen.
        package var maxParamsBytes: Int = 16 * 1024
        package var maxIDBytes: Int = 128
        package var maxDepth: Int = 32
        package var maxStringBytes: Int = 256 * 1024
        package var maxHistoryLimit: Int = 10_000
        package init() {}
    }

    package init(limits: Limits = Limits()) { self.limits = limits }

    /// The request, or the error with whatever id could be read.
    package func decode(_ bytes: [UInt8]) -> Result<Request, Failure> {
        if let request = flatRequest(bytes) { return .success(request) }
        return decodeThroughTree(bytes)
    }

    /// `decode` for every request: parsed into a `JSON` tree, then read member by member.
    func decodeThroughTree(_ bytes: [UInt8]) -> Result<Request, Failure> {
        let json: JSON
        do {
            json = try JSON.parse(
                bytes, limits: JSONLimits(maxDepth: limits.maxDepth, maxStringBytes: limits.maxStringBytes))
        } catch {
            // A string past the limit is well-formed JSON that is too large, not invalid JSON.
            guard error.kind != .stringTooLong else {
                return .failure(
                    Failure(
                        id: nil,
                        error: WireError(
                            .tooLarge, "The request is too large: at byte \(error.offset), \(error.message).")
                    ))
            }
            return .failure(
                Failure(id: nil, error: WireError(.badRequest, "The request is not valid JSON: \(error.description).")))
        }
        guard let object = json.objectValue else {
            return .failure(
                Failure(
                    id: nil, error: WireError(.badRequest, "A request must be a JSON object like {\"cmd\": \"ping\"}."))
            )
        }
        var id: String?
        switch object["id"] {
        case nil, .null?: id = nil
        case .string(let s)?:
            let error = WireError(
                .invalidArgument, "id must be 1 to \(limits.maxIDBytes) bytes; got \(s.utf8.count) bytes.")
            // A long id is not echoed: the reply stays small whatever the request carried.
            guard s.utf8.count <= limits.maxIDBytes else { return .failure(Failure(id: nil, error: error)) }
            // An empty id would be one idempotency key shared by every client that sends it. It is
            // echoed, so a client that waits for the reply carrying its id still gets this one.
            guard !s.isEmpty else { return .failure(Failure(id: s, error: error)) }
            id = s
        case .int(let i)?: id = String(i)
        // `1.0` is the integer 1 here as everywhere else in a request (and in the fingerprint).
        case .double(let d)? where Int64(exactly: d) != nil: id = String(Int64(d))
        // A whole number past 64 bits has the right type and is out of range, as for every integer.
        case .double(let d)? where d.isFinite && d.rounded(.towardZero) == d:
            let error = CoreError(
                .invalidArgument, "id must be a string or an integer that fits in 64 bits; got \(JSON.messageText(d)).")
            return .failure(Failure(id: nil, error: WireError(error)))
        case let value?:
            let error = CoreError.wrongType("id", expected: "a string or an integer", got: value)
            return .failure(Failure(id: nil, error: WireError(error)))
        }
        do throws(CoreError) {
            return .success(try request(object, id: id))
        } catch {
            return .failure(Failure(id: id, error: WireError(error)))
        }
    }

    /// A decoding failure: the error and the request id, if one was readable.
    package struct Failure: Error, Equatable, Sendable {
        package var id: String?
        package var error: WireError
    }

    /// The envelope and the body. The envelope's values are read like every command argument, so they
    /// follow the same rule: a wrong type is `bad_request`, a value out of range `invalid_argument`.
    private func request(_ object: JSONObject, id: String?) throws(CoreError) -> Request {
        guard let cmdValue = object["cmd"], !cmdValue.isNull else {
            throw .missing("cmd", "the command, e.g. {\"cmd\": \"ping\"}")
        }
        let cmd = try cmdValue.string(at: "cmd")
        var envelope = CommandEnvelope(requestID: id)
        var members = Arguments(object, path: "")
        let navigator = try members.string("navigator")
        if let navigator, !NavigatorName.isValid(navigator) {
            throw .notAllowed(
                "navigator", expected: "a navigator name matching [A-Za-z0-9._-]{1,64}", got: .string(navigator))
        }
        let body: Request.Body
        do throws(CoreError) {
            envelope.expect = try members.int("expect", in: 0...Int64.max)
            if let owner = try members.string("owner") {
                guard !owner.isEmpty, owner.utf8.count <= limits.maxIDBytes else {
                    throw .invalid("owner must be 1 to \(limits.maxIDBytes) bytes; got \(owner.utf8.count) bytes.")
                }
                envelope.owner = owner
            }
            body = try self.body(cmd: cmd, object: object, navigator: navigator)
        } catch {
            // Like every refusal of a command on a navigator, a bad value names the navigator: a
            // client driving several from one socket sees which request it was.
            guard let navigator, Request.actsOnOneNavigator(cmd) else { throw error }
            throw error.prefixed("\(cmd) on navigator \(navigator)")
        }
        guard case .navigation = body else {
            return Request(id: id, navigator: navigator, envelope: envelope, body: body)
        }
        guard navigator != nil else { throw .missing("navigator", "\(cmd) needs the name of the navigator to act on") }
        // What a retry must repeat under the same id: every member but `id`, nulls being absent.
        let fingerprint = id.map { _ in
            JSON.object(JSONObject(object.members.filter { $0.key != "id" && !$0.value.isNull })).fingerprint
        }
        var request = Request(id: id, navigator: navigator, envelope: envelope, body: body, fingerprint: fingerprint)
        if cmd == "create" {
            request.givenConfig = Set(NavigatorConfig.keys.filter { object[$0].map { !$0.isNull } ?? false })
        }
        return request
    }

    private func body(cmd: String, object: JSONObject, navigator: String?) throws(CoreError) -> Request.Body {
        var args = Arguments(object, path: "", ignoring: ["cmd", "id", "navigator"])
        let body: Request.Body
        switch cmd {
        case "ping": body = .ping
        case "list": body = .list
        case "stats": body = .stats
        case "state":
            guard navigator != nil else { throw .missing("navigator", "state needs the name of the navigator to read") }
            body = .state(at: try args.int("at", in: 0...Int64.max))
        case "history":
            let after = try args.int("after", in: 0...Int64.max) ?? 0
            let limit = try args.int("limit", in: 1...Int64(limits.maxHistoryLimit)) ?? 1000
            body = .history(after: after, limit: Int(limit))
        default:
            guard NavigationCommand.names.contains(cmd) else {
                throw CoreError(
                    .unknownCommand,
                    "Unknown command \"\(cmd.prefix(40))\"; known: \(Request.allCommands.joined(separator: ", ")).")
            }
            let command = try NavigationCommand(name: cmd, arguments: object)
            try checkParams(command)
            try checkAnimators(command, object)
            return .navigation(command)
        }
        // ping, list and stats cover the whole daemon: a navigator there would be silently ignored
        // (`list` would still list them all), so it is refused like any member they do not take.
        if navigator != nil, ["ping", "list", "stats"].contains(cmd) {
            throw CoreError(
                .badRequest, "\(cmd) does not take navigator; it covers every navigator (state and history read one).")
        }
        // Read commands take no envelope fields but `id` and `navigator` (so `expect` and `owner` are not
        // among the members an unknown one's message lists); a null one is absent, as everywhere.
        for member in ["expect", "owner"] {
            guard let value = object[member] else { continue }
            guard value.isNull else {
                throw CoreError(
                    .badRequest,
                    "\(cmd) does not take expect or owner; they belong to commands that change a navigator.")
            }
            _ = args.raw(member)
        }
        // The navigator is read for every command (and refused above for these): not one they take.
        try args.rejectUnknown(allowedHint: ["ping", "list", "stats"].contains(cmd) ? "Known: cmd, id." : nil)
        return body
    }

    /// What a request's animators must pass beyond parsing (`Animator.requestProblem`): checked
    /// here, on requests only, so that stored events an earlier build accepted stay readable.
    private func checkAnimators(_ command: NavigationCommand, _ object: JSONObject) throws(CoreError) {
        var given: JSON?
        switch command {
        case .create(_, let config):
            if let problem = config.animators.requestProblem() { throw problem }
            // A duration beside a settling spring, as for a command's animator: only the request's
            // JSON says whether the duration was given.
            for (index, rule) in (object["animators"]?.arrayValue ?? []).enumerated() {
                guard let animator = rule["animator"],
                    let problem = Animator.settlingSpringProblem(json: animator, path: "animators[\(index)].animator")
                else { continue }
                throw problem
            }
            return
        case .push(_, let o), .pop(let o), .popTo(_, let o), .popToRoot(let o), .setStack(_, let o), .present(_, let o),
            .dismiss(let o):
            given = o.animator
        case .begin(_, let animator, _):
            given = animator
        default:
            return
        }
        // SegueCore's rule, shared with segue (which checks before sending).
        if let given, let problem = Animator.requestProblem(json: given) { throw problem }
    }

    /// Screen params are bounded so one request cannot bloat every later snapshot and state reply.
    private func checkParams(_ command: NavigationCommand) throws(CoreError) {
        var specs: [ScreenSpec] = []
        switch command {
        case .create(let root, _): specs = [root]
        case .push(let s, _), .present(let s, _), .begin(.push(let s)?, _, _), .begin(.present(let s)?, _, _):
            specs = [s]
        case .setStack(let refs, _):
            for case .new(let s) in refs { specs.append(s) }
        default: break
        }
        for spec in specs {
            guard let params = spec.params else { continue }
            let size = JSON.object(params).serializedBytes().count
            if size > limits.maxParamsBytes {
                throw CoreError(
                    .tooLarge,
                    "Screen \(spec.name)'s params take \(size) bytes, past the daemon's limits.maxParamsBytes "
                        + "of \(limits.maxParamsBytes); send less in params, such as an id the frontend looks the rest up by."
                )
            }
        }
    }
}
