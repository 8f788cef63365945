import Foundation
import Testing

/// Completion of command lines as typed: paths with blanks, directories to Tab into, an endpoint's
/// `:`, an option's free value.
extension CliToolTests {
    /// The files the cases complete among.
    static func completionDirectory() throws -> String {
        let directory = DaemonProcess.temporaryDirectory()
        for name in ["data dir", "d2", "repl-audit-files/sub"] {
            try FileManager.default.createDirectory(
                atPath: directory + "/" + name, withIntermediateDirectories: true)
        }
        for name in ["my log.jsonl", "plain.jsonl", "a:b.json"] {
            #expect(FileManager.default.createFile(atPath: directory + "/" + name, contents: nil))
        }
        return directory
    }

    /// The words bash hands a completion function for `line` typed up to the cursor: broken at blanks
    /// outside quotes, and a run of `:` or `=` (in COMP_WORDBREAKS) a word of its own.
    static func bashWords(_ line: String) -> [String] {
        var words: [String] = []
        var word = ""
        var quote: Character?
        var escaped = false
        var breaking = false
        for c in line {
            if escaped {
                word.append(c)
                escaped = false
            } else if let open = quote {
                word.append(c)
                if c == open { quote = nil }
            } else if c == " " {
                if !word.isEmpty { words.append(word) }
                word = ""
            } else {
                let isBreak = c == ":" || c == "="
                if isBreak != breaking, !word.isEmpty {
                    words.append(word)
                    word = ""
                }
                breaking = isBreak
                word.append(c)
                if c == "\\" { escaped = true } else if c == "'" || c == "\"" { quote = c }
                continue
            }
            breaking = false
        }
        return words + [word]
    }

    /// Each line typed and what the function leaves in COMPREPLY, and whether it asked bash to
    /// treat them as file names (so bash quotes them and ends a directory with `/`, no space).
    static let typedLines: [(line: String, reply: [String], filenames: Bool)] = [
        ("segue export --data-dir repl", ["repl-audit-files"], true),
        ("segue export --data-dir d", ["d2", "data dir"], true),
        ("segue verify ", ["a:b.json", "d2", "data dir", "my log.jsonl", "plain.jsonl", "repl-audit-files"], true),
        ("segue verify my", ["my log.jsonl"], true), ("segue verify 'my l", ["my log.jsonl"], true),
        ("segue verify my\\ l", ["my log.jsonl"], true), ("segue export -o a:", ["b.json"], true),
        ("segue swipe --endpoint tcp://127.0.0.1:47601 main ", ["dismiss", "pop", "present", "push"], false),
        ("segue swipe --endpoint tcp://127.0.0.1:47601 main p", ["pop", "present", "push"], false),
        ("segue --endpoint tcp://h:1 swipe main pop --then c", ["cancel"], false),
        ("segue --endpoint=tcp://h:1 pu", ["push"], false),
        ("segue log --type ", [], false), ("segue log --type e", [], false),
        ("segue push main X --style f", ["fade", "flip"], false), ("segue push main X --st", ["--style"], false),
        // Where a name goes, nothing (bash would insert the options' common `--`); `-` lists them.
        ("segue push ", [], false), ("segue push main ", [], false), ("segue gesture end ", [], false),
        ("segue push main --cu", ["--curve"], false),
    ]

    @Test func bashCompletesTheLineAsTyped() throws {
        let directory = try Self.completionDirectory()
        let calls = Self.typedLines.map { line, _, _ in
            let words = Self.bashWords(line).map(Self.singleQuoted).joined(separator: " ")
            return "t \(Self.singleQuoted(line)) \(words)\n"
        }.joined()
        // compopt works only while bash completes; this one records what the function asks of it.
        let script = """
            cd \(Self.singleQuoted(directory))
            source <(\(Cli.binary) completion bash)
            compopt() { asked="$*"; }
            t() {
                COMP_LINE="$1" COMP_POINT=${#1} asked=""
                shift
                COMP_WORDS=("$@") COMP_CWORD=$(($# - 1)) COMPREPLY=()
                _segue
                printf '%s\\n' "== $COMP_LINE" "compopt $asked" "${COMPREPLY[@]}"
            }
            \(calls)
            """
        let (status, output) = try Self.shell("/bin/bash", script)
        #expect(status == 0, "\(output)")
        var replies: [String: [String]] = [:]
        var current = ""
        for line in output.split(separator: "\n", omittingEmptySubsequences: false) where !line.isEmpty {
            if line.hasPrefix("== ") {
                current = String(line.dropFirst(3))
                replies[current] = []
            } else {
                replies[current, default: []].append(String(line))
            }
        }
        for (line, reply, filenames) in Self.typedLines {
            let got = replies[line] ?? []
            #expect(got.first == (filenames ? "compopt -o filenames" : "compopt "), "\(line): \(output)")
            #expect(got.dropFirst().sorted() == reply, "\(line): \(output)")
        }
    }

