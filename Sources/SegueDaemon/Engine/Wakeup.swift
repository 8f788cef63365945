import Glibc

/// A self-pipe that other threads write to wake the engine's poll (ZeroMQ sockets cannot be woken any
/// other way). Writes coalesce: one drain empties every signal since the last. (A pipe rather than an
/// eventfd only because Glibc's Swift module does not export `sys/eventfd.h`.)
package final class Wakeup: @unchecked Sendable {
    /// The read end, to poll.
    package let fd: Int32
    private let writeFD: Int32

    package init() {
        var fds: [Int32] = [0, 0]
        precondition(pipe(&fds) == 0, "pipe failed: errno \(errno)")
        for f in fds {
            _ = fcntl(f, F_SETFL, fcntl(f, F_GETFL) | O_NONBLOCK)
            _ = fcntl(f, F_SETFD, FD_CLOEXEC)
        }
        fd = fds[0]
        writeFD = fds[1]
    }

    deinit {
        close(fd)
        close(writeFD)
    }

    package func signal() {
        var one: UInt8 = 1
        _ = write(writeFD, &one, 1)  // a full pipe already guarantees a wake-up
    }

    package func drain() {
        var buffer = [UInt8](repeating: 0, count: 256)
        while read(fd, &buffer, buffer.count) > 0 {}
    }
}
