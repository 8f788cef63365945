import Foundation
import SegueClient
import SegueCore
import SegueHTTP
import SegueProtocol
import SegueView

/// `segue view` live: the client library's late-joiner subscription (snapshots, then every event once,
/// gaps filled from `history`) feeds the page hub; a state is fetched after each event that changes
/// a stack, as `watch` does; ticks go to the pages a frame at a time.
enum ViewLive {
    static func run(_ inv: Invocation, listen: ListenAddress, shutdown: Shutdown) throws {
        let navigators = inv.parsed.arguments["navigator"] ?? []
        let client = try inv.client()
        let pong = try client.ping()
        // A name asked for that the daemon does not have yet (a typo, or one still to be created) is
        // said, as watch says it, rather than a page that quietly lacks its panel.
        let existing = navigators.isEmpty ? [] : Set(try client.list().map(\.navigator))
        var awaited = Set(navigators).subtracting(existing)
        for name in navigators where awaited.contains(name) {
            Output.error("segue view: \(name) is not created yet; its panel appears when it is.")
        }
        let hub = LiveHub(frameRate: pong.frameRate, source: "segued at \(inv.endpoint)")
        let server = try ViewCommand.serve(listen) { request in ViewerSite.respond(request) { hub.connect() } }
        shutdown.onSignal {
            hub.closeAll()
            server.stop()
        }
        let subscription = try CatchUpSubscription(
            client: client, publishEndpoint: try inv.subscriptionEndpoint(), navigators: navigators, heartbeats: true,
            curve: try inv.curve())
        Output.line(
            "segue view: live from \(inv.endpoint) on \(server.address.url)  (Ctrl-C to stop)")
        var containers: [String: ContainerSize?] = [:]
        func container(_ name: String) -> ContainerSize? {
            if let known = containers[name] { return known }
            // The container is in the navigator's first event (`navigator.created`), not in `state`.
            let first = try? client.history(navigator: name, after: 0, limit: 1).events.first
            let size = first.flatMap(createdContainer)
            containers[name] = .some(size)
            return size
        }
        func publish(_ snapshot: NavigatorSnapshot) {
            hub.navigator(ViewerState.withContainer(snapshot.json, container(snapshot.navigator)))
        }
        var lastKeepAlive = ContinuousClock.now
        // As `watch`: no heartbeat for three of the daemon's intervals, and the pages (and stderr)
        // say the picture may be stale, until heartbeats are back.
        var silence = SilenceWatch(heartbeat: pong.heartbeatInterval)
        let publishEndpoint = try inv.subscriptionEndpoint()
        var frame = FrameTicks()
        let restOfFrame = Duration.seconds(1) / (4 * max(1, pong.frameRate))
        let releasePeriod = Duration.milliseconds(50)
        var lastRelease = ContinuousClock.now
        while true {
            // A frame's ticks come together: with some gathered, the rest of the frame is waited for a
            // quarter of a frame at most, and they go as soon as a later frame's tick or anything else
            // comes, nothing does, or they make a message's worth (~64 KiB).
            let wait: Duration = !frame.isEmpty ? restOfFrame : hub.isHolding ? releasePeriod : .seconds(1)
            let update = try subscription.next(timeout: wait)
            if case .tick(let t)? = update {
                if let ended = frame.add(frame: t.frame, navigator: t.navigator, final: t.final, bytes: t.bytes) {
                    hub.ticks(ended)
                }
                if frame.isFull { hub.ticks(frame.take()) }
            } else if !frame.isEmpty {
                hub.ticks(frame.take())
            }
            if silence.isNewlySilent() {
                let message = WatchModel.silence(after: silence.limit, from: publishEndpoint)
                hub.status(stale: message)
                Output.error("segue view: " + message)
            }
            switch update {
            case .snapshot(let s)?: publish(s)
            case .event(let e)?:
                silence.answered()
                if e.eventType == .navigatorCreated {
                    containers[e.navigator] = .some(createdContainer(e))
                    if awaited.remove(e.navigator) != nil { Output.error("segue view: \(e.navigator) was created.") }
                }
                hub.event(e)
                if e.eventType != .interactionUpdated, let s = try? client.state(e.navigator) { publish(s) }
            case .tick?: break
            case .rewound(let seq)?:
                containers = [:]
                hub.reset(seq: seq)
            case .heartbeat(let hb)?:
                if silence.heard(hb) {
                    hub.status(stale: nil)
                    Output.error("segue view: heartbeats are back; the view is current.")
                }
            case nil: break
            }
            // A page that fell behind gets its held ticks once it has read down, frames or not.
            if update == nil || ContinuousClock.now - lastRelease >= releasePeriod {
                hub.releaseHeld()
                lastRelease = ContinuousClock.now
            }
            if ContinuousClock.now - lastKeepAlive > .seconds(15) {
                hub.keepAlive()
                lastKeepAlive = ContinuousClock.now
            }
        }
    }

    /// The container a `navigator.created` declares, read from its tree as a tolerant reader: the
    /// core's decoding of the whole event refuses members a newer daemon may add.
    static func createdContainer(_ record: EventRecord) -> ContainerSize? {
        guard let container = record.data["config"]?["container"], let width = container["width"]?.doubleValue,
            let height = container["height"]?.doubleValue, width > 0, height > 0
        else { return nil }
        return ContainerSize(width: width, height: height)
    }
}
