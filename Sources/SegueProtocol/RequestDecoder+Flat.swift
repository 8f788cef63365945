import SegueCore

extension RequestDecoder {
    /// The request, read straight from the bytes, when it has the flat shape of a stack command
    /// (`push`, `present`, `pop`, `dismiss`, `popToRoot` with `navigator`, `screen`, `animated` and the
    /// envelope's `id`, `expect`, `owner`) and is valid; nil for anything else, which `decode` reads
    /// through the JSON tree as before.
    ///
    /// Most commands a daemon decodes are of this shape, and building the tree and reading it back
    /// member by member cost about three times the scan. Only what the tree's path accepts with the
    /// same meaning is taken here: printable ASCII strings without escapes, whole numbers without
    /// sign, exponent or fraction, `true` and `false`, each known member at most once. Every error,
    /// `null`, nested value or other member goes the general way, whose messages stay the only ones;
    /// `FlatRequestTests` holds the two paths to the same `Request` for every request this one takes.
    func flatRequest(_ bytes: [UInt8]) -> Request? {
        guard limits.maxDepth >= 1 else { return nil }
        return bytes.withUnsafeBufferPointer { buffer in
            var scanner = FlatRequestScanner(bytes: buffer, maxStringBytes: min(limits.maxStringBytes, 256))
            guard let members = scanner.members() else { return nil }
            return request(members, buffer)
        }
    }

    private func request(_ m: FlatRequestScanner.Members, _ bytes: UnsafeBufferPointer<UInt8>) -> Request? {
        guard let cmd = m.cmd, let navigatorRange = m.navigator else { return nil }
        let takesScreen: Bool
        let name = bytes[cmd]
        if FlatRequestScanner.equals(name, "pop") || FlatRequestScanner.equals(name, "dismiss")
            || FlatRequestScanner.equals(name, "popToRoot")
        {
            takesScreen = false
        } else if FlatRequestScanner.equals(name, "push") || FlatRequestScanner.equals(name, "present") {
            takesScreen = true
        } else {
            return nil
        }
        guard takesScreen == (m.screen != nil) else { return nil }
        let navigator = Self.string(bytes, navigatorRange)
        guard NavigatorName.isValid(navigator) else { return nil }
        var id: String?
        switch m.id {
        case .none: break
        case .string(let range)?:
            guard !range.isEmpty, range.count <= limits.maxIDBytes else { return nil }
            id = Self.string(bytes, range)
        case .int(let value)?: id = String(value)
        }
        var envelope = CommandEnvelope(requestID: id, expect: m.expect)
        if let range = m.owner {
            guard !range.isEmpty, range.count <= limits.maxIDBytes else { return nil }
            envelope.owner = Self.string(bytes, range)
        }
        let options = TransitionOptions(animated: m.animated ?? true)
        let command: NavigationCommand
        if let range = m.screen {
            let screen = ScreenSpec(name: Self.string(bytes, range))
            guard ScreenSpec.isValidName(screen.name) else { return nil }
            command = bytes[cmd].count == 4 ? .push(screen, options) : .present(screen, options)
        } else {
            switch bytes[cmd].count {
            case 3: command = .pop(options)
            case 7: command = .dismiss(options)
            default: command = .popToRoot(options)
            }
        }
        // What a retry must repeat under the same id: every member but `id`, as `decode` takes it.
        let fingerprint = id.map { _ in JSON.object(m.object(bytes)).fingerprint }
        return Request(
            id: id, navigator: navigator, envelope: envelope, body: .navigation(command), fingerprint: fingerprint)
    }

    private static func string(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }
}

/// Reads one flat JSON object of the members `RequestDecoder.flatRequest` takes, or gives up (nil).
private struct FlatRequestScanner {
    let bytes: UnsafeBufferPointer<UInt8>
    let maxStringBytes: Int
    var position = 0

    enum Key: UInt8 {
        case cmd = 1
        case navigator
        case id
        case expect
        case owner
        case screen
        case animated
    }

    enum ID {
        case string(Range<Int>)
        case int(Int64)
    }

    /// The members found, as ranges of `bytes` for strings, and the order they came in.
    struct Members {
        var cmd: Range<Int>?
        var navigator: Range<Int>?
        var id: ID?
        var expect: Int64?
        var owner: Range<Int>?
        var screen: Range<Int>?
        var animated: Bool?
        /// Keys in order, three bits each, first in the lowest bits.
        var order: UInt32 = 0
        var count = 0

