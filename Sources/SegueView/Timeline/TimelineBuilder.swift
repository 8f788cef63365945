import SegueCore

/// Builds a `Timeline` from the frames a log replays into, as `segue replay` visits them: each
/// frame's events (applied before its ticks) and its ticks. Events are also folded through the
/// core's `Fleet`, so each marker knows the stack its event left.
package struct TimelineBuilder {
    package private(set) var timeline: Timeline
    private var fleet: Fleet
    /// Only this navigator's lane, when set.
    private let navigator: String?
    /// Frames before this one are folded but not drawn (`--from`).
    private let startFrame: Int64
    /// `transition.queued` seqs by the request id that its later `transition.started` carries.
    private var queued: [String: [String: Int64]] = [:]

    package init(source: String, clock: FrameClock, navigator: String? = nil, startFrame: Int64 = .min) {
        timeline = Timeline(source: source, clock: clock)
        fleet = Fleet(clock: clock)
        self.navigator = navigator
        self.startFrame = startFrame
    }

    package mutating func add(frame: Int64, events: [EventRecord], ticks: [Tick]) throws(CoreError) {
        let shown = frame >= startFrame
        for record in events {
            try fleet.apply(record)
            guard shown, navigator == nil || record.navigator == navigator else { continue }
            try show(record)
        }
        guard shown else { return }
        for tick in ticks where navigator == nil || tick.navigator == navigator {
            show(tick)
        }
        if !events.isEmpty || !ticks.isEmpty {
            timeline.firstFrame = min(timeline.firstFrame ?? frame, frame)
            timeline.lastFrame = max(timeline.lastFrame ?? frame, frame)
        }
    }

    private mutating func show(_ record: EventRecord) throws(CoreError) {
        let event = try NavigationEvent(record: record)
        let lane = laneIndex(record.navigator)
        var transition: Int?
        switch event.kind {
        case .created(_, let config, _):
            timeline.lanes[lane].endRule = config.endRule
        case .started(let started):
            transition = started.transition
            var band = Band(
                transition: started.transition, operation: started.operation, animator: started.animator,
                animated: started.animated, from: started.from, to: started.to, startSeq: record.seq,
                startFrame: record.frame, command: record.command)
            band.isInteractive = started.interactive
            band.queuedSeq = record.command.flatMap { queued[record.navigator]?.removeValue(forKey: $0) }
            timeline.lanes[lane].bands.append(band)
        case .queued:
            if let command = record.command { queued[record.navigator, default: [:]][command] = record.seq }
        default:
            transition = gesture(event.kind, record, lane: lane)
        }
        timeline.marks.append(mark(record, transition: transition))
    }

    /// Updates, interruptions, releases and ends: what they change on their band. Returns its id.
    private mutating func gesture(_ kind: NavigationEvent.Kind, _ record: EventRecord, lane: Int) -> Int? {
        let endRule = timeline.lanes[lane].endRule
        func onBand(_ id: Int, _ body: (inout Band) -> Void) -> Int {
            if let b = timeline.lanes[lane].bands.lastIndex(where: { $0.transition == id }) {
                body(&timeline.lanes[lane].bands[b])
            }
            return id
        }
        func release(_ band: inout Band, _ kind: Turn.Kind, fraction: Double, velocity: Double?, reason: CancelReason?)
        {
            let wasInteractive = band.isInteractive
            let v = velocity ?? band.updates.last?.velocity
            band.isInteractive = false
            band.turns.append(
                Turn(
                    kind: kind, seq: record.seq, frame: record.frame, fraction: fraction,
                    velocity: wasInteractive ? v : nil,
                    reason: reason,
                    rule: wasInteractive ? endRule.decide(percent: fraction, velocity: v ?? 0) : nil))
        }
        switch kind {
        case .updated(let id, let percent, let velocity, _, _):
            return onBand(id) {
                $0.updates.append(
                    GestureUpdate(seq: record.seq, frame: record.frame, percent: percent, velocity: velocity))
            }
        case .interrupted(let id, let fraction, _, _):
            return onBand(id) {
                $0.isInteractive = true
                $0.turns.append(Turn(kind: .interrupted, seq: record.seq, frame: record.frame, fraction: fraction))
            }
        case .finishing(let id, let fraction, let velocity, _, _):
            return onBand(id) { release(&$0, .finishing, fraction: fraction, velocity: velocity, reason: nil) }
        case .cancelling(let id, let fraction, _, _, let reason, let velocity):
            return onBand(id) { release(&$0, .cancelling, fraction: fraction, velocity: velocity, reason: reason) }
        case .completed(let id), .cancelled(let id, _):
            return id
        default:
            return nil
        }
    }

    private mutating func show(_ tick: Tick) {
        let lane = laneIndex(tick.navigator)
        var index = timeline.lanes[lane].bands.lastIndex { $0.transition == tick.transition }
        if index == nil, let band = bandStartedEarlier(tick) {
            timeline.lanes[lane].bands.append(band)
            index = timeline.lanes[lane].bands.count - 1
        }
        guard let index else { return }
        timeline.lanes[lane].bands[index].samples.append(
            Sample(frame: tick.frame, fraction: tick.fraction, progress: tick.progress, phase: tick.phase))
        if tick.final {
            timeline.lanes[lane].bands[index].outcome = tick.phase
            timeline.lanes[lane].bands[index].endFrame = tick.frame
        }
    }

    /// A band for a transition that started before the frames shown (`--from` in its middle), from the
    /// folded state.
    private func bandStartedEarlier(_ tick: Tick) -> Band? {
        guard let state = fleet.navigators[tick.navigator] else { return nil }
        let candidates = [state.transition].compactMap { $0 } + state.ended.map(\.transition)
        guard let t = candidates.first(where: { $0.id == tick.transition }) else { return nil }
        var band = Band(
            transition: t.id, operation: t.operation, animator: t.animator, animated: t.animated, from: t.from,
            to: t.to, startSeq: nil, startFrame: t.startFrame, command: nil)
        band.isInteractive = t.phase == .interactive
        return band
    }

    private mutating func laneIndex(_ name: String) -> Int {
        if let index = timeline.lanes.firstIndex(where: { $0.name == name }) { return index }
        var lane = Lane(name: name)
        if let config = fleet.navigators[name]?.config { lane.endRule = config.endRule }
        timeline.lanes.append(lane)
        return timeline.lanes.count - 1
    }

    private func mark(_ record: EventRecord, transition: Int?) -> EventMark {
        let state = fleet.state(of: record.navigator)
        return EventMark(
            seq: record.seq, frame: record.frame, navigator: record.navigator, type: record.type,
            transition: transition, json: record.json.serialized(), stack: state.stack.map(Self.describe),
            modals: state.modals.map(Self.describe), inFlight: state.transition.map(Self.describe),
            queued: state.queue.count)
    }

    static func describe(_ screen: Screen) -> String { "\(screen.name)[\(screen.id)]" }

    static func describe(_ t: Transition) -> String {
        "\(t.operation.rawValue) #\(t.id) \(t.phase.rawValue) \(t.from.name) → \(t.to.name)"
    }
}
