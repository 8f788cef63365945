import Foundation

/// Files a command removes when SIGINT, SIGTERM or SIGHUP ends it (the default action, which skips
/// `defer`): `migrate`'s copies of a log are as large as the log. Only async-signal-safe calls in
/// the handler: unlink(2) of C strings made beforehand, then the signal's own action. A signal
/// ignored at start stays ignored.
enum TemporaryFiles {
    static let capacity = 4
    nonisolated(unsafe) private static let paths = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(
        capacity: capacity)
    nonisolated(unsafe) private static let count: UnsafeMutablePointer<sig_atomic_t> = {
        let count = UnsafeMutablePointer<sig_atomic_t>.allocate(capacity: 1)
        count.initialize(to: 0)
        return count
    }()

    /// Adds `files` to those removed (a replay's spooled input and its socket file, say).
    static func removeOnSignal(_ files: [String]) {
        let start = Int(count.pointee)
        precondition(start + files.count <= capacity)
        for (index, file) in files.enumerated() { paths[start + index] = strdup(file) }
        count.pointee = sig_atomic_t(start + files.count)
        NotedSignals.handle([SIGINT, SIGTERM, SIGHUP]) { signal in
            for index in 0..<Int(TemporaryFiles.count.pointee) {
                if let path = TemporaryFiles.paths[index] { unlink(path) }
            }
            NotedSignals.raiseWithDefaultAction(signal)
        }
    }
}
