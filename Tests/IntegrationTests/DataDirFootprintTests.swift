import Foundation
import Testing

/// What a data dir costs on disk: a failed start or import leaves nothing behind, and a log that
/// never got an event stays small (its preallocated WAL is given back at close).
@Suite(.ownThreads, .serialized, .sqliteOnly) struct DataDirFootprintTests {
    /// Bytes of the files directly in `directory`.
    static func size(_ directory: String) -> Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.reduce(0) { total, name in
            let attributes = try? FileManager.default.attributesOfItem(atPath: directory + "/" + name)
            return total + ((attributes?[.size] as? Int) ?? 0)
        }
    }

    /// A TCP port some other socket listens on, for as long as the returned descriptor is open.
    static func busyPort() -> (fd: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        _ = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        listen(fd, 1)
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        return (fd, Int(UInt16(bigEndian: addr.sin_port)))
    }

    @Test func aStartThatFailsOnABusyPortLeavesNoDataDir() throws {
        let (fd, port) = Self.busyPort()
        defer { close(fd) }
        let dataDir = DaemonProcess.temporaryDirectory() + "/new"
        let daemon = try DaemonProcess(
            dataDir: dataDir, arguments: ["--command", "tcp://127.0.0.1:\(port)"], waitReady: false,
            logPath: DaemonProcess.temporaryDirectory() + "/segued.log")
        daemon.process.waitUntilExit()
        #expect(daemon.process.terminationStatus == 1, "\(daemon.log)")
        #expect(daemon.log.contains("Address already in use"), "\(daemon.log)")
        #expect(!FileManager.default.fileExists(atPath: dataDir), "left: \(Self.size(dataDir)) bytes")
    }

    @Test func anEmptyLogIsSmallOnceTheDaemonStops() throws {
        let daemon = try DaemonProcess(logPath: DaemonProcess.temporaryDirectory() + "/segued.log")
        #expect(daemon.stop() == 0)
        #expect(Self.size(daemon.dataDir) < 256 * 1024, "\(Self.size(daemon.dataDir)) bytes")
    }

    @Test func anImportThatFailsLeavesNoDataDir() throws {
        let source = try DaemonProcess()
        try Cli.run(["create", "main", "Home"], daemon: source)
        try Cli.run(["push", "main", "Detail", "--no-animate"], daemon: source)
        let file = source.dataDir + "/log.jsonl"
        try Cli.run(["export", "--data-dir", source.dataDir, "-o", file])
        source.stop()
        // Without its first event the file does not start a log: refused, after the dir was made.
        let lines = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n").dropFirst()
        let broken = source.dataDir + "/broken.jsonl"
        try (lines.joined(separator: "\n") + "\n").write(toFile: broken, atomically: true, encoding: .utf8)
        let target = DaemonProcess.temporaryDirectory() + "/restored"
        let result = try Cli.run(["import", "--data-dir", target, broken])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: target), "left: \(Self.size(target)) bytes")
    }

    /// An empty file imported where no log is makes none, and says so rather than "the log ends at seq 0".
    @Test func anEmptyImportMakesNoDataDirAndSaysSo() throws {
        let dir = DaemonProcess.temporaryDirectory()
        let empty = dir + "/empty.jsonl"
        try "".write(toFile: empty, atomically: true, encoding: .utf8)
        let target = dir + "/restored"
        let result = try Cli.run(["import", "--data-dir", target, empty])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "Imported no events: \(empty) holds none, so no log was made at \(target).\n")
        #expect(!FileManager.default.fileExists(atPath: target))
    }
}
