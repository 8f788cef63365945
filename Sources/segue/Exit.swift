import Foundation
import SegueClient
import SegueCommandLine

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
}

enum Output {
    static func line(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    static func error(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// Exits with the status that fits `error`, after saying why on stderr.
    static func fail(_ error: Error) -> Never {
        switch error {
        case let exit as Exit:
            Foundation.exit(exit.code.rawValue)
        case let usage as UsageError:
            Output.error(usage.description)
            Foundation.exit(ExitCode.usage.rawValue)
        case let client as SegueClientError:
            Output.error("error: \(client)")
            switch client {
            case .rejected: Foundation.exit(ExitCode.rejected.rawValue)
            case .timeout: Foundation.exit(ExitCode.timeout.rawValue)
            case .transport, .malformed: Foundation.exit(ExitCode.unavailable.rawValue)
            case .handshake(let failure, _):
                Output.error(hint(failure))
                Foundation.exit(ExitCode.unavailable.rawValue)
            case .keyFile: Foundation.exit(ExitCode.io.rawValue)
            }
        case let io as IOFailure:
            Output.error("error: \(io)")
            Foundation.exit(ExitCode.io.rawValue)
        default:
            Output.error("error: \(error)")
            Foundation.exit(ExitCode.io.rawValue)
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
            return "hint: the public key of --client-key (its NAME.pub) must be listed in the daemon's config."
        }
    }
}
