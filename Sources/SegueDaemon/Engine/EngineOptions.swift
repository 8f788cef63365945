import SegueCore
import SegueProtocol
import SegueStore
import SegueWire

/// What the engine needs to run, independent of how it was configured (file, flags, tests).
package struct EngineOptions: Sendable {
    package var dataDirectory: String
    package var commandEndpoints: [String]
    package var publishEndpoints: [String]
    /// Endpoints of the frames socket, which publishes each frame's ticks in one compact message
    /// (docs/protocol.md, "Frame batches"); none by default.
    package var framesEndpoints: [String] = []
    package var frameRate: Int = 60
    package var durability: Durability = .full
    package var heartbeatInterval: Duration = .seconds(1)
    /// Added to each tick's frame instant for its `presentAt` (docs/operations.md, `presentationDelay`).
    package var presentationDelay: Duration = .zero
    /// How many frames ahead of the ticks the log holds a lease (`FrameLease`); nil: none, for tests
    /// of the core that are about other things.
    package var frameLease: Duration? = .seconds(1)
    /// Events between checkpoints (snapshots of every navigator changed since the last one).
    package var checkpointEvery: Int = 10_000
    /// `ZMQ_MAXMSGSIZE` on the command socket: a larger request disconnects its sender.
    package var maxMessageBytes: Int = 1 << 20
    /// Messages queued per subscriber before the publisher drops (a slow subscriber loses ticks,
    /// never slows the daemon or grows its memory past this).
    package var publishHighWaterMark: Int = 100_000
    /// The frames socket's limit, in batches: a batch holds up to ~64 KiB (a hundred or more ticks),
    /// so it is a hundredth of the publisher's, which keeps a stalled subscriber's queue about as
    /// large in bytes (6.4 MB … 64 MB at the default) instead of a hundred times larger.
    package var framesHighWaterMark: Int { max(1, publishHighWaterMark / 100) }
    package var decoderLimits = RequestDecoder.Limits()
    package var maxNavigators: Int = 100_000
    /// Defaults for navigators created without their own.
    package var defaultAnimators: AnimatorRules? = nil
    package var defaultInteractionTimeout: Double = 10
    package var maxQueue: Int = 64
    package var maxStackDepth: Int = 512
    /// Most frames published in one catch-up after the loop fell behind; older frames are counted
    /// as missed instead of flooding subscribers with stale ticks.
    package var maxCatchUpFrames: Int = 6
    /// Group commit's `commit_delay` (PostgreSQL's name for it): while other clients that sent commands
    /// in the last `writerWindow` have no command in the batch yet, the loop waits up to this long
    /// for theirs before committing, so one sync covers them all. A lone client never waits, and a
    /// wait never runs past the next frame. `.zero` commits at once.
    package var commitDelay: Duration = .microseconds(500)
    /// How recently a client must have sent a mutating command to count as one worth waiting for.
    package var writerWindow: Duration = .milliseconds(5)
    /// Whether the store can lose a commit's outcome with its connection and find the batch stored
    /// later (PostgreSQL): the commands of batches numbered behind the rollback are then decided again.
    package var commitOutcomeCanBeLost = false
    /// CURVE and ZAP; `nil` runs without encryption or authentication.
    package var security: SecurityOptions? = nil
    /// Several daemons on one log: navigators in these shards, this daemon leading the shards it holds
    /// (`PostgresLeadership`); nil, the default: this daemon leads every navigator.
    package var shards: ShardMap? = nil
    /// The command endpoint other daemons send clients to for the shards this one leads; nil: the
    /// first command endpoint as bound.
    package var advertise: String? = nil

    package init(dataDirectory: String, commandEndpoints: [String], publishEndpoints: [String]) {
        self.dataDirectory = dataDirectory
        self.commandEndpoints = commandEndpoints
        self.publishEndpoints = publishEndpoints
    }
}

/// A client's role under CURVE (docs/reliability.md, "Security model").
package enum ClientRole: String, Sendable {
    /// May send every command.
    case controller
    /// May read state and history, and subscribe; mutating commands get `forbidden`.
    case observer
}

package struct SecurityOptions: Sendable {
    /// The server's secret key (Z85); its public key is what clients configure.
    package var serverSecretKey: String
    /// Admitted client public keys (Z85) and their roles; any other key is refused by ZAP.
    package var clients: [String: ClientRole]

    package init(serverSecretKey: String, clients: [String: ClientRole]) {
        self.serverSecretKey = serverSecretKey
        self.clients = clients
    }
}
