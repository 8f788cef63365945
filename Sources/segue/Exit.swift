import Foundation
import SegueClient
import SegueCommandLine
import SegueCore
import SegueStore

/// The exit statuses of `segue` (docs/cli.md) beyond the shared 0, 1 and 64: scripts branch on them.
extension ExitCode {
    static let ok = ExitCode.success
    /// The daemon said no (its error code and message are on stderr), or a check failed.
    static let rejected = ExitCode.failure
    /// `--wait` saw the transition cancelled instead of completed.
    static let cancelled = ExitCode(2)
    /// No answer in time, or nothing listens at the endpoint.
    static let timeout = ExitCode(3)
    /// The endpoint could not be used at all (`EX_UNAVAILABLE`).
    static let unavailable = ExitCode(69)
    /// A file or data dir could not be read or written (`EX_IOERR`).
    static let io = ExitCode(74)
}

/// Ends a command with a status after its message was printed.
struct Exit: Error {
    var code: ExitCode
    init(_ code: ExitCode) { self.code = code }
}

/// What a command refuses after reading its input (a navigator a log does not have): exit 1, like
/// the daemon's refusals, with a wire error code for `--json`.
struct Refusal: Error, CustomStringConvertible {
    var code: ErrorCode
    var description: String
    init(_ code: ErrorCode, _ description: String) {
        self.code = code
        self.description = description
    }
}

/// An endpoint this command binds or connects itself cannot be used (`relay`, `replay --publish`):
/// status 69; or a relay asked for its counters does not answer (status 3).
struct TransportFailure: Error, CustomStringConvertible {
    var description: String
    var isTimeout = false

    init(_ description: String, isTimeout: Bool = false) {
        self.description = description
        self.isTimeout = isTimeout
    }
}

/// A failure reading or writing a file, data dir or log: exit 74 with the sentence.
struct IOFailure: Error, CustomStringConvertible {
    var description: String
    /// The file was read, but what it holds is not a log (a line that is not an event): `verify`
    /// and `import` report that as a problem they found (status 1), not as a file they could not use.
    var isContent = false
    init(_ description: String, isContent: Bool = false) {
        self.description = description
        self.isContent = isContent
    }

    /// A store that failed to open or read: damage (SQLite's `file is not a database`, a corrupt page)
    /// is a log found wrong, status 1 as a failed integrity check is, with what to do; anything else
    /// a log that could not be read, 74.
    init(_ description: String, store error: StoreError) {
        self.init(
            description + (error.isDamage ? "; the file is damaged: restore a backup." : ""), isContent: error.isDamage)
    }

    /// Why a Foundation file call failed, as the system says it (`No such file or directory (errno
    /// 2)`): Foundation's own text ("The operation could not be completed. The file doesn't exist.")
    /// names neither the cause nor the errno.
    static func reason(_ error: Error) -> String {
        let error = error as NSError
        // On Linux the underlying error is a `POSIXError`, which `as? NSError` does not match.
        let underlying = (error.userInfo[NSUnderlyingErrorKey] as? any Error).map { $0 as NSError }
        if let posix = error.domain == NSPOSIXErrorDomain ? error : underlying, posix.domain == NSPOSIXErrorDomain {
            return reason(errno: Int32(posix.code))
        }
        return error.localizedDescription
    }

    /// `No such file or directory (errno 2)`: a system call's failure as every message writes it.
    static func reason(errno code: Int32) -> String { "\(String(cString: strerror(code))) (errno \(code))" }
}

enum Output {
    static func line(_ text: String) { write(Array((text + "\n").utf8)) }

    static func error(_ text: String) { write(Array((text + "\n").utf8), to: STDERR_FILENO) }

