/// The outcome of rereading the config file on SIGHUP.
///
/// Only some settings can change under a running daemon: `logLevel`, `animators` and the CURVE client
/// list (`security.curve.clients`). Others (endpoints, data dir, frame rate, limits, the server key)
/// need a restart; a reload reports them in `needsRestart` so the daemon can log that, and keeps their
/// running values. A value given on the command line keeps winning over the file, as at start-up.
package struct ConfigReload: Sendable, Equatable {
    /// The config to run with from now on.
    package var config: DaemonConfig
    /// Reloadable keys whose value changed: `logLevel`, `animators`, `security.curve.clients`.
    package var applied: [String]
    /// Keys that changed in the file but take effect only after a restart, as JSON paths.
    package var needsRestart: [String]
    /// The file's `frameRate`, when it is one of those: a log keeps the rate it was started with, so
    /// the daemon checks whether a restart would be refused.
    package var frameRateOnRestart: Int? = nil
    /// Live settings the command line sets (`--log-level`) to another value than the file's: the flag
    /// keeps winning, as at start-up, and the daemon says so (the others wait for a restart anyway).
    package var keptByCommandLine: [String] = []
}

extension DaemonConfig {
    /// Rereads `file` (normally `configFile`) and returns this config with the reloadable settings
    /// replaced. The whole file must be valid: a reload with an error changes nothing, and the daemon
    /// keeps running with its current config and logs the error.
    package func reloadable(from file: String) throws(ConfigError) -> ConfigReload {
        let fresh = try DaemonConfig(file: file)
        var next = self
        next.configFile = file
        var applied: [String] = []
        var needsRestart: [String] = []

        var kept: [String] = []
        if fresh.logLevel != logLevel {
            if commandLineKeys.contains("logLevel") {
                kept.append("logLevel")
            } else {
                next.logLevel = fresh.logLevel
                applied.append("logLevel")
            }
        }
        if fresh.animators != animators {
            next.animators = fresh.animators
            applied.append("animators")
        }
        switch (security, fresh.security) {
        case (nil, nil): break
        case (let old?, let new?):
            if old.curve.serverSecretKey != new.curve.serverSecretKey
                || old.curve.serverSecretKeyFile != new.curve.serverSecretKeyFile
            {
                needsRestart.append("$.security.curve.serverSecretKeyFile")
            }
            if old.curve.clients != new.curve.clients {
                next.security!.curve.clients = new.curve.clients
                applied.append("security.curve.clients")
            }
        default:
            needsRestart.append("$.security")
        }

        let (oldJSON, newJSON) = (json.objectValue, fresh.json.objectValue)
        func compare<Value: Equatable>(_ key: String, _ value: (DaemonConfig) -> Value) {
            guard !commandLineKeys.contains(key) && value(fresh) != value(self) else { return }
            // An object's members by name (`$.limits.maxQueue`), so the line says which one waits.
            if case .object(let old)? = oldJSON?[key], case .object(let new)? = newJSON?[key] {
                let members = old.keys + new.keys.filter { old[$0] == nil }
                let changed = members.filter { old[$0] != new[$0] }
                if !changed.isEmpty {
                    needsRestart += changed.map { "$.\(key).\($0)" }
                    return
                }
            }
            needsRestart.append("$.\(key)")
        }
        compare("dataDir", \.dataDir)
        compare("store", \.store)
        compare("command", \.command)
        compare("publish", \.publish)
        compare("publishFrames", \.publishFrames)
        compare("frameRate", \.frameRate)
        compare("durability", \.durability)
        compare("heartbeatSeconds", \.heartbeatSeconds)
        compare("presentationDelay", \.presentationDelay)
        compare("snapshotEvery", \.snapshotEvery)
        compare("limits", \.limits)
        compare("cluster", \.cluster)
        return ConfigReload(
            config: next, applied: applied, needsRestart: needsRestart,
            frameRateOnRestart: needsRestart.contains("$.frameRate") ? fresh.frameRate : nil, keptByCommandLine: kept)
    }
}
