import PackagePlugin

/// Turns the files in a target's `Page/` folder (the viewer's and the timeline's HTML, CSS and
/// JavaScript) into Swift string literals at build time, so the `segue` binary carries them and
/// nothing else needs installing; the files stay plain HTML, CSS and JavaScript to edit.
@main
struct EmbedPage: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        guard let module = target as? SourceModuleTarget else { return [] }
        let inputs = module.sourceFiles.map(\.url).filter { $0.deletingLastPathComponent().lastPathComponent == "Page" }
            .sorted { $0.path < $1.path }
        let output = context.pluginWorkDirectoryURL.appending(path: "PageFiles.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(inputs.count) page files in \(target.name)",
                executable: try context.tool(named: "segue-page-embed").url,
                arguments: [output.path] + inputs.map(\.path), inputFiles: inputs, outputFiles: [output])
        ]
    }
}
