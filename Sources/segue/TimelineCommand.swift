import Foundation
import SegueClient
import SegueCore
import SegueView

/// `segue timeline LOG`: the log as a picture, an SVG (or an HTML page around it).
enum TimelineCommand {
    enum Format { case svg, html }

    static func run(_ inv: Invocation) throws {
        guard !inv.json else {
            throw UsageError("segue timeline makes an SVG or HTML picture; --json has no meaning here.")
        }
        let output = inv.parsed.value("output")
        let format = try format(output)
        var options = TimelineLayout.Options()
        if let scale = try inv.double("scale") {
            guard (1...100_000).contains(scale) else {
                throw UsageError.invalidValue(
                    String(scale), for: "--scale", "expected pixels per second from 1 to 100000")
            }
            options.pixelsPerSecond = scale
        }
        let path = inv.argument("log")
        try Refusal.reported {
            let window = try LogWindow.open(path, inv)
            var builder = TimelineBuilder(
                source: window.name, clock: window.clock, navigator: window.navigator, startFrame: window.startFrame)
            try window.feed(&builder)
            let timeline = builder.timeline
            let text =
                format == .html
                ? TimelineHTML.render(timeline, options: options) : TimelineSVG.render(timeline, options: options)
            guard let output else {
                FileHandle.standardOutput.write(Data(text.utf8))
                return
            }
            do {
                try Data(text.utf8).write(to: URL(fileURLWithPath: output), options: .atomic)
            } catch {
                throw IOFailure("Cannot write \(output): \((error as NSError).localizedDescription)")
            }
            let bands = timeline.lanes.reduce(0) { $0 + $1.bands.count }
            Output.error(
                "Wrote \(output): \(timeline.lanes.count) navigator\(timeline.lanes.count == 1 ? "" : "s"), "
                    + "\(bands) transition\(bands == 1 ? "" : "s"), \(timeline.marks.count) events.")
        }
    }

    /// SVG unless `-o` names an `.html` file; `-o` must say which.
    static func format(_ output: String?) throws(UsageError) -> Format {
        guard let output else { return .svg }
        switch (output as NSString).pathExtension.lowercased() {
        case "svg": return .svg
        case "html", "htm": return .html
        default:
            throw UsageError.invalidValue(output, for: "--output", "expected a file name ending in .svg or .html")
        }
    }
}

extension Refusal {
    /// Runs `body`, turning a refusal into its sentence on stderr and status 1.
    static func reported(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch let refusal as Refusal {
            Output.error("error: \(refusal)")
            throw Exit(.rejected)
        }
    }
}
