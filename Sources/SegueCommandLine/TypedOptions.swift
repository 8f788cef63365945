/// A value type an option or argument can be read as: swift-argument-parser's
/// `ExpressibleByArgument`, with the expectation that completes the usage message
/// ("The value 'x' is invalid for '--n': expected a number.") thrown by the reader itself.
package protocol ExpressibleByArgument: Sendable {
    init(argument: String) throws(ArgumentValueError)
    /// The words the value may be, for help and shell completion; empty for any text.
    static var allValueStrings: [String] { get }
}

extension ExpressibleByArgument {
    package static var allValueStrings: [String] { [] }
}

/// Why a word is not a value of its type: what was expected, phrased to follow "expected".
package struct ArgumentValueError: Error, Equatable, Sendable {
    package var expectation: String
    package init(_ expectation: String) { self.expectation = expectation }
}

/// An option with a typed value: its declaration (`spec`, for the parser and help) and how to read it.
package struct Option<Value: ExpressibleByArgument>: Sendable {
    package var spec: OptionSpec

    package init(
        _ name: String, short: Character? = nil, value: String, repeats: Bool = false,
        completion: CompletionKind? = nil,
        help: String
    ) {
        let words = Value.allValueStrings
        spec = OptionSpec(
            name, short: short, value: value, repeats: repeats,
            completion: completion ?? (words.isEmpty ? .none : .list(words)), help: help)
    }

    package var name: String { spec.name }
}

/// A flag: present or not.
package struct Flag: Sendable {
    package var spec: OptionSpec
    package init(_ name: String, short: Character? = nil, help: String) {
        spec = .flag(name, short: short, help: help)
    }
}

extension ParsedArguments {
    /// The option's last value, read as its type; nil when it was not given.
    package func value<V>(_ option: Option<V>) throws(UsageError) -> V? {
        guard let text = value(option.name) else { return nil }
        return try Self.read(text, as: V.self, for: "--\(option.name)")
    }

    /// Every value given to a repeating option, in order.
    package func values<V>(_ option: Option<V>) throws(UsageError) -> [V] {
        var out: [V] = []
        for text in values(option.name) { out.append(try Self.read(text, as: V.self, for: "--\(option.name)")) }
        return out
    }

    package func flag(_ flag: Flag) -> Bool { self.flag(flag.spec.name) }

    /// A positional argument read as `V`; nil when an optional one was not given.
    package func argument<V: ExpressibleByArgument>(_ name: String, as type: V.Type) throws(UsageError) -> V? {
        guard let text = argument(name) else { return nil }
        return try Self.read(text, as: V.self, for: "<\(name)>")
    }

    package static func read<V: ExpressibleByArgument>(_ text: String, as: V.Type, for name: String) throws(UsageError)
        -> V
    {
        do throws(ArgumentValueError) {
            return try V(argument: text)
        } catch {
            throw .invalidValue(text, for: name, error.expectation)
        }
    }
}

// MARK: The value types every command line here uses

extension String: ExpressibleByArgument {
    package init(argument: String) throws(ArgumentValueError) { self = argument }
}

extension Double: ExpressibleByArgument {
    /// A finite number.
    package init(argument: String) throws(ArgumentValueError) {
        guard let value = Double(argument) else { throw ArgumentValueError("expected a number") }
        // `inf` and `nan` parse as Doubles; said as what they lack, not as though they were not numbers.
        guard value.isFinite else { throw ArgumentValueError("expected a finite number") }
        self = value
    }
}

extension Int: ExpressibleByArgument {
    package init(argument: String) throws(ArgumentValueError) {
        guard let value = Int(argument), argument.first != "+" else { throw ArgumentValueError("expected an integer") }
        self = value
    }
}

/// A non-negative integer: a seq, a revision, a count.
package struct Count: ExpressibleByArgument, Equatable, Hashable {
    package var value: Int64
    package init(_ value: Int64) { self.value = value }
    package init(argument: String) throws(ArgumentValueError) {
        guard let value = Int64(argument), value >= 0, argument.first != "+" else {
            throw ArgumentValueError("expected a non-negative integer")
        }
        self.value = value
    }
}

/// A positive duration: `0.4`, `0.4s` or `400ms`.
package struct Seconds: ExpressibleByArgument, Equatable {
    package var value: Double
    package init(_ value: Double) { self.value = value }
    package init(argument: String) throws(ArgumentValueError) {
        guard let value = Self.parse(Substring(argument)), value > 0 else {
            throw ArgumentValueError("expected a positive duration like 0.4, 0.4s or 400ms")
        }
        self.value = value
    }

    /// The units a length of time may end in, with their seconds; `ms` before `m` and `s`.
    static let units: [(suffix: String, seconds: Double)] = [
        ("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600), ("d", 86_400),
    ]

    /// About 285 years: nanoseconds of it still fit an `Int64` (`duration`).
    static let maximum = 9e9

    /// Seconds in `text`: a finite number ≥ 0, at most `maximum`, of seconds or with a unit (`300ms`, `2.5s`, `10m`, `2h`,
    /// `1d`); with `requiringUnit`, a bare number is not one. The one reading of a length of time for
    /// every option and argument that takes one.
    package static func parse(_ text: Substring, requiringUnit: Bool = false) -> Double? {
        var number = text
        var scale: Double? = requiringUnit ? nil : 1
        if let unit = units.first(where: { text.hasSuffix($0.suffix) }) {
            number = text.dropLast(unit.suffix.count)
            scale = unit.seconds
        }
        // Double("inf"), Double("nan") and Double("0x10") parse: only decimals are lengths of time.
        guard let scale, !number.contains(where: { $0.isLetter && $0 != "e" && $0 != "E" }),
            let value = Double(number), value.isFinite, value >= 0, value * scale <= maximum
        else { return nil }
        return value * scale
    }

    package var duration: Duration { .nanoseconds(Int64((value * 1e9).rounded(.up))) }
}

/// A word from a fixed set: any `String` enum that lists its cases.
extension ExpressibleByArgument where Self: RawRepresentable, Self: CaseIterable, RawValue == String {
    package init(argument: String) throws(ArgumentValueError) {
        guard let value = Self(rawValue: argument) else {
            throw ArgumentValueError("expected one of \(Self.allValueStrings.joined(separator: ", "))")
        }
        self = value
    }

    package static var allValueStrings: [String] { allCases.map(\.rawValue) }
}
