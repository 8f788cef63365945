import Testing

@testable import SegueCore

/// The multi-navigator driver: numbering, frame order, the active list, rollback, and replay.
@Suite struct FleetTests {
    let clock = try! FrameClock(rate: 60)
    let t0: Int64 = 1_000_000_000_000

    func created(_ fleet: inout Fleet, _ name: String, at time: Int64) {
        let r = fleet.execute(
            .create(root: ScreenSpec(name: "Home"), config: NavigatorConfig()), .init(), navigator: name, time: time)
        precondition(r.error == nil)
    }

    @Test func liveFramesMatchAReplayOfTheLogAndIdleNavigatorsLeaveTheActiveList() {
        var liveTicks: [Int64: [[UInt8]]] = [:]
        let start = clock.frame(atOrAfter: t0)
        var records: [EventRecord] = []
        // Three navigators pushing at once with different durations, closed frame by frame as live.
        var recorder = Fleet(clock: clock)
        for (i, name) in ["a", "b", "c"].enumerated() {
            records +=
                recorder.execute(
                    .create(root: ScreenSpec(name: "Home"), config: NavigatorConfig()), .init(), navigator: name,
                    time: t0
                ).events
            records +=
                recorder.execute(
                    .push(
                        ScreenSpec(name: "Detail"),
                        TransitionOptions(animator: ["duration": .double(0.1 * Double(i + 1))])), .init(),
                    navigator: name, time: t0
                ).events
        }
        for frame in start...(start + 30) {
            let closed = recorder.closeFrame(frame)
            records += closed.events
            liveTicks[frame] = closed.ticks.map { $0.encoded() }
        }
        #expect(recorder.active.isEmpty, "every transition ended, so nothing stays active")
        #expect(records.map(\.seq) == Array(1...Int64(records.count)))
        #expect(zip(records, records.dropFirst()).allSatisfy { $0.frame <= $1.frame && $0.time <= $1.time })
        // Replay: apply the log frame by frame and take the ticks again.
        var replay = Fleet(clock: clock)
        var index = 0
        for frame in start...(start + 30) {
            while index < records.count, records[index].frame <= frame {
                try! replay.apply(records[index])
                index += 1
            }
            #expect(replay.ticks(frame: frame, prune: true).map { $0.encoded() } == liveTicks[frame])
        }
        #expect(liveTicks.values.flatMap { $0 }.count == 7 + 13 + 19)
    }

    /// Behind another daemon's event on a shared log (`skip`), a completion due earlier takes effect
    /// at that event's frame, not its own: frames never go back in a log. Without the foreign event
    /// it completes on schedule.
    @Test func aCompletionDueBeforeTheLogsLastFrameTakesEffectThere() {
        let start = clock.frame(atOrAfter: t0)
        func pushing() -> Fleet {
            var fleet = Fleet(clock: clock)
            created(&fleet, "a", at: t0)
            let push = fleet.execute(
                .push(ScreenSpec(name: "Detail"), TransitionOptions(animator: ["duration": 0.1])), .init(),
                navigator: "a", time: t0)
            precondition(push.error == nil)
            return fleet
        }
        var onSchedule = pushing()
        let scheduled = onSchedule.advance(toFrame: start + 30)
        #expect(scheduled.map(\.type) == ["transition.completed"])
        let due = scheduled[0].frame
        var behind = pushing()
        behind.skip(toSeq: behind.lastSeq + 1, frame: due + 5, time: clock.instant(ofFrame: due + 5))
        #expect(behind.advance(toFrame: due + 4).isEmpty, "not before the foreign event's frame")
        let late = behind.advance(toFrame: start + 30)
        #expect(late.map(\.type) == ["transition.completed"])
        #expect(late.map(\.frame) == [due + 5])
        #expect(late[0].time == clock.instant(ofFrame: due + 5))
    }

    /// `advance` + `takeTicks` (the daemon's frame loop) give what `closeFrame` gives, frame by frame.
    @Test func takingTicksOneByOneMatchesCloseFrame() {
        var gathered = Fleet(clock: clock)
        for (i, name) in ["a", "b", "c"].enumerated() {
            created(&gathered, name, at: t0)
            _ = gathered.execute(
                .push(
                    ScreenSpec(name: "Detail"), TransitionOptions(animator: ["duration": .double(0.05 * Double(i + 1))])
                ), .init(), navigator: name, time: t0)
        }
        var streamed = gathered
        let start = clock.frame(atOrAfter: t0)
        for frame in start...(start + 12) {
            let closed = gathered.closeFrame(frame)
            let events = streamed.advance(toFrame: frame)
            var ticks: [[UInt8]] = []
            streamed.takeTicks(closing: frame) { ticks.append($0.encoded()) }
            #expect(events == closed.events)
            #expect(ticks == closed.ticks.map { $0.encoded() })
            #expect(streamed.active == gathered.active)
            #expect(streamed.closedFrame == frame)
        }
        #expect(streamed.active.isEmpty)
    }

