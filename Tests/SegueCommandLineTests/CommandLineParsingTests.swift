import Testing

@testable import SegueCommandLine

/// The command-line toolkit: tokenizer, parser and the exact usage messages.
@Suite struct ArgumentParsingTests {
    static let push = CommandConfiguration(
        name: "push", abstract: "Push a screen.",
        arguments: [ArgumentSpec("navigator", help: "n"), ArgumentSpec("screen", help: "s")],
        options: [
            .flag("json", help: "j"), .flag("follow", short: "f", help: "f"),
            OptionSpec("timeout", value: "seconds", help: "t"),
            OptionSpec("output", short: "o", value: "file", help: "o"),
            OptionSpec("param", value: "key=value", repeats: true, help: "p"),
            OptionSpec("velocity", value: "v", help: "v"),
        ])

    @Test(arguments: [
        (["a", "--json", "-f"], [ArgumentToken.value("a"), .long("json", value: nil), .short("f")]),
        (
            ["--a", "--b=1", "--c=", "-hv", "-", "x", "--", "--d", "-e"],
            [
                .long("a", value: nil), .long("b", value: "1"), .long("c", value: ""), .short("h"), .short("v"),
                .value("-"), .value("x"), .terminator, .value("--d"), .value("-e"),
            ]
        ),
        (["-5", "-x5", "--", "--"], [.value("-5"), .short("x"), .short("5"), .terminator, .value("--")]),
        (["--timeout=2", "-of"], [.long("timeout", value: "2"), .short("o"), .short("f")]),
        (
            ["--velocity", "-0.5", "-", "-.5"],
            [.long("velocity", value: nil), .value("-0.5"), .value("-"), .value("-.5")]
        ),
        (["--", "--json", "-f"], [.terminator, .value("--json"), .value("-f")]),
        (["--param=a=b"], [.long("param", value: "a=b")]),
    ])
    func tokenizer(argv: [String], tokens: [ArgumentToken]) {
        #expect(ArgumentTokenizer.tokenize(argv) == tokens)
    }

    /// An option that takes a list (`relay --from A B`) takes the words after its value up to the
    /// next option; attached (`--from=A`), a terminator or another option ends the list.
    @Test(arguments: [
        (["--from", "a", "b", "c"], ["a", "b", "c"], [String]()),
        (["--from", "a", "b", "--json", "x"], ["a", "b"], ["x"]),
        (["x", "--from", "a", "--from", "b", "c"], ["a", "b", "c"], ["x"]),
        (["--from=a", "x"], ["a"], ["x"]),
        (["--from", "a", "--", "x"], ["a"], ["x"]),
    ])
    func anOptionTakingAListTakesTheWordsAfterIt(argv: [String], values: [String], rest: [String]) throws {
        let relay = CommandConfiguration(
            name: "relay", abstract: "r",
            arguments: [ArgumentSpec("rest", optional: true, variadic: true, help: "r")],
            options: [.flag("json", help: "j"), OptionSpec("from", value: "endpoint", takesList: true, help: "f")])
        let parsed = try relay.parse(argv)
        #expect(parsed.values("from") == values)
        #expect((parsed.arguments["rest"] ?? []) == rest)
    }

    @Test func parsesOptionsAnywhereAndPositionalsInOrder() throws {
        let parsed = try Self.push.parse([
            "--json", "main", "--param", "a=1", "Detail", "--param=b=2", "--timeout", "3", "-o", "out", "--velocity",
            "-1",
        ])
        #expect(parsed.argument("navigator") == "main")
        #expect(parsed.argument("screen") == "Detail")
        #expect(parsed.values("param") == ["a=1", "b=2"])
        #expect(parsed.value("timeout") == "3")
        #expect(parsed.value("output") == "out")
        #expect(parsed.value("velocity") == "-1")
        #expect(parsed.flag("json"))
        #expect(!parsed.flag("follow"))
    }

    @Test func terminatorMakesDashedWordsPositional() throws {
        let parsed = try Self.push.parse(["main", "--", "-weird-"])
        #expect(parsed.argument("screen") == "-weird-")
    }