    static func singleQuoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }

    /// bash, typed into a real terminal: a directory ends in `/` with no space, so a second Tab goes
    /// into it; a name with a blank is one match, quoted; an endpoint's `:` does not shift arguments.
    @Test func bashInATerminalCompletesPathsAndArguments() throws {
        let directory = try Self.completionDirectory()
        try "PS1='$ '\nsource <(segue completion bash)\n".write(
            toFile: directory + "/.bashrc", atomically: true, encoding: .utf8)
        let session = "segue-bash-\(getpid())-\(UUID().uuidString.prefix(6))"
        _ = try CliWatchTests.tmux([
            "new-session", "-d", "-s", session, "-c", directory, "-x", "120", "-y", "20",
            "env PATH=\(DaemonProcess.productsDirectory.path):/usr/bin:/bin bash --rcfile .bashrc -i",
        ])
        defer { _ = try? CliWatchTests.tmux(["kill-session", "-t", session]) }
        _ = try CliWatchTests.capture(session) { $0.contains("$ ") }
        for (typed, keys, shown) in [
            ("segue export --data-dir repl", ["Tab", "Tab"], "$ segue export --data-dir repl-audit-files/sub/"),
            ("segue verify my", ["Tab", "x"], "$ segue verify my\\ log.jsonl x"),
            ("segue verify d", ["Tab", "Tab"], "d2/       data dir/"),
            ("segue swipe --endpoint tcp://127.0.0.1:47601 main ", ["Tab", "Tab"], "dismiss  pop      present  push"),
        ] {
            let pane = try Self.type(typed, keys, in: session, clearing: ["C-u", "clear", "Enter"], until: shown)
            #expect(pane.contains(shown), "\(typed): \(pane)")
        }
    }

    /// Types `typed` at a cleared prompt, then `keys` one at a time, as a user does; returns the pane
    /// once it shows `shown` (or when tired of waiting).
    static func type(
        _ typed: String, _ keys: [String], in session: String, clearing: [String], until shown: String
    ) throws -> String {
        _ = try CliWatchTests.tmux(["send-keys", "-t", session] + clearing)
        _ = try CliWatchTests.tmux(["send-keys", "-t", session, typed])
        for key in keys {
            usleep(200_000)
            _ = try CliWatchTests.tmux(["send-keys", "-t", session, key])
        }
        return try CliWatchTests.capture(session) { $0.contains(shown) }
    }

    /// zsh runs the same functions through bashcompinit, which has no `compopt`: they end a
    /// directory with `/` themselves and leave zsh to quote.
    @Test(
        .enabled(
            if: FileManager.default.fileExists(atPath: "/usr/bin/zsh"), "zsh is not installed (.ci/run installs it)"))
    func zshCompletesPathsAndArguments() throws {
        let directory = try Self.completionDirectory()
        let session = try Self.zsh(
            in: directory, zshrc: "cd \(Self.singleQuoted(directory))\nsource <(segue completion zsh)")
        defer { _ = try? CliWatchTests.tmux(["kill-session", "-t", session]) }
        for (typed, keys, shown) in [
            ("segue export --data-dir repl", ["Tab", "Tab"], "% segue export --data-dir repl-audit-files/sub/"),
            ("segue verify my", ["Tab", "x"], "% segue verify my\\ log.jsonl x"),
            ("segue verify d", ["Tab"], "data\\ dir/"),
            ("segue swipe --endpoint tcp://127.0.0.1:47601 main ", ["Tab"], "dismiss  pop      present  push"),
            ("segue log --type ", ["Tab", "Tab", "x"], "% segue log --type x"),
        ] {
            let pane = try Self.type(typed, keys, in: session, clearing: ["C-u", "C-l"], until: shown)
            #expect(pane.contains(shown), "\(typed): \(pane)")
        }
    }
}
