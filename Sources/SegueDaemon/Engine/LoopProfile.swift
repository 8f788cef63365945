import SegueCore

/// Where the frame loop's time went since its previous frame close began, so that skipped frames
/// can be explained.
///
/// `missedFrames` only says that the loop fell behind. An operator (or a benchmark run with one stall
/// in it) needs to know why: a long commit, a checkpoint, a burst of commands, or a thread that got no
/// CPU at all. The loop marks the end of each of its steps; the time since the previous mark goes to
/// that step. When `closeFrames` has to skip frames, the stretch since the last close is reported with
/// the thread's own CPU time over it, which tells work from starvation.
struct LoopProfile {
    enum Phase: Int, CaseIterable, Sendable {
        case frames, commands, siblings, commit, replies, heartbeat, walCheckpoint, snapshots, completions
        case subscriptions, tasks, waiting
        /// Start-up after the log was opened: recovery, with its wait for subscribers to reconnect, up to
        /// the first frame close.
        case recovery
        /// Frames held back because the frame lease did not cover them: its write failed or was slow.
        /// Never marked by the loop; a stall of held frames is charged to it whole.
        case lease

        /// What the loop was doing, for the log line and `stats`.
        var label: String {
            switch self {
            case .frames: "closing frames"
            case .commands: "serving commands"
            case .siblings: "waiting for more commands to commit with"
            case .commit: "committing"
            case .replies: "sending replies and events"
            case .heartbeat: "the heartbeat and log housekeeping"
            case .walCheckpoint: "checkpointing the WAL"
            case .snapshots: "building snapshots"
            case .completions: "applying commit completions and sending their replies"
            case .subscriptions: "reading subscriptions"
            case .tasks: "reload tasks and the watchdog"
            case .waiting: "waiting for work"
            case .recovery: "starting up"
            case .lease: "waiting for the frame lease"
            }
        }
    }

    /// One stretch that ended in skipped frames.
    struct Stall: Equatable, Sendable {
        var frames: Int64
        /// Wall time since the loop last closed a frame, and the loop thread's CPU time over it
        /// (nanoseconds).
        var elapsed: Int64
        var cpu: Int64
        /// The steps that took the time, longest first (only those that took any).
        var phases: [Spent]
        /// Skipped on purpose: closing a frame cost more than half a frame period while commands
        /// waited, and a request resolved the frames before it without ticks (`isOverloaded`).
        var overloaded = false

        struct Spent: Equatable, Sendable {
            var phase: Phase
            var nanoseconds: Int64
        }

        /// The step that took the longest, or `waiting` if none was marked.
        var longest: Phase { phases.first?.phase ?? .waiting }

        /// The log line: how far behind, over how long, where the time went, and whether the thread
        /// was even running.
        var message: String {
            // Not a loop that fell behind: start-up (recovery, and its deliberate wait), which the
            // transitions in flight spent without ticks.
            if longest == .recovery {
                return "Starting up took \(Self.milliseconds(elapsed)) ms after the log was opened (recovery, with "
                    + "its wait for subscribers to reconnect when it recovered events), so the transitions in flight "
                    + "skipped \(frames.counted("frame")) (their ticks were not published)."
            }
            // Not the loop's own time either: frames it held until the log's lease covered them.
            if longest == .lease {
                return "The frame loop skipped \(frames.counted("frame")) (their ticks were not "
                    + "published) after holding them \(Self.milliseconds(elapsed)) ms for the frame lease: ticks go "
                    + "out only for frames the log's lease covers, and saving it failed or was slow (the frame "
                    + "lease lines before this one say why)."
            }
            // Steps under a twentieth of a millisecond would read "0.0 ms": noise, left out.
            let shown = phases.prefix(3).filter { $0.nanoseconds >= 50_000 }.map {
                "\($0.phase.label) \(Self.milliseconds($0.nanoseconds)) ms"
            }
            let what =
                overloaded
                ? "The frame loop is overloaded (closing a frame takes more than half a frame period while "
                    + "commands wait) and skipped"
                : "The frame loop fell behind and skipped"
            var line =
                "\(what) \(frames.counted("frame")) (their ticks were "
                + "not published): \(Self.milliseconds(elapsed)) ms since its previous frame close began, "
                + "\(Self.milliseconds(cpu)) ms of them on its CPU"
            if !shown.isEmpty { line += "; the time went to " + shown.joined(separator: ", ") }
            line += "."
            if cpu * 2 < elapsed {
                line +=
                    " The thread was mostly off the CPU: the machine is overloaded, the process was stopped, or a "
                    + "step waited for the disk."
            }
            return line
        }