    /// A value that starts with a dash (a CURVE key in Z85 may) is taken whole by the option before
    /// it, unless it is a cluster of the command's own short options.
    @Test func aDashedWordIsTheValueOfTheOptionBeforeIt() throws {
        let key = "-Ab:c.D+e=f"
        let parsed = try Self.push.parse(["main", "Detail", "--timeout", key, "--json"])
        #expect(parsed.value("timeout") == key)
        #expect(parsed.flag("json"))
        #expect(parsed.arguments["screen"] == ["Detail"])
        #expect(throws: UsageError("Unknown option '-A'.")) { try Self.push.parse(["main", "Detail", key]) }
    }

    /// As getopt reads a cluster: the letters after a short option that takes a value are its value,
    /// which once made `-oout.jsonl` write a file named `-oout.jsonl`.
    @Test(arguments: [
        (["main", "Detail", "-oout.jsonl"], "out.jsonl", false),
        (["-fo-", "main", "Detail"], "-", true),
        (["main", "-ofx", "Detail"], "fx", false),
        (["main", "Detail", "-fo", "x"], "x", true),
        (["main", "Detail", "-o", "-fx"], "-fx", false),
    ])
    func aShortOptionTakesTheRestOfItsWordAsItsValue(argv: [String], output: String, follow: Bool) throws {
        let parsed = try Self.push.parse(argv)
        #expect(parsed.value("output") == output)
        #expect(parsed.flag("follow") == follow)
        #expect(parsed.arguments["screen"] == ["Detail"])
    }

    @Test(arguments: ["--help", "-h"])
    func helpStopsParsing(flag: String) throws {
        #expect(try Self.push.parse([flag, "--bogus"]).help)
    }

    @Test(arguments: [
        (["main"], "Missing expected argument '<screen>'."),
        (["main", "Detail", "extra"], "Unexpected argument 'extra'."),
        (["main", "Detail", "--frob"], "Unknown option '--frob'."),
        (["main", "Detail", "-z"], "Unknown option '-z'."),
        (["main", "Detail", "--timeout"], "Missing value for '--timeout <seconds>'."),
        (["main", "Detail", "--timeout", "--json"], "Missing value for '--timeout <seconds>'."),
        (["main", "Detail", "--timeout", "-fo"], "Missing value for '--timeout <seconds>'."),
        (["main", "Detail", "--json=yes"], "Option '--json' takes no value."),
        (["main", "Detail", "--timeout", "1", "--timeout", "2"], "Option '--timeout' was given more than once."),
    ])
    func usageErrors(argv: [String], message: String) {
        #expect(throws: UsageError(message)) { try Self.push.parse(argv) }
    }

    @Test func usageErrorPrintsTheHelpHint() {
        let error = UsageError("Unknown option '--frob'.", command: "segue push")
        #expect(error.description == "error: Unknown option '--frob'.\nSee 'segue push --help'.")
    }

    @Test func resolvesSubcommands() throws {
        let root = CommandConfiguration(
            name: "segue", abstract: "",
            subcommands: [
                CommandConfiguration(
                    name: "gesture", abstract: "", subcommands: [CommandConfiguration(name: "end", abstract: "")]),
                Self.push,
            ])
        let (path, rest) = try root.resolve(["gesture", "end", "main", "--velocity", "1"])
        #expect(path.map(\.name) == ["segue", "gesture", "end"])
        #expect(rest == ["main", "--velocity", "1"])
        #expect(throws: UsageError.unknownCommand("frob", in: "segue gesture")) {
            try root.resolve(["gesture", "frob"])
        }
    }

    /// A required option is in the usage line, and leaving it out is a usage error (after the
    /// arguments', which come first on the line); `--help` still needs nothing.
    @Test func aRequiredOptionIsShownAndChecked() throws {
        let export = CommandConfiguration(
            name: "export", abstract: "e", arguments: [ArgumentSpec("file", help: "f")],
            options: [OptionSpec("data-dir", value: "dir", required: true, help: "d"), .flag("json", help: "j")])
        #expect(export.usage(path: "segue export") == "segue export <file> --data-dir <dir> [<options>]")
        #expect(throws: UsageError.missingArgument(export.arguments[0])) { try export.parse(["--json"]) }
        #expect(throws: UsageError("Missing expected option '--data-dir <dir>'.")) { try export.parse(["log"]) }
        #expect(try export.parse(["log", "--data-dir", "d"]).value(required: "data-dir") == "d")
        #expect(try export.parse(["--help"]).help)
    }

    @Test func helpListsUsageOptionsAndExamples() {
        var command = Self.push
        command.examples = ["segue push main Detail"]
        let help = command.help(path: "segue push")
        #expect(help.contains("USAGE: segue push <navigator> <screen> [<options>]"))
        #expect(help.contains("  --timeout <seconds>       t\n"))
        #expect(help.contains("  -o, --output <file>       o\n"))
        #expect(help.contains("EXAMPLES:\n  segue push main Detail\n"))
    }
}

