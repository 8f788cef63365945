import Foundation

/// Files a command removes when SIGINT, SIGTERM or SIGHUP ends it (the default action, which skips
/// `defer`): `migrate`'s copies of a log are as large as the log. Only async-signal-safe calls in
/// the handler: unlink(2) of C strings made beforehand, then the signal's own action. A signal
/// ignored at start stays ignored.
enum TemporaryFiles {
    static let capacity = 4
    nonisolated(unsafe) private static let paths = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(
        capacity: capacity)
    nonisolated(unsafe) private static let count = UnsafeMutablePointer<sig_atomic_t>.allocate(capacity: 1)

    static func removeOnSignal(_ files: [String]) {
        precondition(files.count <= capacity)
        count.pointee = 0
        for (index, file) in files.enumerated() { paths[index] = strdup(file) }
        count.pointee = sig_atomic_t(files.count)
        for signal in [SIGINT, SIGTERM, SIGHUP] {
            var old = sigaction()
            sigaction(signal, nil, &old)
            if NotedSignals.isIgnore(old.__sigaction_handler.sa_handler) { continue }
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { signal in
                for index in 0..<Int(TemporaryFiles.count.pointee) {
                    if let path = TemporaryFiles.paths[index] { unlink(path) }
                }
                NotedSignals.raiseWithDefaultAction(signal)
            }
            sigemptyset(&action.sa_mask)
            sigaction(signal, &action, nil)
        }
    }
}
