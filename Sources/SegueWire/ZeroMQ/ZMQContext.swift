import CZeroMQ
import Synchronization

/// A libzmq context: the I/O threads and the `inproc://` namespace that its sockets share.
///
/// libzmq documents the context as thread safe, so this class is `Sendable`: create sockets from it on any
/// thread.
///
/// ## Shutdown order
/// `zmq_ctx_term` blocks until every socket of the context has been closed, and `zmq_close` leaves unsent
/// messages to linger for `ZMQ_LINGER`; an open socket or an infinite linger makes shutdown hang. So:
/// - every socket holds a strong reference to its context, so the context's `deinit` (the only place that
///   calls `zmq_ctx_term`) runs after the last socket is closed;
/// - every socket is created with a finite `ZMQ_LINGER` (``socketLinger``, 0 by default), so closing never
///   waits for an absent peer;
/// - ``terminate()`` does not call `zmq_ctx_term`; it calls `zmq_ctx_shutdown`, which returns at once and
///   makes every blocking call on the context's sockets fail with `ETERM`
///   (``ZMQError/isTerminated``). Each owner thread then closes its socket (or drops it), and the context
///   goes away with the last one.
package final class ZMQContext: @unchecked Sendable {
    // @unchecked: the handle is only passed to libzmq functions that the manual declares thread safe
    // (zmq_socket, zmq_ctx_shutdown, zmq_ctx_term), and `terminated` is atomic.
    let handle: UnsafeMutableRawPointer
    /// The `ZMQ_LINGER` every new socket of this context starts with; `nil` is libzmq's "forever".
    package let socketLinger: Duration?
    private let terminated = Atomic<Bool>(false)

    /// Creates a context.
    ///
    /// - Parameters:
    ///   - ioThreads: libzmq I/O threads (`ZMQ_IO_THREADS`); one is enough below a gigabit per second.
    ///   - socketLinger: how long a closed socket may keep trying to deliver unsent messages; `nil` waits
    ///     forever, which can make shutdown hang, so only choose it for a socket you close last on purpose.
    package init(ioThreads: Int = 1, socketLinger: Duration? = .zero) throws(ZMQError) {
        guard let handle = zmq_ctx_new() else { throw ZMQError.last("zmq_ctx_new") }
        self.handle = handle
        self.socketLinger = socketLinger
        if ioThreads != 1 {
            do {
                try ZMQ.check("zmq_ctx_set") { zmq_ctx_set(handle, ZMQ_IO_THREADS, Int32(clamping: ioThreads)) }
            } catch {
                zmq_ctx_term(handle)
                throw error
            }
        }
    }

    /// Makes every blocking call on this context's sockets return `ETERM` now, and every later call throw it.
    ///
    /// It never blocks: the context itself is released (`zmq_ctx_term`) when the last socket and the last
    /// reference are gone. Calling it twice is harmless.
    package func terminate() {
        guard !terminated.exchange(true, ordering: .acquiringAndReleasing) else { return }
        // zmq_ctx_shutdown fails only with EFAULT for an invalid context, which `handle` never is.
        _ = zmq_ctx_shutdown(handle)
    }

    /// Whether ``terminate()`` has been called.
    package var isTerminated: Bool { terminated.load(ordering: .acquiring) }

    deinit {
        // No socket can be open: each one retains its context. With none open zmq_ctx_term returns at once;
        // EINTR is the only failure it reports, and the manual says to call it again.
        while zmq_ctx_term(handle) == -1 && zmq_errno() == SEGUE_ZMQ_EINTR {}
    }
}
