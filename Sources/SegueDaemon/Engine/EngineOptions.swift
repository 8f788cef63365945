import SegueCore
import SegueProtocol
import SegueStore
import SegueWire

/// What the engine needs to run, independent of how it was configured (file, flags, tests).
public struct EngineOptions: Sendable {
    public var dataDirectory: String
    public var commandEndpoints: [String]
    public var publishEndpoints: [String]
    public var frameRate: Int = 60
    public var durability: Durability = .full
    public var heartbeatInterval: Duration = .seconds(1)
    /// Events between checkpoints (snapshots of every navigator changed since the last one).
    public var checkpointEvery: Int = 10_000
    /// `ZMQ_MAXMSGSIZE` on the command socket: a larger request disconnects its sender.
    public var maxMessageBytes: Int = 1 << 20
    /// Messages queued per subscriber before the publisher drops (a slow subscriber loses ticks,
    /// never slows the daemon or grows its memory past this).
    public var publishHighWaterMark: Int = 100_000
    public var decoderLimits = RequestDecoder.Limits()
    public var maxNavigators: Int = 100_000
    /// Defaults for navigators created without their own.
    public var defaultAnimators: AnimatorRules? = nil
    public var defaultInteractionTimeout: Double = 10
    public var maxQueue: Int = 64
    public var maxStackDepth: Int = 512
    /// Most frames published in one catch-up after the loop fell behind; older frames are counted
    /// as missed instead of flooding subscribers with stale ticks.
    public var maxCatchUpFrames: Int = 6
    /// Group commit's `commit_delay` (PostgreSQL's name for it): while other clients that sent commands
    /// in the last `writerWindow` have no command in the batch yet, the loop waits up to this long
    /// for theirs before committing, so one sync covers them all. A lone client never waits, and a
    /// wait never runs past the next frame. `.zero` commits at once.
    public var commitDelay: Duration = .microseconds(500)
    /// How recently a client must have sent a mutating command to count as one worth waiting for.
    public var writerWindow: Duration = .milliseconds(5)
    /// CURVE and ZAP; `nil` runs without encryption or authentication.
    public var security: SecurityOptions? = nil

    public init(dataDirectory: String, commandEndpoints: [String], publishEndpoints: [String]) {
        self.dataDirectory = dataDirectory
        self.commandEndpoints = commandEndpoints
        self.publishEndpoints = publishEndpoints
    }
}

/// A client's role under CURVE (docs/reliability.md, "Security model").
public enum ClientRole: String, Sendable {
    /// May send every command.
    case controller
    /// May read state and history, and subscribe; mutating commands get `forbidden`.
    case observer
}

public struct SecurityOptions: Sendable {
    /// The server's secret key (Z85); its public key is what clients configure.
    public var serverSecretKey: String
    /// Admitted client public keys (Z85) and their roles; any other key is refused by ZAP.
    public var clients: [String: ClientRole]

    public init(serverSecretKey: String, clients: [String: ClientRole]) {
        self.serverSecretKey = serverSecretKey
        self.clients = clients
    }
}
