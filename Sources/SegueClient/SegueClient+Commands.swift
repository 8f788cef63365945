import SegueCore
import SegueProtocol

/// Every command of docs/protocol.md, "Commands", as a typed call.
///
/// Each blocks until the reply or `timeout`, and throws what `call` throws: `.rejected` with the
/// daemon's `code` (`busy`, `conflict`, `unknown_navigator`, …) when it says no. A command's
/// `requestID` (in `envelope`, generated when absent) makes it safe to repeat: see
/// `SegueClientError.requestID`.
extension SegueClient {
    /// Sends any navigation command (the same enum the daemon decides), with its envelope: `id`
    /// (idempotency; generated when absent), `expect` and `owner`.
    @discardableResult
    public func send(
        _ command: NavigationCommand, to navigator: String, envelope: CommandEnvelope = .init()
    ) throws(SegueClientError) -> CommandReply {
        let reply = try call(command.name, navigator: navigator, command.arguments, envelope: envelope)
        return try SegueClientError.decoding { () throws(WireError) in try CommandReply(reply) }
    }

    /// The daemon's version, frame rate, position (closed frame, last seq) and clock.
    public func ping() throws(SegueClientError) -> Pong {
        let reply = try call("ping")
        return try SegueClientError.decoding { () throws(WireError) in try Pong(reply) }
    }

    /// Creates `navigator` with `root` on its stack (`navigator_exists` if it is there already).
    /// Only the members of `config` that differ from `NavigatorConfig()` are sent: the others take
    /// the daemon's defaults (its configured animators and interaction timeout, its caps).
    @discardableResult
    public func create(
        _ navigator: String, root: ScreenSpec, config: NavigatorConfig = NavigatorConfig(),
        envelope: CommandEnvelope = .init()
    ) throws(SegueClientError) -> CommandReply {
        try send(.create(root: root, config: config), to: navigator, envelope: envelope)
    }

    /// Closes `navigator` for good: its name is not reused (`navigator_closed` after).
    @discardableResult
    public func close(_ navigator: String, envelope: CommandEnvelope = .init()) throws(SegueClientError) -> CommandReply
    {
        try send(.close, to: navigator, envelope: envelope)
    }

    /// Pushes `screen` onto the stack, animated unless `options` says otherwise.
    @discardableResult
    public func push(
        _ navigator: String, _ screen: ScreenSpec, options: TransitionOptions = .standard,
        envelope: CommandEnvelope = .init()
    ) throws(SegueClientError) -> CommandReply {
        try send(.push(screen, options), to: navigator, envelope: envelope)
    }

    /// Pops the top screen (`cannot_pop_root` at the root).
    @discardableResult
    public func pop(
        _ navigator: String, options: TransitionOptions = .standard, envelope: CommandEnvelope = .init()
    ) throws(SegueClientError) -> CommandReply {
        try send(.pop(options), to: navigator, envelope: envelope)
    }

    /// `popTo`: `screen` is an id (`s3`) or a route name (its topmost match).
    @discardableResult
    public func popTo(
        _ navigator: String, _ screen: String, options: TransitionOptions = .standard,
        envelope: CommandEnvelope = .init()
    ) throws(SegueClientError) -> CommandReply {
        try send(.popTo(screen, options), to: navigator, envelope: envelope)
    }

    /// Pops every screen above the root.
    @discardableResult
    public func popToRoot(
        _ navigator: String, options: TransitionOptions = .standard, envelope: CommandEnvelope = .init()
    ) throws(SegueClientError) -> CommandReply {
        try send(.popToRoot(options), to: navigator, envelope: envelope)
    }

    /// Replaces the stack: each `ScreenRef` an existing screen (kept) or a new one.
    @discardableResult
    public func setStack(
        _ navigator: String, _ screens: [ScreenRef], options: TransitionOptions = .standard,
        envelope: CommandEnvelope = .init()
    ) throws(SegueClientError) -> CommandReply {
        try send(.setStack(screens, options), to: navigator, envelope: envelope)
    }

    /// Presents `screen` modally, above the stack and any modal already shown.
    @discardableResult
    public func present(
        _ navigator: String, _ screen: ScreenSpec, options: TransitionOptions = .standard,
        envelope: CommandEnvelope = .init()
    ) throws(SegueClientError) -> CommandReply {
        try send(.present(screen, options), to: navigator, envelope: envelope)
    }

    /// Dismisses the top modal (`screen_not_found` when none is shown).
    @discardableResult
    public func dismiss(
        _ navigator: String, options: TransitionOptions = .standard, envelope: CommandEnvelope = .init()
    ) throws(SegueClientError) -> CommandReply {
        try send(.dismiss(options), to: navigator, envelope: envelope)
    }

    /// `begin`: an interactive transition, or (`start` nil) an interrupt of the one animating.
    @discardableResult
    public func begin(
        _ navigator: String, _ start: InteractiveStart?, animator: JSON? = nil, geometry: GestureGeometry = .none,
        envelope: CommandEnvelope = .init()
    ) throws(SegueClientError) -> CommandReply {
        try send(.begin(start, animator: animator, geometry: geometry), to: navigator, envelope: envelope)
    }

