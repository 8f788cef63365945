import Testing

@testable import SegueDaemon

/// Skipped frames are explained: where the loop's time went since its previous frame close began, and
/// whether the thread was on the CPU at all.
@Suite struct LoopProfileTests {
    static let ms: Int64 = 1_000_000

    /// A stretch of marks (phase, wall milliseconds since the stretch began) and the thread's CPU
    /// time over it, with the steps expected longest first.
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var marks: [(LoopProfile.Phase, Int64)]
        var end: Int64
        var cpu: Int64
        var expected: [(LoopProfile.Phase, Int64)]
        var offCPU: Bool
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "a long commit",
            marks: [(.commands, 2), (.commit, 950), (.replies, 951), (.waiting, 960)], end: 960, cpu: 120,
            expected: [(.commit, 948), (.waiting, 9), (.commands, 2), (.replies, 1)], offCPU: true),
        Case(
            name: "busy serving commands",
            marks: [(.waiting, 1), (.commands, 300), (.commit, 310), (.commands, 500)], end: 500, cpu: 480,
            expected: [(.commands, 489), (.commit, 10), (.waiting, 1)], offCPU: false),
        Case(
            name: "the same step marked twice adds up; ties keep the loop's order",
            marks: [(.snapshots, 40), (.heartbeat, 80), (.snapshots, 120)], end: 130, cpu: 130,
            expected: [(.snapshots, 80), (.heartbeat, 40)], offCPU: false),
        Case(name: "nothing marked: stopped in between", marks: [], end: 400, cpu: 0, expected: [], offCPU: true),
    ]

    @Test(arguments: cases)
    func explainsTheStretch(_ c: Case) {
        var profile = LoopProfile(now: 1_000 * Self.ms, cpu: 7 * Self.ms)
        for (phase, at) in c.marks { profile.mark(phase, now: (1_000 + at) * Self.ms) }
        let stall = profile.stall(frames: 54, now: (1_000 + c.end) * Self.ms, cpu: (7 + c.cpu) * Self.ms)
        #expect(stall.frames == 54)
        #expect(stall.elapsed == c.end * Self.ms)
        #expect(stall.cpu == c.cpu * Self.ms)
        #expect(stall.phases.map(\.phase) == c.expected.map(\.0))
        #expect(stall.phases.map(\.nanoseconds) == c.expected.map { $0.1 * Self.ms })
        #expect(stall.longest == c.expected.first?.0 ?? .waiting)
        #expect(stall.message.contains("The thread was mostly off the CPU") == c.offCPU)
        #expect(stall.message.contains("skipped 54 frames"))
        #expect(
            stall.message.contains(
                "\(c.end).0 ms since its previous frame close began, \(c.cpu).0 ms of them on its CPU"))
    }

    @Test func theLineNamesAtMostThreeSteps() {
        var profile = LoopProfile(now: 0, cpu: 0)
        for (phase, at) in [(LoopProfile.Phase.commands, 10), (.commit, 21), (.replies, 33), (.heartbeat, 46)] {
            profile.mark(phase, now: Int64(at) * Self.ms)
        }
        let stall = profile.stall(frames: 1, now: 50 * Self.ms, cpu: 50 * Self.ms)
        #expect(
            stall.message
                == "The frame loop fell behind and skipped 1 frame (their ticks were not published): 50.0 ms since "
                + "its previous frame close began, 50.0 ms of them on its CPU; the time went to the heartbeat "
                + "and log housekeeping 13.0 ms, sending replies and events 12.0 ms, committing 11.0 ms.")
        #expect(stall.json["longest"] == "the heartbeat and log housekeeping")
        #expect(stall.json["longestMilliseconds"] == 13.0)
        #expect(stall.json["cpuMilliseconds"] == 50.0)
        #expect(stall.json["overloaded"] == false)
        var shed = stall
        shed.overloaded = true
        #expect(
            shed.message.hasPrefix(
                "The frame loop is overloaded (closing a frame takes more than half a frame period while commands "
                    + "wait) and skipped 1 frame (their ticks were not published): 50.0 ms"))
        #expect(shed.json["overloaded"] == true)
    }

    /// The first close after a restart explains its skipped frames by recovery (its wait for
    /// subscribers), not as a loop that fell behind in no time at all.
    @Test func framesSkippedDuringRecoveryAreSaidToBeRecoverys() {
        var profile = LoopProfile(now: 0, cpu: 0)
        profile.mark(.recovery, now: 1_009 * Self.ms)
        let stall = profile.stall(frames: 55, now: 1_010 * Self.ms, cpu: 2 * Self.ms)
        #expect(stall.longest == .recovery)
        #expect(
            stall.message
                == "Starting up took 1010.0 ms after the log was opened (recovery, with its wait for subscribers to "
                + "reconnect when it recovered events), so the transitions in flight skipped 55 frames (their ticks "
                + "were not published).")
        #expect(stall.json["longest"] == "starting up")
    }

    @Test func aRestartForgetsTheStretch() {
        var profile = LoopProfile(now: 0, cpu: 0)
        profile.mark(.commit, now: 500 * Self.ms)
        profile.restart(now: 600 * Self.ms, cpu: 300 * Self.ms)
        profile.mark(.commands, now: 700 * Self.ms)
        let stall = profile.stall(frames: 6, now: 700 * Self.ms, cpu: 380 * Self.ms)
        #expect(stall.phases.map(\.phase) == [.commands])
        #expect(stall.elapsed == 100 * Self.ms)
        #expect(stall.cpu == 80 * Self.ms)
    }

    @Test func stallsAreLoggedAtMostEveryTenSeconds() {
        var log = StallLog()
        let second: Int64 = 1_000_000_000
        let first = log.noted(frames: 60, now: 0)
        #expect(first?.stalls == 0)
        // Stalls every second: folded into the line ten seconds after the first.
        var lines: [(at: Int64, stalls: Int, frames: Int64)] = []
        for t in 1...25 {
            if let earlier = log.noted(frames: 7, now: Int64(t) * second) {
                lines.append((Int64(t), earlier.stalls, earlier.frames))
            }
        }
        #expect(lines.map(\.at) == [10, 20])
        #expect(lines.map(\.stalls) == [9, 9])
        #expect(lines.map(\.frames) == [63, 63])
        // 21...25 are folded; the loop's housekeeping reports them once ten seconds have passed, and only once.
        let early = log.pending(now: 29 * second)
        #expect(early == nil)
        let tail = log.pending(now: 30 * second)
        #expect(tail?.stalls == 5)
        #expect(tail?.frames == 35)
        let again = log.pending(now: 45 * second)
        #expect(again == nil)
        let next = log.noted(frames: 2, now: 46 * second)
        #expect(next?.stalls == 0, "a new burst starts with a line")
    }
}
