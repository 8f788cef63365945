import Foundation
import SegueCore
import Testing

/// What a card's computed style must be for a tick's view, by the page's documented drawing rule
/// (Sources/SegueView/Page/viewer.js): transform translate(x·W, y·H) [perspective(500 pt)
/// rotateY] [rotate] [scale] about the anchor, opacity alpha, z-index z, an iris clip of
/// mask × the anchor's farthest corner.
enum CardCheck {
    /// Compares one card; numbers must match to 1e-6 after the browser's rounding (six significant
    /// digits), lengths to 1 px. Returns the differences seen.
    static func compare(_ card: JSON, _ view: JSON, device: JSON, frame: Int64, role: String) throws -> CardDeltas {
        let where_ = "frame \(frame) \(role)"
        let w = device["width"]!.doubleValue!
        let h = device["height"]!.doubleValue!
        func v(_ key: String) -> Double { view[key]!.doubleValue! }
        let anchor = view["anchor"]!.arrayValue!.map { $0.doubleValue! }
        var deltas = CardDeltas()
        let expected = matrix(view, width: w, height: h, perspective: 500 * w / 390)
        let actual = try #require(parse(card["transform"]!.stringValue!), "\(where_): \(card["transform"]!)")
        for i in 0..<16 {
            if i == 12 || i == 13 {
                let d = abs(actual[i] - expected[i])
                #expect(d <= 1, "\(where_): translation \(actual[i]) vs \(expected[i])")
                deltas.pixels = max(deltas.pixels, d)
            } else {
                let d = abs(actual[i] - rounded(expected[i]))
                #expect(d <= 1e-6, "\(where_): matrix[\(i)] \(actual[i]) vs \(expected[i])")
                deltas.matrix = max(deltas.matrix, d)
            }
        }
        let opacity = Double(card["opacity"]!.stringValue!)!
        deltas.opacity = abs(opacity - rounded(v("alpha")))
        #expect(deltas.opacity <= 1e-6, "\(where_): opacity \(opacity) vs \(v("alpha"))")
        #expect(card["zIndex"]?.stringValue == String(view["z"]!.int64Value!), "\(where_): z-index")
        let origin = pixels(card["origin"]!.stringValue!)
        deltas.origin = max(abs(origin[0] - anchor[0] * w), abs(origin[1] - anchor[1] * h))
        #expect(deltas.origin <= 1, "\(where_): origin \(origin)")
        let clip = card["clipPath"]!.stringValue!
        if v("mask") >= 1 {
            #expect(clip == "none", "\(where_): clip \(clip)")
        } else {
            let (ax, ay) = (anchor[0] * w, anchor[1] * h)
            let radius =
                v("mask") * ((max(ax, w - ax) * max(ax, w - ax) + max(ay, h - ay) * max(ay, h - ay))).squareRoot()
            let shown = pixels(clip).first ?? -1
            deltas.mask = abs(shown - radius)
            #expect(clip.hasPrefix("circle(") && deltas.mask <= 1, "\(where_): clip \(clip) vs radius \(radius)")
        }
        return deltas
    }

    /// A value as the browser prints it: six significant digits.
    static func rounded(_ x: Double) -> Double { Double(String(format: "%.6g", x))! }

    /// The numbers of every `NNpx` in a CSS value, in order.
    static func pixels(_ text: String) -> [Double] {
        text.split(whereSeparator: { $0 == " " || $0 == "(" || $0 == ")" }).compactMap { word in
            word.hasSuffix("px") ? Double(word.dropLast(2)) : nil
        }
    }

    /// A computed `transform` as a column-major 4 × 4 matrix.
    static func parse(_ text: String) -> [Double]? {
        if text == "none" { return identity }
        guard let open = text.firstIndex(of: "("), text.hasSuffix(")") else { return nil }
        let numbers = text[text.index(after: open)..<text.index(before: text.endIndex)]
            .split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        if text.hasPrefix("matrix3d("), numbers.count == 16 { return numbers }
        guard text.hasPrefix("matrix("), numbers.count == 6 else { return nil }
        let (a, b, c, d, e, f) = (numbers[0], numbers[1], numbers[2], numbers[3], numbers[4], numbers[5])
        return [a, b, 0, 0, c, d, 0, 0, 0, 0, 1, 0, e, f, 0, 1]
    }

    static let identity: [Double] = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]

    /// The CSS functions' matrices multiplied in order, as CSS composes a transform list.
    static func matrix(_ view: JSON, width: Double, height: Double, perspective: Double) -> [Double] {
        func v(_ key: String) -> Double { view[key]!.doubleValue! }
        var m = translate(v("x") * width, v("y") * height)
        if v("rotationY") != 0 {
            m = multiply(m, [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, -1 / perspective, 0, 0, 0, 1])
            let t = v("rotationY") * .pi / 180
            m = multiply(m, [cos(t), 0, -sin(t), 0, 0, 1, 0, 0, sin(t), 0, cos(t), 0, 0, 0, 0, 1])
        }
        if v("rotation") != 0 {
            let t = v("rotation") * .pi / 180
            m = multiply(m, [cos(t), sin(t), 0, 0, -sin(t), cos(t), 0, 0, 0, 0, 1, 0, 0, 0, 0, 1])
        }
        if v("scale") != 1 { m = multiply(m, [v("scale"), 0, 0, 0, 0, v("scale"), 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]) }
        return m
    }

    static func translate(_ x: Double, _ y: Double) -> [Double] { [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, x, y, 0, 1] }

    /// a × b, both column-major.
    static func multiply(_ a: [Double], _ b: [Double]) -> [Double] {
        var out = [Double](repeating: 0, count: 16)
        for column in 0..<4 {
            for row in 0..<4 {
                var sum = 0.0
                for k in 0..<4 { sum += a[k * 4 + row] * b[column * 4 + k] }
                out[column * 4 + row] = sum
            }
        }
        return out
    }
}
