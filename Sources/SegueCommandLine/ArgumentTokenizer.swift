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
        tokenizeWords(arguments).map(\.token)
    }

    /// The tokens with the index of the word each came from: a cluster such as `-x:Y.z` is one word
    /// of several tokens, which an option that needs a value takes whole (a CURVE key may start with
    /// a dash).
    package static func tokenizeWords(_ arguments: [String]) -> [(token: ArgumentToken, word: Int)] {
        var tokens: [(token: ArgumentToken, word: Int)] = []
        var afterTerminator = false
        for (index, word) in arguments.enumerated() {
            if afterTerminator {
                tokens.append((.value(word), index))
            } else if word == "--" {
                tokens.append((.terminator, index))
                afterTerminator = true
            } else if word.hasPrefix("--") {
                let body = word.dropFirst(2)
                if let eq = body.firstIndex(of: "=") {
                    tokens.append((.long(String(body[..<eq]), value: String(body[body.index(after: eq)...])), index))
                } else {
                    tokens.append((.long(String(body), value: nil), index))
                }
            } else if word.hasPrefix("-"), word.count > 1, !isNumber(word) {
                for c in word.dropFirst() { tokens.append((.short(c), index)) }
            } else {
                tokens.append((.value(word), index))
            }
        }
        return tokens
    }

    private static func isNumber(_ word: String) -> Bool {
        guard let second = word.dropFirst().first else { return false }
        return second.isNumber || second == "."
    }
}
