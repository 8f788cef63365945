import Foundation

/// A statement as a line of the log says it: written over several lines, with `--` comments, it
/// would otherwise show escaped newlines, or read as though its end were commented out.
package enum StatementText {
    /// `sql` on one line: each line without its `--` comment (outside quotes) and its indentation,
    /// joined with one space. Spaces within a line, in a literal too, stay as written.
    package static func oneLine(_ sql: String) -> String {
        sql.split(separator: "\n", omittingEmptySubsequences: false)
            .map { withoutComment($0).trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
            .joined(separator: " ")
    }

    private static func withoutComment(_ line: Substring) -> Substring {
        var quoted = false
        var previous: Character?
        for index in line.indices {
            let character = line[index]
            if character == "'" { quoted.toggle() }
            if !quoted, character == "-", previous == "-" { return line[..<line.index(before: index)] }
            previous = character
        }
        return line
    }
}
