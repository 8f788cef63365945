import Glibc

/// Standard input, output and error closed when a process starts (`segue export >&-`) keep their
/// numbers. Otherwise the next file, socket or database connection opened takes one of them, and what
/// is meant for stdout or stderr goes into it: an export into a PostgreSQL connection, a log line
/// into a ZeroMQ socket. SQLite guards its own files this way; libpq and libzmq do not.
package enum StandardDescriptors {
    /// Opens `/dev/null` on each of 0, 1 and 2 that is closed, the wrong way round (stdin for writing,
    /// stdout and stderr for reading): using it still fails with EBADF, as the closed descriptor did.
    /// Call it first thing, before anything opens a descriptor.
    package static func holdClosedOnes() {
        for descriptor in Int32(0)...2 where fcntl(descriptor, F_GETFD) == -1 && errno == EBADF {
            let opened = open("/dev/null", descriptor == 0 ? O_WRONLY : O_RDONLY)
            guard opened >= 0, opened != descriptor else { continue }
            dup2(opened, descriptor)
            close(opened)
        }
    }
}
