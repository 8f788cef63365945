import Glibc

/// Open file descriptors against the process's limit (`RLIMIT_NOFILE`). At the limit libzmq cannot
/// accept a connection and tells no one (its socket monitor would, but the failures come in a tight
/// loop, and a monitor whose queue fills blocks libzmq's I/O thread): the clients wait, unanswered.
/// Looked at every few seconds (`EngineAction.checkDescriptors`); said when the use passes 90 % of the
/// limit, and again when it is back under 80 %.
///
/// Unchecked: the engine uses it on one serial worker only (the snapshot writer's thread).
final class DescriptorWatch: @unchecked Sendable {
    /// Whether the last line said the use was high.
    private(set) var warned = false

    /// The line to log for `open` descriptors of `limit`, if the use crossed a threshold.
    func look(open: Int, limit: Int) -> (level: LogLevel, line: String)? {
        guard limit > 0 else { return nil }
        if !warned, open * 10 >= limit * 9 {
            warned = true
            return (
                .warning,
                "Open file descriptors: \(open) of the limit of \(limit) (ulimit -n; LimitNOFILE= in the unit). At "
                    + "the limit, new connections wait unanswered (libzmq cannot accept them, and says so to no "
                    + "one): raise the limit, or keep fewer connections open."
            )
        }
        if warned, open * 10 < limit * 8 {
            warned = false
            return (.notice, "Open file descriptors back to \(open) of the limit of \(limit).")
        }
        return nil
    }

    /// `/proc/self/fd`, opened once and read again from its start each time (`rewinddir`): at the
    /// limit, opening it to count would fail for want of a descriptor, just when the count matters.
    private let directory = opendir("/proc/self/fd")

    deinit { if let directory { closedir(directory) } }

    /// This process's open descriptors (the entries of /proc/self/fd, less the directory's own) and
    /// its soft limit; nil where either cannot be read.
    func usage() -> (open: Int, limit: Int)? {
        var limit = rlimit()
        guard let directory, getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return nil }
        let entries = Self.entries(of: directory)
        return (entries - 1, limit.rlim_cur == rlim_t.max ? 0 : Int(limit.rlim_cur))
    }

    /// The entries of an open directory, read again from its start, `.` and `..` left out.
    static func entries(of directory: OpaquePointer) -> Int {
        rewinddir(directory)
        var entries = 0
        while let entry = readdir(directory) {
            if entry.pointee.d_name.0 != CChar(UInt8(ascii: ".")) { entries += 1 }
        }
        return entries
    }
}
