import Foundation
import SegueCore

/// The terminal screen of `segue watch` as lines that fit `columns` × `rows`: a header, a notice or
/// key line, one line per navigator (two or three while a transition is in flight), and "N more"
/// when they do not all fit. Pure, so the layout is tested without a terminal; `Terminal` draws it.
struct WatchLayout {
    var columns: Int
    var rows: Int
    var colour: Bool
    /// The first navigator shown (scrolled with j/k).
    var scroll = 0
    /// Only navigators whose name contains this (set with `/`).
    var filter = ""
    /// `/` was pressed: keys go to the filter until Enter or Esc.
    var editingFilter = false
    /// The names the filter keeps, worked out once for the filter and the names as they are.
    let filtered = FilteredNames()

    enum Style { case plain, bold, dim, cyan, yellow, green, red }

    /// A piece of a line with one style; `elastic` is the piece cut (from its left) when too long.
    struct Piece {
        var text: String
        var style: Style = .plain
        var elastic = false
    }

    /// The names shown, in order, after the filter.
    func names(_ model: WatchModel) -> [String] {
        // The filter ignores case.
        filter.isEmpty ? model.orderedNames : filtered.names(model, filter: filter)
    }

    /// The lines to draw, at most `rows`, each at most `columns` wide (colour codes aside).
    func render(_ model: WatchModel, header: String, keys: String) -> [String] {
        var top: [[Piece]] = [[Piece(text: header, style: .bold)]]
        if let notice = model.notice {
            top.append([Piece(text: "!! " + notice, style: .red)])
        } else if editingFilter {
            top.append([Piece(text: "filter: \(filter)_  (Enter keeps it, Esc clears it)", style: .yellow)])
        } else {
            // An active filter first: a narrow terminal cuts the keys before it.
            top.append([Piece(text: (filter.isEmpty ? "" : "filter: \(filter)   ") + keys, style: .dim)])
        }
        let shown = names(model)
        let room = pageRows
        var body: [[Piece]] = []
        // As far as the list has room to scroll: the place asked for is kept for when it has.
        let first = min(scroll, maxScroll(model))
        var index = first
        while index < shown.count {
            let block = lines(for: shown[index], model)
            guard body.count + block.count <= room else {
                // What fits of the last one (its stack, then its transition): rows left blank would
                // hide a navigator that has room to show its state.
                if body.count < room {
                    body += block.prefix(room - body.count)
                    index += 1
                }
                break
            }
            body += block
            index += 1
        }
        var out = top + body
        let hidden = shown.count - index + first
        if hidden > 0 {
            let above = first
            let below = hidden - above
            let where_ =
                above == 0 ? "\(below) more" : below == 0 ? "\(above) above" : "\(above) above, \(below) below"
            out.append([Piece(text: "… \(where_): j/k or ↑/↓ to scroll, / to filter", style: .yellow)])
        }
        if shown.isEmpty, model.awaited.isEmpty, !filter.isEmpty {
            out.append([Piece(text: "no navigator matches '\(filter)'", style: .dim)])
        }
        return out.prefix(rows).map { draw(fit($0)) }
    }

    /// A navigator's lines: name, revision and stack; then the transition with from → to; then
    /// the two views' values while ticks arrive.
    func lines(for name: String, _ model: WatchModel) -> [[Piece]] {
        guard let row = model.rows[name] else {
            return [[Piece(text: name, style: .bold), Piece(text: "  not created yet; waiting for it", style: .dim)]]
        }
        // A long name takes at most a third of the row, so the top of the stack stays in view.
        let room = max(12, columns / 3)
        var first = [Piece(text: name.cut(to: room), style: .bold)]
        if row.status != "open" { first.append(Piece(text: "  \(row.status)", style: .red)) }
        first.append(Piece(text: "  rev \(row.revision)  ", style: .dim))
        first.append(Piece(text: WatchModel.stack(row.stack, modals: row.modals), elastic: true))
        var out = [first]
        guard let line = row.tick?.line ?? row.transition else { return out }
        let head = "  #\(line.id) \(line.operation) "
        let route = "\(line.from) → \(line.to)  "
        // Numbers in a fixed width: a bar keeps its length from frame to frame.
        let phase = line.phase
        let fraction = Self.number(line.fraction)
        // As much as leaves the bar 10 columns: both numbers, the fraction, or the bare fraction.
        let base = head.count + route.count + phase.count + 2
        let numbers =
            ["] fraction \(fraction) progress \(Self.number(line.progress))", "] fraction \(fraction)"].first {
                columns - base - $0.count >= 10
            } ?? "] \(fraction)"
        let fixed = base + numbers.count
        let width = max(5, min(30, columns - fixed))
        let filled = max(0, min(width, Int((line.fraction * Double(width)).rounded())))
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        out.append([
            Piece(text: head), Piece(text: route, elastic: true),
            Piece(text: "\(phase) [\(bar)" + numbers, style: Self.style(of: phase)),
        ])
        if let tick = row.tick {
            out.append([
                Piece(text: "    from " + Self.values(tick.from) + "   to " + Self.values(tick.to), style: .dim)
            ])
        }
        return out
    }

