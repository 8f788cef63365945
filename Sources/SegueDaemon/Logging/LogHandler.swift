import Glibc
import Synchronization

/// Formats a log record as one line and hands it to a sink: standard error in the daemon, a buffer
/// in tests.
///
/// Line format: `<N>label: message key=value key2="value with spaces"`, where `<N>` is the syslog
/// priority that journald strips and stores (sd-daemon(3), "SD_WARNING" and friends). Metadata keys
/// are sorted so lines are reproducible; values are quoted logfmt-style when they contain a space,
/// a quote, `=` or a control character, and control characters in messages are escaped, so a record
/// is always exactly one line and a multi-line message cannot forge a second record.
package struct LogHandler: Sendable {
    private let sink: @Sendable (String) -> Void

    /// A handler that passes each complete line, newline included, to `sink`. The sink is called from
    /// whichever thread logs, so it must be thread-safe.
    package init(writingLinesTo sink: @escaping @Sendable (String) -> Void) {
        self.sink = sink
    }

    /// Writes each line to file descriptor 2 with one `write(2)` under a process-wide lock, so lines
    /// from different threads never interleave, whatever stderr is connected to.
    package static let standardError = LogHandler { line in
        stderrLock.withLock { _ in
            var bytes = Array(line.utf8)
            var offset = 0
            while offset < bytes.count {
                let written = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress! + offset, $0.count - offset) }
                if written > 0 {
                    offset += written
                } else if written < 0 && errno == EINTR {
                    continue
                } else {
                    return  // stderr is gone or full: dropping a log line must not stop the daemon.
                }
            }
            bytes.removeAll()
        }
    }

    private static let stderrLock = Mutex(())

    func handle(level: LogLevel, label: String, message: String, metadata: [String: String]) {
        sink(Self.format(level: level, label: label, message: message, metadata: metadata))
    }

    /// The exact line, newline included, written for one record.
    package static func format(level: LogLevel, label: String, message: String, metadata: [String: String]) -> String {
        var line = "<\(level.syslogPriority)>\(label): "
        line += escapingControlCharacters(message)
        for key in metadata.keys.sorted() {
            line += " \(key)=\(quotedIfNeeded(metadata[key]!))"
        }
        line += "\n"
        return line
    }

    private static func escapingControlCharacters(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var out = ""
        for scalar in text.unicodeScalars { appendEscaped(scalar, to: &out) }
        return out
    }

    private static func quotedIfNeeded(_ value: String) -> String {
        let needsQuotes =
            value.isEmpty || value.unicodeScalars.contains { $0 == " " || $0 == "\"" || $0 == "=" || isControl($0) }
        guard needsQuotes else { return value }
        var out = "\""
        for scalar in value.unicodeScalars {
            if scalar == "\"" || scalar == "\\" {
                out += "\\\(scalar)"
            } else {
                appendEscaped(scalar, to: &out)
            }
        }
        return out + "\""
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool { scalar.value < 0x20 || scalar.value == 0x7F }

    private static func appendEscaped(_ scalar: Unicode.Scalar, to out: inout String) {
        switch scalar {
        case "\n": out += "\\n"
        case "\r": out += "\\r"
        case "\t": out += "\\t"
        default:
            if isControl(scalar) {
                let hex = String(scalar.value, radix: 16, uppercase: true)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
    }
}
