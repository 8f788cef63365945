import SegueCommandLine
import Testing

@testable import segue

/// `segue`'s shared options given before, between or after the command's words, through the real
/// command tree to the `Invocation` a handler gets (docs/cli.md: options go anywhere).
@Suite struct GlobalOptionTests {
    /// Resolves and parses argv as `main` does, then builds the invocation.
    static func invocation(_ argv: [String]) throws(UsageError) -> Invocation {
        let (path, rest) = try CommandTree.root.resolve(argv)
        let name = path.dropFirst().map(\.name).joined(separator: " ")
        return try Invocation(path: name, parsed: try path.last!.parse(rest), environment: [:])
    }

    @Test(arguments: [
        ["--endpoint", "tcp://127.0.0.1:7499", "push", "main", "Detail"],
        ["push", "--endpoint", "tcp://127.0.0.1:7499", "main", "Detail"],
        ["push", "main", "Detail", "--endpoint=tcp://127.0.0.1:7499"],
        ["--json", "--endpoint", "tcp://127.0.0.1:7499", "--timeout", "2", "push", "main", "Detail"],
    ])
    func pushReadsTheEndpointWhereverItStands(argv: [String]) throws {
        let inv = try Self.invocation(argv)
        #expect(inv.path == "push")
        #expect(inv.endpoint == "tcp://127.0.0.1:7499")
        #expect(inv.argument("navigator") == "main")
        #expect(inv.argument("screen") == "Detail")
        #expect(inv.json == argv.contains("--json"))
        #expect(inv.timeout == (argv.contains("--timeout") ? .seconds(2) : .seconds(5)))
    }

    @Test(arguments: [
        ["gesture", "--endpoint", "tcp://127.0.0.1:7499", "begin", "main", "--operation", "pop"],
        ["--endpoint", "tcp://127.0.0.1:7499", "gesture", "begin", "--operation", "pop", "main"],
    ])
    func gestureTakesTheEndpointBetweenItsWords(argv: [String]) throws {
        let inv = try Self.invocation(argv)
        #expect(inv.path == "gesture begin")
        #expect(inv.endpoint == "tcp://127.0.0.1:7499")
        #expect(inv.argument("navigator") == "main")
        #expect(inv.parsed.value("operation") == "pop")
    }

    /// A flag before the command does not take its name as a value.
    @Test func jsonBeforeStateLeavesTheCommandItsName() throws {
        let inv = try Self.invocation(["--json", "state", "main"])
        #expect(inv.path == "state")
        #expect(inv.json)
        #expect(inv.argument("navigator") == "main")
    }

    /// Every shared option a command takes parses the same before the command's words as after them.
    @Test(
        arguments: CommandTree.root.walk().filter { $0.command.subcommands.isEmpty }.map { Array($0.path.dropFirst()) })
    func everySharedOptionMeansTheSameBefore(words: [String]) throws {
        let command = try #require(CommandTree.root.walk().first { Array($0.path.dropFirst()) == words }?.command)
        let positionals =
            command.arguments.filter { !$0.optional }.map { _ in "a" }
            + command.options.filter(\.required).flatMap { ["--\($0.name)", "r"] }
        for option in CommandTree.global where command.option(named: option.name) != nil {
            let given = ["--\(option.name)"] + (option.isFlag ? [] : ["v"])
            let after = try CommandTree.root.resolve(words + positionals + given)
            let before = try CommandTree.root.resolve(given + words + positionals)
            #expect(before.path.map(\.name) == after.path.map(\.name), "\(given) \(words)")
            #expect(try before.path.last!.parse(before.rest) == after.path.last!.parse(after.rest), "\(given) \(words)")
        }
    }

    /// An option a command does not take is refused wherever it stands, naming it.
    @Test(arguments: [
        ["--endpoint", "tcp://127.0.0.1:7499", "export"], ["export", "--endpoint", "tcp://127.0.0.1:7499"],
    ])
    func anOfflineCommandRefusesTheEndpointEitherWay(argv: [String]) throws {
        let (path, rest) = try CommandTree.root.resolve(argv)
        #expect(path.map(\.name) == ["segue", "export"])
        #expect(throws: UsageError.unknownOption("--endpoint")) { try path.last!.parse(rest) }
    }
}
