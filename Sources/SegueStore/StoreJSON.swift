import SegueCore

/// The one place the store turns JSON values into column text and back.
///
/// TEMPORARY bridge until SegueCore's serializer lands: a minimal encoder and parser with the same
/// shape, replaced by `json.serialized()` and `JSON.parse` on merge.
enum StoreJSON {
    static func encode(_ value: JSON) -> String {
        var out = ""
        write(value, to: &out)
        return out
    }

    static func decode(_ text: String) throws(StoreError) -> JSON {
        var parser = MiniParser(bytes: Array(text.utf8))
        guard let value = parser.value(), parser.atEnd else {
            throw StoreError(kind: .invalidData, message: "Stored text is not valid JSON: \(text.prefix(80))")
        }
        return value
    }

    private static func write(_ value: JSON, to out: inout String) {
        switch value {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let i): out += String(i)
        case .double(let d): out += "\(d)"
        case .string(let s): writeString(s, to: &out)
        case .array(let a):
            out += "["
            for (i, v) in a.enumerated() {
                if i > 0 { out += "," }
                write(v, to: &out)
            }
            out += "]"
        case .object(let o):
            out += "{"
            for (i, m) in o.members.enumerated() {
                if i > 0 { out += "," }
                writeString(m.key, to: &out)
                out += ":"
                write(m.value, to: &out)
            }
            out += "}"
        }
    }

    private static func writeString(_ s: String, to out: inout String) {
        out += "\""
        for c in s.unicodeScalars {
            switch c {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case _ where c.value < 0x20: out += "\\u00" + (c.value < 16 ? "0" : "") + String(c.value, radix: 16)
            default: out.unicodeScalars.append(c)
            }
        }
        out += "\""
    }

    private struct MiniParser {
        let bytes: [UInt8]
        var i = 0
        var atEnd: Bool {
            mutating get {
                skip()
                return i == bytes.count
            }
        }
        mutating func skip() { while i < bytes.count, [32, 9, 10, 13].contains(bytes[i]) { i += 1 } }
        mutating func lit(_ s: String) -> Bool {
            let u = Array(s.utf8)
            guard i + u.count <= bytes.count, Array(bytes[i..<i + u.count]) == u else { return false }
            i += u.count
            return true
        }
        mutating func value() -> JSON? {
            skip()
            guard i < bytes.count else { return nil }
            switch bytes[i] {
            case UInt8(ascii: "n"): return lit("null") ? .null : nil
            case UInt8(ascii: "t"): return lit("true") ? .bool(true) : nil
            case UInt8(ascii: "f"): return lit("false") ? .bool(false) : nil
            case UInt8(ascii: "\""): return string().map(JSON.string)
            case UInt8(ascii: "["):
                i += 1
                var a: [JSON] = []
                skip()
                if lit("]") { return .array(a) }
                while true {
                    guard let v = value() else { return nil }
                    a.append(v)
                    skip()
                    if lit("]") { return .array(a) }
                    guard lit(",") else { return nil }
                }
            case UInt8(ascii: "{"):
                i += 1
                var o = JSONObject()
                skip()
                if lit("}") { return .object(o) }
                while true {
                    skip()
                    guard let k = string() else { return nil }
                    skip()
                    guard lit(":"), let v = value() else { return nil }
                    o[k] = v
                    skip()
                    if lit("}") { return .object(o) }
                    guard lit(",") else { return nil }
                }
            default:
                let start = i
                while i < bytes.count, "+-0123456789.eE".utf8.contains(bytes[i]) { i += 1 }
                let s = String(decoding: bytes[start..<i], as: UTF8.self)
                if let n = Int64(s) { return .int(n) }
                return Double(s).map(JSON.double)
            }
        }
        mutating func string() -> String? {
            guard lit("\"") else { return nil }
            var out: [UInt8] = []
            while i < bytes.count {
                let b = bytes[i]
                i += 1
                if b == UInt8(ascii: "\"") { return String(decoding: out, as: UTF8.self) }
                if b == UInt8(ascii: "\\") {
                    guard i < bytes.count else { return nil }
                    let e = bytes[i]
                    i += 1
                    switch e {
                    case UInt8(ascii: "n"): out.append(10)
                    case UInt8(ascii: "u"):
                        guard i + 4 <= bytes.count,
                            let v = UInt32(String(decoding: bytes[i..<i + 4], as: UTF8.self), radix: 16),
                            let sc = Unicode.Scalar(v)
                        else { return nil }
                        i += 4
                        out += Array(String(sc).utf8)
                    default: out.append(e)
                    }
                } else {
                    out.append(b)
                }
            }
            return nil
        }
    }
}
