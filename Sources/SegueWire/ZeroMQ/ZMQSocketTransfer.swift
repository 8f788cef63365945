import Synchronization

/// The one sanctioned way to move a ``ZMQSocket`` to the thread that will own it.
///
/// libzmq allows a socket to change threads only with "a full memory barrier" in between and never to be
/// used by two threads; this box is `Sendable` by promise (`@unchecked`), supplies the barrier (an atomic
/// exchange), and lets the socket out exactly once. The sending side must drop its own reference when it
/// makes the box: it is typical to create, configure and bind a socket on the main thread, then hand it over
/// so that bind errors surface before the worker starts.
///
/// ```swift
/// let transfer = ZMQSocketTransfer(socket)   // and do not use `socket` again
/// let thread = Thread {
///     let socket = transfer.take()
///     ...
/// }
/// ```
package final class ZMQSocketTransfer: @unchecked Sendable {
    // @unchecked: `socket` is written once in init and read once, by whichever thread wins `taken`.
    private var socket: ZMQSocket?
    private let taken = Atomic<Bool>(false)

    package init(_ socket: ZMQSocket) {
        self.socket = socket
    }

    /// Hands the socket to the calling thread, which owns it from now on.
    /// - Precondition: called once.
    package func take() -> ZMQSocket {
        let alreadyTaken = taken.exchange(true, ordering: .acquiringAndReleasing)
        precondition(!alreadyTaken, "A ZMQSocketTransfer hands its socket over once.")
        defer { socket = nil }
        return socket!
    }
}
