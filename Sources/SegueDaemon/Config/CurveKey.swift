/// A 32-byte CURVE key in ZeroMQ's Z85 text form (40 characters), as `zmq_curve_keypair` prints it and
/// as ZeroMQ's `ZMQ_CURVE_*KEY` options accept it.
///
/// Decoding checks what a bare length check would miss: every character is in the Z85 alphabet and
/// every 5-character group fits 32 bits (rfc.zeromq.org/spec/32), so a key with a typo is rejected by
/// the config reader rather than by the ZAP handler at the first connection.
package struct CurveKey: Sendable, Hashable, CustomStringConvertible {
    /// The 40-character Z85 text.
    package let z85: String
    /// The 32 key bytes.
    package let bytes: [UInt8]

    static let alphabet = Array(
        "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#".utf8)

    private static let decodeTable: [UInt8: UInt32] = {
        var table: [UInt8: UInt32] = [:]
        for (index, byte) in alphabet.enumerated() { table[byte] = UInt32(index) }
        return table
    }()

    /// Parses Z85 text; the error is a reason that follows "must be ...".
    package init(z85 text: String) throws(CurveKeyError) {
        let characters = Array(text.utf8)
        guard characters.count == 40 else {
            throw CurveKeyError("a CURVE key of 40 Z85 characters, not \(characters.count)")
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        for group in stride(from: 0, to: 40, by: 5) {
            var value: UInt64 = 0
            for byte in characters[group..<group + 5] {
                guard let digit = Self.decodeTable[byte] else {
                    throw CurveKeyError(
                        "a CURVE key of 40 Z85 characters; '\(Character(Unicode.Scalar(byte)))' is not one")
                }
                value = value * 85 + UInt64(digit)
            }
            guard value <= UInt64(UInt32.max) else {
                throw CurveKeyError("a valid Z85 CURVE key; characters \(group + 1) to \(group + 5) overflow")
            }
            bytes += [
                UInt8(value >> 24), UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 8),
                UInt8(truncatingIfNeeded: value),
            ]
        }
        self.z85 = text
        self.bytes = bytes
    }

    /// Only the first characters, so a secret key can never end up whole in a log line.
    package var description: String { "CurveKey(\(z85.prefix(8))...)" }
}

/// Why text is not a Z85 CURVE key; `reason` follows "must be ".
package struct CurveKeyError: Error, Equatable, Sendable, CustomStringConvertible {
    package var reason: String
    init(_ reason: String) { self.reason = reason }
    package var description: String { reason }
}
