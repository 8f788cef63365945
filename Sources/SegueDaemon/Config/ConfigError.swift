/// Why `segued` will not start with the given command line or config file.
///
/// Two kinds with two exit codes from sysexits.h, so scripts and systemd can tell a typo on the
/// command line from a bad file: `usage` exits 64 (EX_USAGE), `config` exits 78 (EX_CONFIG), which
/// is also what `--check-config` exits with when the file is invalid. `where` names the culprit: a
/// JSON path such as `$.limits.maxMessageBytes` for the file, an option such as `--frame-rate` for the
/// command line.
package struct ConfigError: Error, Equatable, Sendable, CustomStringConvertible {
    package enum Kind: Equatable, Sendable {
        /// The command line is wrong: unknown option, missing value, bad flag value.
        case usage
        /// The config file is missing, unreadable, not JSON, or has an unknown key or a bad value.
        case config
    }

    package var kind: Kind
    /// The JSON path (`$.command[1]`) or the option (`--frame-rate`) at fault, if any.
    package var location: String?
    /// What is wrong, phrased to follow "at <location>: ".
    package var message: String
    /// The config file a JSON path is in, once known (`DaemonConfig(file:)`): with `SEGUED_CONFIG`
    /// and a unit's drop-ins, which file is wrong is not always obvious.
    package var file: String?

    package init(_ kind: Kind, at location: String? = nil, _ message: String) {
        self.kind = kind
        self.location = location
        self.message = message
    }

    static func config(at path: ConfigPath, _ message: String) -> ConfigError {
        ConfigError(.config, at: path.description, message)
    }

    static func usage(_ message: String) -> ConfigError { ConfigError(.usage, message) }

    /// 64 (EX_USAGE) for command-line errors, 78 (EX_CONFIG) for config file errors.
    package var exitCode: Int32 {
        switch kind {
        case .usage: 64
        case .config: 78
        }
    }

    /// `config error at $.limits.maxMessageBytes: must be an integer from 1024 to 67108864`, or for the
    /// command line `unknown option '--frobnicate'`.
    package var description: String {
        switch (kind, location) {
        case (.usage, _): message
        case (.config, let location?):
            "config error \(file.map { "in \($0) " } ?? "")at \(location): \(message)"
        case (.config, nil): "config error: \(message)"
        }
    }

    /// What `segued` writes to stderr before exiting with `exitCode`: the description after the
    /// program name and, for usage errors, a pointer to `--help`.
    package var diagnostic: String {
        switch kind {
        case .usage: "segued: \(description)\nRun 'segued --help' for usage.\n"
        case .config: "segued: \(description)\n"
        }
    }
}
