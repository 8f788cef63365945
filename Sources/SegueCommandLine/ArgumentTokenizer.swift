/// One piece of a command line, as the tokenizer sees it before it knows any command's options.
package enum ArgumentToken: Equatable, Sendable {
    /// `--name` or `--name=value` (the value attached with `=`, possibly empty: `--data-dir=`).
    case long(String, value: String?)
    /// One letter of `-x` or of a cluster `-xy`.
    case short(Character)
    /// Anything else: a positional or an option's separate value. Negative numbers (`-0.5`) and `-`
    /// alone are values, so `--velocity -0.5` reads as a script writer means it.
    case value(String)
    /// `--`: every later word is a value, even if it starts with a dash.
    case terminator

    /// The word as the user typed it, for messages.
    package var spelling: String {
        switch self {
        case .long(let name, let value): value.map { "--\(name)=\($0)" } ?? "--\(name)"
        case .short(let c): "-\(c)"
        case .value(let v): v
        case .terminator: "--"
        }
    }
}

/// Splits argv into tokens, the first step of swift-argument-parser's `SplitArguments`, by hand. The one
/// tokenizer of the package: `segue`, `segued` and `segue-bench` all read their argv through it.
package enum ArgumentTokenizer {
    package static func tokenize(_ arguments: [String]) -> [ArgumentToken] {
        var tokens: [ArgumentToken] = []
        var afterTerminator = false
        for word in arguments {
            if afterTerminator {
                tokens.append(.value(word))
            } else if word == "--" {
                tokens.append(.terminator)
                afterTerminator = true
            } else if word.hasPrefix("--") {
                let body = word.dropFirst(2)
                if let eq = body.firstIndex(of: "=") {
                    tokens.append(.long(String(body[..<eq]), value: String(body[body.index(after: eq)...])))
                } else {
                    tokens.append(.long(String(body), value: nil))
                }
            } else if word.hasPrefix("-"), word.count > 1, !isNumber(word) {
                for c in word.dropFirst() { tokens.append(.short(c)) }
            } else {
                tokens.append(.value(word))
            }
        }
        return tokens
    }

    private static func isNumber(_ word: String) -> Bool {
        guard let second = word.dropFirst().first else { return false }
        return second.isNumber || second == "."
    }
}
