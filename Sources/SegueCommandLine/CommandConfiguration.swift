/// What a command is and takes: the small version of swift-argument-parser's `CommandConfiguration`
/// plus its `@Option`/`@Flag`/`@Argument` declarations, as data. Help, usage, shell completions and
/// the man page are all generated from it, so they cannot disagree with the parser.
package struct CommandConfiguration: Sendable {
    package var name: String
    /// One line, shown in the parent's command list.
    package var abstract: String
    /// Paragraphs after the usage line: why and when to use the command.
    package var discussion: String
    package var arguments: [ArgumentSpec]
    package var options: [OptionSpec]
    /// Shell lines shown under EXAMPLES.
    package var examples: [String]
    package var subcommands: [CommandConfiguration]
    /// Options the commands below this one share, which may also come before a subcommand's name
    /// (`segue --endpoint X push main Detail`, `segue gesture --json end main`). They are handed to
    /// the command the words name, which parses them as if they came after it, so they mean the same
    /// wherever they stand; it must list them among its own `options` to take them.
    package var globalOptions: [OptionSpec]

    package init(
        name: String, abstract: String, discussion: String = "", arguments: [ArgumentSpec] = [],
        options: [OptionSpec] = [], examples: [String] = [], subcommands: [CommandConfiguration] = [],
        globalOptions: [OptionSpec] = []
    ) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.arguments = arguments
        self.options = options
        self.examples = examples
        self.subcommands = subcommands
        self.globalOptions = globalOptions
    }

    package func option(named name: String) -> OptionSpec? { options.first { $0.name == name } }
    package func subcommand(named name: String) -> CommandConfiguration? { subcommands.first { $0.name == name } }

    /// Every command below this one with the words that lead to it, depth first, this one included.
    package func walk(path: [String] = []) -> [(path: [String], command: CommandConfiguration)] {
        let here = path + [name]
        return [(here, self)] + subcommands.flatMap { $0.walk(path: here) }
    }
}

/// What a shell may offer for a value.
package enum CompletionKind: Sendable, Equatable {
    /// Any text: nothing to offer.
    case none
    case file
    case directory
    /// One of these words.
    case list([String])
    /// The tool's commands (`help COMMAND`).
    case commands
}

/// An option: a flag (`valueName == nil`) or an option with a value.
package struct OptionSpec: Sendable, Equatable {
    package var name: String
    package var short: Character?
    package var valueName: String?
    package var help: String
    /// May be given several times (`--param a=1 --param b=2`); otherwise a second use is an error.
    package var repeats: Bool
    /// Also takes the words after its value, up to the next option (`--from A B`): each is a value
    /// as though the option were repeated before it. Implies `repeats`.
    package var takesList: Bool
    package var completion: CompletionKind
    /// The command cannot run without it: shown in the usage line, and its absence a usage error.
    package var required: Bool

    package init(
        _ name: String, short: Character? = nil, value: String? = nil, repeats: Bool = false,
        takesList: Bool = false, required: Bool = false, completion: CompletionKind = .none, help: String
    ) {
        self.required = required
        self.name = name
        self.short = short
        self.valueName = value
        self.repeats = repeats || takesList
        self.takesList = takesList
        self.completion = completion
        self.help = help
    }

    package var isFlag: Bool { valueName == nil }

    package static func flag(_ name: String, short: Character? = nil, help: String) -> OptionSpec {
        OptionSpec(name, short: short, help: help)
    }
}

/// A positional argument.
package struct ArgumentSpec: Sendable, Equatable {
    package var name: String
    package var help: String
    package var optional: Bool
    /// Takes every remaining positional (zero or more if optional, else one or more).
    package var variadic: Bool
    package var completion: CompletionKind

    package init(
        _ name: String, optional: Bool = false, variadic: Bool = false, completion: CompletionKind = .none,
        help: String
    ) {
        self.name = name
        self.optional = optional
        self.variadic = variadic
        self.completion = completion
        self.help = help
    }
}
