/// A man page (roff, man(7) macros) generated from a command tree: NAME, SYNOPSIS, DESCRIPTION, one
/// subsection per command with its arguments, options and examples, then `extra` sections (exit
/// status, environment).
extension CommandConfiguration {
    package func manPage(section: Int = 1, date: String, extra: [(title: String, body: String)] = []) -> String {
        var out = ".TH \(name.uppercased()) \(section) \"\(date)\" \"\(name)\" \"User Commands\"\n"
        out += ".SH NAME\n\(Self.roff(name)) \\- \(Self.roff(abstract))\n"
        out += ".SH SYNOPSIS\n.B \(Self.roff(name))\n<command> [<options>]\n"
        if !discussion.isEmpty { out += ".SH DESCRIPTION\n" + Self.paragraphs(discussion) }
        out += ".SH COMMANDS\n"
        for (path, command) in walk().dropFirst() where command.subcommands.isEmpty {
            out += ".SS \(Self.roff(command.usage(path: path.joined(separator: " "))))\n"
            out += Self.roff(command.abstract) + "\n"
            if !command.discussion.isEmpty { out += ".PP\n" + Self.paragraphs(command.discussion) }
            for argument in command.arguments {
                out += ".TP\n.I \(Self.roff(argument.name))\n\(Self.roff(argument.help))\n"
            }
            for option in command.options {
                var left = option.short.map { "\\-\($0), " } ?? ""
                left += "\\-\\-" + Self.roff(option.name)
                if let value = option.valueName { left += " \\fI\(Self.roff(value))\\fR" }
                out += ".TP\n\\fB\(left)\\fR\n\(Self.roff(option.help))\n"
            }
            if !command.examples.isEmpty {
                out +=
                    ".PP\nExamples:\n.RS\n.nf\n" + command.examples.map(Self.roff).joined(separator: "\n")
                    + "\n.fi\n.RE\n"
            }
        }
        for (title, body) in extra { out += ".SH \(title.uppercased())\n" + Self.paragraphs(body) }
        return out
    }

    private static func paragraphs(_ text: String) -> String {
        text.split(separator: "\n\n", omittingEmptySubsequences: true).map { roff(String($0)) + "\n" }
            .joined(separator: ".PP\n")
    }

    /// Text safe in roff: backslashes and dashes escaped, no line starting with a control character.
    static func roff(_ text: String) -> String {
        var out = text.replacing("\\", with: "\\e").replacing("-", with: "\\-")
        out = out.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.hasPrefix(".") || line.hasPrefix("'") ? "\\&" + line : String(line)
        }.joined(separator: "\n")
        return out
    }
}
