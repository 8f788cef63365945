/// `--help` text in swift-argument-parser's layout: OVERVIEW, USAGE, ARGUMENTS, OPTIONS,
/// SUBCOMMANDS, EXAMPLES.
extension CommandConfiguration {
    /// - Parameter path: the words that lead to this command (`segue gesture`).
    package func help(path: String) -> String {
        var out = "OVERVIEW: \(abstract)\n"
        if !discussion.isEmpty { out += "\n\(discussion)\n" }
        out += "\nUSAGE: \(usage(path: path))\n"
        if !arguments.isEmpty {
            out += "\nARGUMENTS:\n"
            for a in arguments { out += row("<\(a.name)>\(a.variadic ? " ..." : "")", a.help) }
        }
        if !options.isEmpty {
            out += "\nOPTIONS:\n"
            for o in options {
                var left = o.short.map { "-\($0), " } ?? ""
                left += "--\(o.name)"
                if let v = o.valueName { left += " <\(v)>" }
                out += row(left, o.help)
            }
            out += row("-h, --help", "Show help information.")
        }
        if !subcommands.isEmpty {
            out += "\nSUBCOMMANDS:\n"
            for s in subcommands { out += row(s.name, s.abstract) }
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
        if !options.isEmpty { parts.append("[<options>]") }
        return parts.joined(separator: " ")
    }

    private func row(_ left: String, _ help: String) -> String {
        let pad = 28
        if left.count + 2 < pad {
            return "  " + left + String(repeating: " ", count: pad - left.count - 2) + help + "\n"
        }
        return "  \(left)\n" + String(repeating: " ", count: pad) + help + "\n"
    }
}
