import SegueView
import Testing

@Suite struct SVGWriterTests {
    @Test(arguments: [
        (0.0, "0"), (1.5, "1.5"), (-0.001, "0"), (10, "10"), (-3.25, "-3.25"), (0.05, "0.05"), (0.5, "0.5"),
        (123.456, "123.46"), (1_000_000_000, "1000000000"), (-0.004, "0"), (99.999, "100"), (.nan, "0"),
    ])
    func numbers(value: Double, written: String) {
        #expect(SVGWriter.number(value) == written)
    }

    @Test(arguments: [
        ("plain", "plain"), ("a < b & c > d", "a &lt; b &amp; c &gt; d"), ("\"q\" 'a'", "&quot;q&quot; &apos;a&apos;"),
        ("bell\u{7}", "bell "), ("line\nnext", "line\nnext"), ("→ ✓", "→ ✓"),
    ])
    func escapes(text: String, escaped: String) {
        #expect(SVGWriter.escape(text) == escaped)
    }

    @Test func writesNestedElements() {
        var svg = SVGWriter()
        svg.begin("g", [("class", .text("a\"b")), ("x", .number(1.25))])
        svg.title("t<")
        svg.element("circle", [("r", .number(3))])
        svg.end()
        #expect(svg.text == "<g class=\"a&quot;b\" x=\"1.25\">\n<title>t&lt;</title>\n<circle r=\"3\"/>\n</g>\n")
        #expect(SVGWriter.points([(1, 2), (3.333, -4)]) == "1,2 3.33,-4")
    }
}
