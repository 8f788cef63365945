/// `--help` text in swift-argument-parser's layout: OVERVIEW, USAGE, ARGUMENTS, OPTIONS,
/// SUBCOMMANDS, EXAMPLES.
extension CommandConfiguration {
    /// - Parameters:
    ///   - path: the words that lead to this command (`segue gesture`).
    ///   - width: the terminal's columns, to wrap the prose to; nil (a pipe) leaves each text on one
    ///     line, for a pager or `grep` to take as it is.
    package func help(path: String, width: Int? = nil) -> String {
        var out = "OVERVIEW: " + wrap(abstract, width, after: "OVERVIEW: ".count) + "\n"
        if !discussion.isEmpty { out += "\n" + wrap(discussion, width) + "\n" }
        out += "\nUSAGE: \(usage(path: path))\n"
        if !arguments.isEmpty {
            out += "\nARGUMENTS:\n"
            for a in arguments { out += row("<\(a.name)>\(a.variadic ? " ..." : "")", a.help, width) }
        }
        if !options.isEmpty {
            out += "\nOPTIONS:\n"
            for o in options {
                var left = o.short.map { "-\($0), " } ?? ""
                left += "--\(o.name)"
                if let v = o.valueName { left += " <\(v)>" }
                out += row(left, o.help, width)
            }
            out += row("-h, --help", "Show help information.", width)
        }
        if !subcommands.isEmpty {
            out += "\nSUBCOMMANDS:\n"
            for s in subcommands { out += row(s.name, s.abstract, width) }
            out += "\n  See '\(path) <subcommand> --help' for detailed help.\n"
        }
        if !examples.isEmpty {
            out += "\nEXAMPLES:\n"
            for e in examples { out += "  \(e)\n" }
        }
        return out
    }

    package func usage(path: String) -> String {
        var parts = [path]
        if !subcommands.isEmpty { parts.append("<subcommand>") }
        for a in arguments {
            var word = "<\(a.name)>"
            if a.variadic { word += " ..." }
            parts.append(a.optional ? "[\(word)]" : word)
        }
        for option in options where option.required {
            parts.append("--\(option.name)" + (option.valueName.map { " <\($0)>" } ?? ""))
        }
        if !options.isEmpty { parts.append("[<options>]") }
        return parts.joined(separator: " ")
    }

    /// An option or argument: its name, then its help from column 28 (on the next line when the name
    /// reaches it), wrapped in that column.
    private func row(_ left: String, _ help: String, _ width: Int?) -> String {
        let pad = 28
        let column = String(repeating: " ", count: pad)
        let lines = width.map { help.wrapped(to: max($0 - pad, 20)) } ?? [help]
        let rest = lines.dropFirst().map { column + $0 + "\n" }.joined()
        if left.count + 2 < pad {
            return "  " + left + String(repeating: " ", count: pad - left.count - 2) + lines[0] + "\n" + rest
        }
        return "  \(left)\n" + column + lines[0] + "\n" + rest
    }

    /// `text` wrapped to `width` when there is one, its first line after a label `after` wide.
    private func wrap(_ text: String, _ width: Int?, after label: Int = 0) -> String {
        guard let width else { return text }
        return text.wrapped(to: width, firstLineTakenBy: label).joined(separator: "\n")
    }
}
