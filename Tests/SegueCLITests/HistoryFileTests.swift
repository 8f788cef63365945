import Foundation
import Testing

@testable import segue

/// The prompt's history file, on real files in a temp dir: written in place, never replaced.
@Suite struct HistoryFileTests {
    let directory: String

    init() throws {
        directory = NSTemporaryDirectory() + "segue-history-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
    }

    func contents(_ path: String) throws -> String { try String(contentsOfFile: path, encoding: .utf8) }

    func mode(_ path: String) -> mode_t {
        var info = stat()
        stat(path, &info)
        return info.st_mode & 0o777
    }

    @Test(arguments: [
        (["SEGUE_HISTORY": "/tmp/h", "HOME": "/home/u"], "/tmp/h"), (["HOME": "/home/u"], "/home/u/.segue_history"),
    ])
    func chosenPath(environment: [String: String], path: String) throws {
        #expect(try HistoryFile.chosen(environment: environment).get().path == path)
    }

    /// `/dev/null` (how bash and redis-cli users turn history off), an empty value, a FIFO and a
    /// directory are no history file; with neither SEGUE_HISTORY nor HOME there is none either.
    @Test func noHistory() throws {
        let fifo = directory + "/fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        let cases: [([String: String], HistoryFile.Absence)] = [
            (["SEGUE_HISTORY": "/dev/null"], .off), (["SEGUE_HISTORY": ""], .off), (["SEGUE_HISTORY": fifo], .off),
            (["SEGUE_HISTORY": directory], .off), ([:], .noHome), (["HOME": ""], .noHome),
        ]
        for (environment, absence) in cases {
            #expect(throws: absence) { try HistoryFile.chosen(environment: environment).get() }
        }
    }

    @Test func aNewFileIsPrivate() throws {
        var file = HistoryFile(path: directory + "/history")
        try file.append("push main screen={\"token\":\"x\"}")
        #expect(mode(file.path) == 0o600)
        #expect(try contents(file.path) == "push main screen={\"token\":\"x\"}\n")
    }

    @Test func anExistingFileKeepsItsMode() throws {
        let path = directory + "/history"
        #expect(FileManager.default.createFile(atPath: path, contents: Data("ping\n".utf8)))
        chmod(path, 0o640)
        var file = HistoryFile(path: path)
        #expect(try file.load() == ["ping"])
        try file.append("state main")
        #expect(mode(path) == 0o640)
        #expect(try contents(path) == "ping\nstate main\n")
    }

    /// A dotfiles symlink stays a symlink; the lines go to its target.
    @Test func aSymlinkIsFollowedNotReplaced() throws {
        let target = directory + "/dotfiles-history"
        let link = directory + "/.segue_history"
        #expect(FileManager.default.createFile(atPath: target, contents: Data("ping\n".utf8)))
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        var file = try HistoryFile.chosen(environment: ["HOME": directory]).get()
        #expect(try file.load() == ["ping"])
        try file.append("state main")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == target)
        #expect(try contents(target) == "ping\nstate main\n")
    }

    /// Two sessions at once: each appends, neither loses the other's lines.
    @Test func twoSessionsKeepEachOthersLines() throws {
        let path = directory + "/history"
        var first = HistoryFile(path: path)
        var second = HistoryFile(path: path)
        _ = try first.load()
        _ = try second.load()
        try first.append("one")
        try second.append("two")
        try first.append("three")
        #expect(try contents(path) == "one\ntwo\nthree\n")
    }

    /// Past half as many lines again as the limit, the file is cut to the last `limit`, the other
    /// session's lines among them.
    @Test func aFileWellPastTheLimitIsCut() throws {
        let path = directory + "/history"
        var file = HistoryFile(path: path, limit: 4)
        var other = HistoryFile(path: path, limit: 4)
        for line in ["1", "2", "3", "4", "5"] { try file.append(line) }
        try other.append("other")
        #expect(try contents(path) == "1\n2\n3\n4\n5\nother\n")
        try file.append("6")
        #expect(try contents(path) == "1\n2\n3\n4\n5\nother\n6\n")
        // This session has appended 7 lines (> 4 + 2): the file is read again and cut.
        try file.append("7")
        #expect(try contents(path) == "5\nother\n6\n7\n")
        #expect(try file.load() == ["5", "other", "6", "7"])
    }

    /// A cut copies the lines it keeps as they were: bytes that are not UTF-8 (a line typed in
    /// Latin-1) are not replaced by U+FFFD.
    @Test func aCutKeepsBytesThatAreNotUTF8() throws {
        let path = directory + "/history"
        let latin1: [UInt8] = Array("caf".utf8) + [0xE9, 0x0A]
        let old = Array("1\n2\n3\n4\n".utf8)
        #expect(FileManager.default.createFile(atPath: path, contents: Data(old + latin1)))
        var file = HistoryFile(path: path, limit: 4)
        _ = try file.load()
        try file.append("a")
        // 7 lines (> 4 + 2): cut to the last 4, the Latin-1 line among them.
        try file.append("b")
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: path)) == Data(Array("4\n".utf8) + latin1 + Array("a\nb\n".utf8)))
    }

    /// A directory that does not exist: said, not lost in silence.
    @Test func aMissingDirectoryIsAFailure() throws {
        var file = HistoryFile(path: directory + "/missing/history")
        #expect(throws: HistoryFailure(path: file.path, errno: ENOENT)) { try file.append("ping") }
    }
}
