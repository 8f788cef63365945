/// Splits argv into options and arguments the way swift-argument-parser does, without knowing which
/// options exist; `DaemonConfig.parse` gives the tokens meaning.
///
/// - `--name` and `--name=value` are long options (the value may be empty: `--data-dir=`);
/// - `-abc` is the short options `a`, `b`, `c` (none of segued's take a value);
/// - `--` ends option parsing: everything after it is positional, even if it starts with `-`;
/// - anything else, including a lone `-`, is an argument, which an option before it may take as its
///   value. So `--data-dir -x` fails (write `--data-dir=-x`), as an option never swallows an option.
struct CommandLineTokenizer {
    enum Token: Equatable {
        /// `--name` or `--name=value`; `name` excludes the dashes.
        case long(name: String, value: String?)
        case short(Character)
        /// An argument before `--`: an option's value or a stray positional.
        case argument(String)
        /// An argument after `--`: never an option's value.
        case positional(String)
    }

    static func tokenize(_ arguments: [String]) -> [Token] {
        var tokens: [Token] = []
        var optionsEnded = false
        for argument in arguments {
            if optionsEnded {
                tokens.append(.positional(argument))
            } else if argument == "--" {
                optionsEnded = true
            } else if argument.hasPrefix("--") {
                let body = argument.dropFirst(2)
                if let equals = body.firstIndex(of: "=") {
                    tokens.append(
                        .long(name: String(body[..<equals]), value: String(body[body.index(after: equals)...])))
                } else {
                    tokens.append(.long(name: String(body), value: nil))
                }
            } else if argument.hasPrefix("-") && argument.count > 1 {
                tokens += argument.dropFirst().map { .short($0) }
            } else {
                tokens.append(.argument(argument))
            }
        }
        return tokens
    }
}
