import Foundation
import SegueCore
import Testing

/// What `gesture finish` and `gesture cancel` print: the phase the transition is in after them.
@Suite(.ownThreads) struct CliGestureLineTests {
    /// From 0, a cancel ends in the frame it starts (and a finish from 1 likewise): the line says it
    /// is over, not "cancelling" after the log already holds `transition.cancelled`.
    @Test(arguments: [
        ("0", "cancel", "cancelled"), ("0.5", "cancel", "cancelling"), ("1", "finish", "completed"),
        ("0.5", "finish", "finishing"),
    ])
    func theLineSaysWhetherTheTransitionIsStillRunning(percent: String, step: String, word: String) throws {
        let d = try DaemonProcess()
        defer { d.stop() }
        for command in [
            ["create", "main", "Home"], ["push", "main", "Detail", "--no-animate"],
            ["gesture", "begin", "main", "--operation", "pop"], ["gesture", "update", "main", "--percent", percent],
        ] {
            let run = try Cli.run(command, daemon: d)
            #expect(run.status == 0, "\(command): \(run.stderr)")
        }
        let run = try Cli.run(["gesture", step, "main"], daemon: d)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.hasPrefix("main: \(word) (revision "), "\(run.stdout)")
    }
}
