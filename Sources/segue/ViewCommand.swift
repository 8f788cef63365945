import Foundation
import SegueClient
import SegueCommandLine
import SegueCore
import SegueHTTP
import SegueStore
import SegueView
import Synchronization

/// `segue view`: the browser frontend, live from a daemon or replaying a log.
enum ViewCommand {
    static func run(_ inv: Invocation) throws {
        let listen = try listenAddress(inv)
        let shutdown = Shutdown()
        if let log = try inv.parsed.value(PictureOptions.replay) {
            try replay(log, inv, listen: listen, shutdown: shutdown)
        } else {
            for option in PictureOptions.window where inv.parsed.value(option.name) != nil {
                throw UsageError(
                    "Option '--\(option.name)' needs '--replay <log>'; live, name navigators as arguments.")
            }
            try ViewLive.run(inv, listen: listen, shutdown: shutdown)
        }
    }

    /// `--listen`: HTTPError's sentence says what is wrong with it, so it is the usage message.
    static func listenAddress(_ inv: Invocation) throws(UsageError) -> ListenAddress {
        guard let text = try inv.parsed.value(PictureOptions.listen) else { return .viewerDefault }
        do {
            return try ListenAddress(parsing: text)
        } catch {
            throw UsageError(error.message)
        }
    }

    static func replay(_ path: String, _ inv: Invocation, listen: ListenAddress, shutdown: Shutdown) throws {
        let (finished, rate) = try LogWindow.open(path, inv) { window in
            var script = ReplayScript(
                source: window.name, clock: window.clock, navigator: window.navigator, startFrame: window.startFrame)
            try window.feed(&script)
            script.finish()
            return (script, window.clock.rate)
        }
        let server = try serve(listen) { request in
            ViewerSite.respond(request) {
                let stream = EventStream()
                finished.play(into: stream)
                return stream
            }
        }
        shutdown.onSignal { server.stop() }
        Output.line(
            "segue view: replaying \(path) (\(finished.frameCount) frames at \(rate) Hz) on "
                + "\(server.address.url)  (Ctrl-C to stop)")
        while true { sleep(3600) }
    }

    /// Starts serving, saying so when the address is not loopback; a port in use is status 69.
    static func serve(_ listen: ListenAddress, _ handler: @escaping HTTPServer.Handler) throws -> HTTPServer {
        if !listen.isLoopback {
            Output.error(
                "warning: --listen \(listen) is not a loopback address: anyone who can reach this machine on that "
                    + "port sees every navigator shown, and so can any web page open in a browser that reaches it "
                    + "(the page has no password, and its Host is not checked off loopback). Use 127.0.0.1 to keep "
                    + "it local.")
        }
        do {
            return try HTTPServer(listen: listen, handler: handler)
        } catch {
            Output.error("error: \(error.message)")
            if error.code == .addressInUse {
                Output.error(
                    "hint: another segue view (or another server) has it; pick a free port with --listen 127.0.0.1:PORT."
                )
            }
            throw Exit(.unavailable)
        }
    }
}

/// Ctrl-C, SIGTERM and SIGHUP: blocked in every thread (libmicrohttpd's and ZeroMQ's inherit the mask,
/// so they start after this), taken by one thread that runs what was registered and exits 0.
final class Shutdown: Sendable {
    private let actions = Mutex<[@Sendable () -> Void]>([])

    init() {
        var signals = sigset_t()
        sigemptyset(&signals)
        for s in [SIGINT, SIGTERM, SIGHUP] { sigaddset(&signals, s) }
        pthread_sigmask(SIG_BLOCK, &signals, nil)
        let set = signals
        Thread(named: "segue-signals") { [self] in
            var wanted = set
            var received: Int32 = 0
            sigwait(&wanted, &received)
            for action in actions.withLock({ $0.reversed() }) { action() }
            exit(0)
        }.start()
    }

    /// Runs `action` on a signal, before those registered earlier.
    func onSignal(_ action: @escaping @Sendable () -> Void) {
        actions.withLock { $0.append(action) }
    }
}
