/// How serious a log message is, from `trace` (most verbose) to `critical`: swift-log's seven levels,
/// each mapped to the syslog priority journald reads from a line's `<N>` prefix.
package enum LogLevel: String, Sendable, CaseIterable, Comparable, CustomStringConvertible {
    case trace, debug, info, notice, warning, error, critical

    /// The syslog priority (RFC 5424 severity) journald stores for the line: `trace` shares `debug`'s 7
    /// because syslog has nothing below debug.
    package var syslogPriority: Int {
        switch self {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }

    package var description: String { rawValue }

    /// The names as the config file and `--log-level` spell them, in order, for error messages.
    package static let names: [String] = allCases.map(\.rawValue)

    private var rank: Int { Self.allCases.firstIndex(of: self)! }

    package static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rank < rhs.rank }
}
