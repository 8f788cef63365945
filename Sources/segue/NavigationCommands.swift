import Foundation
import SegueClient
import SegueCommandLine
import SegueCore

/// create, close, push, pop, pop-to, pop-to-root, set, present, dismiss.
enum NavigationCommands {
    /// `create`'s options by the config member each sets, for a refusal of the daemon's rules.
    static let configOptions = [
        "endRule.threshold": "threshold", "endRule.velocityImpact": "velocity-impact",
        "endRule.flingVelocity": "fling-velocity", "interactionTimeout": "interaction-timeout",
        "queueLimit": "queue-limit", "container": "container", "animators": "animators",
    ]

    /// A config the daemon's rules refuse, as the usage error of the option that set the value:
    /// checked before anything is sent, like every other value (docs/cli.md).
    private static func usage(_ error: CoreError, _ inv: Invocation) -> UsageError {
        func relative(_ text: String) -> String { text.hasPrefix("config.") ? String(text.dropFirst(7)) : text }
        let message = relative(error.message)
        // The value's path when the error keeps it; otherwise the message, which begins with the path.
        let refused = relative(error.value?.path ?? error.message)
        let member = configOptions.keys.sorted { $0.count > $1.count }.first { key in
            refused == key || [".", "[", " "].contains { refused.hasPrefix(key + $0) }
        }
        guard let member, let option = configOptions[member], let value = inv.parsed.value(option) else {
            return UsageError(message)
        }
        // The option's value itself, or something within it (`animators[0].animator is required`).
        guard let requirement = error.value?.requirement, refused == member else {
            return UsageError("--\(option): \(message)")
        }
        return UsageError.invalidValue(value, for: "--\(option)", requirement)
    }

    static func create(_ inv: Invocation) throws {
        var config = NavigatorConfig()
        var args: JSONObject = [:]
        if let busy = inv.parsed.value("busy") {
            args["busy"] = .string(try ArgumentValues.choice(busy, for: "--busy", in: ["reject", "queue"]))
        }
        if let limit = try inv.count("queue-limit") { args["queueLimit"] = .int(limit) }
        if let size = inv.parsed.value("container") {
            let parts = size.split(separator: "x").compactMap { Double($0) }
            guard parts.count == 2 else {
                throw UsageError.invalidValue(size, for: "--container", "expected WIDTHxHEIGHT in points, like 390x844")
            }
            args["container"] = ["width": .double(parts[0]), "height": .double(parts[1])]
        }
        var rule: JSONObject = [:]
        if let v = try inv.double("threshold") { rule["threshold"] = .double(v) }
        if let v = try inv.double("velocity-impact") { rule["velocityImpact"] = .double(v) }
        if let v = try inv.double("fling-velocity") { rule["flingVelocity"] = .double(v) }
        if rule.count > 0 { args["endRule"] = .object(rule) }
        if let t = inv.parsed.value("interaction-timeout") {
            args["interactionTimeout"] = .double(try ArgumentValues.seconds(t, for: "--interaction-timeout"))
        }
        if let a = inv.parsed.value("animators") {
            guard let json = try? JSON.parse(a) else {
                throw UsageError.invalidValue(a, for: "--animators", "expected JSON animator rules")
            }
            args["animators"] = json
        }
        if inv.parsed.flag("retarget") { args["retarget"] = true }
        do { config = try NavigatorConfig(json: .object(args)) } catch { throw usage(error, inv) }
        let root = try screen(inv, inv.argument("root"))
        let client = try inv.client()
        let reply = try client.create(inv.argument("navigator"), root: root, config: config, envelope: envelope(inv))
        inv.print(reply.json, "\(reply.navigator): created at revision \(reply.revision) (seq \(reply.seq))")
    }

    static func close(_ inv: Invocation) throws {
        let reply = try inv.client().close(inv.argument("navigator"), envelope: envelope(inv))
        inv.print(reply.json, "\(reply.navigator): closed at revision \(reply.revision) (seq \(reply.seq))")
    }

    static func push(_ inv: Invocation) throws {
        let spec = try screen(inv, inv.argument("screen"))
        try run(inv, .push(spec, try options(inv)))
    }

    static func pop(_ inv: Invocation) throws { try run(inv, .pop(try options(inv))) }
    static func popTo(_ inv: Invocation) throws { try run(inv, .popTo(inv.argument("target"), try options(inv))) }
    static func popToRoot(_ inv: Invocation) throws { try run(inv, .popToRoot(try options(inv))) }

    static func setStack(_ inv: Invocation) throws {
        let refs = (inv.parsed.arguments["screens"] ?? []).map { ScreenRef.idOrName($0) }
        try run(inv, .setStack(refs, try options(inv)))
    }

    static func present(_ inv: Invocation) throws {
        try run(inv, .present(try screen(inv, inv.argument("screen")), try options(inv)))
    }

    static func dismiss(_ inv: Invocation) throws { try run(inv, .dismiss(try options(inv))) }

    // MARK: Shared

