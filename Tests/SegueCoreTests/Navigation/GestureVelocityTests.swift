import Testing

@testable import SegueCore

/// `velocity` on `finish`, `cancel` and `end`: read alike, and recorded alike in the event each appends.
@Suite struct GestureVelocityTests {
    typealias F = Fixture

    /// Home → List, then an interactive pop at frame 10 moved to 0.4 at frame 12 with velocity 0.5.
    var dragged: NavigatorState {
        var s = F.given(F.log([(.push(ScreenSpec(name: "List"), TransitionOptions(animated: false)), 1)]))
        s = F.when(s, .begin(.pop, animator: nil), at: 10).state
        return F.when(s, .update(percent: 0.4, velocity: 0.5), at: 12).state
    }

    struct Release: CustomTestStringConvertible, Sendable {
        let command: NavigationCommand
        let type: EventType
        let velocity: Double?
        var testDescription: String { "\(command.name) \(command.arguments.members.map(\.key)) → \(type.rawValue)" }
    }

    static let releases: [Release] = [
        Release(
            command: .finish(velocity: 0.7, completionSpeed: 1, completionCurve: .easeInOut),
            type: .transitionFinishing, velocity: 0.7),
        Release(
            command: .finish(velocity: nil, completionSpeed: 1, completionCurve: .easeInOut),
            type: .transitionFinishing, velocity: nil),
        Release(
            command: .cancel(completionSpeed: 1, completionCurve: .easeInOut, velocity: -0.7),
            type: .transitionCancelling, velocity: -0.7),
        Release(
            command: .cancel(completionSpeed: 1, completionCurve: .easeInOut, velocity: 0.7),
            type: .transitionCancelling, velocity: 0.7),
        Release(
            command: .cancel(completionSpeed: 1, completionCurve: .easeInOut), type: .transitionCancelling,
            velocity: nil),
        // The end rule at 0.4: 0.4 + 0.3 × v > 0.5 finishes from v = 1/3 on; v ≥ 1 always does.
        Release(command: .end(percent: nil, velocity: 0.7), type: .transitionFinishing, velocity: 0.7),
        Release(command: .end(percent: nil, velocity: -0.7), type: .transitionCancelling, velocity: -0.7),
        Release(command: .end(percent: nil, velocity: 0.2), type: .transitionCancelling, velocity: 0.2),
        // No velocity: the last update's (0.5, one frame before) decides, and is recorded either way.
        Release(command: .end(percent: nil, velocity: nil), type: .transitionFinishing, velocity: 0.5),
    ]

    @Test(arguments: releases)
    func theReleaseVelocityIsRecordedInTheEventTheCommandAppends(_ release: Release) throws {
        let r = F.when(dragged, release.command, at: 13)
        #expect(r.error == nil)
        let event = try #require(r.events.last)
        #expect(event.eventType == release.type)
        #expect(event.data["velocity"] == release.velocity.map { .double($0) })
        #expect(r.state.transition?.fraction(at: 13) == 0.4)
        // The log folds back to the same state through its wire form.
        let decoded = try NavigationEvent(record: event.record(seq: 9, navigator: "main", revision: 9, time: 0))
        #expect(decoded == event)
    }

    struct BadVelocity: Sendable, CustomTestStringConvertible {
        let command: String
        let velocity: JSON
        let code: ErrorCode
        var testDescription: String { "\(command) velocity \(velocity.serialized()) → \(code.rawValue)" }
    }

    static let badVelocities: [BadVelocity] = ["finish", "cancel", "end", "update"].flatMap { cmd in
        [
            BadVelocity(command: cmd, velocity: .string("fast"), code: .badRequest),
            BadVelocity(command: cmd, velocity: .double(1000.5), code: .invalidArgument),
            BadVelocity(command: cmd, velocity: .double(-2000), code: .invalidArgument),
        ]
    }

    @Test(arguments: badVelocities)
    func everyGestureCommandReadsVelocityTheSameWay(_ bad: BadVelocity) {
        var args: JSONObject = ["velocity": bad.velocity]
        if bad.command == "update" { args["percent"] = .double(0.5) }
        #expect(throws: CoreError.self) { try NavigationCommand(name: bad.command, arguments: args) }
        do {
            _ = try NavigationCommand(name: bad.command, arguments: args)
        } catch {
            #expect(error.code == bad.code)
            #expect(error.message.contains("velocity"))
        }
    }

    @Test(arguments: ["finish", "cancel", "end"])
    func velocityRoundTripsThroughTheRequestForm(_ cmd: String) throws {
        let command = try NavigationCommand(name: cmd, arguments: ["velocity": .double(-0.25)])
        #expect(command.arguments["velocity"] == .double(-0.25))
        #expect(try NavigationCommand(name: cmd, arguments: command.arguments) == command)
    }
}
