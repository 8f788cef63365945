import Foundation
import PostgresTestSupport
import SegueCore
import Testing

@testable import SeguePostgres
@testable import SegueStore

/// A full disk on the server, for real: the log's tables in a tablespace on a 4 MB tmpfs.
@Suite struct PostgresDiskFullTests {
    /// Mounts a tmpfs of `megabytes` at `path` for the server's user; needs root.
    static func mountSmall(_ path: String, megabytes: Int) throws {
        guard getuid() == 0 else { try Test.cancel("Mounting a small file system for the disk-full test needs root.") }
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let owner = try #require(getpwnam(ProcessInfo.processInfo.environment["PG_TEST_USER"] ?? "segue-pgtest"))
        let options = "size=\(megabytes)m,mode=0700,uid=\(owner.pointee.pw_uid),gid=\(owner.pointee.pw_gid)"
        guard run("/bin/mount", ["-t", "tmpfs", "-o", options, "tmpfs", path]) == 0 else {
            try Test.cancel("mount -t tmpfs failed here; the disk-full test needs it.")
        }
    }

    static func run(_ tool: String, _ arguments: [String]) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        guard (try? process.run()) != nil else { return -1 }
        process.waitUntilExit()
        return process.terminationStatus
    }

    @Test func appendsFailUnavailableWhileTheServerIsOutOfDiskAndResumeOnceThereIsSpace() throws {
        _ = try LogPlace.server()
        let server = try PostgresTestServer.start()
        let small = server.directory + "-small"
        try Self.mountSmall(small, megabytes: 4)
        defer {
            try? server.stop(mode: "immediate")
            _ = Self.run("/bin/umount", [small])
            try? FileManager.default.removeItem(atPath: small)
            server.remove()
        }
        let admin = try server.admin()
        try admin.execute("CREATE TABLESPACE small LOCATION '\(small)'")
        try admin.execute(
            "CREATE TABLE filler TABLESPACE small AS SELECT i, md5(i::text) || md5((i + 1)::text) AS pad "
                + "FROM generate_series(1, 12000) AS i")
        let store = try PostgresEventStore(conninfo: server.conninfo("options='-c default_tablespace=small'"))
        var numberer = Numberer()
        var acknowledged: [Int64] = []
        var failure: StoreError?
        for round in 0..<2000 where failure == nil {
            var unit = numberer.unit("main", count: 20, commandID: "fill-\(round)")
            for index in unit.events.indices {
                unit.events[index].data["pad"] = .string(String(repeating: "\(round)-\(index)-", count: 60))
            }
            do throws(StoreError) {
                try store.append(unit)
                acknowledged.append(contentsOf: unit.events.map(\.seq))
            } catch {
                failure = error
            }
        }
        let error = try #require(failure, "4 MB never filled up")
        #expect(error.sqlState == SQLState.diskFull)
        #expect(error.code == .unavailable)
        #expect(error.message.contains("Free disk space"))
        #expect(store.lastSeq == acknowledged.last)
        // Space comes back; the caller renumbers from lastSeq and appends resume with no gap.
        try admin.execute("DROP TABLE filler")
        var renumbered = Numberer(seq: store.lastSeq, revisions: ["main": try store.lastRevision(of: "main")])
        for _ in 0..<5 { try store.append(renumbered.unit("main", count: 5)) }
        let events = try store.allEvents()
        #expect(checkGapless(events) == nil)
        #expect(events.count == acknowledged.count + 25)
    }
}
