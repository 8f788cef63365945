import Foundation
import SegueClient
import SegueCommandLine
import SegueCore

/// `segue replay LOG`: the ticks a log produced, as JSON lines or re-published in real time.
enum ReplayCommand {
    static func run(_ inv: Invocation) throws {
        if inv.parsed.value("publish") == nil {
            // Pacing options mean nothing to the printed replay; silently ignoring them would let a
            // mistyped command look as if it worked.
            for option in ["wait-subscriber", "speed", "max-gap"]
            where inv.parsed.flag(option) || inv.parsed.value(option) != nil {
                throw UsageError("Option '--\(option)' needs '--publish <endpoint>'.")
            }
        }
        // Every option is checked before the log is read, so a typo fails at once even on a big log.
        let publishEndpoint = try Invocation.publishEndpoint(inv.parsed)
        // A replay published on a running segued's endpoint by mistake would take its socket.
        if let publishEndpoint {
            try IPCBinding.refuseUnsafe(publishEndpoint, likely: "a segued, a relay or another replay?")
        }
        let pacing = publishEndpoint == nil ? nil : (speed: try speed(inv), maxGap: try maxGap(inv))
        let delay = try presentationDelay(inv)
        let path = inv.argument("log")
        let to = try inv.count("to") ?? .max
        let from = try inv.count("from") ?? 0
        guard from <= to else {
            throw UsageError("--from \(from) is after --to \(to): nothing would be replayed.")
        }
        let navigator = inv.parsed.value("navigator")
        // Read twice, an event at a time: once to learn the rate and the range, once to replay.
        let source = LogSource.isStandardInput(path) ? try LogSource.spoolStandardInput("replay") : path
        defer { if source != path { try? FileManager.default.removeItem(atPath: source) } }
        var survey = Survey(from: from, to: to, navigator: navigator)
        try LogSource.survey(
            source, path: path, bound: to == .max ? nil : to, lookingAhead: { survey.look.firstLeftOut != nil },
            unfinished: { survey.look.unfinished = true }
        ) { survey.add($0) }
        let given = try inv.parsed.value("frame-rate").map {
            try ParsedArguments.read($0, as: FrameRate.self, for: "--frame-rate").hz
        }
        let rate = try LogSource.frameRate(survey.sample, given: given)
        let replayed = try survey.check(path: path) { try LogSource.firstSeqs(source, after: survey.lastSeq) }
        if let cut = survey.cutFrame { Output.error("segue replay: " + cut.notice) }
        let clock = try FrameClock(rate: rate)
        let startFrame = survey.startFrame
        let waitForSubscriber = inv.parsed.flag("wait-subscriber")
        let publisher = try publishEndpoint.map {
            try Republisher(
                endpoint: $0, speed: pacing?.speed ?? 1, maxGap: pacing?.maxGap, clock: clock,
                waitForSubscriber: waitForSubscriber)
        }
        var count = 0
        var progress = Progress("replaying: seq", total: Int(survey.lastSeq))
        var seq: Int64 = 0
        var replay = LogReplay(clock: clock, stopBefore: survey.stopBefore, presentationDelay: delay)
        let body: LogReplay.FrameBody = { frame, applied, ticks in
            seq = applied.last?.seq ?? seq
            guard frame >= startFrame else { return }
            if let publisher {
                progress.update(Int(seq), detail: "frame \(frame), \(count.counted("tick"))")
                let events = applied.filter { navigator == nil || $0.navigator == navigator }
                let shown = ticks.filter { navigator == nil || $0.navigator == navigator }
                // A frame where only other navigators moved is idle time for this replay, so that
                // --max-gap shortens it like any other.
                if !events.isEmpty || !shown.isEmpty {
                    try publisher.publish(frame: frame, events: events, ticks: shown)
                }
            }
            for tick in ticks where navigator == nil || tick.navigator == navigator {
                count += 1
                if publisher != nil { continue }
                if inv.json {
                    var bytes = tick.json.serializedBytes()
                    bytes.append(UInt8(ascii: "\n"))
                    Output.write(bytes)
                } else {
                    let t = tick
                    Output.line(
                        "\(t.frame)\t\(t.navigator)\t#\(t.transition) \(t.operation.rawValue)\t\(t.phase.rawValue)\t"
                            + "fraction \(ReadCommands.format(t.fraction))\tprogress \(ReadCommands.format(t.progress))"
                            + (t.final ? "\tfinal" : ""))
                }
            }
        }
        try LogSource.forEachEvent(source, upTo: to) { _, event in
            try replay.add(event, body)
        } atEnd: {
            try replay.finish(body)
        }
        progress.finish()
        if publisher != nil || !inv.json {
            Output.error("Replayed \(replayed.counted("event")) at \(rate) Hz: \(count.counted("tick")).")
        }
    }

    /// What the first read of the log learns: the sample the frame rate is read from, the range
    /// `--from` and `--to` cut, and whether `--navigator` is there.
    struct Survey {
        let from: Int64
        let to: Int64
        let navigator: String?
        private(set) var sample: [EventRecord] = []
        private(set) var count = 0
        private(set) var lastSeq: Int64 = 0
        /// The frame the replay stops before: the first event left out by `--to` took effect there.
        private(set) var stopBefore = Int64.max
        /// The frame of the first event from `--from` on.
        private(set) var startFrame = Int64.max
        /// The events the replay shows (from `from`, of `navigator`).
        private(set) var replayed = 0
        private var presence: LogSource.NavigatorPresence
        /// From the first event `--to` leaves out; and the first kept event in the frame of the last
        /// kept one: a frame's events are shown together, so those sharing the left-out one's frame are not.
        var look = LogSource.CutFrameLook()
        private var firstOfLastFrame: EventRecord?
        private var lastKept: EventRecord?
        /// Of `replayed`, those in the frame of the last kept event.
        private var replayedInLastFrame = 0

