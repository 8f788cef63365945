import Foundation
import SegueCommandLine
import Testing

@testable import segue

/// docs/cli.md against the command tree `--help` prints: every command, option and exit status.
@Suite struct DocsMatchCodeTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let doc = (try? String(contentsOf: root.appendingPathComponent("docs/cli.md"), encoding: .utf8)) ?? ""
    static let shared: Set<String> = ["endpoint", "publish-endpoint", "json", "timeout", "server-key", "client-key"]

    /// The reference section of each command: from its `### \`segue …\`` heading to the next heading.
    static func section(_ path: String) -> String? {
        let heading = "### `\(path)`\n"
        guard let start = doc.range(of: heading) else { return nil }
        let rest = doc[start.upperBound...]
        let end = rest.range(of: "\n#")?.lowerBound ?? rest.endIndex
        return String(rest[..<end])
    }

    static let leaves = CommandTree.root.walk().filter { $0.command.subcommands.isEmpty }.map {
        (path: $0.path.joined(separator: " "), command: $0.command)
    }

    @Test(arguments: leaves.map(\.path))
    func everyCommandAndOptionIsDocumented(path: String) throws {
        let command = try #require(Self.leaves.first { $0.path == path }?.command)
        let section = try #require(Self.section(path), "docs/cli.md has no section ### `\(path)`")
        #expect(section.contains("`\(command.usage(path: path))`"), "the usage line of \(path)")
        for option in command.options where !Self.shared.contains(option.name) {
            #expect(section.contains("--\(option.name)"), "\(path): --\(option.name) is not in docs/cli.md")
        }
    }

    @Test func everyDocumentedCommandExists() {
        let headings = Self.doc.split(separator: "\n").filter { $0.hasPrefix("### `segue ") }.map {
            String($0.dropFirst(5).dropLast())
        }
        #expect(Set(headings) == Set(Self.leaves.map(\.path)))
        #expect(headings.count == Self.leaves.count, "one section each")
    }

    @Test func theExitStatusTableListsEveryStatus() {
        let table = Self.doc.components(separatedBy: "## Exit status").dropFirst().first ?? ""
        let rows = table.split(separator: "\n").prefix { !$0.hasPrefix("#") }.compactMap { line -> Int32? in
            guard line.hasPrefix("| "), let cell = line.split(separator: "|").first else { return nil }
            return Int32(cell.trimmingCharacters(in: .whitespaces))
        }
        let codes: [ExitCode] = [.ok, .rejected, .cancelled, .timeout, .usage, .unavailable, .io]
        #expect(rows == codes.map(\.rawValue))
    }
}
