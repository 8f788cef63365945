import Glibc

/// The signals the daemon acts on, named for what they ask of it.
public enum Signal: Sendable, Equatable, CaseIterable, CustomStringConvertible {
    /// SIGTERM, from `systemctl stop` or `kill`: shut down gracefully and exit 0.
    case terminate
    /// SIGINT, Ctrl-C in a terminal: the same graceful shutdown.
    case interrupt
    /// SIGHUP, from `systemctl reload`: reread the log level, animator rules and client keys.
    case hangup

    public var signalNumber: Int32 {
        switch self {
        case .terminate: SIGTERM
        case .interrupt: SIGINT
        case .hangup: SIGHUP
        }
    }

    public init?(signalNumber: Int32) {
        guard let signal = Self.allCases.first(where: { $0.signalNumber == signalNumber }) else { return nil }
        self = signal
    }

    public var description: String {
        switch self {
        case .terminate: "SIGTERM"
        case .interrupt: "SIGINT"
        case .hangup: "SIGHUP"
        }
    }
}