    /// Writes `bytes` whole with write(2). Foundation's `FileHandle.write` traps on any failure, so a
    /// full disk or a closed stdout ended `segue` with a stack trace. A failed write to stdout ends
    /// the command: a reader that went away (EPIPE, which reaches here when SIGPIPE is ignored, as
    /// systemd's services have it) as though SIGPIPE had been left alone, quietly with 141; any other
    /// failure with `error: stdout: REASON` and status 74. A failed write to stderr has nowhere to
    /// be said, and is dropped.
    static func write(_ bytes: [UInt8], to descriptor: Int32 = STDOUT_FILENO) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { buffer in
                Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
            }
            if written >= 0 {
                offset += written
                continue
            }
            let code = errno
            if code == EINTR { continue }
            if code == EAGAIN {
                // A non-blocking stdout inherited from the caller: wait until it takes more.
                var ready = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                _ = poll(&ready, 1, -1)
                continue
            }
            guard descriptor == STDOUT_FILENO else { return }
            if code == EPIPE { NotedSignals.die(of: SIGPIPE) }
            Output.error("error: stdout: \(IOFailure.reason(errno: code))")
            Foundation.exit(ExitCode.io.rawValue)
        }
    }

    /// `--json` was given: failures are also one JSON object on stdout (`failureJSON`). Set from argv
    /// before parsing, so that a usage error is reported that way too.
    nonisolated(unsafe) static var json = false

    /// Exits with the status that fits `error`, after saying why on stderr (and, under `--json`, as
    /// `{"ok": false, "error": {"code", "message", ...}}` on stdout).
    static func fail(_ error: Error) -> Never {
        let (code, status, message, details) = classify(error)
        if let message { Output.error(message) }
        if let failure = (error as? SegueClientError)?.handshakeFailure { Output.error(hint(failure)) }
        if json, let code {
            var object: JSONObject = ["code": .string(code), "message": .string(plain(message ?? ""))]
            for (key, value) in details.members { object[key] = value }
            Output.line(JSON.object(["ok": false, "error": .object(object)]).serialized())
        }
        Foundation.exit(status.rawValue)
    }

    /// The status `fail` would exit with for `error`, for a command that goes on after it.
    static func status(of error: Error) -> ExitCode { classify(error).1 }

    /// The message without the CLI's decorations (`error: `, a wire code, the help hint), for JSON.
    private static func plain(_ message: String) -> String {
        var text = message
        if text.hasPrefix("error: ") { text = String(text.dropFirst(7)) }
        for prefix in ["timeout: ", "transport: ", "handshake: ", "key file: ", "malformed reply: "]
        where text.hasPrefix(prefix) {
            text = String(text.dropFirst(prefix.count))
        }
        if let hint = text.range(of: "\nSee '") { text = String(text[..<hint.lowerBound]) }
        return text
    }

    /// The JSON code, the exit status, the stderr text and extra members for a failure. An `Exit`
    /// already said why (its code is nil: nothing more is printed).
    private static func classify(_ error: Error) -> (String?, ExitCode, String?, JSONObject) {
        switch error {
        case let exit as Exit:
            return (nil, exit.code, nil, [:])
        case let usage as UsageError:
            return ("usage", .usage, usage.description, [:])
        case let client as SegueClientError:
            let text = "error: \(client)"
            if let code = client.code {
                var members = client.details
                members["message"] = .string(client.message)
                return (code.rawValue, .rejected, text, members)
            }
            let status: ExitCode =
                switch client.kind {
                case .timeout, .unreachable: .timeout
                case .keyFile: .io
                default: .unavailable
                }
            return (client.kind.name, status, text, [:])
        case let refusal as Refusal:
            return (refusal.code.rawValue, .rejected, "error: \(refusal)", [:])
        case let transport as TransportFailure:
            return transport.isTimeout
                ? ("timeout", .timeout, "error: \(transport)", [:])
                : ("transport", .unavailable, "error: \(transport)", [:])
        // A log that was read, and is not a log (a line that is not an event, an event that does not
        // fold: a gap) is a log found wrong, as verify says it: not a file that could not be read.
        case let io as IOFailure where io.isContent:
            return ("invalid_log", .rejected, "error: \(io)", ["problems": [.string(io.description)]])
        case let core as CoreError:
            return ("invalid_log", .rejected, "error: \(core.message)", [:])
        case let io as IOFailure:
            return ("io", .io, "error: \(io)", [:])
        default:
            return ("io", .io, "error: \(error)", [:])
        }
    }

    /// What to change on the command line after a refused handshake, in the CLI's own words.
    static func hint(_ failure: HandshakeFailure) -> String {
        switch failure {
        case .curveRequired:
            return "hint: pass --server-key <key|file> and --client-key <name> (or set SEGUE_SERVER_KEY and "
                + "SEGUE_CLIENT_KEY); see 'segue --help'."
        case .serverKeyRejected:
            return "hint: --server-key must be the public half of the daemon's serverSecretKeyFile; for a daemon "
                + "without security.curve, drop --server-key and --client-key."
        case .keyRefused:
            return "hint: the public key of --client-key (its NAME.pub) must be listed in the daemon's config "
                + "(behind a relay's CURVE publish endpoint: in the relay's --allow)."
        case .notZeroMQ, .wrongSocket:
            return "hint: segued takes commands at --endpoint (SEGUE_ENDPOINT, default \(SegueClient.defaultEndpoint)) "
                + "and publishes at --publish-endpoint (SEGUE_PUBLISH_ENDPOINT, default "
                + "\(SegueClient.defaultPublishEndpoint))."
        }
    }
}