        /// In `stats` as `lastStall`: the numbers of the log line, and the step that took longest.
        var json: JSON {
            [
                "frames": .int(frames), "overloaded": .bool(overloaded), "milliseconds": .double(Self.rounded(elapsed)),
                "cpuMilliseconds": .double(Self.rounded(cpu)), "longest": .string(longest.label),
                "longestMilliseconds": .double(Self.rounded(phases.first?.nanoseconds ?? 0)),
            ]
        }

        /// Milliseconds to a tenth.
        static func rounded(_ nanoseconds: Int64) -> Double { Double((nanoseconds + 50_000) / 100_000) / 10 }

        static func milliseconds(_ nanoseconds: Int64) -> String {
            let tenths = (nanoseconds + 50_000) / 100_000
            return "\(tenths / 10).\(tenths % 10)"
        }
    }

    private var spent = [Int64](repeating: 0, count: Phase.allCases.count)
    private var last: Int64
    private var start: Int64
    private var cpuAtStart: Int64

    init(now: Int64, cpu: Int64) {
        last = now
        start = now
        cpuAtStart = cpu
    }

    /// The time since the previous mark went to `phase`.
    mutating func mark(_ phase: Phase, now: Int64) {
        spent[phase.rawValue] += max(0, now - last)
        last = now
    }

    /// Starts a new stretch: the loop closed a frame (or had none to close).
    mutating func restart(now: Int64, cpu: Int64) {
        for index in spent.indices { spent[index] = 0 }
        last = now
        start = now
        cpuAtStart = cpu
    }

    /// The stretch so far, as a stall of `frames` skipped frames.
    func stall(frames: Int64, now: Int64, cpu: Int64) -> Stall {
        let phases = Phase.allCases.compactMap { phase -> Stall.Spent? in
            let time = spent[phase.rawValue]
            return time > 0 ? Stall.Spent(phase: phase, nanoseconds: time) : nil
        }
        // Longest first; ties in the loop's own order.
        .sorted { ($0.nanoseconds, -$0.phase.rawValue) > ($1.nanoseconds, -$1.phase.rawValue) }
        return Stall(frames: frames, elapsed: max(0, now - start), cpu: max(0, cpu - cpuAtStart), phases: phases)
    }
}

/// When a stall is worth a log line: the first at once, then at most one per `interval`, which also
/// counts the stalls and frames skipped since the last line; the loop's housekeeping (once a
/// second) reports what is left.
struct StallLog {
    private var lines = HeldBackLines()

    /// Notes a stall; when it is to be logged now, the stalls and frames noted since the last line
    /// (nil: not now).
    mutating func noted(frames skipped: Int64, now: Int64) -> (stalls: Int, frames: Int64)? {
        lines.noted(weight: skipped, now: now).map { ($0.held, $0.weight) }
    }

    /// The stalls folded since the last line, once `HeldBackLines.interval` has passed since it
    /// (housekeeping asks): so that the last ones of a burst are reported even if no stall follows.
    mutating func pending(now: Int64) -> (stalls: Int, frames: Int64)? {
        lines.pending(now: now).map { ($0.held, $0.weight) }
    }
}
