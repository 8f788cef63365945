import Foundation
import SegueCore
import Testing

/// `segue pause`, `seek`, `resume`, a reversing `pop` and `gesture cancel`, and the gesture steps'
/// geometry and animator flags, against the real daemon; their usage errors without one.
@Suite(.ownThreads, .serialized) struct CliScrubTests {
    func json(_ text: String) throws -> JSON { try JSON.parse(text.trimmingCharacters(in: .whitespacesAndNewlines)) }

    @Test func pauseSeekAndResumeAPush() throws {
        let d = try DaemonProcess()
        defer { d.stop() }
        try Cli.run(["create", "main", "Home"], daemon: d)
        try Cli.run(["push", "main", "Detail", "--duration", "2", "--curve", "easeInOut"], daemon: d)
        let pause = try Cli.run(["pause", "main", "--json"], daemon: d)
        #expect(pause.status == 0, "\(pause.stderr)")
        #expect(try json(pause.stdout)["phase"] == "paused")
        let seek = try Cli.run(["seek", "main", "0.5"], daemon: d)
        // easeInOut is symmetric: it reaches progress 0.5 at half its time.
        #expect(seek.stdout.hasPrefix("main: at 0.5"), "\(seek.stdout)\(seek.stderr)")
        let along = try json(try Cli.run(["seek", "main", "0.9", "--along-curve", "--json"], daemon: d).stdout)
        #expect(along["fraction"] == 0.9)
        let resume = try Cli.run(["resume", "main", "--wait"], daemon: d)
        #expect(resume.status == 0, "\(resume.stderr)")
        #expect(resume.stdout == "main: animating (revision 6)\nmain: transition 1 completed\n")
        let again = try Cli.run(["resume", "main"], daemon: d)
        #expect(again.status == 1)
        #expect(again.stderr.hasPrefix("error: no_transition: "))
        let types = try Cli.run(["log", "--navigator", "main", "--json"], daemon: d).stdout.split(separator: "\n")
            .map { try json(String($0))["type"]?.stringValue ?? "" }
        #expect(
            types == [
                "navigator.created", "transition.started", "transition.paused", "transition.seeked",
                "transition.seeked", "transition.resumed", "transition.completed",
            ])
    }

    @Test func aPopOrAGestureCancelReversesTheRunningPush() throws {
        let d = try DaemonProcess()
        defer { d.stop() }
        try Cli.run(["create", "main", "Home", "--retarget"], daemon: d)
        try Cli.run(["push", "main", "Detail", "--duration", "2"], daemon: d)
        let pop = try Cli.run(["pop", "main", "--wait", "--json"], daemon: d)
        #expect(pop.status == 2, "the push it reversed was cancelled: \(pop.stderr)")
        let lines = pop.stdout.split(separator: "\n").map(String.init)
        #expect(try json(lines[0])["decision"] == "cancel")
        #expect(try json(lines[0])["transition"] == 1)
        #expect(try json(lines.last ?? "")["type"] == "transition.cancelled")

        try Cli.run(["push", "main", "Detail", "--duration", "2"], daemon: d)
        let cancel = try Cli.run(["gesture", "cancel", "main", "--wait"], daemon: d)
        #expect(cancel.status == 2, "\(cancel.stderr)")
        let log = try Cli.run(["log", "--navigator", "main", "--type", "transition.reversed", "--json"], daemon: d)
        #expect(log.stdout.split(separator: "\n").count == 2)
        let state = try json(try Cli.run(["state", "main", "--json"], daemon: d).stdout)
        #expect(state["stack"]?.arrayValue?.count == 1)

        try Cli.run(["push", "main", "Detail", "--duration", "2"], daemon: d)
        let human = try Cli.run(["pop", "main"], daemon: d)
        #expect(human.stdout.hasSuffix(", transition 3 reversed\n"), "\(human.stdout)\(human.stderr)")
    }

    @Test func gestureStepsCarryGeometryAndACompletionAnimator() throws {
        let d = try DaemonProcess()
        defer { d.stop() }
        try Cli.run(["create", "main", "Home"], daemon: d)
        try Cli.run(["push", "main", "Detail", "--no-animate"], daemon: d)
        let begin = try Cli.run(
            [
                "gesture", "begin", "main", "--operation", "pop", "--touch", "0.02,0.4", "--swipe-edge", "left",
                "--time", "81234000000",
            ], daemon: d)
        #expect(begin.status == 0, "\(begin.stderr)")
        let update = try Cli.run(
            ["gesture", "update", "main", "--percent", "0.6", "--velocity", "1.2", "--touch", "0.6,0.41"], daemon: d)
        #expect(update.status == 0, "\(update.stderr)")
        let end = try Cli.run(
            ["gesture", "end", "main", "--animator-curve", "spring-response:0.3,0.9", "--wait"], daemon: d)
        #expect(end.stdout == "finish\nmain: transition 2 completed\n", "\(end.stderr)")
        let events = try Cli.run(["log", "--navigator", "main", "--json"], daemon: d).stdout.split(separator: "\n")
            .map { try json(String($0)) }
        let started = try #require(events.last { $0["type"] == "transition.started" })
        #expect(started["data"]?["touch"] == ["x": 0.02, "y": 0.4])
        #expect(started["data"]?["edge"] == "left")
        #expect(started["data"]?["clientTime"] == 81_234_000_000)
        let updated = try #require(events.last { $0["type"] == "interaction.updated" })
        #expect(updated["data"]?["touch"] == ["x": 0.6, "y": 0.41])
        let finishing = try #require(events.last { $0["type"] == "transition.finishing" })
        #expect(finishing["data"]?["completionCurve"]?["spring"]?["stiffness"] != nil, "the spring, released")
    }

    @Test(arguments: [
        (
            ["seek", "main", "1.5"],
            "error: The value '1.5' is invalid for '<fraction>': expected a fraction in 0...1.\nSee 'segue seek --help'.\n"
        ),
        (["seek", "main"], "error: Missing expected argument '<fraction>'.\nSee 'segue seek --help'.\n"),
        (
            ["gesture", "begin", "main", "--operation", "pop", "--touch", "0.5"],
            "error: The value '0.5' is invalid for '--touch': expected x,y in fractions of the container, like "
                + "0.02,0.4.\nSee 'segue gesture begin --help'.\n"
        ),
        (
            ["gesture", "update", "main", "--percent", "0.2", "--swipe-edge", "up"],
            "error: The value 'up' is invalid for '--swipe-edge': expected one of left, right, top, bottom, none.\n"
                + "See 'segue gesture update --help'.\n"
        ),
        (
            ["gesture", "finish", "main", "--animator-curve", "easeOut", "--completion-speed", "2"],
            "error: --completion-speed does not go with --animator-curve or --duration-factor: the animator's curve "
                + "and factor replace it.\nSee 'segue gesture finish --help'.\n"
        ),
        (
            ["gesture", "end", "main", "--duration-factor", "0"],
            "error: The value '0' is invalid for '--duration-factor': animator.durationFactor must be in [0.001, "
                + "1000]; got 0.\nSee 'segue gesture end --help'.\n"
        ),
        (
            ["gesture", "cancel", "main", "--animator-curve", "wobbly"],
            "error: The value 'wobbly' is invalid for '--animator-curve': expected linear, easeIn, easeOut, "
                + "easeInOut, default, bezier:x1,y1,x2,y2, spring:dampingRatio,velocity, "
                + "spring:mass,stiffness,damping,velocity or spring-response:response,dampingFraction.\n"
                + "See 'segue gesture cancel --help'.\n"
        ),
    ])
    func usageErrorsExitSixtyFour(arguments: [String], stderr: String) throws {
        let result = try Cli.run(arguments)
        #expect(result.status == 64)
        #expect(result.stderr == stderr)
    }
}
