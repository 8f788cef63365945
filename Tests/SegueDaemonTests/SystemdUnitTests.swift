import Foundation
import Testing

/// The shipped unit passes `systemd-analyze verify` with no warning at all (scripts/verify-unit.sh),
/// and the script does catch a broken unit, so its success means something.
private let analyzerInstalled = FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze")

@Suite(.enabled(if: analyzerInstalled, "needs systemd-analyze (apt-get install systemd)"))
struct SystemdUnitTests {
    static let root = packageRoot

    /// Runs the script and returns its exit status and combined output.
    private func verify(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.root + "/scripts/verify-unit.sh")
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, output)
    }

    @Test func shippedUnitVerifiesCleanly() throws {
        let result = try verify([Self.root + "/config/segued.service", "/bin/true"])
        #expect(result.status == 0, "\(result.output)")
    }

    @Test func aUnitWithAMisspeltKeyFails() throws {
        let unit = try String(contentsOfFile: Self.root + "/config/segued.service", encoding: .utf8)
        let directory = try TemporaryDirectory()
        let broken = try directory.write(
            "segued.service", unit.replacingOccurrences(of: "ProtectHome=yes", with: "ProtectHom=yes"))
        let result = try verify([broken, "/bin/true"])
        #expect(result.status == 1)
        #expect(result.output.contains("Unknown key 'ProtectHom'"))
    }

    @Test func unitHasTheOperationalSettingsDocsPromise() throws {
        let unit = try String(contentsOfFile: Self.root + "/config/segued.service", encoding: .utf8)
        let lines = Set(unit.split(separator: "\n").map(String.init))
        for setting in [
            "Type=notify", "ExecStart=/usr/local/bin/segued --config /etc/segue/segued.json",
            "ExecReload=/bin/sh -c 'exec /usr/local/bin/segued --config /etc/segue/segued.json --check-config >/dev/null'",
            "ExecReload=/bin/kill -HUP $MAINPID", "WatchdogSec=10", "Restart=on-failure", "TimeoutStopSec=5",
            "TimeoutAbortSec=5",
            "User=segue", "Group=segue", "StateDirectory=segue", "RuntimeDirectory=segue", "RuntimeDirectoryMode=0750",
            "StateDirectoryMode=0700", "UMask=0077", "ProtectSystem=strict", "NoNewPrivileges=yes",
            "CapabilityBoundingSet=",
            "SystemCallFilter=@system-service", "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6 AF_NETLINK",
            "Nice=-5", "CPUSchedulingPolicy=fifo", "CPUSchedulingPriority=10", "RestrictRealtime=no",
            "MemoryDenyWriteExecute=yes",
            "Environment=SWIFT_BACKTRACE=swift-backtrace=/usr/libexec/swift/linux/swift-backtrace-static",
        ] {
            #expect(lines.contains(setting), "missing \(setting)")
        }
        // Reset-on-fork would start helper threads at nice 0 instead of the unit's -5.
        #expect(!lines.contains { $0.hasPrefix("CPUSchedulingResetOnFork") })
    }
}
