import Foundation
import SegueCore
import SegueProtocol
import SegueWire

/// Re-publishes a replay with the daemon's topics, paced by the frames' instants (`replay --publish`).
///
/// ZeroMQ's slow joiner: a PUB socket sends only to the subscriptions that have reached it and drops
/// everything else, so a viewer started after the replay misses its beginning. The socket is an XPUB,
/// which hands subscriptions to the application: with `waitForSubscriber` nothing is sent until the
/// first one has arrived. Without it, publishing starts after a short pause.
final class Republisher {
    let context: ZMQContext
    let socket: ZMQSocket
    private var pacing: ReplayPacing
    private var start: ContinuousClock.Instant?
    /// The ipc socket file bound, removed when done (`IPCSocketFile.Bound`).
    private var ipcFile: IPCSocketFile.Bound?

    init(endpoint: String, speed: Double, maxGap: Double?, clock: FrameClock, waitForSubscriber: Bool) throws {
        context = try ZMQContext()
        socket = try ZMQSocket(context, .xpub)
        // At exit, a second for subscribers to take what is still queued.
        try socket.setLinger(.seconds(1))
        // A replay is finite and already in memory: queue all of it for a subscriber that reads slower
        // than a fast --speed publishes, rather than drop past PUB's default of 1000 queued messages.
        try socket.setSendHighWaterMark(0)
        // Checked again right before the bind: the log was read since the command's own check.
        try IPCBinding.refuseUnsafe(endpoint, likely: "a segued, a relay or another replay?")
        do throws(ZMQError) { try socket.bind(endpoint) } catch {
            throw TransportFailure("Cannot publish on \(endpoint): \(error.message).")
        }
        ipcFile = IPCSocketFile.Bound(endpoint: endpoint)
        // Ctrl-C ends a replay by the signal's default action, which runs no deinit.
        if let path = ipcFile?.path { TemporaryFiles.removeOnSignal([path]) }
        pacing = ReplayPacing(clock: clock, speed: speed, maxGap: maxGap)
        // A `*` port is told as bound, or no viewer could find it.
        let bound = (try? socket.lastEndpoint) ?? endpoint
        if waitForSubscriber {
            Output.error("segue replay: waiting for a subscriber on \(bound) (Ctrl-C to give up).")
            try awaitSubscription()
        } else {
            if endpoint.hasSuffix("*") { Output.error("segue replay: publishing on \(bound).") }
            // A moment for subscribers that are already connecting (ZeroMQ retries every 100 ms).
            Thread.sleep(forTimeInterval: 0.3)
        }
    }

    deinit {
        socket.close()
        context.terminate()
        ipcFile?.remove()
    }

    /// Blocks until a subscription arrives (an XPUB message `1` + prefix; `0` is an unsubscription).
    ///
    /// A SUB sends all of its subscriptions in one batch once its handshake is done, and the XPUB takes
    /// in whatever has arrived whenever it is read, so the first subscriber's other prefixes are in
    /// place too; the rest is drained so that it does not wait in the socket.
    private func awaitSubscription() throws {
        while try socket.receiveMultipart()?.first?.first != 1 {}
        while try socket.receiveMultipart(dontWait: true) != nil {}
    }

    /// Sends `frame`'s events, then its ticks, at the frame's time in the replay (`ReplayPacing`).
    func publish(frame: Int64, events: [EventRecord], ticks: [Tick]) throws {
        let offset = pacing.offset(of: frame)
        if let start { GestureCommands.sleep(until: start + .nanoseconds(offset)) } else { start = .now }
        for e in events {
            try socket.sendMultipart([Topic.event(navigator: e.navigator).bytes, e.json.serializedBytes()])
        }
        for t in ticks {
            try socket.sendMultipart([Topic.tick(navigator: t.navigator).bytes, t.json.serializedBytes()])
        }
    }
}
