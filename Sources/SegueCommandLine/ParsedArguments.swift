/// The result of parsing one command's tokens against its configuration.
package struct ParsedArguments: Equatable, Sendable {
    /// Positionals by argument name; a variadic argument holds all of its words.
    package var arguments: [String: [String]] = [:]
    /// Option values by long name, in the order given.
    package var options: [String: [String]] = [:]
    package var flags: Set<String> = []
    /// `--help` or `-h` was given: print help, parse nothing else.
    package var help = false

    package init() {}

    package func argument(_ name: String) -> String? { arguments[name]?.first }
    package func value(_ name: String) -> String? { options[name]?.last }
    package func values(_ name: String) -> [String] { options[name] ?? [] }
    package func flag(_ name: String) -> Bool { flags.contains(name) }
}

extension CommandConfiguration {
    /// Finds the subcommand a command line names: returns the chain from the root and the words
    /// left for the last command. `--help` before a subcommand name stays with the current command.
    package func resolve(_ argv: [String]) throws(UsageError) -> (path: [CommandConfiguration], rest: [String]) {
        var path = [self]
        var rest = argv[...]
        while let current = path.last, !current.subcommands.isEmpty {
            guard let word = rest.first else {
                return (path, [])
            }
            if word.hasPrefix("-") { break }
            guard let sub = current.subcommand(named: word) else {
                throw .unknownCommand(word, in: path.map(\.name).joined(separator: " "))
            }
            path.append(sub)
            rest = rest.dropFirst()
        }
        return (path, Array(rest))
    }

    /// Parses the words of this command: options anywhere, positionals in order.
    package func parse(_ words: [String]) throws(UsageError) -> ParsedArguments {
        var parsed = ParsedArguments()
        var positionals: [String] = []
        let located = ArgumentTokenizer.tokenizeWords(words)
        let tokens = located.map(\.token)
        var index = 0
        func take(_ option: OptionSpec, attached: String?) throws(UsageError) {
            if option.isFlag {
                if attached != nil { throw .unexpectedValue(option) }
                parsed.flags.insert(option.name)
                return
            }
            var value = attached
            if value == nil, index < tokens.count, case .value(let v) = tokens[index] {
                value = v
                index += 1
            } else if value == nil, let word = dashedValue(at: index, located, words) {
                value = words[word]
                while index < tokens.count, located[index].word == word { index += 1 }
            }
            guard let value else { throw .missingValue(option) }
            if !option.repeats, parsed.options[option.name] != nil { throw .repeated(option) }
            parsed.options[option.name, default: []].append(value)
        }
        while index < tokens.count {
            let token = tokens[index]
            index += 1
            switch token {
            case .terminator: continue
            case .value(let v): positionals.append(v)
            case .long(let name, let attached):
                if name == "help" {
                    parsed.help = true
                    return parsed
                }
                guard let option = option(named: name) else { throw .unknownOption(token.spelling) }
                try take(option, attached: attached)
            case .short(let c):
                if c == "h" {
                    parsed.help = true
                    return parsed
                }
                guard let option = options.first(where: { $0.short == c }) else { throw .unknownOption(token.spelling) }
                try take(option, attached: nil)
            }
        }
        var next = positionals[...]
        for argument in arguments {
            if argument.variadic {
                if next.isEmpty, !argument.optional { throw .missingArgument(argument) }
                parsed.arguments[argument.name] = Array(next)
                next = []
            } else if let word = next.first {
                parsed.arguments[argument.name] = [word]
                next = next.dropFirst()
            } else if !argument.optional {
                throw .missingArgument(argument)
            }
        }
        if let extra = next.first { throw .unexpectedArgument(extra) }
        return parsed
    }

    /// The word at token `index` when it starts with one dash but is no cluster of this command's
    /// short options (`-x:Y.z`, a CURVE key): an option's value, not options.
    private func dashedValue(
        at index: Int, _ located: [(token: ArgumentToken, word: Int)], _ words: [String]
    ) -> Int? {
        guard index < located.count, case .short = located[index].token else { return nil }
        let word = located[index].word
        let letters = words[word].dropFirst()
        let known = letters.allSatisfy { c in c == "h" || options.contains { $0.short == c } }
        return known ? nil : word
    }
}