    /// While every transition runs a long animation, `advance` skips its scan; a command that brings
    /// an earlier due frame (a short push elsewhere) must still complete exactly on schedule.
    @Test func aShortTransitionStartedDuringLongOnesCompletesOnSchedule() throws {
        var fleet = Fleet(clock: clock)
        created(&fleet, "long", at: t0)
        created(&fleet, "short", at: t0)
        _ = fleet.execute(
            .push(ScreenSpec(name: "Detail"), TransitionOptions(animator: ["duration": .double(2)])), .init(),
            navigator: "long", time: t0)
        let start = clock.frame(atOrAfter: t0)
        for frame in start...(start + 10) { #expect(fleet.closeFrame(frame).events.isEmpty) }
        let pushed = fleet.execute(
            .push(ScreenSpec(name: "Detail"), TransitionOptions(animator: ["duration": .double(0.1)])), .init(),
            navigator: "short", time: clock.instant(ofFrame: start + 10) + 1)
        let end = try #require(fleet.state(of: "short").transition).segment.endFrame
        var completions: [(frame: Int64, navigator: String)] = []
        for frame in (start + 11)...(end + 2) {
            for record in fleet.closeFrame(frame).events { completions.append((frame, record.navigator)) }
        }
        #expect(pushed.error == nil)
        #expect(completions.map(\.frame) == [end])
        #expect(completions.map(\.navigator) == ["short"])
        #expect(fleet.active == ["long"])
    }

    /// `markDurable` keeps the durable undo entries for `releaseDurableJournal` (the daemon frees
    /// them after the replies), never lets a rollback use them, and frees them itself past a limit.
    @Test func durableUndoEntriesWaitForTheirReleaseButNeverUndo() {
        var fleet = Fleet(clock: clock)
        fleet.journaling = true
        created(&fleet, "a", at: t0)
        let instant = TransitionOptions(animated: false)
        var time = t0
        func push() {
            time += 20_000_000
            _ = fleet.execute(.push(ScreenSpec(name: "Detail"), instant), .init(), navigator: "a", time: time)
        }
        push()
        let durableSeq = fleet.lastSeq
        let durableState = fleet.state(of: "a")
        fleet.markDurable(through: durableSeq)
        #expect(fleet.journal.count == Int(durableSeq), "one undo entry per event, kept until released")
        #expect(fleet.durableJournalEntries == fleet.journal.count)
        push()
        fleet.rollback(to: durableSeq)
        #expect(fleet.state(of: "a") == durableState)
        #expect(fleet.journal.count == Int(durableSeq), "the rollback stopped at the durable entries")
        fleet.releaseDurableJournal()
        #expect(fleet.journal.isEmpty)
        #expect(fleet.durableJournalEntries == 0)
        // Nobody releasing: past the limit, marking frees them at once.
        for _ in 0..<(Fleet.durableJournalLimit / 2) {
            push()
            _ = fleet.execute(.pop(instant), .init(), navigator: "a", time: time + 1_000_000)
        }
        fleet.markDurable(through: fleet.lastSeq - 1)
        #expect(fleet.journal.count == 1, "the entries up to the limit were freed, the undurable one kept")
        #expect(fleet.durableJournalEntries == 0)
    }

    @Test func rollbackRestoresDurableStatesAndRenumbers() {
        var fleet = Fleet(clock: clock)
        created(&fleet, "a", at: t0)
        fleet.journaling = true
        fleet.markDurable(through: fleet.lastSeq)
        let before = fleet.state(of: "a")
        let r = fleet.execute(
            .push(ScreenSpec(name: "Detail"), .standard), .init(), navigator: "a", time: t0 + 1_000_000)
        #expect(r.events.count == 1)
        #expect(fleet.active == ["a"])
        fleet.rollback(to: 1)
        #expect(fleet.state(of: "a") == before)
        #expect(fleet.lastSeq == 1)
        _ = fleet.closeFrame(clock.frame(atOrAfter: t0) + 2)
        #expect(fleet.active.isEmpty, "the rolled-back push left nothing in flight")
        let again = fleet.execute(
            .push(ScreenSpec(name: "Detail"), .standard), .init(), navigator: "a", time: t0 + 100_000_000)
        #expect(again.events.first?.seq == 2)
    }

    /// `execute` takes the decider's own fold instead of evolving each event again: the states must
    /// be exactly those of applying the records one by one, for single- and multi-event commands.
    static let foldCases: [(String, [NavigationCommand])] = [
        ("animated push", [.push(ScreenSpec(name: "Detail"), .standard)]),
        (
            "non-animated push and pop",
            [
                .push(ScreenSpec(name: "Detail"), TransitionOptions(animated: false)),
                .pop(TransitionOptions(animated: false)),
            ]
        ),
        (
            "setStack then popToRoot",
            [
                .setStack(
                    [ScreenRef.new(ScreenSpec(name: "A")), .new(ScreenSpec(name: "B"))],
                    TransitionOptions(animated: false)),
                .popToRoot(TransitionOptions(animated: false)),
            ]
        ),
    ]

    /// Folding refuses a record that does not continue the log, and says which way it fails to.
    @Test(arguments: [
        (1, 2, "Event seq 3 does not follow 1; the log has a gap."),
        (2, 1, "Event seq 2 does not follow 2; seq 2 was already taken: an event repeated or out of order."),
    ])
    func foldingRefusesAGapOrARepeat(applied: Int, next: Int, message: String) throws {
        var live = Fleet(clock: clock)
        var records = live.execute(
            .create(root: ScreenSpec(name: "Home"), config: NavigatorConfig()), .init(), navigator: "a", time: t0
        ).events
        records +=
            live.execute(
                .push(ScreenSpec(name: "Detail"), TransitionOptions(animated: false)), .init(), navigator: "a",
                time: t0 + 50_000_000
            ).events
        var folded = Fleet(clock: clock)
        for record in records.prefix(applied) { try folded.apply(record) }
        let error = #expect(throws: CoreError.self) { try folded.apply(records[next]) }
        #expect(error?.message == message)
    }

    /// A seq below 1 was never taken: said as such, not as a repeat.
    @Test(arguments: [0, -3] as [Int64])
    func foldingRefusesASeqBelowOne(seq: Int64) throws {
        var live = Fleet(clock: clock)
        var record = try #require(
            live.execute(
                .create(root: ScreenSpec(name: "Home"), config: NavigatorConfig()), .init(), navigator: "a", time: t0
            ).events.first)
        record.seq = seq
        var folded = Fleet(clock: clock)
        let error = #expect(throws: CoreError.self) { try folded.apply(record) }
        #expect(error?.message == "Event seq \(seq) does not follow 0; seqs count from 1.")
    }

