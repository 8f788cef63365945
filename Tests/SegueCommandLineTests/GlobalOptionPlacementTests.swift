import Testing

@testable import SegueCommandLine

/// Global options before, between and after a command's words: `resolve` hands them to the command
/// the words name, so each placement parses as the same command line.
@Suite struct GlobalOptionPlacementTests {
    static let globals: [OptionSpec] = [
        OptionSpec("endpoint", value: "endpoint", help: "e"), .flag("json", help: "j"),
        OptionSpec("timeout", short: "t", value: "seconds", help: "t"), .flag("verbose", short: "v", help: "v"),
    ]

    static let root = CommandConfiguration(
        name: "segue", abstract: "",
        subcommands: [
            CommandConfiguration(
                name: "push", abstract: "",
                arguments: [ArgumentSpec("navigator", help: "n"), ArgumentSpec("screen", help: "s")],
                options: [OptionSpec("param", value: "key=value", repeats: true, help: "p")] + globals),
            CommandConfiguration(
                name: "gesture", abstract: "",
                subcommands: [
                    CommandConfiguration(
                        name: "end", abstract: "", arguments: [ArgumentSpec("navigator", help: "n")],
                        options: [OptionSpec("velocity", value: "v", help: "v")] + globals)
                ]),
            // Takes `--json` only, as an offline command does.
            CommandConfiguration(name: "export", abstract: "", options: [.flag("json", help: "j")]),
        ],
        globalOptions: globals)

    /// What `segue` does with argv up to the handler: the command's words and its parsed arguments,
    /// or the usage error with the command its help hint names.
    enum Outcome: Equatable, CustomTestStringConvertible {
        case parsed(String, ParsedArguments)
        case failed(UsageError)

        var testDescription: String {
            switch self {
            case .parsed(let path, let parsed): "\(path) \(parsed)"
            case .failed(let error): error.description
            }
        }
    }

    static func run(_ argv: [String]) -> Outcome {
        do throws(UsageError) {
            let (path, rest) = try root.resolve(argv)
            let words = path.map(\.name).joined(separator: " ")
            do throws(UsageError) {
                return .parsed(words, try path.last!.parse(rest))
            } catch var error {
                error.command = words
                return .failed(error)
            }
        } catch {
            return .failed(error)
        }
    }

    static func parsed(
        _ path: String, _ arguments: [String: [String]] = [:], options: [String: [String]] = [:],
        flags: Set<String> = [], help: Bool = false
    ) -> Outcome {
        var parsed = ParsedArguments()
        parsed.arguments = arguments
        parsed.options = options
        parsed.flags = flags
        parsed.help = help
        return .parsed(path, parsed)
    }

    static let pushed: [String: [String]] = ["navigator": ["main"], "screen": ["Detail"]]
    static let endpoint = ["endpoint": ["tcp://h:1"]]