/// Typed options: each value type's reader and its exact message.
@Suite struct TypedOptionTests {
    enum Mode: String, CaseIterable, ExpressibleByArgument { case fast, slow }

    static let command = CommandConfiguration(
        name: "t", abstract: "",
        options: [
            Option<Double>("ratio", value: "x", help: "").spec, Option<Count>("limit", value: "n", help: "").spec,
            Option<Seconds>("over", value: "s", help: "").spec, Option<Mode>("mode", value: "m", help: "").spec,
            Option<Int>("n", value: "n", repeats: true, help: "").spec,
        ])

    @Test(arguments: [
        (["--ratio", "-0.5"], "ratio", "-0.5"), (["--limit=0"], "limit", "0"), (["--over", "400ms"], "over", "0.4"),
        (["--mode", "slow"], "mode", "slow"),
    ])
    func valuesRead(argv: [String], option: String, expected: String) throws {
        let parsed = try Self.command.parse(argv)
        let read: String? =
            switch option {
            case "ratio": try parsed.value(Option<Double>("ratio", value: "x", help: "")).map { String($0) }
            case "limit": try parsed.value(Option<Count>("limit", value: "n", help: "")).map { String($0.value) }
            case "over": try parsed.value(Option<Seconds>("over", value: "s", help: "")).map { String($0.value) }
            default: try parsed.value(Option<Mode>("mode", value: "m", help: "")).map(\.rawValue)
            }
        #expect(read == expected)
    }

    @Test(arguments: [
        (["--ratio", "abc"], "The value 'abc' is invalid for '--ratio': expected a number."),
        (["--ratio", "inf"], "The value 'inf' is invalid for '--ratio': expected a finite number."),
        (["--ratio", "nan"], "The value 'nan' is invalid for '--ratio': expected a finite number."),
        (["--ratio", "fast"], "The value 'fast' is invalid for '--ratio': expected a number."),
        (["--limit", "-1"], "The value '-1' is invalid for '--limit': expected a non-negative integer."),
        (["--limit", "+1"], "The value '+1' is invalid for '--limit': expected a non-negative integer."),
        (
            ["--over", "0"],
            "The value '0' is invalid for '--over': expected a positive duration like 0.4, 0.4s or 400ms."
        ),
        (["--mode", "medium"], "The value 'medium' is invalid for '--mode': expected one of fast, slow."),
        (["--n", "1", "--n", "x"], "The value 'x' is invalid for '--n': expected an integer."),
    ])
    func badValuesHaveExactMessages(argv: [String], message: String) throws {
        let parsed = try Self.command.parse(argv)
        #expect(throws: UsageError(message)) {
            _ = try parsed.value(Option<Double>("ratio", value: "x", help: ""))
            _ = try parsed.value(Option<Count>("limit", value: "n", help: ""))
            _ = try parsed.value(Option<Seconds>("over", value: "s", help: ""))
            _ = try parsed.value(Option<Mode>("mode", value: "m", help: ""))
            _ = try parsed.values(Option<Int>("n", value: "n", repeats: true, help: ""))
        }
    }

    @Test func aChoiceOffersItsWordsForCompletion() {
        #expect(Option<Mode>("mode", value: "m", help: "").spec.completion == .list(["fast", "slow"]))
        #expect(Option<Double>("ratio", value: "x", help: "").spec.completion == .none)
    }
}