    @Test(arguments: foldCases)
    func executeFoldsToTheSameStateAsApplyingItsRecords(_ name: String, _ commands: [NavigationCommand]) throws {
        var live = Fleet(clock: clock)
        live.journaling = true
        var records = live.execute(
            .create(root: ScreenSpec(name: "Home"), config: NavigatorConfig()), .init(), navigator: "a", time: t0
        ).events
        var time = t0
        for command in commands {
            time += 50_000_000
            let execution = live.execute(command, .init(), navigator: "a", time: time)
            #expect(execution.error == nil, "\(name): \(String(describing: execution.error))")
            records += execution.clockEvents + execution.events
        }
        var folded = Fleet(clock: clock)
        for record in records { try folded.apply(record) }
        #expect(live.state(of: "a") == folded.state(of: "a"), "\(name)")
        #expect(live.active == folded.active, "\(name)")
        #expect(live.lastSeq == folded.lastSeq)
        // Rolling back the last command (one unit, several events) restores the state before it.
        var undo = Fleet(clock: clock)
        undo.journaling = true
        _ = undo.execute(
            .create(root: ScreenSpec(name: "Home"), config: NavigatorConfig()), .init(), navigator: "a", time: t0)
        time = t0
        for command in commands.dropLast() {
            time += 50_000_000
            _ = undo.execute(command, .init(), navigator: "a", time: time)
        }
        let durableSeq = undo.lastSeq
        undo.markDurable(through: durableSeq)
        let durableState = undo.state(of: "a")
        _ = undo.execute(commands.last!, .init(), navigator: "a", time: time + 50_000_000)
        #expect(undo.lastSeq > durableSeq)
        undo.rollback(to: durableSeq)
        #expect(undo.state(of: "a") == durableState, "\(name)")
        #expect(undo.lastSeq == durableSeq)
    }
}
