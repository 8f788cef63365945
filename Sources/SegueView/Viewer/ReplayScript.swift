import SegueCore
import SegueHTTP

/// A log replayed for the viewer page: every frame `segue replay` visits, with its events, its ticks
/// and the states of the navigators its events changed, made into messages once and sent whole to
/// each page that connects (the page plays, pauses, steps and scrubs through them itself).
package struct ReplayScript: Sendable {
    package private(set) var messages: [[UInt8]] = []
    package private(set) var frameCount = 0
    private var fleet: Fleet
    private var pacing: ReplayPacing
    private let navigator: String?
    private let startFrame: Int64
    private var finished = false

    /// `maxGap`: idle stretches (nothing in flight) play back at most this many seconds long.
    package init(
        source: String, clock: FrameClock, navigator: String? = nil, startFrame: Int64 = .min, maxGap: Double = 1
    ) {
        fleet = Fleet(clock: clock)
        pacing = ReplayPacing(clock: clock, speed: 1, maxGap: maxGap)
        self.navigator = navigator
        self.startFrame = startFrame
        messages.append(ViewerMessage.hello(mode: "replay", frameRate: clock.rate, source: source))
    }

    package mutating func add(frame: Int64, events: [EventRecord], ticks: [Tick]) throws(CoreError) {
        var touched: [String] = []
        for record in events {
            try fleet.apply(record)
            if !touched.contains(record.navigator) { touched.append(record.navigator) }
        }
        guard frame >= startFrame else { return }
        let shownEvents = events.filter { navigator == nil || $0.navigator == navigator }
        let shownTicks = ticks.filter { navigator == nil || $0.navigator == navigator }
        guard !shownEvents.isEmpty || !shownTicks.isEmpty else { return }
        // The first frame sent carries every navigator's state: the page starts from it.
        let names = frameCount == 0 ? fleet.navigators.keys.sorted() : touched
        let states: [JSON] = names.filter { navigator == nil || $0 == navigator }.compactMap { name in
            guard let state = fleet.navigators[name], state.status != .absent else { return nil }
            return .object(ViewerState.object(state, seq: fleet.lastSeq))
        }
        let at = Double(pacing.offset(of: frame)) / 1e9
        messages.append(
            ViewerMessage.make(
                "frame",
                .object([
                    "index": .int(Int64(frameCount)), "frame": .int(frame),
                    "time": .int(fleet.clock.instant(ofFrame: frame)),
                    "at": .double(at), "events": .array(shownEvents.map(\.json)),
                    "ticks": .array(shownTicks.map(\.json)),
                    "navigators": .array(states),
                ])))
        frameCount += 1
    }

    /// Closes the script with `end`; later `add`s are ignored by pages.
    package mutating func finish() {
        guard !finished else { return }
        finished = true
        messages.append(ViewerMessage.make("end", .object(["frames": .int(Int64(frameCount))])))
    }

    /// Queues the whole script on `stream` and ends it.
    package func play(into stream: EventStream) {
        for message in messages { stream.send(raw: message) }
        stream.close()
    }
}
