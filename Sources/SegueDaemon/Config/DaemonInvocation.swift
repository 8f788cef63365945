/// What the command line asks `segued` to do.
package enum DaemonInvocation: Sendable, Equatable {
    /// Run the daemon with this config.
    case run(DaemonConfig)
    /// `--check-config`: print `config.json` (and its warnings) and exit 0 without binding anything.
    case checkConfig(DaemonConfig)
    /// `--help`: print this text to stdout and exit 0.
    case help(String)
    /// `--version`: print the version and exit 0.
    case version
}
