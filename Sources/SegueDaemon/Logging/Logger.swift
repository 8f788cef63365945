/// A small logger in swift-log's shape: a label, seven levels, messages built only when they will be
/// written, metadata, and one handler.
///
/// Why not swift-log itself: the build cannot fetch packages. The API follows swift-log's so that
/// switching later is a rename. Copies share their `LogThreshold`, so `logLevel` set on any copy (as a
/// SIGHUP reload does) applies to all of them; `metadata` is per copy, for request-scoped fields.
package struct Logger: Sendable {
    package typealias Metadata = [String: String]
    package typealias Level = LogLevel

    /// Names the component, e.g. `segued` or `store`; it follows the priority prefix on every line.
    package let label: String
    /// Fields added to every line this copy writes; per-call metadata wins on a clash.
    package var metadata: Metadata
    package let threshold: LogThreshold
    private let handler: LogHandler

    package init(
        label: String, threshold: LogThreshold = LogThreshold(.info), handler: LogHandler = .standardError,
        metadata: Metadata = [:]
    ) {
        self.label = label
        self.threshold = threshold
        self.handler = handler
        self.metadata = metadata
    }

    /// A logger that writes nothing (an engine run by a test that does not read its log).
    package static let discarding = Logger(label: "segued", handler: LogHandler(writingLinesTo: { _ in }))

    /// A logger for another component that shares this one's threshold and handler.
    package func child(label: String, metadata: Metadata = [:]) -> Logger {
        Logger(label: label, threshold: threshold, handler: handler, metadata: self.metadata.merging(metadata) { $1 })
    }

    /// The level below which messages are dropped, for this logger and every logger sharing its threshold.
    package var logLevel: LogLevel {
        get { threshold.level }
        nonmutating set { threshold.level = newValue }
    }

    /// Writes `message` at `level` if the threshold admits it; neither autoclosure runs otherwise.
    package func log(level: LogLevel, _ message: @autoclosure () -> String, metadata: @autoclosure () -> Metadata = [:])
    {
        guard threshold.admits(level) else { return }
        let extra = metadata()
        let merged = extra.isEmpty ? self.metadata : self.metadata.merging(extra) { $1 }
        handler.handle(level: level, label: label, message: message(), metadata: merged)
    }

    package func trace(_ message: @autoclosure () -> String, metadata: @autoclosure () -> Metadata = [:]) {
        log(level: .trace, message(), metadata: metadata())
    }

    package func debug(_ message: @autoclosure () -> String, metadata: @autoclosure () -> Metadata = [:]) {
        log(level: .debug, message(), metadata: metadata())
    }

    package func info(_ message: @autoclosure () -> String, metadata: @autoclosure () -> Metadata = [:]) {
        log(level: .info, message(), metadata: metadata())
    }

    package func notice(_ message: @autoclosure () -> String, metadata: @autoclosure () -> Metadata = [:]) {
        log(level: .notice, message(), metadata: metadata())
    }

    package func warning(_ message: @autoclosure () -> String, metadata: @autoclosure () -> Metadata = [:]) {
        log(level: .warning, message(), metadata: metadata())
    }

    package func error(_ message: @autoclosure () -> String, metadata: @autoclosure () -> Metadata = [:]) {
        log(level: .error, message(), metadata: metadata())
    }

    package func critical(_ message: @autoclosure () -> String, metadata: @autoclosure () -> Metadata = [:]) {
        log(level: .critical, message(), metadata: metadata())
    }
}
