import Foundation
import SegueCore
import Testing

/// One appending process per data dir: a second segued, or a `segue import`, is refused while a
/// segued runs there, and the running one goes on unharmed. (Without the writer lock both would
/// start; the second one's commits would fail on `seq` and its state would not match the log.)
@Suite struct OneWriterTests {
    @Test(.sqliteOnly) func aSecondDaemonAndAnImportAreRefusedWhileSeguedRuns() throws {
        let first = try DaemonProcess()
        defer { first.stop() }
        let client = try TestClient(endpoint: first.commandEndpoint)
        #expect(try client.call(["cmd": "create", "navigator": "main", "root": "Home"])["ok"] == true)

        let second = try DaemonProcess(dataDir: first.dataDir, waitReady: false)
        let deadline = ContinuousClock.now + .seconds(20)
        while second.process.isRunning, ContinuousClock.now < deadline { usleep(20_000) }
        #expect(!second.process.isRunning, "a second segued on the same data dir must not start")
        #expect(second.process.terminationStatus == 1)
        #expect(
            second.log.contains(
                "is already open for writing by another process (pid \(first.pid)): a segued on this data dir"),
            "\(second.log)")

        let export = first.dataDir + "/main.jsonl"
        #expect(try Cli.run(["export", "--data-dir", first.dataDir, "-o", export]).status == 0)
        let imported = try Cli.run(["import", "--data-dir", first.dataDir, export])
        #expect(imported.status == 74)
        #expect(imported.stderr.contains("already open for writing by another process (pid \(first.pid))"))

        // The running daemon never noticed.
        let push = try client.call(["cmd": "push", "navigator": "main", "screen": "Detail", "animated": false])
        #expect(push["ok"] == true, "\(push)")
    }

    /// libzmq binds an ipc endpoint by replacing its socket file, so a second daemon given the first
    /// one's ipc endpoint (its own data dir, the same config by hand) would cut the first one's
    /// clients off even though it then failed. It must refuse before binding.
    @Test func anIpcEndpointInUseIsRefusedAndTheFirstDaemonKeepsIt() throws {
        let first = try DaemonProcess(transport: .ipc)
        defer { first.stop() }
        let second = try DaemonProcess(arguments: ["--command", first.commandEndpoint], waitReady: false)
        let deadline = ContinuousClock.now + .seconds(20)
        while second.process.isRunning, ContinuousClock.now < deadline { usleep(20_000) }
        #expect(!second.process.isRunning)
        #expect(second.process.terminationStatus == 1)
        #expect(second.log.contains("\(first.commandEndpoint) is in use: another process"), "\(second.log)")
        let client = try TestClient(endpoint: first.commandEndpoint)
        #expect(try client.call(["cmd": "ping"])["ok"] == true)
    }
}
