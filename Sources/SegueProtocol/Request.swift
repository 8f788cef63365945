import SegueCore

/// A decoded command request (docs/protocol.md, "Requests and replies").
package struct Request: Equatable, Sendable {
    /// The client's `id`, echoed in the reply; also the idempotency key of mutating commands.
    package var id: String?
    package var navigator: String?
    package var envelope: CommandEnvelope
    package var body: Body
    /// For a navigation command with an `id`: the fingerprint of everything else it says
    /// (`JSON.fingerprint`), so that a different request reusing the id is refused, not answered
    /// with the first one's reply.
    package var fingerprint: UInt64?
    /// For a `create` read from JSON: the config members it gave (present and not null). The daemon
    /// fills only the others from its own defaults, so a value given is kept even when it equals the
    /// built-in default. Nil when not known (a request built in code): then a built-in value counts
    /// as left out.
    package var givenConfig: Set<String>?

    package enum Body: Equatable, Sendable {
        case ping
        case navigation(NavigationCommand)
        /// `at`: a seq, for time travel.
        case state(at: Int64?)
        case list
        case history(after: Int64, limit: Int)
        case stats
    }

    package init(id: String?, navigator: String?, envelope: CommandEnvelope, body: Body, fingerprint: UInt64? = nil) {
        self.id = id
        self.navigator = navigator
        self.envelope = envelope
        self.body = body
        self.fingerprint = fingerprint
    }

    /// Whether the command appends to the log (and so needs a controller and durability).
    package var isMutating: Bool {
        if case .navigation = body { return true }
        return false
    }

    /// The command name as the client sent it.
    package var command: String {
        switch body {
        case .ping: "ping"
        case .navigation(let c): c.name
        case .state: "state"
        case .list: "list"
        case .history: "history"
        case .stats: "stats"
        }
    }

    package static let readCommands = ["ping", "state", "list", "history", "stats"]
    package static let allCommands = readCommands + NavigationCommand.names

    /// Whether `cmd` reads or changes one navigator, named by the request's `navigator`.
    package static func actsOnOneNavigator(_ cmd: String) -> Bool {
        cmd == "state" || cmd == "history" || NavigationCommand.names.contains(cmd)
    }
}
