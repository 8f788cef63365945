import Foundation
import SegueCore
import SegueWire

/// The relay's control thread: the only user of the proxy's control socket.
///
/// It asks the proxy for `STATISTICS` to log them every `--stats-interval`, answers `segue relay
/// --stats` on the `--control` endpoint (a REP that takes `STATISTICS` only: libzmq's proxy aborts
/// the process on a command it does not know, so nothing from outside reaches it unchecked), logs the
/// handshakes upstream that fail (`UpstreamHandshakes`), and sends `TERMINATE` once a signal arrived,
/// after logging the last counters. It sleeps in between.
struct RelayControl {
    let proxy: ZMQSocket
    let external: ZMQSocket?
    /// The XSUB's socket monitor: the handshakes of the connections upstream.
    let upstream: ZMQSocket?
    let settings: Relay.Settings
    let stopping: StopFlag

    /// The request `--stats` sends and the only one the control endpoint answers.
    static let statistics = "STATISTICS"

    /// The control thread's sockets, made (and `--control` bound) on the caller's thread so that an
    /// endpoint that cannot be bound stops the relay before it starts.
    static func sockets(context: ZMQContext, external: String?) throws(TransportFailure)
        -> (proxy: ZMQSocket, external: ZMQSocket?)
    {
        do {
            let proxy = try ZMQSocket(context, .pair)
            try proxy.connect(Relay.controlEndpoint)
            guard let external else { return (proxy, nil) }
            let socket = try ZMQSocket(context, .rep)
            do {
                try socket.bind(external)
            } catch {
                throw TransportFailure("Cannot bind the control endpoint \(external): \(error.message).")
            }
            return (proxy, socket)
        } catch let error as TransportFailure {
            throw error
        } catch {
            throw TransportFailure("Cannot set up the control socket: \(error)")
        }
    }

    func run() {
        var poller = ZMQPoller()
        poller.add(fd: stopping.fd)
        let externalIndex = external.map { poller.add($0) }
        let upstreamIndex = upstream.map { poller.add($0) }
        var handshakes = UpstreamHandshakes(curve: settings.upstreamCurve != nil)
        var last = (time: ContinuousClock.now, forwarded: UInt64(0))
        do {
            while true {
                if stopping.isRaised {
                    if let stats = try? ask() { RelayLog.line("Stopping: " + Self.describe(stats) + ".") }
                    try proxy.send(Array("TERMINATE".utf8))
                    return
                }
                // Asleep until a request, the stop, or the next report: no wake-up costs the relay CPU.
                let untilReport = settings.statsInterval.map { max(.zero, $0 - (ContinuousClock.now - last.time)) }
                let ready = try poller.poll(timeout: untilReport)
                if let external, let externalIndex, ready[externalIndex].contains(.readable) { try answer(external) }
                if let upstream, let upstreamIndex, ready[upstreamIndex].contains(.readable) {
                    while let frames = try upstream.receiveMultipart(dontWait: true) {
                        guard let event = ZMQMonitorEvent(frames: frames) else { continue }
                        if let line = handshakes.note(event, at: .now) { RelayLog.line(line) }
                    }
                }
                if let interval = settings.statsInterval, ContinuousClock.now - last.time >= interval {
                    let stats = try ask()
                    let now = ContinuousClock.now
                    let seconds =
                        Double((now - last.time).components.seconds)
                        + Double((now - last.time).components.attoseconds) / 1e18
                    let rate = Double(stats.frontend.messagesIn - last.forwarded) / max(seconds, 1e-9)
                    RelayLog.line(
                        "Statistics: " + Self.describe(stats)
                            + String(format: "; %.1f publications/s since the last report.", rate))
                    last = (now, stats.frontend.messagesIn)
                }
            }
        } catch {
            // ETERM: the relay is shutting down. Anything else leaves the proxy without a controller:
            // say so, and stop it the only other way there is.
            guard !error.isTerminated else { return }
            RelayLog.line("The control thread failed: \(error); stopping.")
            proxy.context.terminate()
        }
    }

    /// The proxy's counters, asked over its control socket.
    func ask() throws(ZMQError) -> ZMQProxy.Statistics {
        try proxy.send(Array(Self.statistics.utf8))
        guard let frames = try proxy.receiveMultipart() else {
            throw ZMQError(code: .wouldBlock, call: "zmq_proxy_steerable STATISTICS")
        }
        return try ZMQProxy.Statistics(frames: frames)
    }

    /// One request on `--control`: the proxy's own reply to `STATISTICS`, passed through.
    private func answer(_ socket: ZMQSocket) throws(ZMQError) {
        guard let request = try socket.receiveMultipart(dontWait: true) else { return }
        if request == [Array(Self.statistics.utf8)] {
            try socket.sendMultipart(try ask().frames)
        } else {
            try socket.send("Unknown request: the control endpoint answers STATISTICS only.")
        }
    }

    /// The counters in words: publications come in on the frontend and go out on the backend,
    /// subscriptions the other way.
    static func describe(_ stats: ZMQProxy.Statistics) -> String {
        // Foundation says "Zero KB" for none.
        let bytes =
            stats.backend.bytesOut == 0
            ? "0 bytes"
            : ByteCountFormatter.string(fromByteCount: Int64(clamping: stats.backend.bytesOut), countStyle: .decimal)
        return "\(stats.frontend.messagesIn.counted("publication")) received, \(stats.backend.messagesOut) forwarded "
            + "(\(bytes)); \(stats.backend.messagesIn.counted("subscription message")) received, "
            + "\(stats.frontend.messagesOut) sent upstream"
    }

    /// The counters as `--stats --json` prints them: the proxy's own two sides.
    static func json(_ stats: ZMQProxy.Statistics) -> JSON {
        func side(_ s: ZMQProxy.Statistics.Side) -> JSON {
            [
                "messagesIn": .int(Int64(clamping: s.messagesIn)), "bytesIn": .int(Int64(clamping: s.bytesIn)),
                "messagesOut": .int(Int64(clamping: s.messagesOut)), "bytesOut": .int(Int64(clamping: s.bytesOut)),
            ]
        }
        return ["frontend": side(stats.frontend), "backend": side(stats.backend)]
    }
}
