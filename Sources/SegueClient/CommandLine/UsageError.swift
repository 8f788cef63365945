/// A command line that does not parse: exit status 64 (`EX_USAGE`), one sentence on stderr, then
/// where to find help. The messages are exact and tested, as swift-argument-parser's are.
public struct UsageError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    /// The command's words (`segue push`), for the help hint.
    public var command: String

    public init(_ message: String, command: String = "") {
        self.message = message
        self.command = command
    }

    public static func unknownOption(_ spelling: String) -> UsageError { UsageError("Unknown option '\(spelling)'.") }

    public static func missingValue(_ option: OptionSpec) -> UsageError {
        UsageError("Missing value for '--\(option.name) <\(option.valueName ?? "value")>'.")
    }

    public static func unexpectedValue(_ option: OptionSpec) -> UsageError {
        UsageError("Option '--\(option.name)' takes no value.")
    }

    public static func repeated(_ option: OptionSpec) -> UsageError {
        UsageError("Option '--\(option.name)' was given more than once.")
    }

    public static func missingArgument(_ argument: ArgumentSpec) -> UsageError {
        UsageError("Missing expected argument '<\(argument.name)>'.")
    }

    public static func unexpectedArgument(_ value: String) -> UsageError {
        UsageError("Unexpected argument '\(value)'.")
    }

    public static func invalidValue(_ value: String, for name: String, _ expectation: String) -> UsageError {
        UsageError("The value '\(value)' is invalid for '\(name)': \(expectation).")
    }

    public static func unknownCommand(_ name: String, in command: String) -> UsageError {
        UsageError("Unknown command '\(name)'.", command: command)
    }

    public static func missingCommand(_ command: String) -> UsageError {
        UsageError("Missing command.", command: command)
    }

    /// The two lines printed on stderr.
    public var description: String {
        let help = command.isEmpty ? "--help" : "\(command) --help"
        return "error: \(message)\nSee '\(help)'."
    }
}