        /// The object minus `id`, members in their order: what the fingerprint is of.
        func object(_ bytes: UnsafeBufferPointer<UInt8>) -> JSONObject {
            var members: [(key: String, value: JSON)] = []
            members.reserveCapacity(count)
            func text(_ range: Range<Int>) -> JSON {
                .string(String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self))
            }
            for index in 0..<count {
                switch Key(rawValue: UInt8(truncatingIfNeeded: order >> UInt32(3 * index)) & 7) {
                case .cmd?: members.append((key: "cmd", value: text(cmd!)))
                case .navigator?: members.append((key: "navigator", value: text(navigator!)))
                case .expect?: members.append((key: "expect", value: .int(expect!)))
                case .owner?: members.append((key: "owner", value: text(owner!)))
                case .screen?: members.append((key: "screen", value: text(screen!)))
                case .animated?: members.append((key: "animated", value: .bool(animated!)))
                case .id?, nil: break
                }
            }
            return JSONObject(members)
        }
    }

    mutating func members() -> Members? {
        var m = Members()
        skipWhitespace()
        guard take(UInt8(ascii: "{")) else { return nil }
        skipWhitespace()
        while true {
            guard m.count < 8, let keyRange = string(), let key = Self.key(bytes[keyRange]) else { return nil }
            skipWhitespace()
            guard take(UInt8(ascii: ":")) else { return nil }
            skipWhitespace()
            switch key {
            case .cmd:
                guard m.cmd == nil, let value = string() else { return nil }
                m.cmd = value
            case .navigator:
                guard m.navigator == nil, let value = string() else { return nil }
                m.navigator = value
            case .owner:
                guard m.owner == nil, let value = string() else { return nil }
                m.owner = value
            case .screen:
                guard m.screen == nil, let value = string() else { return nil }
                m.screen = value
            case .id:
                guard m.id == nil, position < bytes.count else { return nil }
                if bytes[position] == UInt8(ascii: "\"") {
                    guard let value = string() else { return nil }
                    m.id = .string(value)
                } else {
                    guard let value = integer() else { return nil }
                    m.id = .int(value)
                }
            case .expect:
                guard m.expect == nil, let value = integer() else { return nil }
                m.expect = value
            case .animated:
                guard m.animated == nil, let value = boolean() else { return nil }
                m.animated = value
            }
            m.order |= UInt32(key.rawValue) << UInt32(3 * m.count)
            m.count += 1
            skipWhitespace()
            if take(UInt8(ascii: ",")) {
                skipWhitespace()
                continue
            }
            guard take(UInt8(ascii: "}")) else { return nil }
            skipWhitespace()
            return position == bytes.count ? m : nil
        }
    }

    static func key(_ name: Slice<UnsafeBufferPointer<UInt8>>) -> Key? {
        switch name.count {
        case 2 where equals(name, "id"): .id
        case 3 where equals(name, "cmd"): .cmd
        case 5 where equals(name, "owner"): .owner
        case 6 where equals(name, "expect"): .expect
        case 6 where equals(name, "screen"): .screen
        case 8 where equals(name, "animated"): .animated
        case 9 where equals(name, "navigator"): .navigator
        default: nil
        }
    }

    /// Byte for byte, without going through `String.UTF8View`'s iterator.
    static func equals(_ bytes: Slice<UnsafeBufferPointer<UInt8>>, _ literal: StaticString) -> Bool {
        guard bytes.count == literal.utf8CodeUnitCount else { return false }
        var offset = 0
        for byte in bytes {
            guard byte == literal.utf8Start[offset] else { return false }
            offset += 1
        }
        return true
    }

    mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    mutating func take(_ byte: UInt8) -> Bool {
        guard position < bytes.count, bytes[position] == byte else { return false }
        position += 1
        return true
    }

    /// A string of printable ASCII without escapes: the range of its contents.
    mutating func string() -> Range<Int>? {
        guard take(UInt8(ascii: "\"")) else { return nil }
        let start = position
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                guard position - start <= maxStringBytes else { return nil }
                position += 1
                return start..<position - 1
            }
            guard byte >= 0x20, byte < 0x7F, byte != UInt8(ascii: "\\") else { return nil }
            position += 1
        }
        return nil
    }

    /// Digits only, no leading zero, at most 18 of them (always within Int64), and nothing after
    /// them that would make the number a fraction or an exponent.
    mutating func integer() -> Int64? {
        let start = position
        var value: Int64 = 0
        while position < bytes.count, bytes[position] >= UInt8(ascii: "0"), bytes[position] <= UInt8(ascii: "9") {
            // A 19th digit could overflow: give up before reading it.
            guard position - start < 18 else { return nil }
            value = value * 10 + Int64(bytes[position] - UInt8(ascii: "0"))
            position += 1
        }
        let digits = position - start
        guard digits >= 1, digits == 1 || bytes[start] != UInt8(ascii: "0") else { return nil }
        return endsValue() ? value : nil
    }

    mutating func boolean() -> Bool? {
        let rest = bytes.count - position
        if rest >= 4, Self.equals(bytes[position..<position + 4], "true") {
            position += 4
            return endsValue() ? true : nil
        }
        if rest >= 5, Self.equals(bytes[position..<position + 5], "false") {
            position += 5
            return endsValue() ? false : nil
        }
        return nil
    }

    /// Whether the next byte can follow a value in an object (or the value runs to the end, which
    /// the caller then refuses for the missing `}`).
    func endsValue() -> Bool {
        guard position < bytes.count else { return true }
        switch bytes[position] {
        case 0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: ","), UInt8(ascii: "}"): return true
        default: return false
        }
    }
}
