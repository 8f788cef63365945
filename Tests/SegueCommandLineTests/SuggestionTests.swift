import Testing

@testable import SegueCommandLine

/// "Did you mean": a mistyped command or option names the one it is close to, as git does.
@Suite struct SuggestionTests {
    static let tool = CommandConfiguration(
        name: "segue", abstract: "a",
        subcommands: [
            CommandConfiguration(
                name: "push", abstract: "p", arguments: [ArgumentSpec("navigator", help: "n")],
                options: [
                    .flag("wait", help: "w"), .flag("json", help: "j"), OptionSpec("style", value: "s", help: "s"),
                ]
            ),
            CommandConfiguration(name: "pop", abstract: "p"), CommandConfiguration(name: "present", abstract: "p"),
            CommandConfiguration(name: "ls", abstract: "l"), CommandConfiguration(name: "log", abstract: "l"),
            CommandConfiguration(
                name: "gesture", abstract: "g",
                subcommands: [
                    CommandConfiguration(name: "begin", abstract: "b"),
                    CommandConfiguration(name: "end", abstract: "e"),
                ]),
        ],
        globalOptions: [OptionSpec("endpoint", value: "e", help: "e"), OptionSpec("timeout", value: "t", help: "t")])

    @Test(arguments: [
        (["pus", "main"], "Unknown command 'pus'. Did you mean 'push'?", "segue"),
        (["psuh", "main"], "Unknown command 'psuh'. Did you mean 'push'?", "segue"),
        (["presnet"], "Unknown command 'presnet'. Did you mean 'present'?", "segue"),
        (["pres"], "Unknown command 'pres'. Did you mean 'present'?", "segue"),
        (["gesture", "bgin", "main"], "Unknown command 'bgin'. Did you mean 'begin'?", "segue gesture"),
        (["push", "main", "--wiat"], "Unknown option '--wiat'. Did you mean '--wait'?", ""),
        (["push", "main", "--styel=fade"], "Unknown option '--styel=fade'. Did you mean '--style'?", ""),
        (["push", "main", "--hepl"], "Unknown option '--hepl'. Did you mean '--help'?", ""),
        // As near as `ls` and `log` but the start of `log` only: log.
        (["lo"], "Unknown command 'lo'. Did you mean 'log'?", "segue"),
        // Two as near (`lg`: ls and log), nothing near, a letter that starts two names: no guess.
        (["lg"], "Unknown command 'lg'.", "segue"), (["frob"], "Unknown command 'frob'.", "segue"),
        (["l"], "Unknown command 'l'.", "segue"), (["p"], "Unknown command 'p'.", "segue"),
        (["push", "main", "--frob"], "Unknown option '--frob'.", ""),
        (["push", "main", "-z"], "Unknown option '-z'.", ""),
        // Before the command: the global options are guessed from too.
        (["--endpont", "x", "push", "main"], "Unknown option '--endpont'. Did you mean '--endpoint'?", "segue"),
        (
            ["gesture", "--timout=3", "begin"], "Unknown option '--timout=3'. Did you mean '--timeout'?",
            "segue gesture"
        ),
        (["--frob", "push"], "Unknown option '--frob'.", "segue"),
    ])
    func suggestion(argv: [String], message: String, command: String) {
        do {
            let (path, rest) = try Self.tool.resolve(argv)
            _ = try path.last!.parse(rest)
            Issue.record("\(argv) parsed")
        } catch {
            #expect(error == UsageError(message, command: command))
        }
    }

    @Test(arguments: [
        ("wiat", "wait", 1), ("pus", "push", 1), ("push", "push", 0), ("ab", "ba", 1), ("ca", "abc", 3),
        ("", "abc", 3), ("kitten", "sitting", 3),
    ])
    func distance(a: String, b: String, expected: Int) {
        #expect(UsageError.distance(Array(a), Array(b)) == expected)
    }
}
