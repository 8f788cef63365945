import Foundation
import SegueCore
import Testing

/// What users of comparable tools expect around the commands: help, completions, a man page, raw
/// requests, ping statistics, stats that update.
@Suite(.ownThreads, .serialized) struct CliToolTests {
    /// Runs `script` in `shell` and returns what it printed (stdout and stderr).
    static func shell(_ shell: String, _ script: String, options: [String] = []) throws -> (
        status: Int32, output: String
    ) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: shell)
        process.arguments = options + ["-c", script]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test(arguments: [["push"], ["gesture", "end"], ["log"], []])
    func helpCommandIsTheCommandsHelp(words: [String]) throws {
        let help = try Cli.run(["help"] + words)
        let flag = try Cli.run(words + ["--help"])
        #expect(help.status == 0)
        #expect(help.stdout == flag.stdout)
        #expect(help.stdout.contains("EXAMPLES:\n"), "every help has examples: \(help.stdout)")
        let unknown = try Cli.run(["help", "frob"])
        #expect(unknown.status == 64)
        #expect(unknown.stderr.hasPrefix("error: Unknown command 'frob'."))
    }

    /// `help --json` is what `--help` says, as one object: the same usage, options, subcommands and
    /// examples. `--man` is roff and takes no `--json`; nor does `completion`, whose output is a script.
    @Test(arguments: [["push"], ["gesture", "end"], ["gesture"], []])
    func helpAsJSONIsTheHelpAsData(words: [String]) throws {
        let result = try Cli.run(["help"] + words + ["--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let object = try JSON.parse(result.stdout)
        // Asked for as `--help --json`, the same object.
        let asked = try Cli.run(words + ["--help", "--json"])
        #expect(asked.status == 0 && asked.stdout == result.stdout, "\(asked.stdout)")
        let text = try Cli.run(words + ["--help"]).stdout
        #expect(object["command"]?.stringValue == (["segue"] + words).joined(separator: " "))
        let usage = try #require(object["usage"]?.stringValue)
        #expect(text.contains("\nUSAGE: \(usage)\n"), "\(usage)")
        let examples = (object["examples"]?.arrayValue ?? []).compactMap(\.stringValue)
        #expect(!examples.isEmpty)
        #expect(text.contains("EXAMPLES:\n" + examples.map { "  \($0)\n" }.joined() + "\n"), "\(text)")
        for option in object["options"]?.arrayValue ?? [] {
            let name = try #require(option["name"]?.stringValue)
            let help = try #require(option["help"]?.stringValue)
            #expect(text.contains(name) && text.contains(help), "\(name): \(help)")
        }
        let subcommands = (object["subcommands"]?.arrayValue ?? []).compactMap { $0["name"]?.stringValue }
        #expect(words == ["gesture"] ? subcommands == ["begin", "update", "finish", "cancel", "end"] : true)
        #expect(words.isEmpty ? subcommands.count > 20 : true)

        for refused in [["help", "--man", "--json"], ["completion", "bash", "--json"]] {
            let usage = try Cli.run(refused)
            #expect(usage.status == 64, "\(refused): \(usage.stdout)")
        }
    }

    /// The commands `segue --help` lists.
    static func commandNames() throws -> [String] {
        let section = try Cli.run(["--help"]).stdout.components(separatedBy: "SUBCOMMANDS:\n").last ?? ""
        return section.components(separatedBy: "EXAMPLES:").first?.split(separator: "\n")
            .compactMap { line -> String? in
                guard line.hasPrefix("  "), !line.hasPrefix("   "), !line.contains("See '") else { return nil }
                return line.split(separator: " ").first.map(String.init)
            } ?? []
    }

    /// Every command's help shows examples, `segue --help` included.
    @Test func everyHelpHasExamples() throws {
        let root = try Cli.run(["--help"])
        #expect(root.stdout.contains("EXAMPLES:\n"), "\(root.stdout)")
        let names = try Self.commandNames()
        #expect(names.count > 20, "\(names)")
        for name in names {
            let help = try Cli.run([name, "--help"])
            #expect(help.stdout.contains("EXAMPLES:\n"), "\(name): \(help.stdout.suffix(200)) \(help.stderr)")
        }
    }

    /// Completions from the command tree: commands, options, option values and positional arguments.
    static let completions: [(words: String, offered: String)] = [
        ("segue pu", "push"), ("segue gesture e", "end"), ("segue push main X --st", "--style"),
        ("segue push main X --style f", "fade flip"), ("segue swipe main pop --then c", "cancel"),
        ("segue swipe main p", "pop push present"), ("segue completion ''", "bash zsh fish"),
        ("segue export --data-dir d", "dir"), ("segue import --data-dir dir l", "log.jsonl"),
        ("segue watch a b --replay l", "log.jsonl"), ("segue help pu", "push"),
        ("segue timeline log.jsonl -o l", "log.jsonl"), ("segue export -o l", "log.jsonl"),
        ("segue gesture finish main --completion-curve easeI", "easeIn easeInOut"),
        ("segue gesture end main --animator-curve l", "linear"),
        ("segue swipe main pop --curve easeI", "easeIn easeInOut"), ("segue help gesture e", "end"),
        ("segue help gesture ''", "begin update finish cancel end"), ("segue help push ''", ""),
    ]

    @Test func bashLoadsTheCompletionAndItCompletes() throws {
        let directory = DaemonProcess.temporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory + "/dir", withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: directory + "/log.jsonl", contents: nil))
        let cases = Self.completions.map { "t \($0.words)\n" }.joined()
        let script = """
            cd \(directory)
            source <(\(Cli.binary) completion bash)
            complete -p segue
            t() { COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _segue; echo "$*: ${COMPREPLY[*]}"; }
            t segue ''
            \(cases)
            """
        let (status, output) = try Self.shell("/bin/bash", script)
        #expect(status == 0, "\(output)")
        #expect(output.contains("complete -F _segue segue"), "\(output)")
        for (words, offered) in Self.completions {
            let line = words.replacingOccurrences(of: "''", with: "") + ": " + offered + "\n"
            #expect(output.contains(line), "\(words): \(output)")
        }
        // Every command `--help` lists, and nothing else but --help.
        let commands = try #require(output.split(separator: "\n").first { $0.hasPrefix("segue : ") })
        #expect(commands.dropFirst(8).split(separator: " ").map(String.init) == (try Self.commandNames()) + ["--help"])
    }

    /// An interactive zsh in a tmux session, with compinit and `zshrc` after it (and `fpath` before it),
    /// `segue` on its path; returns the session once the prompt shows.
    static func zsh(in directory: String, fpath: String? = nil, zshrc: String = "") throws -> String {
        let functions = fpath.map { "fpath=(\($0) $fpath)\n" } ?? ""
        try ("PS1='%% '\n" + functions + "autoload -U compinit && compinit -u\n" + zshrc + "\n").write(
            toFile: directory + "/.zshrc", atomically: true, encoding: .utf8)
        let session = "segue-zsh-\(getpid())-\(UUID().uuidString.prefix(6))"
        _ = try CliWatchTests.tmux([
            "new-session", "-d", "-s", session, "-x", "120", "-y", "20",
            "env PATH=\(DaemonProcess.productsDirectory.path):/usr/bin:/bin ZDOTDIR=\(directory) zsh -i",
        ])
        _ = try CliWatchTests.capture(session) { $0.contains("% ") }
        return session
    }

    /// zsh, typed into a real terminal: Tab completes from the script `segue completion zsh` loads.
    @Test(
        .enabled(
            if: FileManager.default.fileExists(atPath: "/usr/bin/zsh"), "zsh is not installed (.ci/run installs it)"))
    func zshLoadsTheCompletion() throws {
        let directory = DaemonProcess.temporaryDirectory()
        let session = try Self.zsh(in: directory, zshrc: "source <(segue completion zsh)")
        defer { _ = try? CliWatchTests.tmux(["kill-session", "-t", session]) }
        for (words, offered) in [
            ("segue gesture e", "% segue gesture end"), ("segue completion ", "bash  fish  zsh"),
            ("segue push main X --style f", "fade  flip"),
        ] {
            _ = try CliWatchTests.tmux(["send-keys", "-t", session, "C-u", words, "Tab"])
            let pane = try CliWatchTests.capture(session) { $0.contains(offered) }
            #expect(pane.contains(offered), "\(words): \(pane)")
        }
    }

    /// Installed where zsh autoloads it (`make install`: site-functions/_segue), the script completes
    /// the very first Tab of a shell, not only the ones after it.
    @Test(
        .enabled(
            if: FileManager.default.fileExists(atPath: "/usr/bin/zsh"), "zsh is not installed (.ci/run installs it)"))
    func zshAutoloadedCompletesTheFirstTab() throws {
        let directory = DaemonProcess.temporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory + "/functions", withIntermediateDirectories: true)
        try Cli.run(["completion", "zsh"]).stdout.write(
            toFile: directory + "/functions/_segue", atomically: true, encoding: .utf8)
        let session = try Self.zsh(in: directory, fpath: directory + "/functions")
        defer { _ = try? CliWatchTests.tmux(["kill-session", "-t", session]) }
        _ = try CliWatchTests.tmux(["send-keys", "-t", session, "segue pu", "Tab"])
        let pane = try CliWatchTests.capture(session) { $0.contains("% segue push") }
        #expect(pane.contains("% segue push"), "the first Tab: \(pane)")
    }

    /// fish completes each command line as bash does (`complete -C` asks it what Tab would offer),
    /// after a global option's value too.
    @Test(
        .enabled(
            if: FileManager.default.fileExists(atPath: "/usr/bin/fish"), "fish is not installed (.ci/run installs it)"))
    func fishLoadsTheCompletionAndItCompletes() throws {
        let directory = DaemonProcess.temporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory + "/dir", withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: directory + "/log.jsonl", contents: nil))
        let cases =
            Self.completions + [
                ("segue --endpoint tcp://127.0.0.1:7400 pu", "push"), ("segue --json gesture e", "end"),
                ("segue swipe main pop --then c", "cancel"), ("segue push pop X --style f", "fade flip"),
            ]
        let lines = cases.map { words, _ in
            let typed = words.replacingOccurrences(of: "''", with: "")
            return "echo '== \(typed)'; complete -C '\(typed)'"
        }
        let script = "cd \(directory); \(Cli.binary) completion fish | source; " + lines.joined(separator: "; ")
        let (status, output) = try Self.shell("/usr/bin/fish", script, options: ["--no-config"])
        #expect(status == 0, "\(output)")
        // What fish offered for each line: the words before each tab, directories without their slash.
        var offered: [String: Set<String>] = [:]
        var current = ""
        for line in output.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("== ") {
                current = String(line.dropFirst(3))
                offered[current] = []
            } else if let word = line.split(separator: "\t").first, !word.isEmpty {
                offered[current, default: []].insert(String(word.hasSuffix("/") ? word.dropLast() : word))
            }
        }
        for (words, expected) in cases {
            let typed = words.replacingOccurrences(of: "''", with: "")
            #expect(offered[typed] == Set(expected.split(separator: " ").map(String.init)), "\(typed): \(output)")
        }
    }

    @Test func fishCompletionNamesEveryCommand() throws {
        let fish = try Cli.run(["completion", "fish"])
        #expect(fish.status == 0)
        for name in ["push", "watch", "raw", "completion"] {
            #expect(fish.stdout.contains("-a \(name) "), "\(name)")
        }
        #expect(fish.stdout.contains("__segue_at \"completion\"' -a 'bash zsh fish'"), "\(fish.stdout)")
        #expect(fish.stdout.contains("-l style -r -f -a 'slide cover "), "\(fish.stdout)")
        #expect(try Cli.run(["completion", "tcsh"]).status == 64)
    }

    @Test(
        .enabled(
            if: FileManager.default.fileExists(atPath: "/usr/bin/man"), "man is not installed (.ci/run installs it)"))
    func theManPageRenders() throws {
        let page = DaemonProcess.temporaryDirectory() + "/segue.1"
        try Cli.run(["help", "--man"]).stdout.write(toFile: page, atomically: true, encoding: .utf8)
        let (status, output) = try Self.shell("/bin/sh", "MANWIDTH=100 man -l \(page) 2>&1 | col -b")
        #expect(status == 0, "\(output)")
        #expect(output.contains("segue - Drive and observe segued"), "\(output.prefix(400))")
        #expect(output.contains("segue push <navigator> <screen> [<options>]"), "\(output.prefix(400))")
        #expect(output.contains("EXIT STATUS"))
        #expect(!output.contains("warning"), "\(output)")
    }

    /// `make install`'s staging step puts the generated man page where `man` finds it and the
    /// completions where bash, zsh and fish look for them.
    @Test(
        .enabled(
            if: FileManager.default.fileExists(atPath: "/usr/bin/man"), "man is not installed (.ci/run installs it)"))
    func installPutsTheManPageAndCompletionsInPlace() throws {
        let stage = DaemonProcess.temporaryDirectory() + "/stage"
        let install = try ChildProcess.run(
            [
                "make", "-s", "-C", BootedSystemd.repositoryRoot, "install-built",
                "BUILT=\(DaemonProcess.productsDirectory.path)", "DESTDIR=\(stage)",
            ], timeout: .seconds(120))
        #expect(install.status == 0, "\(install.output)")
        let share = stage + "/usr/local/share"
        let (status, page) = try Self.shell("/bin/sh", "MANWIDTH=100 man -M \(share)/man segue 2>&1 | col -b")
        #expect(status == 0 && page.contains("segue - Drive and observe segued"), "\(page.prefix(300))")
        let bash = try Self.shell("/bin/bash", "source \(share)/bash-completion/completions/segue; complete -p segue")
        #expect(bash.output.contains("complete -F _segue segue"), "\(bash.output)")
        for file in ["zsh/site-functions/_segue", "fish/vendor_completions.d/segue.fish", "doc/segue/cli.md"] {
            #expect(FileManager.default.fileExists(atPath: share + "/" + file), "\(file)")
        }
        // The installed README's pictures are where it points (the docs are installed flat).
        let docs = share + "/doc/segue/"
        let readme = try String(contentsOfFile: docs + "README.md", encoding: .utf8)
        let pictures = readme.split(separator: "](").compactMap { $0.split(separator: ")").first }.filter {
            $0.hasSuffix(".png")
        }
        #expect(pictures.count >= 2, "\(pictures)")
        for picture in pictures {
            #expect(FileManager.default.fileExists(atPath: docs + picture), "\(picture)")
        }
    }

    @Test func rawSendsRequestsAndPrintsReplies() throws {
        let d = try DaemonProcess()
        defer { d.stop() }
        let one = try Cli.run(["raw", #"{"cmd": "create", "navigator": "main", "root": {"name": "Home"}}"#], daemon: d)
        #expect(one.status == 0, "\(one.stderr)")
        #expect(try JSON.parse(one.stdout.trimmingCharacters(in: .newlines))["revision"] == 1)
        let lines = try Cli.run(["raw"], daemon: d, stdin: "state main\n{\"cmd\": \"pop\", \"navigator\": \"main\"}\n")
        #expect(lines.status == 1, "the pop of the root is refused")
        let replies = try lines.stdout.split(separator: "\n").map { try JSON.parse(String($0)) }
        #expect(replies.count == 2)
        #expect(replies.first?["stack"]?.arrayValue?.count == 1)
        #expect(replies.last?["error"]?["code"] == "cannot_pop_root")
        // A refusal printed as the daemon sent it: `ok`, then `id`, then `error`.
        let refused = try Cli.run(["raw", #"{"cmd": "bogus", "id": "x"}"#], daemon: d)
        #expect(refused.stdout.hasPrefix(#"{"ok":false,"id":"x","error":{"code":"#), "\(refused.stdout)")
        // A line that does not parse is said with its number, on stderr and in its place on stdout
        // (reply N answers line N); the lines after it still go (64 at the end).
        for json in [false, true] {
            let mixed = try Cli.run(["raw"] + (json ? ["--json"] : []), daemon: d, stdin: "{bad\n[]\nstate main\n")
            #expect(mixed.status == 64)
            let out = try mixed.stdout.split(separator: "\n").map { try JSON.parse(String($0)) }
            #expect(out.map { $0["error"]?["code"]?.stringValue } == ["usage", "usage", nil], "\(mixed.stdout)")
            #expect(out.last?["navigator"] == "main", "state main was sent: \(mixed.stdout)")
        }
        let mixed = try Cli.run(["raw"], daemon: d, stdin: "{bad\n[]\nstate main\n")
        #expect(mixed.stderr.hasPrefix("segue raw: line 1: The value '{bad' is invalid"), "\(mixed.stderr)")
        #expect(mixed.stderr.contains("segue raw: line 2: The value '[]' is invalid"), "\(mixed.stderr)")
        #expect(mixed.stderr.contains("error: 2 lines of stdin did not parse: 1, 2."), "\(mixed.stderr)")
        // Many: each with its reason, and a summary that names the first ten.
        let many = try Cli.run(["raw"], daemon: d, stdin: String(repeating: "[]\n", count: 25))
        #expect(many.stderr.contains("segue raw: line 25: The value '[]' is invalid"), "\(many.stderr)")
        #expect(
            many.stderr.hasSuffix(
                "error: 25 lines of stdin did not parse: 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 and 15 more, each said above.\n"),
            "\(many.stderr)")
    }

    /// `segue raw` on a terminal: a prompt whose lines ↑ recalls and `history` lists, kept for the
    /// next session, Ctrl-C dropping a line typed, and the terminal as it was after Ctrl-D.
    @Test func rawOnATerminalIsAPromptWithHistory() throws {
        let d = try DaemonProcess()
        defer { d.stop() }
        let directory = DaemonProcess.temporaryDirectory()
        let session = try CliWatchLayoutTests.start(
            "raw; echo $? > \(directory)/status; stty -a > \(directory)/stty; sleep 10", columns: 150, rows: 30,
            daemon: d,
            environment: "SEGUE_HISTORY=\(directory)/history")
        defer { _ = try? CliWatchTests.tmux(["kill-session", "-t", session]) }
        _ = try CliWatchTests.capture(session) { $0.contains("segue> ") }
        _ = try CliWatchTests.tmux(["send-keys", "-t", session, "create main root=Home", "Enter"])
        _ = try CliWatchTests.capture(session) { $0.contains(#""revision":1"#) }
        _ = try CliWatchTests.tmux(["send-keys", "-t", session, "state main", "Enter"])
        _ = try CliWatchTests.capture(session) { $0.contains(#""stack":["#) }
        // Up twice: the create again, refused now that main exists.
        _ = try CliWatchTests.tmux(["send-keys", "-t", session, "Up", "Up", "Enter"])
        let again = try CliWatchTests.capture(session) { $0.contains(#""ok":false"#) }
        #expect(again.contains(#""code":"navigator_exists""#), "\(again)")
        _ = try CliWatchTests.tmux(["send-keys", "-t", session, "history", "Enter"])
        let listed = try CliWatchTests.capture(session) { $0.contains("3  create main root=Home") }
        #expect(listed.contains("1  create main root=Home\n2  state main\n3  create main root=Home"), "\(listed)")
        // Ctrl-C on a line drops it, marked, and the session goes on.
        _ = try CliWatchTests.tmux(["send-keys", "-t", session, "state nowhere", "C-c"])
        let dropped = try CliWatchTests.capture(session) { $0.contains("segue> state nowhere^C\nsegue> ") }
        #expect(!dropped.contains("unknown_navigator"), "the line was not sent: \(dropped)")
        _ = try CliWatchTests.tmux(["send-keys", "-t", session, "C-d"])
        let settings = CliWatchLayoutTests.terminalSettings(directory + "/stty")
        #expect(settings.isSuperset(of: ["icanon", "echo", "isig"]), "raw mode undone: \(settings)")
        let kept = try String(contentsOfFile: directory + "/history", encoding: .utf8)
        #expect(kept == "create main root=Home\nstate main\ncreate main root=Home\n")
        let status = try String(contentsOfFile: directory + "/status", encoding: .utf8)
        #expect(status == "1\n", "a reply was ok: false, as from stdin")
    }

    /// The prompt goes on after any failure, and its status at the end is stdin's: no answer over a
    /// line that did not parse over a refusal, whichever came first.
    @Test(arguments: [
        (["state nowhere", "{bad", "ping"], false, Int32(64)),
        (["{bad", "ping", "state nowhere"], true, Int32(3)),
    ])
    func thePromptEndsWithTheStatusOfItsWorstFailure(lines: [String], silent: Bool, status: Int32) throws {
        let d = try DaemonProcess()
        defer { d.stop() }
        let directory = DaemonProcess.temporaryDirectory()
        // Nothing listens at port 1: each request there waits out the timeout.
        let endpoint = silent ? "--endpoint tcp://127.0.0.1:1 --timeout 300ms" : ""
        let session = try CliWatchLayoutTests.start(
            "raw \(endpoint); echo $? > \(directory)/status; sleep 10", columns: 150, rows: 30, daemon: d,
            environment: "SEGUE_HISTORY=")
        defer { _ = try? CliWatchTests.tmux(["kill-session", "-t", session]) }
        // Each line once the prompt before it is drawn (its reply or error came).
        let prompts = { (count: Int) in
            _ = try CliWatchTests.capture(session) { $0.components(separatedBy: "segue>").count > count }
        }
        for (index, line) in lines.enumerated() {
            try prompts(index + 1)
            _ = try CliWatchTests.tmux(["send-keys", "-t", session, "-l", line])
            _ = try CliWatchTests.tmux(["send-keys", "-t", session, "Enter"])
        }
        try prompts(lines.count + 1)
        _ = try CliWatchTests.tmux(["send-keys", "-t", session, "C-d"])
        var written = ""
        for _ in 0..<200 where written.isEmpty {
            usleep(20_000)
            written = (try? String(contentsOfFile: directory + "/status", encoding: .utf8)) ?? ""
        }
        let pane = try CliWatchTests.capture(session) { _ in true }
        #expect(written == "\(status)\n", "\(pane)")
    }

    /// Ctrl-Z at the prompt stops `segue raw` as a job, the terminal cooked for the shell; `fg`
    /// gives the prompt back with the line typed, still raw (Enter sends it). With stderr sent to a
    /// file, the prompt and the echo are on the terminal (stdout) rather than typed blind.
    @Test func ctrlZStopsThePromptAndFgResumesIt() throws {
        let d = try DaemonProcess()
        defer { d.stop() }
        let directory = DaemonProcess.temporaryDirectory()
        let session = "segue-raw-tstp-\(getpid())"
        _ = try CliWatchTests.tmux([
            "new-session", "-d", "-s", session, "-x", "120", "-y", "24", "bash --norc --noprofile",
        ])
        defer { _ = try? CliWatchTests.tmux(["kill-session", "-t", session]) }
        let command = "\(Cli.binary) raw --endpoint \(d.commandEndpoint) 2>\(directory)/stderr"
        _ = try CliWatchTests.tmux(["send-keys", "-t", session, command, "Enter"])
        _ = try CliWatchTests.capture(session) { $0.contains("segue> ") }
        _ = try CliWatchTests.tmux(["send-keys", "-t", session, "ping", "C-z"])
        let stopped = try CliWatchTests.capture(session, tries: 500) { $0.contains("Stopped") }
        #expect(stopped.contains("segue> ping"), "typed on the terminal, not blind: \(stopped)")
        _ = try CliWatchTests.tmux(["send-keys", "-t", session, "stty -a > \(directory)/stty", "Enter"])
        let settings = CliWatchLayoutTests.terminalSettings(directory + "/stty")
        #expect(settings.isSuperset(of: ["icanon", "echo", "isig"]), "cooked while stopped: \(settings)")
        _ = try CliWatchTests.tmux(["send-keys", "-t", session, "fg", "Enter"])
        // The line again, drawn below what the shell wrote.
        let resumed = try CliWatchTests.capture(session, tries: 500) {
            $0.components(separatedBy: "segue> ping").count == 3
        }
        #expect(resumed.components(separatedBy: "segue> ping").count == 3, "\(resumed)")
        _ = try CliWatchTests.tmux(["send-keys", "-t", session, "Enter"])
        let answered = try CliWatchTests.capture(session, tries: 500) { $0.contains(#""ok":true"#) }
        #expect(answered.contains(#""ok":true"#), "\(answered)")
        _ = try CliWatchTests.tmux(["send-keys", "-t", session, "C-d"])
    }

    @Test func pingCountPrintsRoundTripStatistics() throws {
        let d = try DaemonProcess()
        defer { d.stop() }
        let result = try Cli.run(["ping", "--count", "3", "--interval", "50ms"], daemon: d)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.filter { $0.hasPrefix("reply from \(d.commandEndpoint): sequence=") }.count == 3)
        #expect(result.stdout.contains("3 sent, 3 received, 0% lost\n"))
        #expect(lines.dropLast().last?.hasPrefix("round-trip min/avg/max = ") == true, "\(result.stdout)")
        #expect(lines.last?.hasPrefix("clock offset = ") == true, "\(result.stdout)")
        #expect(lines.filter { $0.contains(" offset=") }.count == 3, "each reply's offset: \(result.stdout)")
        let json = try Cli.run(["ping", "-c", "2", "-i", "10ms", "--json"], daemon: d)
        let summary = try JSON.parse(String(json.stdout.split(separator: "\n").last ?? ""))
        #expect(summary["sent"] == 2 && summary["received"] == 2)
        #expect((summary["min"]?.doubleValue ?? -1) <= (summary["max"]?.doubleValue ?? -2))
    }

    /// `ping --count N` estimates the daemon's clock offset by Cristian's method. On one host both
    /// clocks are the same clock, so the true offset is 0 and the estimate must be within its own
    /// error bound (half the best round trip), however slow the machine; the bound is the best
    /// of the N round trips.
    @Test func pingCountEstimatesTheClockOffsetWithinHalfTheBestRoundTrip() throws {
        let d = try DaemonProcess()
        defer { d.stop() }
        let result = try Cli.run(["ping", "--count", "5", "--interval", "10ms", "--json"], daemon: d)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = try result.stdout.split(separator: "\n").map { try JSON.parse(String($0)) }
        try #require(lines.count == 6, "\(result.stdout)")
        let summary = lines[5]
        let replies = lines.prefix(5)
        #expect(replies.allSatisfy { $0["clock"]?.int64Value != nil && $0["offset"]?.doubleValue != nil })
        let offset = try #require(summary["offset"]?.doubleValue, "\(result.stdout)")
        let error = try #require(summary["offsetError"]?.doubleValue)
        let best = try #require(summary["offsetRoundTrip"]?.doubleValue)
        // Printed to the microsecond: a microsecond of slack for the rounding of each.
        #expect(abs(offset) <= error + 0.002, "\(result.stdout)")
        #expect(abs(best / 2 - error) <= 0.002)
        #expect(best <= (summary["min"]?.doubleValue ?? 0) + 0.002, "the best sample's round trip is the least")
        // The offset is the best sample's: its reply line says the same.
        #expect(
            replies.contains { $0["time"]?.doubleValue == best && $0["offset"]?.doubleValue == offset },
            "\(result.stdout)")
    }

    @Test func statsWatchPrintsAgainEachInterval() throws {
        let d = try DaemonProcess()
        defer { d.stop() }
        let watcher = try CliBackground(
            ["stats", "--watch", "0.2", "--endpoint", d.commandEndpoint])
        #expect(watcher.wait { $0.components(separatedBy: "\n--- ").count >= 3 }, "\(watcher.stdout)")
        watcher.process.terminate()
        watcher.finish()
        #expect(watcher.stdout.contains("\ncommands\t"), "\(watcher.stdout.prefix(300))")
    }

    /// On a terminal the counters are redrawn in place under a header, like top(1); on one too short
    /// for them all, those that do not fit are cut rather than scrolled through at each redraw.
    @Test(arguments: [(50, 100), (15, 100), (10, 40)])
    func statsWatchRedrawsInPlaceOnATerminal(rows: Int, columns: Int) throws {
        let d = try DaemonProcess()
        defer { d.stop() }
        let session = try CliWatchLayoutTests.start("stats --watch 0.2", columns: columns, rows: rows, daemon: d)
        defer { _ = try? CliWatchTests.tmux(["kill-session", "-t", session]) }
        // The whole screen: on a short terminal, down to the line that says what was cut.
        let first = try CliWatchTests.capture(session) {
            $0.contains("\ncommands") && (rows >= 40 || $0.contains(" more (a taller terminal"))
        }
        try Cli.run(["create", "main", "Home"], daemon: d)
        let later = try CliWatchTests.capture(session) { $0.contains(/\nevents +1\n/) }
        #expect(later.contains(/\nevents +1\n/), "\(later)")
        // The values in one column, under the longest name.
        let starts = Set(
            CliWatchLayoutTests.lines(later).dropFirst(2).filter { !$0.hasPrefix("…") && !$0.isEmpty }.compactMap {
                line in line.firstRange(of: #/  +\S/#).map { line.distance(from: line.startIndex, to: $0.upperBound) }
            })
        #expect(starts.count == 1, "\(later)")
        for pane in [first, later] {
            #expect(pane.hasPrefix("segue stats --watch 0.2  "), "\(pane)")
            #expect(pane.components(separatedBy: "\ncommands").count == 2, "one set of counters: \(pane)")
            #expect(pane.contains(" more (a taller terminal") == (rows < 40), "\(pane)")
            // No line wraps: each within the width, and no more lines than the terminal has.
            let shown = CliWatchLayoutTests.lines(pane).filter { !$0.isEmpty }
            #expect(shown.allSatisfy { $0.count <= columns } && shown.count <= rows, "\(pane)")
        }
    }

    /// A slow replay shows where it is on a terminal's stderr, and nothing of it when piped.
    @Test func aSlowReplayShowsProgressOnATerminalOnly() throws {
        let d = try DaemonProcess()
        try Cli.run(["create", "main", "Home"], daemon: d)
        try Cli.run(["push", "main", "Detail", "--duration", "0.4", "--wait"], daemon: d)
        d.stop()
        let endpoint = "tcp://127.0.0.1:\(DaemonProcess.freePort())"
        let session = "segue-progress-\(getpid())"
        _ = try CliWatchTests.tmux([
            "new-session", "-d", "-s", session, "-x", "100", "-y", "10",
            "\(Cli.binary) replay '\(d.logLocation)' --publish \(endpoint) --speed 0.25; sleep 5",
        ])
        defer { _ = try? CliWatchTests.tmux(["kill-session", "-t", session]) }
        let pane = try CliWatchTests.capture(session, tries: 200) { $0.contains("replaying: seq ") }
        #expect(pane.contains("replaying: seq "), "\(pane)")
        let done = try CliWatchTests.capture(session, tries: 400) { $0.contains("Replayed ") }
        #expect(!done.contains("replaying: seq"), "erased when done: \(done)")
        let piped = try Cli.run(["replay", d.logLocation, "--publish", endpoint, "--speed", "4"])
        #expect(piped.stderr.hasPrefix("Replayed "), "\(piped.stderr)")
    }

    /// `verify`, `import` and `export` of a large log (5,000 events) each show a progress line on a
    /// terminal's stderr, erased when done; piped, stderr has the result only.
    @Test func verifyImportAndExportShowProgressOnATerminal() throws {
        let d = try DaemonProcess()
        try Cli.run(["create", "main", "Home"], daemon: d)
        d.stop()
        let first = String(
            try Cli.run(["export", "--data-dir", d.logLocation]).stdout.split(separator: "\n").first ?? "")
        let command = try #require(try JSON.parse(first)["command"]?.stringValue)
        let file = d.dataDir + "/big.jsonl"
        func log(_ count: Int) throws -> [String] {
            let lines = (1...count).map { k in
                first.replacingOccurrences(
                    of: #""seq":1,"navigator":"main""#, with: #""seq":\#(k),"navigator":"n\#(k)""#
                ).replacingOccurrences(of: #""command":"\#(command)""#, with: #""command":"c\#(k)""#)
            }
            try (lines.joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)
            return lines
        }
        // Enough events that each command outlasts the progress line's first 100 ms: 5,000 in a debug
        // build; more when `verify` (the quickest of the three) gets through them in under 300 ms,
        // as a release build does (SEGUE_TEST_BINARIES).
        var lines = try log(5_000)
        let clock = ContinuousClock()
        let took = try clock.measure { _ = try Cli.run(["verify", file]) }
        if took < .milliseconds(300) {
            let seconds = max(Double(took.components.attoseconds) / 1e18 + Double(took.components.seconds), 0.001)
            lines = try log(min(100_000, Int(5_000 * 0.5 / seconds)))
        }
        let target = DaemonProcess.temporaryDirectory() + "/big"
        let copy = target + ".jsonl"
        let session = "segue-progress-\(getpid())-store"
        let commands = [
            "verify \(file)", "import --data-dir \(target) \(file)", "export --data-dir \(target) -o \(copy)",
            "verify --data-dir \(target)",
            "timeline \(file) --navigator n1 -o \(target).svg",
        ]
        // Everything the terminal is sent, kept: a line drawn and erased between two looks at the
        // screen is still in it. The commands start once the recording is on.
        let recording = d.dataDir + "/terminal.txt"
        let started = d.dataDir + "/recording"
        _ = try CliWatchTests.tmux([
            "new-session", "-d", "-s", session, "-x", "150", "-y", "10",
            "while [ ! -e \(started) ]; do sleep 0.05; done; "
                + commands.map { "\(Cli.binary) \($0)" }.joined(separator: "; ") + "; echo all-done; sleep 10",
        ])
        defer { _ = try? CliWatchTests.tmux(["kill-session", "-t", session]) }
        _ = try CliWatchTests.tmux(["pipe-pane", "-t", session, "-o", "cat >> \(recording)"])
        #expect(FileManager.default.createFile(atPath: started, contents: nil))
        let done = try CliWatchTests.capture(session, tries: 6000) { $0.contains("all-done") }
        let sent = (try? String(contentsOfFile: recording, encoding: .utf8)) ?? ""
        for label in [
            "verifying: event ", "import: checking \(file)'s event ", "exporting: event ",
            "looking through \(file): seq ", "reading \(file): seq ",
        ] {
            #expect(sent.contains(label), "\(label): \(sent.suffix(2_000))")
        }
        // A log knows its length, a file does not.
        #expect(sent.contains(try Regex("verifying: event [0-9]+ of \(lines.count) \\(")), "\(sent.suffix(2_000))")
        #expect(!done.contains("event "), "erased when done: \(done)")
        #expect(done.contains("Exported \(lines.count) events to \(copy)."), "\(done)")
        #expect(try String(contentsOfFile: copy, encoding: .utf8) == lines.joined(separator: "\n") + "\n")
        let piped = try Cli.run(["verify", file])
        #expect(
            piped.stderr.isEmpty
                && piped.stdout == "\(file): ok, \(lines.count) events, \(lines.count) navigators.\n")
    }
}
