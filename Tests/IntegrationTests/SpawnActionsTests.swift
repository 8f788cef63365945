import Foundation
import PostgresTestSupport
import Testing

/// The tests' own spawns hand a child nothing but stdin, stdout and stderr (`SpawnActions`).
@Suite(.ownThreads) struct SpawnActionsTests {
    @Test func aSpawnedChildKeepsNoDescriptorPastStderr() throws {
        var pipeEnds: [Int32] = [0, 0]
        try #require(pipe(&pipeEnds) == 0)
        defer { pipeEnds.forEach { close($0) } }
        let output = NSTemporaryDirectory() + "segue-spawn-" + UUID().uuidString
        defer { unlink(output) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        #expect(SpawnActions.closeInherited(&actions), "glibc has posix_spawn_file_actions_addclosefrom_np")
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/sh"), strdup("-c"), strdup("ls /proc/$$/fd"), nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        try #require(posix_spawn(&pid, "/bin/sh", &actions, nil, argv, environ) == 0)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1, errno == EINTR {}
        let fds = try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n").compactMap { Int32($0) }
        #expect(!fds.contains(pipeEnds[1]), "the pipe's write end \(pipeEnds[1]) was inherited: \(fds)")
        #expect(fds.allSatisfy { $0 <= 2 || $0 == 255 }, "\(fds)")
    }
}
