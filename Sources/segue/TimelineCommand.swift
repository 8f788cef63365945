import Foundation
import SegueClient
import SegueCommandLine
import SegueCore
import SegueView

/// `segue timeline LOG`: the log as a picture, an SVG (or an HTML page around it).
enum TimelineCommand {
    static func run(_ inv: Invocation) throws {
        let output = try inv.parsed.value(PictureOptions.output)
        var options = TimelineLayout.Options()
        if let scale = try inv.parsed.value(PictureOptions.scale) { options.pixelsPerSecond = scale.value }
        let timeline = try LogWindow.open(inv.argument("log"), inv) { window in
            var builder = TimelineBuilder(
                source: window.name, clock: window.clock, navigator: window.navigator, startFrame: window.startFrame)
            try window.feed(&builder)
            return builder.timeline
        }
        let text =
            output?.format == .html
            ? TimelineHTML.render(timeline, options: options) : TimelineSVG.render(timeline, options: options)
        guard let output else {
            Output.write(Array(text.utf8))
            return
        }
        do {
            try Data(text.utf8).write(to: URL(fileURLWithPath: output.path), options: .atomic)
        } catch {
            throw IOFailure("Cannot write \(output.path): \(IOFailure.reason(error)).")
        }
        let bands = timeline.lanes.reduce(0) { $0 + $1.bands.count }
        Output.error(
            "Wrote \(output.path): \(timeline.lanes.count.counted("navigator")), "
                + "\(bands.counted("transition")), \(timeline.marks.count.counted("event"))."
        )
    }
}

/// `-o`: where the picture goes; its extension says which picture.
struct PictureFile: ExpressibleByArgument, Equatable {
    enum Format { case svg, html }
    var path: String
    var format: Format

    init(argument: String) throws(ArgumentValueError) {
        path = argument
        switch (argument as NSString).pathExtension.lowercased() {
        case "svg": format = .svg
        case "html", "htm": format = .html
        default: throw ArgumentValueError("expected a file name ending in .svg or .html")
        }
    }
}

/// `--scale`: pixels a second inside busy stretches, within what a browser can still draw.
struct PixelsPerSecond: ExpressibleByArgument, Equatable {
    static let range = 1.0...100_000
    var value: Double

    init(argument: String) throws(ArgumentValueError) {
        guard let value = Double(argument), Self.range.contains(value) else {
            throw ArgumentValueError("expected pixels per second from 1 to 100000")
        }
        self.value = value
    }
}