        init(from: Int64, to: Int64, navigator: String?) {
            self.from = from
            self.to = to
            self.navigator = navigator
            presence = LogSource.NavigatorPresence(navigator)
        }

        /// Takes the next event; false once nothing more is needed: past the frame `to` cuts, whose last
        /// seq is all that is looked for after the first event left out.
        mutating func add(_ event: EventRecord) -> Bool {
            guard event.seq <= to else {
                if stopBefore == .max { stopBefore = event.frame }
                return look.take(event)
            }
            if sample.count < LogSource.rateSample { sample.append(event) }
            count += 1
            lastSeq = event.seq
            if event.seq >= from, startFrame == .max { startFrame = event.frame }
            presence.note(event.navigator)
            if lastKept?.frame != event.frame {
                firstOfLastFrame = event
                replayedInLastFrame = 0
            }
            lastKept = event
            if event.seq >= from, navigator == nil || event.navigator == navigator {
                replayed += 1
                replayedInLastFrame += 1
            }
            return true
        }

        /// The kept events that share the frame of the first one `--to` leaves out, said, and how many
        /// of them the count of replayed events loses (nil: none are cut).
        var cutFrame: (notice: String, lost: Int)? {
            guard let lastKept, let firstOfLastFrame,
                let notice = look.hint(
                    firstOfLastFrame, through: lastKept, bound: to,
                    "a frame's events and ticks go out together, so the replay stops before that frame", "takes it in")
            else { return nil }
            return (notice, replayedInLastFrame)
        }

        /// The count of events replayed, or a refusal when there are none: a replay of nothing that
        /// exits 0 looks as if it worked. `later` reads the navigators past `--to`, each with its
        /// first seq, when `--navigator` was not seen up to it.
        func check(path: String, later: () throws -> [String: Int64]) throws -> Int {
            guard count > 0 else {
                if let firstLeftOut = look.firstLeftOut {
                    throw Refusal(
                        .invalidArgument,
                        "No event of \(path) falls up to --to \(to): its first is seq \(firstLeftOut.seq).")
                }
                throw Refusal(.invalidArgument, "\(path) holds no events: there is nothing to replay.")
            }
            if let navigator, !presence.found {
                let rest = to == .max ? [:] : try later()
                if let seq = rest[navigator] {
                    throw Refusal(
                        .invalidArgument,
                        "No event of navigator \(navigator) in \(path) falls up to --to \(to): its first is seq \(seq)."
                    )
                }
                if let refusal = presence.refusal(path, more: Set(rest.keys)) { throw refusal }
            }
            guard from <= lastSeq else {
                throw Refusal(
                    .invalidArgument,
                    "--from \(from) is past the end of \(path) (seq \(lastSeq)): nothing would be replayed.")
            }
            // Events in the range, none of them shown: another navigator's only, or all in a frame
            // the bound cuts.
            let shown = replayed - (cutFrame?.lost ?? 0)
            if shown == 0 {
                throw Refusal(
                    .invalidArgument,
                    "No event of \(navigator.map { "navigator \($0) in " } ?? "")\(path) falls between --from \(from) "
                        + "and --to \(to == .max ? "the end" : "\(to)"): nothing would be replayed."
                        + (cutFrame.map { " (\($0.notice))" } ?? ""))
            }
            return shown
        }
    }

    /// `--max-gap`: a duration, or `off` to keep every idle gap as it was; 2 s by default.
    static func maxGap(_ inv: Invocation) throws(UsageError) -> Double? {
        guard let text = inv.parsed.value("max-gap") else { return 2 }
        if text == "off" { return nil }
        do throws(UsageError) {
            return try ArgumentValues.seconds(text, for: "--max-gap")
        } catch {
            throw UsageError.invalidValue(
                text, for: "--max-gap", "expected a positive duration like 2s or 500ms, or off")
        }
    }

    /// `--presentation-delay`: the daemon's `presentationDelay` (0 by default, as the daemon's), in ns.
    static func presentationDelay(_ inv: Invocation) throws(UsageError) -> Int64 {
        guard let text = inv.parsed.value("presentation-delay") else { return 0 }
        if ["0", "0s", "0ms"].contains(text) { return 0 }
        let seconds: Double
        do throws(UsageError) { seconds = try ArgumentValues.seconds(text, for: "--presentation-delay") } catch {
            throw UsageError.invalidValue(
                text, for: "--presentation-delay", "expected 0 or a positive duration like 0.4, 0.4s or 400ms")
        }
        return Int64((seconds * 1e9).rounded())
    }

    /// `--speed` of `replay --publish` and `watch --replay`: a positive factor, 1 by default. A
    /// refusal echoes the value as typed.
    static func speed(_ inv: Invocation) throws(UsageError) -> Double {
        guard let text = inv.parsed.value("speed") else { return 1 }
        let s = try ArgumentValues.number(text, for: "--speed")
        guard s > 0 else { throw UsageError.invalidValue(text, for: "--speed", "expected a positive factor") }
        return s
    }
}