    /// Moves the interactive transition to `percent` (clamped to [0, 1]); the reply carries the
    /// percent applied. `velocity` is in fractions a second, for `end`'s decision.
    @discardableResult
    public func update(
        _ navigator: String, percent: Double, velocity: Double? = nil, geometry: GestureGeometry = .none,
        envelope: CommandEnvelope = .init()
    ) throws(SegueClientError) -> CommandReply {
        try send(.update(percent: percent, velocity: velocity, geometry: geometry), to: navigator, envelope: envelope)
    }

    /// Completes the interactive transition from where it is, at `completionSpeed` along
    /// `completionCurve` (or `animator`).
    @discardableResult
    public func finish(
        _ navigator: String, velocity: Double? = nil, completionSpeed: Double = 1,
        completionCurve: TimingCurve = .easeInOut, animator: CompletionAnimator? = nil,
        envelope: CommandEnvelope = .init()
    ) throws(SegueClientError) -> CommandReply {
        try send(
            .finish(
                velocity: velocity, completionSpeed: completionSpeed, completionCurve: completionCurve,
                animator: animator), to: navigator, envelope: envelope)
    }

    /// `cancel`: with no `completionCurve` and no `animator`, a clock-driven transition reverses keeping
    /// its velocity.
    @discardableResult
    public func cancel(
        _ navigator: String, velocity: Double? = nil, completionSpeed: Double = 1,
        completionCurve: TimingCurve? = nil, animator: CompletionAnimator? = nil,
        envelope: CommandEnvelope = .init()
    ) throws(SegueClientError) -> CommandReply {
        try send(
            .cancel(
                completionSpeed: completionSpeed, completionCurve: completionCurve, velocity: velocity,
                animator: animator), to: navigator, envelope: envelope)
    }

    /// `end`: the daemon decides finish or cancel by the navigator's end rule (`decision`).
    @discardableResult
    public func end(
        _ navigator: String, percent: Double? = nil, velocity: Double? = nil, animator: CompletionAnimator? = nil,
        geometry: GestureGeometry = .none, envelope: CommandEnvelope = .init()
    ) throws(SegueClientError) -> CommandReply {
        try send(
            .end(percent: percent, velocity: velocity, animator: animator, geometry: geometry), to: navigator,
            envelope: envelope)
    }

    /// `pause`: holds an animating, finishing or cancelling transition where it is.
    @discardableResult
    public func pause(_ navigator: String, envelope: CommandEnvelope = .init()) throws(SegueClientError)
        -> CommandReply
    {
        try send(.pause, to: navigator, envelope: envelope)
    }

    /// `seek`: moves a paused transition to `fraction` (its progress, with `scrubsLinearly`).
    @discardableResult
    public func seek(
        _ navigator: String, fraction: Double, scrubsLinearly: Bool = true, envelope: CommandEnvelope = .init()
    ) throws(SegueClientError) -> CommandReply {
        try send(.seek(fraction: fraction, scrubsLinearly: scrubsLinearly), to: navigator, envelope: envelope)
    }

    /// `resume`: runs a paused transition on toward the end it was heading for.
    @discardableResult
    public func resume(_ navigator: String, envelope: CommandEnvelope = .init()) throws(SegueClientError)
        -> CommandReply
    {
        try send(.resume, to: navigator, envelope: envelope)
    }

    /// `state`, now or (`at`) as of a seq.
    public func state(_ navigator: String, at seq: Int64? = nil) throws(SegueClientError) -> NavigatorSnapshot {
        var arguments: JSONObject = [:]
        if let seq { arguments["at"] = .int(seq) }
        let reply = try call("state", navigator: navigator, arguments)
        return try SegueClientError.decoding { () throws(WireError) in try NavigatorSnapshot(reply) }
    }

    /// Every navigator the daemon holds, with its top screen and revision (`listing` adds the seq).
    public func list() throws(SegueClientError) -> [NavigatorSummary] { try listing().navigators }

    /// `list` with the log position it was taken at (`seq`): where a client following every
    /// navigator starts.
    public func listing() throws(SegueClientError) -> (navigators: [NavigatorSummary], seq: Int64) {
        let reply = try call("list")
        guard let seq = reply["seq"]?.int64Value else { throw .malformed("a list reply without seq") }
        var out: [NavigatorSummary] = []
        for item in reply["navigators"]?.arrayValue ?? [] {
            guard let object = item.objectValue else { throw .malformed("a list item that is not an object") }
            out.append(try SegueClientError.decoding { () throws(WireError) in try NavigatorSummary(object) })
        }
        return (out, seq)
    }

    /// One page of events after `after`, optionally of one navigator.
    public func history(navigator: String? = nil, after: Int64 = 0, limit: Int? = nil) throws(SegueClientError)
        -> HistoryPage
    {
        var arguments: JSONObject = ["after": .int(after)]
        if let limit { arguments["limit"] = .int(limit) }
        let reply = try call("history", navigator: navigator, arguments)
        return try SegueClientError.decoding { () throws(WireError) in try HistoryPage(reply) }
    }

    /// The daemon's counters, as it reports them.
    public func stats() throws(SegueClientError) -> JSONObject { try call("stats") }
}
