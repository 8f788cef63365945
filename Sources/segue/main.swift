import Foundation
import SegueClient
import SegueCommandLine
import SegueCore
import SegueWire

/// `segue`: parse, dispatch, exit with the documented status (see `ExitCode`).
let handlers: [String: (Invocation) throws -> Void] = [
    "create": NavigationCommands.create, "close": NavigationCommands.close,
    "push": NavigationCommands.push, "pop": NavigationCommands.pop, "pop-to": NavigationCommands.popTo,
    "pop-to-root": NavigationCommands.popToRoot, "set": NavigationCommands.setStack,
    "present": NavigationCommands.present, "dismiss": NavigationCommands.dismiss,
    "gesture begin": GestureCommands.begin, "gesture update": GestureCommands.update,
    "gesture finish": GestureCommands.finish, "gesture cancel": GestureCommands.cancel,
    "gesture end": GestureCommands.end, "swipe": GestureCommands.swipe,
    "pause": ScrubCommands.pause, "seek": ScrubCommands.seek, "resume": ScrubCommands.resume,
    "state": ReadCommands.state, "ls": ReadCommands.list, "log": ReadCommands.log, "ping": MonitorCommands.ping,
    "stats": MonitorCommands.stats, "raw": ToolCommands.raw, "help": ToolCommands.help,
    "completion": ToolCommands.completion,
    "export": StoreCommands.export, "import": StoreCommands.importLog, "verify": StoreCommands.verify,
    "keygen": StoreCommands.keygen, "migrate": MigrateCommand.run, "relay": RelayCommand.run,
    "watch": WatchCommand.run, "replay": ReplayCommand.run,
    "timeline": TimelineCommand.run, "view": ViewCommand.run,
]

StandardDescriptors.holdClosedOnes()

// A parent may have left signals blocked (test runners do); Ctrl-C and SIGTERM must work here.
var unblocked = sigset_t()
sigemptyset(&unblocked)
pthread_sigmask(SIG_SETMASK, &unblocked, nil)

do {
    let argv = Array(CommandLine.arguments.dropFirst())
    Output.json = argv.prefix { $0 != "--" }.contains("--json")
    let versionWords = argv.filter { $0 != "--json" }
    if versionWords.first == "--version" {
        if let extra = versionWords.dropFirst().first {
            if ["--help", "-h"].contains(extra) {
                ToolCommands.printHelp(CommandTree.root, path: "segue", json: Output.json)
                exit(0)
            }
            var error = UsageError.unexpectedArgument(extra)
            error.command = "segue"
            throw error
        }
        Output.line(Output.json ? #"{"version":"\#(SegueVersion.current)"}"# : "segue \(SegueVersion.current)")
        exit(0)
    }
    let (path, rest) = try CommandTree.resolve(argv, stdinIsTerminal: isatty(STDIN_FILENO) == 1)
    let command = path.last!
    let words = path.map(\.name)
    let name = words.dropFirst().joined(separator: " ")
    let parsed: ParsedArguments
    do {
        parsed = try command.parse(rest)
    } catch var error {
        error.command = words.joined(separator: " ")
        throw error
    }
    if parsed.help || (!command.subcommands.isEmpty && rest.isEmpty && words.count == 1) {
        ToolCommands.printHelp(command, path: words.joined(separator: " "), json: Output.json && parsed.help)
        exit(0)
    }
    guard command.subcommands.isEmpty else {
        throw UsageError.missingCommand(words.joined(separator: " "), among: command.subcommands.map(\.name))
    }
    let invocation: Invocation
    do {
        invocation = try Invocation(path: name, parsed: parsed, environment: ProcessInfo.processInfo.environment)
    } catch var error {
        error.command = words.joined(separator: " ")
        throw error
    }
    do {
        try handlers[name]!(invocation)
    } catch var error as UsageError {
        error.command = words.joined(separator: " ")
        throw error
    }
    exit(0)
} catch {
    Output.fail(error)
}