    @Test(
        arguments: [
            // Placements of a value-taking option: before, after, among the arguments, attached.
            (["--endpoint", "tcp://h:1", "push", "main", "Detail"], parsed("segue push", pushed, options: endpoint)),
            (["push", "main", "Detail", "--endpoint", "tcp://h:1"], parsed("segue push", pushed, options: endpoint)),
            (["push", "main", "--endpoint", "tcp://h:1", "Detail"], parsed("segue push", pushed, options: endpoint)),
            (["--endpoint=tcp://h:1", "push", "main", "Detail"], parsed("segue push", pushed, options: endpoint)),
            // A flag before the command does not take the command's name as a value.
            (["--json", "push", "main", "Detail"], parsed("segue push", pushed, flags: ["json"])),
            (["-v", "push", "main", "Detail"], parsed("segue push", pushed, flags: ["verbose"])),
            (["-t", "3", "push", "main", "Detail"], parsed("segue push", pushed, options: ["timeout": ["3"]])),
            (["-t3", "push", "main", "Detail"], parsed("segue push", pushed, options: ["timeout": ["3"]])),
            (
                ["-vt3", "push", "main", "Detail"],
                parsed("segue push", pushed, options: ["timeout": ["3"]], flags: ["verbose"])
            ),
            // Between the words of a command, and on both sides of them.
            (
                ["gesture", "--endpoint", "tcp://h:1", "end", "main"],
                parsed("segue gesture end", ["navigator": ["main"]], options: endpoint)
            ),
            (
                ["--json", "gesture", "--timeout", "2", "end", "main", "--velocity", "-0.5"],
                parsed(
                    "segue gesture end", ["navigator": ["main"]], options: ["timeout": ["2"], "velocity": ["-0.5"]],
                    flags: ["json"])
            ),
            // A value is the next word, even one that starts with a dash or names a command.
            (
                ["--timeout", "-1", "push", "main", "Detail"],
                parsed("segue push", pushed, options: ["timeout": ["-1"]])
            ),
            (
                ["--endpoint", "-x:Y.z", "push", "main", "Detail"],
                parsed("segue push", pushed, options: ["endpoint": ["-x:Y.z"]])
            ),
            (
                ["--endpoint", "push", "push", "main", "Detail"],
                parsed("segue push", pushed, options: ["endpoint": ["push"]])
            ),
            // The command's own rules apply to what was handed to it.
            (
                ["--timeout", "--json", "push", "main", "Detail"],
                .failed(UsageError("Missing value for '--timeout <seconds>'.", command: "segue push"))
            ),
            (
                ["--timeout", "--", "push", "main", "Detail"],
                .failed(UsageError("Missing value for '--timeout <seconds>'.", command: "segue push"))
            ),
            (
                ["--json=yes", "push", "main", "Detail"],
                .failed(UsageError("Option '--json' takes no value.", command: "segue push"))
            ),
            (
                ["--timeout", "1", "push", "main", "Detail", "--timeout", "2"],
                .failed(UsageError("Option '--timeout' was given more than once.", command: "segue push"))
            ),
            (
                ["--endpoint", "tcp://h:1", "export"],
                .failed(UsageError("Unknown option '--endpoint'.", command: "segue export"))
            ),
            (
                ["export", "--endpoint", "tcp://h:1"],
                .failed(UsageError("Unknown option '--endpoint'.", command: "segue export"))
            ),
            // `--` ends the options, not the command's words.
            (
                ["--json", "--", "push", "main", "-weird-"],
                parsed("segue push", ["navigator": ["main"], "screen": ["-weird-"]], flags: ["json"])
            ),
            (["gesture", "--", "end", "--json"], parsed("segue gesture end", ["navigator": ["--json"]])),
            // Options that are not global stay with the command reached so far, which names them.
            (["--frob", "push", "main", "Detail"], .failed(UsageError("Unknown option '--frob'.", command: "segue"))),
            (
                ["--json", "-z", "push", "main", "Detail"],
                .failed(UsageError("Unknown option '-z'.", command: "segue"))
            ),
            (
                ["gesture", "--frob", "end", "main"],
                .failed(UsageError("Unknown option '--frob'.", command: "segue gesture"))
            ),
            (
                ["--velocity", "1", "gesture", "end", "main"],
                .failed(UsageError("Unknown option '--velocity'.", command: "segue"))
            ),
            (["--json", "frob"], .failed(.unknownCommand("frob", in: "segue"))),
            (["gesture", "--json", "frob"], .failed(.unknownCommand("frob", in: "segue gesture"))),
            // Help where it stands; options and no command is a missing command, no words at all is help.
            (["--json", "--help", "push"], parsed("segue", help: true)),
            (["gesture", "--endpoint", "tcp://h:1", "-h"], parsed("segue gesture", help: true)),
            (["--endpoint", "tcp://h:1", "push", "--help"], parsed("segue push", options: endpoint, help: true)),
            (["--json"], .failed(UsageError("Missing command; one of: push, gesture, export.", command: "segue"))),
            (["--"], .failed(UsageError("Missing command; one of: push, gesture, export.", command: "segue"))),
            // An option's own mistake before the missing command.
            (["--endpoint"], .failed(UsageError("Missing value for '--endpoint <endpoint>'.", command: "segue"))),
            (
                ["gesture", "--json", "--timeout"],
                .failed(UsageError("Missing value for '--timeout <seconds>'.", command: "segue gesture"))
            ),
            (
                ["gesture", "--timeout", "2"],
                .failed(UsageError("Missing command; one of: end.", command: "segue gesture"))
            ),
            ([], parsed("segue")),
        ] as [([String], Outcome)])
    func placements(argv: [String], outcome: Outcome) {
        #expect(Self.run(argv) == outcome)
    }

    /// The same option at every place in `segue gesture end main`: one parse.
    @Test(arguments: [0, 1, 2, 3, 5])
    func everyPlacementParsesAlike(at index: Int) {
        var argv = ["gesture", "end", "main", "--velocity", "1"]
        argv.insert(contentsOf: ["--timeout", "2"], at: index)
        let expected = Self.parsed(
            "segue gesture end", ["navigator": ["main"]], options: ["timeout": ["2"], "velocity": ["1"]])
        #expect(Self.run(argv) == expected)
    }
}
