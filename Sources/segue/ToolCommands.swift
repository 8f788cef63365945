import Foundation
import SegueClient
import SegueCommandLine
import SegueCore

/// help, completion and raw: what users of redis-cli, systemctl and jq expect around the commands.
enum ToolCommands {
    /// `segue help [COMMAND...]`: the command's `--help`, or with `--json` the same as one object for
    /// tools that build on the CLI; `--man` prints the man page (roff).
    static func help(_ inv: Invocation) throws {
        if inv.parsed.flag("man") {
            if inv.json { throw UsageError("--man prints roff; it does not combine with --json.") }
            // One page for every command (segue.1, as installed): a command named with it would be ignored.
            if let command = inv.parsed.arguments["command"]?.first {
                throw UsageError(
                    "--man prints the one page of every command (segue.1); give it no command (\(command)), "
                        + "or run 'segue help \(command)'.")
            }
            Output.line(CommandTree.root.manPage(date: SegueVersion.current, extra: CommandTree.manSections))
            return
        }
        let words = inv.parsed.arguments["command"] ?? []
        let (path, rest) = try CommandTree.root.resolve(words)
        if let extra = rest.first {
            throw UsageError.unknownCommand(extra, in: path.map(\.name).joined(separator: " "))
        }
        let name = path.map(\.name).joined(separator: " ")
        printHelp(path.last!, path: name, json: inv.json)
    }

    /// A command's help: as text wrapped to the terminal, or with `--json` as data (`described`),
    /// however it was asked for (`help CMD`, `CMD --help`).
    static func printHelp(_ command: CommandConfiguration, path: String, json: Bool) {
        guard json else { return Output.line(command.help(path: path, width: Terminal.helpWidth)) }
        Output.line(JSON.object(described(command, path: path)).serialized())
    }

    /// A command as `help --json` prints it: what its `--help` says, as data.
    static func described(_ command: CommandConfiguration, path: String) -> JSONObject {
        var object: JSONObject = [
            "command": .string(path), "abstract": .string(command.abstract),
            "usage": .string(command.usage(path: path)),
        ]
        if !command.discussion.isEmpty { object["discussion"] = .string(command.discussion) }
        object["arguments"] = .array(
            command.arguments.map { argument in
                var member: JSONObject = [
                    "name": .string(argument.name), "help": .string(argument.help),
                    "optional": .bool(argument.optional), "variadic": .bool(argument.variadic),
                ]
                if case .list(let values) = argument.completion { member["values"] = .array(values.map(JSON.string)) }
                return .object(member)
            })
        object["options"] = .array(
            command.options.map { option in
                var member: JSONObject = ["name": .string("--" + option.name), "help": .string(option.help)]
                if let short = option.short { member["short"] = .string("-\(short)") }
                if let value = option.valueName { member["value"] = .string(value) }
                if option.repeats { member["repeats"] = true }
                if option.required { member["required"] = true }
                if case .list(let values) = option.completion { member["values"] = .array(values.map(JSON.string)) }
                return .object(member)
            })
        object["subcommands"] = .array(
            command.subcommands.map { .object(["name": .string($0.name), "abstract": .string($0.abstract)]) })
        object["examples"] = .array(command.examples.map(JSON.string))
        return object
    }

    static func completion(_ inv: Invocation) throws {
        let shell = try inv.parsed.argument("shell", as: CompletionShell.self)!
        Output.write(Array(CommandTree.root.completionScript(for: shell).utf8))
    }

    /// `segue raw JSON` (or JSON lines on stdin): each request sent as it is, each reply printed as it
    /// came; exit 1 if any was `ok: false`. With no argument on a terminal: an interactive prompt.
    static func raw(_ inv: Invocation) throws {
        let client = try inv.client()
        if let text = inv.parsed.argument("request") {
            return try send(text, client)
        }
        if isatty(STDIN_FILENO) == 1 { return try RawPrompt(client: client, endpoint: inv.endpoint).run() }
        var refused = false
        var malformed: [Int] = []
        var number = 0
        while let line = readLine() {
            number += 1
            guard !line.allSatisfy(\.isWhitespace) else { continue }
            do {
                try send(line, client)
            } catch let exit as Exit where exit.code == .rejected {
                refused = true
            } catch let usage as UsageError {
                // The other lines still go: one bad line in a script is said, with its number, and
                // in its place on stdout, so that reply N answers request line N (blank lines aside).
                Output.error("segue raw: line \(number): \(usage.message)")
                let error: JSON = ["code": "usage", "message": .string("line \(number): \(usage.message)")]
                Output.line(JSON.object(["ok": false, "error": error]).serialized())
                malformed.append(number)
            }
        }
        if !malformed.isEmpty {
            // Said on stderr only: stdout already holds a line for each of them, and stderr its reason;
            // the summary names the first ten.
            let lines = malformed.prefix(10).map(String.init).joined(separator: ", ")
            let more = malformed.count > 10 ? " and \(malformed.count - 10) more, each said above" : ""
            Output.error("error: \(malformed.count.counted("line")) of stdin did not parse: \(lines)\(more).")
            throw Exit(.usage)
        }
        if refused { throw Exit(.rejected) }
    }

