import SegueCommandLine
import SegueCore

/// Readers for the value forms the `segue` command line takes, each with an exact usage message.
///
/// They build the wire JSON of docs/protocol.md, "Commands", from shell-friendly spellings (`bezier:0.2,0,0,1`,
/// `0.4s`, `key=value`), so scripts never have to quote JSON for the common cases.
enum ArgumentValues {
    /// A finite number (`Double`'s reader in `SegueCommandLine`).
    static func number(_ text: String, for name: String) throws(UsageError) -> Double {
        try ParsedArguments.read(text, as: Double.self, for: name)
    }

    /// A non-negative integer (a seq, a revision, a count).
    static func count(_ text: String, for name: String) throws(UsageError) -> Int64 {
        try ParsedArguments.read(text, as: Count.self, for: name).value
    }

    /// A positive integer (how many: `--count`, `--limit`).
    static func positive(_ text: String, for name: String, _ what: String) throws(UsageError) -> Int {
        guard let value = Int(text), value > 0, text.first != "+" else {
            throw UsageError.invalidValue(text, for: name, "expected a positive integer (\(what))")
        }
        return value
    }

    /// Seconds: `0.4`, `0.4s` or `400ms`; positive.
    static func seconds(_ text: String, for name: String) throws(UsageError) -> Double {
        try ParsedArguments.read(text, as: Seconds.self, for: name).value
    }

    /// A timing curve in wire form from `linear`, `easeIn`, `easeOut`, `easeInOut`, `default`,
    /// `bezier:x1,y1,x2,y2`, `spring:dampingRatio,initialVelocity` (UIKit),
    /// `spring:mass,stiffness,damping,initialVelocity` (CASpringAnimation) or
    /// `spring-response:response,dampingFraction` (SwiftUI). The daemon checks the ranges.
    /// `springs`: false where only a name or a bezier is taken (`--completion-curve`), so that the
    /// message lists no form the option then refuses.
    static func curve(_ text: String, for name: String, springs: Bool = true) throws(UsageError) -> JSON {
        let names = TimingCurve.namedCurves.map(\.name)
        if names.contains(text) { return .string(text) }
        let expectation =
            springs
            ? "expected \(names.joined(separator: ", ")), bezier:x1,y1,x2,y2, spring:dampingRatio,velocity, "
                + "spring:mass,stiffness,damping,velocity or spring-response:response,dampingFraction"
            : "expected \(names.joined(separator: ", ")) or bezier:x1,y1,x2,y2"
        guard let colon = text.firstIndex(of: ":") else { throw .invalidValue(text, for: name, expectation) }
        let kind = text[..<colon]
        var numbers: [Double] = []
        for part in text[text.index(after: colon)...].split(separator: ",", omittingEmptySubsequences: false) {
            guard let n = Double(part.trimmingSpaces), n.isFinite else {
                throw .invalidValue(text, for: name, expectation)
            }
            numbers.append(n)
        }
        let d = numbers.map(JSON.double)
        switch (kind, numbers.count) {
        case ("bezier", 4): return ["bezier": .array(d)]
        case ("spring", 2): return ["spring": ["dampingRatio": d[0], "initialVelocity": d[1]]]
        case ("spring", 4):
            return ["spring": ["mass": d[0], "stiffness": d[1], "damping": d[2], "initialVelocity": d[3]]]
        case ("spring-response", 2): return ["spring": ["response": d[0], "dampingFraction": d[1]]]
        default: throw .invalidValue(text, for: name, expectation)
        }
    }

    /// `key=value`: the value is JSON when it parses as JSON (`n=3`, `flag=true`, `tags=["a"]`),
    /// else the text itself as a string (`title=Hello`).
    static func parameter(_ text: String, for name: String) throws(UsageError) -> (key: String, value: JSON) {
        guard let eq = text.firstIndex(of: "="), eq != text.startIndex else {
            throw .invalidValue(text, for: name, "expected key=value")
        }
        let key = String(text[..<eq])
        let raw = String(text[text.index(after: eq)...])
        if let json = try? JSON.parse(raw) { return (key, json) }
        return (key, .string(raw))
    }

    /// A JSON object given on the command line (`--animator '{"style": "fade"}'`).
    static func object(_ text: String, for name: String) throws(UsageError) -> JSONObject {
        guard let json = try? JSON.parse(text), let object = json.objectValue else {
            throw .invalidValue(text, for: name, "expected a JSON object")
        }
        return object
    }

    /// One of a fixed set of words.
    static func choice(_ text: String, for name: String, in choices: [String]) throws(UsageError) -> String {
        guard choices.contains(text) else {
            throw .invalidValue(text, for: name, "expected one of \(choices.joined(separator: ", "))")
        }
        return text
    }
}

extension Substring {
    var trimmingSpaces: Substring {
        var s = self
        while s.first == " " { s = s.dropFirst() }
        while s.last == " " { s = s.dropLast() }
        return s
    }
}
