import SegueCommandLine
import Testing

@testable import segue

/// `create`'s config options are checked with the daemon's rules before anything is sent, and a
/// refusal names the option that set the value (`NavigationCommands.configOptions`).
@Suite struct CreateOptionTests {
    /// Every option of `create` that sets a member of the navigator's config has its row, so that a
    /// new one cannot come out of the check as a bare JSON path.
    @Test func everyConfigOptionIsNamedInRefusals() throws {
        let create = try #require(CommandTree.root.subcommand(named: "create"))
        let notConfig = Set(["param", "busy", "retarget"] + (CommandTree.mutation + CommandTree.global).map(\.name))
        let config = create.options.map(\.name).filter { !notConfig.contains($0) }
        #expect(!config.isEmpty)
        #expect(Set(config) == Set(NavigationCommands.configOptions.values), "\(config)")
    }
}
