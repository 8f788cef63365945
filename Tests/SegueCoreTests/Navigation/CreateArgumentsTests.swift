import Testing

@testable import SegueCore

/// A `create` written as a request (what SegueClient sends) carries only the config members that
/// differ from the built-in config: those left out take the daemon's defaults, and the command
/// reads back the same.
@Suite struct CreateArgumentsTests {
    @Test(arguments: [
        (#"{}"#, [String]()),
        (#"{"interactionTimeout": 3}"#, ["interactionTimeout"]),
        (#"{"queueLimit": 4, "retarget": true}"#, ["queueLimit", "retarget"]),
        (#"{"interactionTimeout": 10, "busy": "reject"}"#, []),
        (#"{"endRule": {"threshold": 0.6}, "container": {"width": 390, "height": 844}}"#, ["container", "endRule"]),
    ])
    func onlyWhatDiffersIsSent(config: String, members: [String]) throws {
        let read = try NavigatorConfig(json: try JSON.parse(config))
        let command = NavigationCommand.create(root: ScreenSpec(name: "Home"), config: read)
        let arguments = command.arguments
        #expect(arguments.members.map(\.key).filter { $0 != "root" }.sorted() == members)
        #expect(try NavigationCommand(name: "create", arguments: arguments) == command)
    }
}
