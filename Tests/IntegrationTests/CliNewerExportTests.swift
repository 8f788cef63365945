import Foundation
import SegueCore
import Testing

/// An export from a newer segue may hold members this build does not know. `import` stores what it
/// reads, so it refuses them rather than lose them (clients, which only read, ignore them:
/// `TolerantReaderTests`), and says where, and where the file may come from.
@Suite(.ownThreads) struct CliNewerExportTests {
    /// Each row: an edit of the export's second line (seq 2, the push's `transition.started`), what it
    /// replaces by what, and what `import` says of it, after the file's name.
    static let edits: [(of: String, with: String, message: String)] = [
        (
            #""frame":"#, #""shard":"a","frame":"#,
            " line 2 (seq 2): Event member \"shard\" is not part of the event format; was it exported by a newer "
                + "segue? Nothing was imported."
        ),
        (
            #""data":{"#, #""data":{"x":1,"#,
            " line 2 (seq 2): Unknown field \"x\" in transition.started.data."
        ),
        (
            #""animator":{"#, #""animator":{"blur":2,"#,
            " line 2 (seq 2): animator has unknown key \"blur\";"
        ),
    ]

    @Test(arguments: edits.indices)
    func importRefusesAMemberThisBuildDoesNotKnowAndSaysWhere(_ row: Int) throws {
        let d = try DaemonProcess()
        try Cli.run(["create", "main", "Home"], daemon: d)
        try Cli.run(["push", "main", "Detail", "--no-animate"], daemon: d)
        #expect(d.stop() == 0)
        var lines = try Cli.run(["export", "--data-dir", d.logLocation]).stdout.split(separator: "\n").map(String.init)
        try #require(lines.count == 3)
        let edited = lines[1].replacingOccurrences(of: Self.edits[row].of, with: Self.edits[row].with)
        try #require(edited != lines[1], "the edit must change the line")
        lines[1] = edited
        let file = d.dataDir + "/newer.jsonl"
        try (lines.joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)

        let target = DaemonProcess.temporaryDirectory()
        let refused = try Cli.run(["import", "--data-dir", target, file])
        #expect(refused.status == 1)
        #expect(refused.stderr.hasPrefix(file + Self.edits[row].message), "\(refused.stderr)")
        #expect(refused.stderr.hasSuffix("; was it exported by a newer segue? Nothing was imported.\n"))
        #expect(try Cli.run(["export", "--data-dir", target]).stdout.isEmpty, "nothing was imported")
        let verified = try Cli.run(["verify", file])
        #expect(verified.status == 1)
        #expect(verified.stderr.contains("was it exported by a newer segue?"), "\(verified.stderr)")
    }
}
