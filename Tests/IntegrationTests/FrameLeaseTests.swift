import Foundation
import SegueCore
import Testing

/// The frame lease against a real segued on a wall clock set back (libfaketime): after a crash, the
/// restarted daemon never ticks a frame the dead one may have ticked, and places new events after
/// them all (docs/design.md, "The frame clock").
@Suite(.ownThreads, .serialized) struct FrameLeaseTests {
    static let faketime = "/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1"

    /// A daemon stopped by `signal` while `main` animates, a subscriber to `main`'s ticks, and the
    /// last frame the daemon ticked (every tick it got out, read before the stop or on its way).
    static func stoppedMidAnimation(signal: Int32, status: Int32) throws -> (
        daemon: DaemonProcess, ticks: TestSubscriber, last: Int64
    ) {
        let daemon = try DaemonProcess()
        let client = try TestClient(endpoint: daemon.commandEndpoint)
        #expect(try client.call(["cmd": "create", "navigator": "main", "root": "Home"])["ok"] == true)
        let ticks = try TestSubscriber(endpoint: daemon.publishEndpoint, topics: ["tick/main/"])
        usleep(300_000)
        let push: JSON = ["cmd": "push", "navigator": "main", "screen": "Detail", "animator": ["duration": 20]]
        let missedBefore = try client.missedFrames()
        #expect(try client.call(push)["ok"] == true)
        var seen = try ticks.collect(idle: .seconds(2), max: .milliseconds(600))
        // About 36 frames in 0.6 s; a loaded daemon skips some without ticks (`missedFrames`).
        #expect(Int64(seen.count) + (try client.missedFrames() - missedBefore) > 10)
        #expect(daemon.stop(signal: signal) == status)
        seen += try ticks.collect(idle: .milliseconds(500))
        let frames = seen.compactMap { tick in tick.body["frame"]?.int64Value }
        return (daemon, ticks, try #require(frames.max()))
    }

    /// The frame of the first tick within 8 s.
    static func firstTick(_ ticks: TestSubscriber) throws -> Int64 {
        let resumed = try ticks.collect(idle: .seconds(8), max: .seconds(8)) { _, _ in true }
        return try #require(resumed.first?.body["frame"]?.int64Value, "no tick within 8 s")
    }

    @Test(
        .enabled(
            if: FileManager.default.fileExists(atPath: faketime), "libfaketime is not installed (.ci/run installs it)"))
    func aRestartOnAClockSetBackNeverTicksAFrameAgain() throws {
        let (daemon, ticks, last) = try Self.stoppedMidAnimation(signal: SIGKILL, status: 128 + SIGKILL)

        // Through a shell's exec: libfaketime preloaded straight into a Swift program left its
        // `CommandLine.arguments` empty here (Swift 6.3, libfaketime 0.9.10), where a shell's exec
        // of it did not.
        let restarted = try daemon.restarted(
            environment: ["LD_PRELOAD": Self.faketime, "FAKETIME": "-3", "FAKETIME_DONT_FAKE_MONOTONIC": "1"],
            launcher: DaemonProcess.execShell)
        defer { restarted.stop() }
        let again = try TestClient(endpoint: restarted.commandEndpoint)
        #expect(try again.call(["cmd": "create", "navigator": "other", "root": "Home"])["ok"] == true)
        let created = try again.call(["cmd": "history", "navigator": "other"])["events"]?.arrayValue?.first
        let placed = try #require(created?["frame"]?.int64Value)
        #expect(placed > last, "an event placed at \(placed), in a frame ticked up to \(last) before the crash")
        // Ticks resume once the clock, three seconds behind, passes the lease: none for a frame seen.
        let first = try Self.firstTick(ticks)
        #expect(first > last, "frame \(first) ticked again after the restart (ticked up to \(last) before)")
        #expect(restarted.log.contains("The wall clock is"), "\(restarted.log)")
    }

    /// A graceful stop cuts the lease back to the last frame it closed: the restart ticks the
    /// transition on from the clock at once, with nothing to wait out.
    @Test func aGracefulRestartHasNoLeaseToWaitOut() throws {
        let (daemon, ticks, last) = try Self.stoppedMidAnimation(signal: SIGTERM, status: 0)
        let restarted = try daemon.restarted()
        defer { restarted.stop() }
        #expect(try Self.firstTick(ticks) > last)
        #expect(!restarted.log.contains("Frames resume after"), "\(restarted.log)")
        #expect(!restarted.log.contains("The wall clock is"), "\(restarted.log)")
    }
}
