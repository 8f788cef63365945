import Foundation
import Testing

/// An app depends on Segue's libraries the way SwiftPM users do, by version from a git URL, and
/// talks to a real daemon. SwiftPM refuses a dependency whose targets carry unsafe flags, so this
/// fails if Package.swift gains any.
@Suite(.ownThreads) struct PackageDependencyTests {
    @Test(.enabled(if: StoreBackend.selected == .sqlite, "builds a package, not the store; runs in the SQLite pass"))
    func anAppDependsOnSegueClientByVersion() throws {
        let work = DaemonProcess.temporaryDirectory()
        let segue = work + "/segue"
        try Self.copySources(to: segue)
        for command in [
            ["git", "-C", segue, "init", "-q"],
            ["git", "-C", segue, "add", "-A"],
            ["git", "-C", segue, "-c", "user.name=test", "-c", "user.email=test@invalid", "commit", "-qm", "Segue"],
            ["git", "-C", segue, "tag", "1.0.0"],
        ] {
            let result = try ChildProcess.run(command)
            try #require(result.status == 0, "\(command.joined(separator: " ")): \(result.output)")
        }
        let app = work + "/app"
        try FileManager.default.createDirectory(atPath: app + "/Sources/app", withIntermediateDirectories: true)
        try Self.manifest(segue: segue).write(toFile: app + "/Package.swift", atomically: true, encoding: .utf8)
        try Self.main.write(toFile: app + "/Sources/app/main.swift", atomically: true, encoding: .utf8)

        let build = try ChildProcess.run(
            ["swift", "build", "--package-path", app, "--scratch-path", work + "/build"], timeout: .seconds(600))
        try #require(build.status == 0, "\(build.output.suffix(3_000))")

        let daemon = try DaemonProcess()
        defer { daemon.stop() }
        let run = try ChildProcess.run([work + "/build/debug/app", daemon.commandEndpoint])
        #expect(run.status == 0, "\(run.output)")
        #expect(run.stdout == "main: revision 3, Home > Detail\n", "\(run.output)")
    }

    /// What the manifest needs to load: it names the tests' and plugins' directories too.
    private static func copySources(to destination: String) throws {
        let root = BootedSystemd.repositoryRoot
        try FileManager.default.createDirectory(atPath: destination, withIntermediateDirectories: true)
        for item in ["Package.swift", "Sources", "Tests", "Plugins"] {
            try FileManager.default.copyItem(atPath: root + "/" + item, toPath: destination + "/" + item)
        }
    }

    private static func manifest(segue: String) -> String {
        """
        // swift-tools-version:6.0
        import PackageDescription

        let package = Package(
            name: "app",
            dependencies: [.package(url: "file://\(segue)", from: "1.0.0")],
            targets: [
                .executableTarget(
                    name: "app",
                    dependencies: [
                        .product(name: "SegueClient", package: "segue"),
                        .product(name: "SegueCore", package: "segue"),
                    ])
            ]
        )

        """
    }

    private static let main = """
        import SegueClient
        import SegueCore

        let client = try SegueClient(endpoint: CommandLine.arguments[1], timeout: .seconds(5))
        try client.create("main", root: ScreenSpec(name: "Home"))
        try client.push("main", ScreenSpec(name: "Detail"), options: TransitionOptions(animated: false))
        let state = try client.state("main")
        print("main: revision \\(state.revision), \\(state.stack.map(\\.name).joined(separator: " > "))")

        """
}
