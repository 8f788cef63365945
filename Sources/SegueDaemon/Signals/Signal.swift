import Glibc

/// The signals the daemon acts on, named for what they ask of it.
package enum Signal: Sendable, Equatable, CaseIterable, CustomStringConvertible {
    /// SIGTERM, from `systemctl stop` or `kill`: shut down gracefully and exit 0.
    case terminate
    /// SIGINT, Ctrl-C in a terminal: the same graceful shutdown.
    case interrupt
    /// SIGHUP, from `systemctl reload`: reread the log level, animator rules and client keys.
    case hangup

    package var signalNumber: Int32 {
        switch self {
        case .terminate: SIGTERM
        case .interrupt: SIGINT
        case .hangup: SIGHUP
        }
    }

    package init?(signalNumber: Int32) {
        guard let signal = Self.allCases.first(where: { $0.signalNumber == signalNumber }) else { return nil }
        self = signal
    }

    package var description: String {
        switch self {
        case .terminate: "SIGTERM"
        case .interrupt: "SIGINT"
        case .hangup: "SIGHUP"
        }
    }
}
