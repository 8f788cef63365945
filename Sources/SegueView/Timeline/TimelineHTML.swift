import SegueCore

/// A `Timeline` as one self-contained HTML file: the SVG inline, a small script for zoom, and a seq
/// cursor that shows every navigator's stack as of the chosen event (time travel).
package enum TimelineHTML {
    package static func render(_ timeline: Timeline, options: TimelineLayout.Options = .init()) -> String {
        let layout = TimelineLayout(timeline, options: options)
        var renderer = TimelineSVG(timeline: timeline, layout: layout)
        var svg = renderer.document()
        if let declaration = svg.range(of: "?>\n") { svg.removeSubrange(svg.startIndex..<declaration.upperBound) }
        let title = SVGWriter.escape("segue timeline: \(timeline.source)")
        return """
            <!doctype html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <title>\(title)</title>
            <style>
            \(PageAssets.text("timeline.css"))
            </style>
            </head>
            <body>
            <header>
            <strong>\(title)</strong>
            <span class="tools">
            <button id="zoom-out" title="Zoom out (-)">−</button><button id="zoom-fit" title="Fit the width">fit</button>\
            <button id="zoom-in" title="Zoom in (+)">+</button>
            <label>seq <input id="cursor" type="range" min="0" max="\(max(timeline.marks.count - 1, 0))" value="0"></label>
            <span id="cursor-label"></span>
            </span>
            </header>
            <main id="scroll">
            \(svg)</main>
            <aside id="stacks"></aside>
            <script id="timeline-data" type="application/json">\(data(timeline, layout))</script>
            <script>
            \(PageAssets.text("timeline.js"))
            </script>
            </body>
            </html>

            """
    }

    /// What the script needs: each event's x and the stack its navigator had after it.
    static func data(_ timeline: Timeline, _ layout: TimelineLayout) -> String {
        let marks: [JSON] = timeline.marks.map { mark in
            .object([
                "seq": .int(mark.seq), "frame": .int(mark.frame), "x": .double(layout.x(mark.frame)),
                "navigator": .string(mark.navigator), "type": .string(mark.type),
                "stack": .array(mark.stack.map(JSON.string)), "modals": .array(mark.modals.map(JSON.string)),
                "inFlight": mark.inFlight.map(JSON.string) ?? .null, "queued": .int(Int64(mark.queued)),
            ])
        }
        let object: JSON = .object([
            "width": .double(layout.width), "height": .double(layout.height),
            "navigators": .array(timeline.lanes.map { .string($0.name) }), "marks": .array(marks),
        ])
        // Inside <script>, "</" could end the element early; "<\/" is the same JSON string.
        return object.serialized().replacingOccurrences(of: "</", with: "<\\/")
    }
}
