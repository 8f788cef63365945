/// SVG (and any XML) written as text: elements with attributes in the order given, text and
/// attribute values escaped, numbers in one fixed short form.
package struct SVGWriter {
    package private(set) var text = ""
    private var open: [String] = []

    package init() {}

    /// A number as coordinates are written: at most two decimals, no trailing zeros, no "-0".
    package static func number(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        let hundredths = (value * 100).rounded()
        if hundredths == 0 { return "0" }
        let negative = hundredths < 0
        let magnitude = Int64(abs(hundredths))
        let whole = magnitude / 100
        let part = magnitude % 100
        var out = (negative ? "-" : "") + String(whole)
        if part != 0 {
            out += part % 10 == 0 ? "." + String(part / 10) : (part < 10 ? ".0" : ".") + String(part)
        }
        return out
    }

    /// `&`, `<`, `>`, `"` and `'` as entities; control characters XML cannot hold as spaces.
    package static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\n", "\t": out.unicodeScalars.append(scalar)
            default:
                if scalar.value < 0x20 || (0xFFFE...0xFFFF).contains(scalar.value) {
                    out += " "
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }

    package enum Value {
        case text(String)
        case number(Double)
    }

    private static func attributes(_ list: [(String, Value)]) -> String {
        var out = ""
        for (name, value) in list {
            switch value {
            case .text(let s): out += " \(name)=\"\(escape(s))\""
            case .number(let n): out += " \(name)=\"\(number(n))\""
            }
        }
        return out
    }

    /// `<name attributes/>`, or with `text` inside.
    package mutating func element(_ name: String, _ attributes: [(String, Value)] = [], text content: String? = nil) {
        text += "<\(name)\(Self.attributes(attributes))"
        if let content { text += ">\(Self.escape(content))</\(name)>\n" } else { text += "/>\n" }
    }

    /// Opens `<name attributes>`; `close` ends the innermost open element.
    package mutating func begin(_ name: String, _ attributes: [(String, Value)] = []) {
        text += "<\(name)\(Self.attributes(attributes))>\n"
        open.append(name)
    }

    package mutating func end() {
        guard let name = open.popLast() else { return }
        text += "</\(name)>\n"
    }

    /// A `<title>`: browsers show it as the tooltip of its parent.
    package mutating func title(_ content: String) { element("title", text: content) }

    /// Raw markup (a stylesheet) inside the current element, not escaped: only for trusted text.
    package mutating func raw(_ markup: String) { text += markup }

    /// The points of a polyline: `x,y x,y ...`.
    package static func points(_ points: [(x: Double, y: Double)]) -> String {
        points.map { number($0.x) + "," + number($0.y) }.joined(separator: " ")
    }
}
