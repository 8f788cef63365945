/// What a command is and takes: the small version of swift-argument-parser's `CommandConfiguration`
/// plus its `@Option`/`@Flag`/`@Argument` declarations, as data.
public struct CommandConfiguration: Sendable {
    public var name: String
    /// One line, shown in the parent's command list.
    public var abstract: String
    /// Paragraphs after the usage line: why and when to use the command.
    public var discussion: String
    public var arguments: [ArgumentSpec]
    public var options: [OptionSpec]
    /// Shell lines shown under EXAMPLES.
    public var examples: [String]
    public var subcommands: [CommandConfiguration]

    public init(
        name: String, abstract: String, discussion: String = "", arguments: [ArgumentSpec] = [],
        options: [OptionSpec] = [], examples: [String] = [], subcommands: [CommandConfiguration] = []
    ) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.arguments = arguments
        self.options = options
        self.examples = examples
        self.subcommands = subcommands
    }

    public func option(named name: String) -> OptionSpec? { options.first { $0.name == name } }
    public func subcommand(named name: String) -> CommandConfiguration? { subcommands.first { $0.name == name } }
}

/// An option: a flag (`valueName == nil`) or an option with a value.
public struct OptionSpec: Sendable, Equatable {
    public var name: String
    public var short: Character?
    public var valueName: String?
    public var help: String
    /// May be given several times (`--param a=1 --param b=2`); otherwise a second use is an error.
    public var repeats: Bool

    public init(_ name: String, short: Character? = nil, value: String? = nil, repeats: Bool = false, help: String) {
        self.name = name
        self.short = short
        self.valueName = value
        self.repeats = repeats
        self.help = help
    }

    public var isFlag: Bool { valueName == nil }

    public static func flag(_ name: String, short: Character? = nil, help: String) -> OptionSpec {
        OptionSpec(name, short: short, help: help)
    }
}

/// A positional argument.
public struct ArgumentSpec: Sendable, Equatable {
    public var name: String
    public var help: String
    public var optional: Bool
    /// Takes every remaining positional (zero or more if optional, else one or more).
    public var variadic: Bool

    public init(_ name: String, optional: Bool = false, variadic: Bool = false, help: String) {
        self.name = name
        self.optional = optional
        self.variadic = variadic
        self.help = help
    }
}