    /// Sends one request (JSON, or `cmd [navigator] [key=value...]`) and prints the reply line.
    static func send(_ text: String, _ client: SegueClient) throws {
        let request = try RawPrompt.request(text)
        let reply: JSONObject
        switch Result(catching: { () throws(SegueClientError) -> JSONObject in try client.call(request) }) {
        case .success(let answer):
            reply = answer
        case .failure(let failure) where failure.kind == .rejected:
            var error = failure.details
            error["code"] = .string((failure.code ?? .internal).rawValue)
            error["message"] = .string(failure.message)
            var object: JSONObject = ["ok": false]
            // As the daemon echoes it (an integer id as its string), the one segue gave included, and
            // where the daemon puts it: after `ok`, before `error`.
            if let id = failure.requestID { object["id"] = .string(id) }
            object["error"] = .object(error)
            Output.line(JSON.object(object).serialized())
            throw Exit(.rejected)
        case .failure(let error):
            throw error
        }
        Output.line(JSON.object(reply).serialized())
    }
}

/// `segue raw` on a terminal: a prompt, like redis-cli's, whose lines ↑ and ↓ recall (`LineEditor`),
/// `history` lists, and `$SEGUE_HISTORY` (default `~/.segue_history`) keeps for the next session.
struct RawPrompt {
    let client: SegueClient
    let endpoint: String
    static let historyLimit = 1000
    /// How many lines `history` lists.
    static let historyShown = 50

    /// Runs the prompt until `quit` or Ctrl-D. The session goes on after a failure; its status at the
    /// end is the one stdin would have given: no answer (3, or 69) over a line that did not parse (64)
    /// over a reply `ok: false` (1).
    func run() throws {
        var failures = PromptFailures()
        var editor = LineEditor()
        var file = openHistory()
        if var loaded = file, let lines = Self.saying({ () throws(HistoryFailure) in try loaded.load() }) {
            editor.buffer = LineBuffer(history: lines)
            file = loaded
        }
        Output.error(
            "segue raw \(endpoint): a JSON request or 'cmd [navigator] [key=value...]'; ↑/↓ recall, 'history', "
                + "'quit'.")
        // Ctrl-C while a request waits gives it up, as psql does, rather than ending the session.
        client.interruption = LineEditor.interrupted
        while let line = editor.read(prompt: "segue> ") {
            let text = line.trimmingCharacters(in: .whitespaces)
            if text.isEmpty { continue }
            if text == "quit" || text == "exit" { break }
            if text == "history" {
                Self.listing(editor.buffer.history).forEach(Output.line)
                continue
            }
            if editor.buffer.history.last != text, file != nil {
                // Said once: the prompt goes on without history.
                if Self.saying({ () throws(HistoryFailure) in try file?.append(text) }) == nil { file = nil }
            }
            editor.buffer.remember(text, limit: Self.historyLimit)
            do {
                try LineEditor.whileWaiting { try ToolCommands.send(text, client) }
            } catch let error as UsageError {
                Output.error("error: \(error.message)")
                failures.note(.usage)
            } catch let exit as Exit {
                failures.note(exit.code)
            } catch let error as SegueClientError where error.kind == .interrupted {
                Output.error("^C \(error)")
            } catch let error as SegueClientError {
                Output.error("error: \(error)")
                failures.note(Output.status(of: error))
            }
        }
        if let status = failures.status { throw Exit(status) }
    }

    /// What `history` prints: the last `historyShown` lines, numbered by their place in the whole.
    static func listing(_ history: [String]) -> [String] {
        let first = max(0, history.count - historyShown)
        return (first..<history.count).map { "\($0 + 1)  \(history[$0])" }
    }

    /// The history file, or nil when there is none (said when that is not what the user chose).
    private func openHistory() -> HistoryFile? {
        switch HistoryFile.chosen(environment: ProcessInfo.processInfo.environment) {
        case .success(let file): return file
        case .failure(.off): return nil
        case .failure(.noHome):
            Output.error("segue raw: HOME is not set: lines are not kept (set SEGUE_HISTORY to keep them).")
            return nil
        }
    }

    /// `body`'s value, or nil after saying on stderr why the history file failed.
    private static func saying<T>(_ body: () throws(HistoryFailure) -> T) -> T? {
        do { return try body() } catch {
            Output.error("segue raw: history not kept: \(error).")
            return nil
        }
    }

    /// A request from a line: a JSON object as it is, or words: `ping`, `state main`,
    /// `push main screen={"name":"Detail"} animated=false` (values JSON when they parse, else text).
    static func request(_ text: String) throws(UsageError) -> JSONObject {
        // JSON that is not an object (`[]`, `"ping"`) is no command word either.
        if let first = text.first, "{[\"".contains(first) {
            guard let json = try? JSON.parse(text), let object = json.objectValue else {
                throw UsageError.invalidValue(text, for: "<request>", "expected a JSON object")
            }
            return object
        }
        let words = text.split(separator: " ").map(String.init)
        guard let cmd = words.first else { throw UsageError("An empty request.") }
        var request: JSONObject = ["cmd": .string(cmd)]
        for (index, word) in words.dropFirst().enumerated() {
            if index == 0, !word.contains("=") {
                request["navigator"] = .string(word)
                continue
            }
            let (key, value) = try ArgumentValues.parameter(word, for: "<request>")
            request[key] = value
        }
        return request
    }
}

/// The prompt's failures, kept for its exit status: the most serious kind seen, ranked as stdin's
/// requests are (where no answer ends the run, and a line that did not parse outranks a refusal).
struct PromptFailures {
    private(set) var status: ExitCode?

    mutating func note(_ failure: ExitCode) {
        if let status, Self.rank(status) >= Self.rank(failure) { return }
        status = failure
    }

    private static func rank(_ status: ExitCode) -> Int {
        switch status {
        case .rejected: 1
        case .usage: 2
        default: 3
        }
    }
}