    /// A fraction or progress in a fixed width, three decimals: `0.500`, `1.000` (a spring's progress
    /// below 0 takes one more).
    static func number(_ value: Double) -> String { String(format: "%.3f", value) }

    static func style(of phase: String) -> Style {
        switch phase {
        case "animating": .cyan
        case "interactive": .yellow
        case "finishing", "completed": .green
        case "cancelling", "cancelled": .red
        default: .plain
        }
    }

    /// `x 0.50 y 0 alpha 1 scale 1`: the values a frontend draws with, the defaults left out.
    static func values(_ view: JSONObject) -> String {
        let defaults: [(String, Double)] = [
            ("x", 0), ("y", 0), ("alpha", 1), ("scale", 1), ("rotation", 0), ("rotationY", 0), ("mask", 1),
        ]
        var parts: [String] = []
        for (key, standard) in defaults {
            guard let value = view[key]?.doubleValue else { continue }
            if value != standard || key == "x" || key == "alpha" { parts.append("\(key) \(format(value))") }
        }
        return parts.joined(separator: " ")
    }

    static func format(_ value: Double) -> String {
        let hundredths = (value * 100).rounded() / 100
        return hundredths == hundredths.rounded() ? String(Int(hundredths)) : String(hundredths)
    }

    /// Cuts a line to `columns`: the elastic piece loses characters from its left behind "…" (so the
    /// top of a stack stays visible), then the line is cut at its end if it is still too long.
    func fit(_ pieces: [Piece]) -> [Piece] {
        var pieces = pieces
        var excess = pieces.reduce(0) { $0 + $1.text.count } - columns
        guard excess > 0 else { return pieces }
        if let i = pieces.firstIndex(where: \.elastic) {
            let text = pieces[i].text
            let keep = max(0, text.count - excess - 1)
            let cut = text.count - keep
            if keep > 0 || text.count > 0 {
                pieces[i].text = "…" + String(text.suffix(keep))
                excess -= cut - 1
            }
        }
        guard excess > 0 else { return pieces }
        var left = columns
        for i in pieces.indices {
            let take = max(0, min(left, pieces[i].text.count))
            if take < pieces[i].text.count {
                pieces[i].text = take > 0 ? String(pieces[i].text.prefix(take - 1)) + "…" : ""
            }
            left -= take
        }
        return pieces
    }

    func draw(_ pieces: [Piece]) -> String {
        pieces.map { piece in
            guard colour, piece.style != .plain, !piece.text.isEmpty else { return piece.text }
            return Self.code(piece.style) + piece.text + "\u{1B}[0m"
        }.joined()
    }

    static func code(_ style: Style) -> String {
        switch style {
        case .plain: ""
        case .bold: "\u{1B}[1m"
        case .dim: "\u{1B}[2m"
        case .cyan: "\u{1B}[36m"
        case .yellow: "\u{1B}[33m"
        case .green: "\u{1B}[32m"
        case .red: "\u{1B}[31m"
        }
    }

    /// The rows left for navigators: the header, the keys (or a notice, or the filter) and the
    /// "… more" line take three.
    private var pageRows: Int { max(0, rows - 3) }

    /// How many navigators the screen shows whole from the `first` one: PgDn's page.
    func shownCount(_ model: WatchModel, from first: Int) -> Int {
        page(of: names(model).dropFirst(first), model)
    }

    /// How many navigators a screen ending just above the `first` one would show: PgUp's page, so
    /// that none between the two screens is passed over.
    func countAbove(_ model: WatchModel, first: Int) -> Int {
        page(of: names(model).prefix(first).reversed(), model)
    }

    /// How many of `names`, in that order, fit whole in a screen's rows (at least one).
    private func page(of names: some Sequence<String>, _ model: WatchModel) -> Int {
        var used = 0
        var count = 0
        for name in names {
            let height = lines(for: name, model).count
            guard used + height <= pageRows else { break }
            used += height
            count += 1
        }
        return max(1, count)
    }

    /// The largest useful `scroll` for `model`: the one that shows the last navigator at the bottom of
    /// a full page (beyond it, paging down would leave the screen emptier each time).
    func maxScroll(_ model: WatchModel) -> Int {
        let count = names(model).count
        return max(0, count - countAbove(model, first: count))
    }
}

/// The names a filter keeps, until the filter or the names change: a redraw (up to 60 a second) asks
/// for them up to three times, and a case-insensitive search of 5,000 names each time took a core.
final class FilteredNames {
    private var key: (filter: String, version: Int)?
    private var kept: [String] = []

    func names(_ model: WatchModel, filter: String) -> [String] {
        if let key, key.filter == filter, key.version == model.namesVersion { return kept }
        kept = model.orderedNames.filter { $0.range(of: filter, options: .caseInsensitive) != nil }
        key = (filter, model.namesVersion)
        return kept
    }
}
