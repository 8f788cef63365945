import Foundation
import SegueClient
import SegueStore
import SegueWire
import Synchronization

/// `segue relay`: forwards the publications of daemons (or of other relays) to the subscribers below
/// it, on libzmq's own `zmq_proxy_steerable` with an XSUB frontend and an XPUB backend.
///
/// The XSUB connects to every upstream publish endpoint and merges what they publish; the XPUB binds
/// where subscribers connect. Subscriptions travel up through the proxy, so the relay, and each daemon
/// above it, sends only what someone below subscribed to. Messages pass whole and unchanged: a tick
/// below any number of relays is the daemon's bytes.
///
/// Threads: the proxy runs on the calling thread and owns the two data sockets; a control thread owns
/// the other end of the proxy's control `PAIR`, the optional `--control` REP and the XSUB's monitor,
/// and logs the counters and failed handshakes upstream; a signal thread turns SIGTERM, SIGINT or
/// SIGHUP into a `TERMINATE` for the proxy.
final class Relay {
    struct Settings {
        var upstream: [String]
        var publish: String
        var control: String?
        /// How often the counters are logged; `nil` never.
        var statsInterval: Duration?
        var highWaterMark: Int
        /// CURVE towards the upstream publishers (`--server-key`, `--client-key`).
        var upstreamCurve: CurveCredentials?
        /// CURVE on `--publish` (`--publish-key`), and the subscriber keys admitted (`--allow`).
        var serverKeys: CurveCredentials?
        var allowed: Set<String>
    }

    static let controlEndpoint = "inproc://segue-relay-control"
    /// Where the XSUB's socket monitor publishes its connections' handshakes.
    static let upstreamMonitorEndpoint = "inproc://segue-relay-upstream-monitor"

    let settings: Settings
    let context: ZMQContext
    private let frontend: ZMQSocket
    private let backend: ZMQSocket
    private let steer: ZMQSocket
    private var controlThread: Thread?
    /// The ipc socket files of --publish and --control, removed at stop (`IPCSocketFile.Bound`).
    private var ipcFiles: [IPCSocketFile.Bound] = []
    /// Raised (by the signal thread) to have the control thread end the proxy.
    let stopping = StopFlag()
    /// Where subscribers connect, with a wildcard port resolved.
    let publishing: String

    /// Connects, binds and readies everything; nothing is forwarded until ``run()``.
    init(_ settings: Settings) throws(TransportFailure) {
        for endpoint in [settings.publish] + (settings.control.map { [$0] } ?? []) {
            try IPCBinding.refuseUnsafe(endpoint, likely: "another relay?")
        }
        self.settings = settings
        let (context, frontend, backend, steer): (ZMQContext, ZMQSocket, ZMQSocket, ZMQSocket)
        do {
            context = try ZMQContext()
            (frontend, backend) = (try ZMQSocket(context, .xsub), try ZMQSocket(context, .xpub))
            steer = try ZMQSocket(context, .pair)
        } catch {
            throw TransportFailure("Cannot set up the relay's sockets: \(error)")
        }
        (self.context, self.frontend, self.backend, self.steer) = (context, frontend, backend, steer)
        var upstreamEvents: ZMQSocket?
        try Self.attempt("connect to", settings.upstream.joined(separator: ", ")) { () throws(ZMQError) in
            try frontend.setReceiveHighWaterMark(settings.highWaterMark)
            // A peer that vanished without closing (a host cut off) is noticed in seconds, not hours.
            try frontend.setTCPKeepalive(true, idle: .seconds(5), interval: .seconds(2), count: 3)
            try settings.upstreamCurve?.apply(to: frontend)
            // Before connecting, so that no handshake goes unseen (`UpstreamHandshakes`).
            try frontend.monitor(Self.upstreamMonitorEndpoint, events: UpstreamHandshakes.events)
            let events = try ZMQSocket(context, .pair)
            try events.connect(Self.upstreamMonitorEndpoint)
            upstreamEvents = events
            for endpoint in settings.upstream { try frontend.connect(endpoint) }
        }
        try Self.attempt("publish on", settings.publish) { () throws(ZMQError) in
            try backend.setSendHighWaterMark(settings.highWaterMark)
            try backend.setTCPKeepalive(true, idle: .seconds(5), interval: .seconds(2), count: 3)
            if let keys = settings.serverKeys {
                try RelayGate.start(context: context, allowed: settings.allowed)
                try backend.setCurveServer(true)
                try backend.setCurveSecretKey(keys.secretKey)
            }
            try backend.bind(settings.publish)
        }
        publishing = (try? backend.lastEndpoint) ?? settings.publish
        try Self.attempt("set up the control socket", Self.controlEndpoint) { () throws(ZMQError) in
            try steer.bind(Self.controlEndpoint)
        }
        let sockets = try RelayControl.sockets(context: context, external: settings.control)
        ipcFiles = ([settings.publish] + (settings.control.map { [$0] } ?? [])).compactMap {
            IPCSocketFile.Bound(endpoint: $0)
        }
        let (proxySide, external) = (ZMQSocketTransfer(sockets.proxy), sockets.external.map(ZMQSocketTransfer.init))
        let upstream = upstreamEvents.map(ZMQSocketTransfer.init)
        controlThread = Thread(named: "segue-relay-ctl") { [settings, stopping] in
            RelayControl(
                proxy: proxySide.take(), external: external?.take(), upstream: upstream?.take(), settings: settings,
                stopping: stopping
            ).run()
        }
    }

    /// Forwards until a signal (or a `TERMINATE`) stops the proxy; logs the last counters first.
    func run() throws(TransportFailure) {
        controlThread?.start()
        RelayLog.line(
            "Forwarding \(settings.upstream.joined(separator: ", ")) to \(publishing)"
                + (settings.control.map { "; statistics on \($0)" } ?? "") + ".")
        do {
            try ZMQProxy.run(frontend: frontend, backend: backend, control: steer)
        } catch  where error.isTerminated {
            // The control thread failed and ended the context; it logged why.
        } catch {
            throw TransportFailure("The relay stopped: \(error)")
        }
        RelayLog.line("Stopped.")
    }

    deinit {
        frontend.close()
        backend.close()
        steer.close()
        context.terminate()
        for file in ipcFiles { file.remove() }
    }

    private static func attempt(_ what: String, _ target: String, _ body: () throws(ZMQError) -> Void)
        throws(TransportFailure)
    {
        do {
            try body()
        } catch {
            throw TransportFailure("Cannot \(what) \(target): \(error.message).")
        }
    }
}

/// Set once, by the signal thread; read by the control thread, which also polls ``fd`` so that it
/// sleeps until there is something to do instead of waking to look.
final class StopFlag: Sendable {
    private let raised = Atomic<Bool>(false)
    private let pipe: (read: Int32, write: Int32)

    init() {
        var ends: [Int32] = [-1, -1]
        _ = Glibc.pipe(&ends)
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, O_NONBLOCK)
        }
        pipe = (ends[0], ends[1])
    }

    deinit {
        close(pipe.read)
        close(pipe.write)
    }

    /// Readable once the flag is raised.
    var fd: Int32 { pipe.read }

    func raise() {
        raised.store(true, ordering: .releasing)
        var byte: UInt8 = 1
        _ = write(pipe.write, &byte, 1)
    }

    var isRaised: Bool { raised.load(ordering: .acquiring) }
}

/// The relay's log lines, on stderr.
enum RelayLog {
    static func line(_ text: String) { Output.error("segue relay: " + text) }
}
