import SegueCore
import SegueWire
import Testing

/// One malformed request: the frames a client sends and the error code it must get back.
struct MalformedCase: Sendable, CustomTestStringConvertible {
    var name: String
    var frames: [[UInt8]]
    var code: ErrorCode
    var kind: ZMQSocket.Kind = .dealer
    /// Words the error message must contain, when the row is about what the message says (a value's
    /// JSON path, what was expected, what was got).
    var mentions: String? = nil

    var testDescription: String { "\(code.rawValue): \(name)" }

    /// The id the reply must carry: the request's, when its only body frame is a JSON object the decoder
    /// can read (its limits: depth 32, strings 256 KiB) with a string id of at most 128 bytes or an
    /// integer id; otherwise null.
    var expectedID: JSON {
        var bodies = frames[...]
        if kind == .dealer, bodies.first?.isEmpty == true { bodies = bodies.dropFirst() }
        guard bodies.count == 1, let body = bodies.first,
            let json = try? JSON.parse(body, limits: JSONLimits(maxDepth: 32, maxStringBytes: 256 * 1024))
        else { return .null }
        switch json["id"] {
        case .string(let s)? where s.utf8.count <= 128: return .string(s)
        case .int(let i)?: return .string(String(i))
        default: return .null
        }
    }

    static func text(_ name: String, _ text: String, _ code: ErrorCode) -> MalformedCase {
        MalformedCase(name: name, frames: [Array(text.utf8)], code: code)
    }

    static func bytes(_ name: String, _ bytes: [UInt8], _ code: ErrorCode) -> MalformedCase {
        MalformedCase(name: name, frames: [bytes], code: code)
    }

    static func json(_ name: String, _ json: JSON, _ code: ErrorCode, mentions: String? = nil) -> MalformedCase {
        MalformedCase(name: name, frames: [json.serializedBytes()], code: code, mentions: mentions)
    }

    /// A JSON text with one invalid byte sequence spliced in where `@` stands.
    static func utf8(_ name: String, _ template: String, _ bad: [UInt8]) -> MalformedCase {
        var out: [UInt8] = []
        for byte in template.utf8 { if byte == UInt8(ascii: "@") { out += bad } else { out.append(byte) } }
        return bytes(name, out, .badRequest)
    }

    static func frames(_ name: String, _ frames: [String], kind: ZMQSocket.Kind = .dealer) -> MalformedCase {
        MalformedCase(name: name, frames: frames.map { Array($0.utf8) }, code: .badRequest, kind: kind)
    }

    static let ping = #"{"cmd":"ping","id":"f"}"#
    static let megabyte = String(repeating: "m", count: 1_000_000)

    static func push(_ extra: JSONObject) -> JSON {
        var o: JSONObject = ["cmd": "push", "id": "p", "navigator": "m", "screen": "A"]
        for (k, v) in extra.members { o[k] = v }
        return .object(o)
    }

    static func nav(_ cmd: String, _ args: JSONObject) -> JSON {
        var o: JSONObject = ["cmd": .string(cmd), "id": "n", "navigator": "m"]
        for (k, v) in args.members { o[k] = v }
        return .object(o)
    }

    static func animator(_ animator: JSON) -> JSON { push(["animator": animator]) }

    static let all: [MalformedCase] = syntax + encoding + envelope + commands + arguments + animators + sizes + framing
}