    static func envelope(_ inv: Invocation, owner: String? = nil) throws(UsageError) -> CommandEnvelope {
        CommandEnvelope(requestID: try key(inv, "id"), expect: try inv.count("expect"), owner: owner)
    }

    /// `--id` or `--owner`, held to the daemon's 1 to 128 bytes here: the daemon refuses a longer id
    /// without echoing it, so a reply to it could never be matched and the command would time out.
    static func key(_ inv: Invocation, _ option: String) throws(UsageError) -> String? {
        guard let value = inv.parsed.value(option) else { return nil }
        guard (1...128).contains(value.utf8.count) else {
            throw UsageError.invalidValue(
                value.count > 40 ? value.prefix(40) + "…" : value, for: "--\(option)",
                "expected 1 to 128 bytes, got \(value.utf8.count)")
        }
        return value
    }

    /// A screen spec from a route name and the `--param` options.
    static func screen(_ inv: Invocation, _ name: String) throws(UsageError) -> ScreenSpec {
        var params = JSONObject()
        for p in inv.parsed.values("param") {
            let (key, value) = try ArgumentValues.parameter(p, for: "--param")
            // A second value for a key is a mistake, not an update: one of the two would be dropped.
            guard params[key] == nil else {
                throw UsageError("--param \(key) is given twice; give each parameter once.")
            }
            params[key] = value
        }
        return ScreenSpec(name: name, params: params.count > 0 ? params : nil)
    }

    /// The animator object from --preset, --style, --edge, --duration and --curve (nil when none).
    static func animator(_ inv: Invocation) throws(UsageError) -> JSON? {
        var o = JSONObject()
        if let preset = inv.parsed.value("preset") { o["preset"] = .string(preset) }
        if let style = inv.parsed.value("style") { o["style"] = .string(try Self.style(style)) }
        if let edge = inv.parsed.value("edge") {
            o["edge"] = .string(try ArgumentValues.choice(edge, for: "--edge", in: ["right", "left", "top", "bottom"]))
        }
        if let d = inv.parsed.value("duration") {
            o["duration"] = .double(try ArgumentValues.seconds(d, for: "--duration"))
        }
        if let c = inv.parsed.value("curve") { o["curve"] = try ArgumentValues.curve(c, for: "--curve") }
        guard o.count > 0 else { return nil }
        try check(animator: .object(o), inv)
        return .object(o)
    }

    /// A `--style`: the built-in styles only. `keyframes` is a style of the wire's animator object,
    /// whose tracks no option can give.
    static func style(_ text: String) throws(UsageError) -> String {
        let names = TransitionStyle.named.map(\.name)
        guard names.contains(text) else {
            let why =
                text == "keyframes"
                ? "keyframes need tracks per view and property, which only an animator object over the wire can give; "
                    + "expected one of \(names.joined(separator: ", "))"
                : "expected one of \(names.joined(separator: ", "))"
            throw .invalidValue(text, for: "--style", why)
        }
        return text
    }

    /// The daemon's own checks of an animator (SegueCore: parsing, then `Animator.requestProblem`), run
    /// before sending, so that a bad `--style` or an out-of-range Bézier is a usage error (64) like a
    /// bad `--duration`, blamed on the option that gave it.
    static func check(animator json: JSON, _ inv: Invocation) throws(UsageError) {
        let problem: CoreError?
        do throws(CoreError) {
            _ = try Animator(json: json)
            problem = Animator.requestProblem(json: json)
        } catch {
            problem = error
        }
        guard let problem else { return }
        let options = ["style", "edge", "duration", "curve", "preset"]
        let option =
            options.first { problem.message.hasPrefix("animator.\($0)") }
            ?? options.first { inv.parsed.value($0) != nil } ?? "style"
        let message = problem.message.hasSuffix(".") ? String(problem.message.dropLast()) : problem.message
        throw UsageError.invalidValue(inv.parsed.value(option) ?? "", for: "--\(option)", message)
    }

    static func options(_ inv: Invocation) throws(UsageError) -> TransitionOptions {
        TransitionOptions(animated: !inv.parsed.flag("no-animate"), animator: try animator(inv))
    }

    /// Sends a transition command; with `--wait`, subscribes first and returns when it ends.
    static func run(_ inv: Invocation, _ command: NavigationCommand) throws {
        let navigator = inv.argument("navigator")
        let client = try inv.client()
        var envelope = try envelope(inv)
        if envelope.requestID == nil { envelope.requestID = client.nextID() }
        let waiter = inv.parsed.flag("wait") ? try TransitionWaiter(inv, navigator: navigator) : nil
        let reply = try client.send(command, to: navigator, envelope: envelope)
        var human = "\(navigator): revision \(reply.revision) (seq \(reply.seq))"
        if let t = reply.transition { human += ", transition \(t)" }
        // A pop or dismiss of the screen a push or present brings in turns that transition back.
        if reply.decision == "cancel" { human += " reversed" }
        if let q = reply.queued { human += ", queued at \(q)" }
        inv.print(reply.json, human)
        guard let waiter else { return }
        try waiter.report(try waiter.wait(client: client, requestID: envelope.requestID!, reply: reply), inv)
    }
}
