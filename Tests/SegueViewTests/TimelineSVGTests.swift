import Foundation
import SegueCore
import SegueView
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// The SVG and HTML forms: well-formed XML (read back with libxml2 through XMLParser), every part where
/// the layout says.
@Suite struct TimelineSVGTests {
    /// Elements by name, with their attributes, as an XML parser reads them.
    final class Reader: NSObject, XMLParserDelegate {
        var elements: [(name: String, attributes: [String: String])] = []
        var titles: [String] = []
        private var inTitle = false
        func parser(
            _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            elements.append((name, attributes))
            if name == "title" {
                inTitle = true
                titles.append("")
            }
        }
        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            if name == "title" { inTitle = false }
        }
        func parser(_ parser: XMLParser, foundCharacters string: String) {
            if inTitle { titles[titles.count - 1] += string }
        }

        static func read(_ text: String) throws -> Reader {
            let parser = XMLParser(data: Data(text.utf8))
            let reader = Reader()
            parser.delegate = reader
            guard parser.parse() else { throw parser.parserError ?? CocoaError(.coderReadCorrupt) }
            return reader
        }

        func all(_ name: String, class c: String? = nil) -> [[String: String]] {
            elements.filter {
                $0.name == name
                    && (c == nil || ($0.attributes["class"] ?? "").split(separator: " ").contains(Substring(c!)))
            }
            .map(\.attributes)
        }
    }

    static func session() -> (Timeline, Session) {
        var s = Session()
        var config = NavigatorConfig()
        config.busy = .queue
        s.run(0, "main", Session.create(config))
        s.run(2, "main", Session.push("Detail", ["duration": 0.35, "curve": "easeInOut"]))
        s.run(4, "main", Session.push("Settings", ["style": "fade"]), id: "queued-push")
        s.run(60, "main", .begin(.pop, animator: nil))
        s.run(61, "main", .update(percent: 0.3, velocity: 0.5))
        s.run(62, "main", .update(percent: 0.6, velocity: 0.9))
        s.run(63, "main", .end(percent: nil, velocity: nil))
        s.run(70, "inbox & <more>", Session.create())
        var builder = TimelineBuilder(source: "session <1>.jsonl", clock: s.clock)
        for f in s.finish(after: 200) { try! builder.add(frame: f.frame, events: f.events, ticks: f.ticks) }
        return (builder.timeline, s)
    }

    @Test func theSVGIsWellFormedAndDrawsEveryPart() throws {
        let (timeline, _) = Self.session()
        let svg = TimelineSVG.render(timeline)
        let xml = try Reader.read(svg)
        #expect(xml.all("svg").first?["xmlns"] == "http://www.w3.org/2000/svg")
        #expect(xml.all("g", class: "lane").map { $0["data-navigator"] } == ["main", "inbox & <more>"])
        let bands = xml.all("g", class: "band")
        #expect(bands.map { $0["data-transition"] } == ["1", "2", "3"])
        #expect(xml.all("polyline", class: "progress").count == 3)
        #expect(xml.all("polyline", class: "fraction").count == 3)
        #expect(xml.all("circle", class: "update").count == 2)
        #expect(xml.all("line", class: "threshold").count == 1)
        #expect(xml.all("g", class: "turn").map { $0["class"] } == ["turn finishing"])
        // Its caption is drawn over the lane's bands, not inside its own: the next band would cover
        // the part that runs past its end.
        #expect(xml.all("text", class: "finishing").count == 1)
        let caption = try #require(svg.range(of: "finish · v"))
        let labels = svg.ranges(of: "class=\"band-label\"")
        #expect(labels.count == 3 && caption.lowerBound > labels[2].lowerBound, "after the last band of its lane")
        #expect(xml.all("path", class: "queue-link").count == 1)
        #expect(xml.all("g", class: "event").count == timeline.marks.count)
        #expect(xml.titles.contains { $0.hasPrefix("seq 1 navigator.created at frame") && $0.contains("\"root\"") })
        #expect(xml.titles.contains { $0.contains("the end rule decides finish for this release") })
    }

    /// The progress polyline's points are the ticks' progress, placed by the band's own geometry.
    @Test func aBandsPointsAreItsTicks() throws {
        let (timeline, _) = Self.session()
        let xml = try Reader.read(TimelineSVG.render(timeline))
        let layout = TimelineLayout(timeline)
        let band = try #require(xml.all("g", class: "band").first)
        let x0 = try #require(Double(band["data-x0"] ?? ""))
        let y0 = try #require(Double(band["data-y0"] ?? ""))
        let y1 = try #require(Double(band["data-y1"] ?? ""))
        let points = try #require(xml.all("polyline", class: "progress").first?["points"])
        let samples = timeline.lanes[0].bands[0].samples
        let expected = samples.map { s in
            SVGWriter.number(layout.x(s.frame)) + "," + SVGWriter.number(layout.lanes[0].y(s.progress))
        }
        #expect(points.split(separator: " ").map(String.init) == expected)
        for (point, sample) in zip(points.split(separator: " "), samples) {
            let xy = point.split(separator: ",").compactMap { Double($0) }
            #expect(abs(xy[0] - (x0 + Double(sample.frame - samples[0].frame) * layout.pixelsPerFrame)) <= 0.005)
            #expect(abs(xy[1] - (y0 + (y1 - y0) * sample.progress)) <= 0.01)
        }
    }

    @Test func theHTMLEmbedsTheSVGAndTheCursorData() throws {
        let (timeline, _) = Self.session()
        let html = TimelineHTML.render(timeline)
        #expect(html.hasPrefix("<!doctype html>"))
        #expect(html.contains("<svg xmlns=\"http://www.w3.org/2000/svg\""))
        #expect(!html.contains("<?xml"))
        #expect(html.contains("window.segueTimeline"))
        let start = try #require(html.range(of: "<script id=\"timeline-data\" type=\"application/json\">"))
        let end = try #require(html.range(of: "</script>", range: start.upperBound..<html.endIndex))
        let json = String(html[start.upperBound..<end.lowerBound])
        #expect(!json.contains("</"))
        let data = try JSON.parse(Array(json.utf8))
        #expect(data["marks"]?.arrayValue?.count == timeline.marks.count)
        #expect(data["navigators"]?.arrayValue?.compactMap(\.stringValue) == ["main", "inbox & <more>"])
        let last = try #require(data["marks"]?.arrayValue?.last { $0["navigator"]?.stringValue == "main" })
        #expect(last["stack"]?.arrayValue?.compactMap(\.stringValue) == ["Home[s1]", "Detail[s2]"])
    }
}
