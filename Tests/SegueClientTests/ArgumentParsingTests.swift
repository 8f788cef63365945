import SegueCore
import Testing

@testable import SegueClient

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

/// The value forms: curves, durations, parameters.
@Suite struct ArgumentValueTests {
    static let curveCases: [(String, JSON)] = [
        ("easeInOut", JSON.string("easeInOut")),
        ("bezier:0.25,0.1,0.25,1", ["bezier": [0.25, 0.1, 0.25, 1.0]]),
        ("spring:0.7,0.2", ["spring": ["dampingRatio": 0.7, "initialVelocity": 0.2]]),
        ("spring:1,100,10,0", ["spring": ["mass": 1.0, "stiffness": 100.0, "damping": 10.0, "initialVelocity": 0.0]]),
        ("spring-response:0.5,0.8", ["spring": ["response": 0.5, "dampingFraction": 0.8]]),
    ]

    @Test(arguments: curveCases)
    func curves(text: String, json: JSON) throws {
        #expect(try ArgumentValues.curve(text, for: "--curve") == json)
        // What the CLI builds, the core accepts.
        _ = try TimingCurve(json: json)
    }

    @Test(arguments: ["wobbly", "bezier:1,2,3", "spring:1", "spring-response:a,b", "bezier:"])
    func badCurves(text: String) {
        let expectation =
            "expected linear, easeIn, easeOut, easeInOut, default, bezier:x1,y1,x2,y2, spring:dampingRatio,velocity, "
            + "spring:mass,stiffness,damping,velocity or spring-response:response,dampingFraction"
        #expect(throws: UsageError.invalidValue(text, for: "--curve", expectation)) {
            try ArgumentValues.curve(text, for: "--curve")
        }
    }

    @Test(arguments: [("0.4", 0.4), ("0.4s", 0.4), ("400ms", 0.4), ("2", 2.0)])
    func seconds(text: String, value: Double) throws {
        #expect(abs(try ArgumentValues.seconds(text, for: "--over") - value) < 1e-12)
    }

    @Test(arguments: ["0", "-1", "soon", "1h", ""])
    func badSeconds(text: String) {
        #expect(
            throws: UsageError(
                "The value '\(text)' is invalid for '--over': expected a positive duration like 0.4, 0.4s or 400ms.")
        ) {
            try ArgumentValues.seconds(text, for: "--over")
        }
    }

    @Test(arguments: [
        ("id=42", "id", JSON.int(42)), ("title=Hello", "title", .string("Hello")), ("flag=true", "flag", .bool(true)),
        ("tags=[\"a\"]", "tags", JSON.array(["a"])), ("quoted=\"7\"", "quoted", .string("7")),
        ("empty=", "empty", .string("")), ("eq=a=b", "eq", .string("a=b")),
    ])
    func parameters(text: String, key: String, value: JSON) throws {
        let (k, v) = try ArgumentValues.parameter(text, for: "--param")
        #expect(k == key)
        #expect(v == value)
    }

    @Test(arguments: ["novalue", "=x"])
    func badParameters(text: String) {
        #expect(throws: UsageError("The value '\(text)' is invalid for '--param': expected key=value.")) {
            try ArgumentValues.parameter(text, for: "--param")
        }
    }
}
