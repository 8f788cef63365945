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
    /// A `required` option's value, which `parse` made sure of.
    package func value(required name: String) -> String { options[name]!.last! }
    package func values(_ name: String) -> [String] { options[name] ?? [] }
    package func flag(_ name: String) -> Bool { flags.contains(name) }
}

extension CommandConfiguration {
    /// Finds the subcommand a command line names: returns the chain from the root and the words
    /// left for the last command. Global options (`globalOptions` of the commands on the way) may
    /// stand before or between the command's words: they are handed to the last command ahead of
    /// the words after its name. `--help` or any other option before a subcommand name stays with
    /// the current command, which reports it. After `--` no word is an option, but the first words
    /// still name the command.
    package func resolve(_ argv: [String]) throws(UsageError) -> (path: [CommandConfiguration], rest: [String]) {
        var path = [self]
        var handed: [String] = []
        var terminated = false
        var rest = argv[...]
        while let current = path.last, !current.subcommands.isEmpty, let word = rest.first {
            if !terminated, word == "--" {
                terminated = true
                rest = rest.dropFirst()
                continue
            }
            if !terminated, word.hasPrefix("-") {
                guard let count = Self.globalOptionLength(rest, path.flatMap(\.globalOptions)) else {
                    try Self.refuseMistypedGlobal(word, path)
                    break
                }
                handed += rest.prefix(count)
                rest = rest.dropFirst(count)
                continue
            }
            guard let sub = current.subcommand(named: word) else {
                throw .unknownCommand(
                    word, in: path.map(\.name).joined(separator: " "), among: current.subcommands.map(\.name))
            }
            path.append(sub)
            rest = rest.dropFirst()
        }
        if path.last!.subcommands.isEmpty { return (path, handed + (terminated ? ["--"] : []) + rest) }
        // Options but no command: a missing command, not a bare `segue` (which prints help); a global
        // option's own mistake (`segue --endpoint`, its value missing) is named first.
        if rest.isEmpty, !handed.isEmpty || terminated {
            let globals = CommandConfiguration(name: name, abstract: "", options: path.flatMap(\.globalOptions))
            do throws(UsageError) { _ = try globals.parse(handed) } catch {
                var error = error
                error.command = path.map(\.name).joined(separator: " ")
                throw error
            }
            throw .missingCommand(path.map(\.name).joined(separator: " "), among: path.last!.subcommands.map(\.name))
        }
        return (path, Array(rest))
    }

    /// A long option before the command that neither the command on the way nor the global options
    /// know (`segue --endpont X push`) is refused here, with the global it most likely stands for:
    /// the command's own parse would only know its own options.
    private static func refuseMistypedGlobal(_ word: String, _ path: [CommandConfiguration]) throws(UsageError) {
        guard case .long(let name, _)? = ArgumentTokenizer.tokenize([word]).first, name != "help",
            path.last?.option(named: name) == nil
        else { return }
        var error = UsageError.unknownOption(
            word, among: path.last!.options + path.flatMap(\.globalOptions))
        error.command = path.map(\.name).joined(separator: " ")
        throw error
    }

    /// How many of `words` the global option at their start takes: 1, or 2 with its separate value;
    /// nil when the first word is not made of global options. The value is the next word unless that
    /// is `--` or a long option (`--timeout --json` is a missing value, as `parse` reads it); a dashed
    /// word goes along with its option, and the command decides, as a CURVE key may start with a dash.
    private static func globalOptionLength(_ words: ArraySlice<String>, _ globals: [OptionSpec]) -> Int? {
        guard let first = words.first else { return nil }
        var needsValue = false
        let tokens = ArgumentTokenizer.tokenize([first])
        for (position, token) in tokens.enumerated() {
            switch token {
            case .long(let name, let attached):
                guard let option = globals.first(where: { $0.name == name }) else { return nil }
                needsValue = !option.isFlag && attached == nil
            case .short(let letter):
                guard let option = globals.first(where: { $0.short == letter }) else { return nil }
                // Letters after it are its value (`-eVALUE`), as `parse` reads them.
                if !option.isFlag, position < tokens.count - 1 { return 1 }
                needsValue = !option.isFlag
            case .value, .terminator:
                return nil
            }
        }
        guard needsValue, let next = words.dropFirst().first, next != "--", !next.hasPrefix("--") else { return 1 }
        return 2
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
            while option.takesList, attached == nil, index < tokens.count, case .value(let more) = tokens[index] {
                parsed.options[option.name, default: []].append(more)
                index += 1
            }
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
                guard let option = option(named: name) else { throw .unknownOption(token.spelling, among: options) }
                try take(option, attached: attached)
            case .short(let c):
                if c == "h" {
                    parsed.help = true
                    return parsed
                }
                guard let option = options.first(where: { $0.short == c }) else { throw .unknownOption(token.spelling) }
                // As getopt reads it: the letters after an option that takes a value are that value
                // (`-oFILE`, `-c2`), not more options, and not a word of its own.
                let word = located[index - 1].word
                let rest = Self.letters(after: index - 1, located, words)
                if option.isFlag || rest.isEmpty {
                    try take(option, attached: nil)
                } else {
                    while index < tokens.count, located[index].word == word { index += 1 }
                    try take(option, attached: rest)
                }
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
        for option in options where option.required && parsed.options[option.name] == nil {
            throw .missingOption(option.name, value: option.valueName ?? "value")
        }
        return parsed
    }

    /// What follows the short option at token `index` in its word (`FILE` of `-oFILE`).
    private static func letters(
        after index: Int, _ located: [(token: ArgumentToken, word: Int)], _ words: [String]
    ) -> String {
        let word = located[index].word
        let first = located.firstIndex { $0.word == word } ?? index
        return String(words[word].dropFirst(2 + index - first))
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
