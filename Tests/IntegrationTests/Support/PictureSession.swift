import Foundation
import SegueCore
import Testing

/// A recorded session for the picture tests: a real segued, a navigator `main`, one animated push of
/// each style the viewer must draw exactly, each waited for; then the ticks `segue replay` makes of it.
struct PictureSession {
    let daemon: DaemonProcess
    /// Transition id to its ticks, in frame order, as `segue replay --json` prints them.
    let ticks: [Int: [JSON]]

    /// (style, seconds): transition n + 1 is `pushes[n]`, every one easeInOut.
    static let pushes: [(style: String, seconds: String)] = [
        ("slide", "0.5"), ("fade", "0.35"), ("flip", "0.35"), ("zoom", "0.35"), ("iris", "0.35"),
    ]

    /// Records on `store`, by default the backend the run selects.
    static func record(store: StoreBackend = .selected) throws -> PictureSession {
        let daemon = try DaemonProcess(store: store)
        var ok = try Cli.run(["create", "main", "Home"], daemon: daemon).status == 0
        for (index, push) in pushes.enumerated() {
            let run = try Cli.run(
                [
                    "push", "main", "Screen\(index + 1)", "--style", push.style, "--duration", push.seconds, "--curve",
                    "easeInOut", "--wait",
                ], daemon: daemon)
            ok = ok && run.status == 0
        }
        try #require(ok, "recording the session failed:\n\(daemon.log.suffix(2000))")
        let replay = try Cli.run(["replay", daemon.logLocation, "--json"])
        try #require(replay.status == 0, "segue replay: \(replay.stderr)")
        var ticks: [Int: [JSON]] = [:]
        for line in replay.stdout.split(separator: "\n") {
            let tick = try JSON.parse(String(line))
            ticks[Int(tick["transition"]!.int64Value!), default: []].append(tick)
        }
        return PictureSession(daemon: daemon, ticks: ticks)
    }
}
