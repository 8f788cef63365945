import Foundation
import SegueCommandLine
import Testing

@testable import segue

/// docs/cli.md against the command tree `--help` prints: every command, argument, option and exit
/// status.
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
        for argument in command.arguments {
            let row = "| `<\(argument.name)>\(argument.variadic ? " ..." : "")` | \(argument.help) |"
            #expect(section.contains(row), "\(path): docs/cli.md has no row \(row)")
        }
        let names = Set(command.options.map(\.name)).union(Self.shared).union(["help"])
        for named in Self.optionNames(in: section) {
            #expect(names.contains(named), "docs/cli.md names --\(named) under \(path), which has no such option")
        }
    }

    /// The `--name` words of `text`.
    static func optionNames(in text: String) -> Set<String> {
        let characters = Array(text)
        var names: Set<String> = []
        var index = 0
        while index + 2 < characters.count {
            defer { index += 1 }
            guard characters[index] == "-", characters[index + 1] == "-", characters[index + 2].isLowercase else {
                continue
            }
            if index > 0, characters[index - 1].isLetter || characters[index - 1] == "-" { continue }
            let name = characters[(index + 2)...].prefix { $0.isLowercase || $0.isNumber || $0 == "-" }
            names.insert(String(name))
        }
        return names
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
        // The man page's section (what `segue help --man` prints) names the same statuses, in order.
        let man = CommandTree.manSections.first { $0.title == "Exit status" }?.body ?? ""
        let named = man.split(separator: " ").compactMap { word -> Int32? in
            guard let status = Int32(word), word.allSatisfy(\.isNumber) else { return nil }
            return status
        }
        #expect(named == rows, "the man page's exit statuses: \(man)")
    }
}
