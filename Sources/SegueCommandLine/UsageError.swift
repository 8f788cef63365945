/// A command line that does not parse: exit status 64 (`EX_USAGE`), one sentence on stderr, then
/// where to find help. The messages are exact and tested, as swift-argument-parser's are.
package struct UsageError: Error, Equatable, Sendable, CustomStringConvertible {
    package var message: String
    /// The command's words (`segue push`), for the help hint.
    package var command: String

    package init(_ message: String, command: String = "") {
        self.message = message
        self.command = command
    }

    package static func unknownOption(_ spelling: String) -> UsageError { UsageError("Unknown option '\(spelling)'.") }

    package static func missingValue(_ option: OptionSpec) -> UsageError {
        UsageError("Missing value for '--\(option.name) <\(option.valueName ?? "value")>'.")
    }

    /// A required option that was not given at all (`missingValue` is one given without its value).
    package static func missingOption(_ name: String, value: String) -> UsageError {
        UsageError("Missing expected option '--\(name) <\(value)>'.")
    }

    package static func unexpectedValue(_ option: OptionSpec) -> UsageError {
        UsageError("Option '--\(option.name)' takes no value.")
    }

    package static func repeated(_ option: OptionSpec) -> UsageError {
        UsageError("Option '--\(option.name)' was given more than once.")
    }

    package static func missingArgument(_ argument: ArgumentSpec) -> UsageError {
        UsageError("Missing expected argument '<\(argument.name)>'.")
    }

    package static func unexpectedArgument(_ value: String) -> UsageError {
        UsageError("Unexpected argument '\(value)'.")
    }

    package static func invalidValue(_ value: String, for name: String, _ expectation: String) -> UsageError {
        UsageError("The value '\(value)' is invalid for '\(name)': \(expectation).")
    }

    package static func unknownCommand(_ name: String, in command: String) -> UsageError {
        UsageError("Unknown command '\(name)'.", command: command)
    }

    /// A command group given no subcommand (`segue gesture`): names the ones it has.
    package static func missingCommand(_ command: String, among names: [String]) -> UsageError {
        UsageError("Missing command; one of: \(names.joined(separator: ", ")).", command: command)
    }

    /// The two lines printed on stderr.
    package var description: String {
        let help = command.isEmpty ? "--help" : "\(command) --help"
        return "error: \(message)\nSee '\(help)'."
    }
}
