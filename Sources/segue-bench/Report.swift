import Foundation
import SegueCore

/// One measured figure, optionally next to the raw limit it is judged against.
struct Figure {
    enum Comparison {
        /// value ≤ factor × limit
        case atMost(Double)
        /// value ≥ factor × limit
        case atLeast(Double)

        var factor: Double {
            switch self {
            case .atMost(let factor), .atLeast(let factor): factor
            }
        }
    }

    var section: String
    var name: String
    var value: Double
    var unit: String
    /// The raw limit (same unit) and what it is.
    var limit: Double? = nil
    var limitName: String = ""
    var target: Comparison? = nil
    var detail: String = ""

    var ratio: Double? {
        guard let limit, limit != 0 else { return nil }
        return value / limit
    }

    var passed: Bool? {
        guard let target, let limit else { return nil }
        switch target {
        case .atMost(let factor): return value <= factor * limit
        case .atLeast(let factor): return value >= factor * limit
        }
    }

    /// The ratio as `Report.number` spells it, with a third decimal when two would read as the target
    /// itself: "1.30× … ≤ 1.30× … MISSED" for 1.3034 says nothing, "1.303×" does.
    var ratioText: String? {
        guard let ratio else { return nil }
        let text = Report.number(ratio)
        guard let factor = target?.factor, text == Report.number(factor), ratio != factor else { return text }
        return String(format: "%.3f", ratio)
    }

    var targetText: String {
        switch target {
        case .atMost(let f)?: "≤ \(Report.number(f))×"
        case .atLeast(let f)?: "≥ \(Report.number(f))×"
        case nil: ""
        }
    }
}

/// Collects figures as they are measured; prints the table or the JSON document at the end.
final class Report {
    private(set) var figures: [Figure] = []
    var notes: [String] = []
    let echo: Bool

    init(echo: Bool) { self.echo = echo }

    func add(_ figure: Figure) {
        figures.append(figure)
        if echo {
            var line = "  \(figure.name): \(Self.number(figure.value)) \(figure.unit)"
            if let ratio = figure.ratioText { line += "  (\(ratio)× \(figure.limitName))" }
            if let passed = figure.passed { line += passed ? "  ok" : "  MISSED" }
            FileHandle.standardError.write(Data((line + "\n").utf8))
        }
    }

    func note(_ text: String) {
        notes.append(text)
        if echo { FileHandle.standardError.write(Data(("  note: " + text + "\n").utf8)) }
    }

    static func progress(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    static func number(_ value: Double) -> String {
        if value == 0 { return "0" }
        let magnitude = abs(value)
        if magnitude >= 100_000 { return String(format: "%.0f", value) }
        if magnitude >= 100 { return String(format: "%.0f", value) }
        if magnitude >= 10 { return String(format: "%.1f", value) }
        if magnitude >= 1 { return String(format: "%.2f", value) }
        return String(format: "%.3f", value)
    }

    /// A Markdown table: readable in a terminal, pasteable into docs/performance.md.
    func table() -> String {
        var lines = [
            "| section | figure | value | limit | ratio | target | met |",
            "|---|---|---:|---|---:|---|---|",
        ]
        for f in figures {
            let limit = f.limit.map { "\(Self.number($0)) \(f.unit) (\(f.limitName))" } ?? ""
            let ratio = f.ratioText.map { $0 + "×" } ?? ""
            let met = f.passed.map { $0 ? "yes" : "**no**" } ?? ""
            lines.append(
                "| \(f.section) | \(f.name) | \(Self.number(f.value)) \(f.unit) | \(limit) | \(ratio) | \(f.targetText) | \(met) |"
            )
        }
        if !notes.isEmpty {
            lines.append("")
            lines += notes.map { "- " + $0 }
        }
        return lines.joined(separator: "\n")
    }

    func json(machine: JSON) -> String {
        let items: [JSON] = figures.map { f in
            var o: JSONObject = [
                "section": .string(f.section), "name": .string(f.name), "value": .double(f.value),
                "unit": .string(f.unit), "detail": .string(f.detail),
            ]
            if let limit = f.limit {
                o["limit"] = .double(limit)
                o["limitName"] = .string(f.limitName)
            }
            if let ratio = f.ratio { o["ratio"] = .double(ratio) }
            if f.target != nil { o["target"] = .string(f.targetText) }
            if let passed = f.passed { o["met"] = .bool(passed) }
            return .object(o)
        }
        let document: JSON = [
            "machine": machine, "figures": .array(items), "notes": .array(notes.map(JSON.string)),
        ]
        return document.serialized()
    }
}
