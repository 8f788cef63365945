import CZeroMQ

/// CURVE keys (CurveZMQ, libsodium's Curve25519) and the Z85 text encoding libzmq uses for them.
package enum ZMQCurve {
    /// A Curve25519 key: 32 bytes, usually written as 40 Z85 characters.
    package struct Key: Hashable, Sendable, CustomStringConvertible {
        /// The 32 raw bytes.
        package let bytes: [UInt8]

        /// A key from its 32 raw bytes; anything else is `EINVAL`.
        package init(bytes: [UInt8]) throws(ZMQError) {
            guard bytes.count == 32 else {
                throw ZMQError(
                    code: .invalidArgument, call: "ZMQCurve.Key",
                    message: "A CURVE key is 32 bytes, not \(bytes.count).")
            }
            self.bytes = bytes
        }

        /// A key from its 40-character Z85 text, as printed by ``keyPair()`` or `curve_keygen`.
        package init(z85: String) throws(ZMQError) {
            guard z85.utf8.count == 40 else {
                throw ZMQError(
                    code: .invalidArgument, call: "ZMQCurve.Key",
                    message: "A Z85 CURVE key is 40 characters, not \(z85.utf8.count).")
            }
            try self.init(bytes: ZMQCurve.z85Decode(z85))
        }

        /// The 40-character Z85 text.
        package var z85: String {
            // 32 bytes are a multiple of 4, the only thing z85Encode can reject.
            (try? ZMQCurve.z85Encode(bytes)) ?? ""
        }

        /// The Z85 text; public keys are meant to be shown, and a secret key is only ever printed on purpose.
        package var description: String { z85 }
    }

    /// A new key pair (`zmq_curve_keypair`), both halves in Z85.
    ///
    /// Throws `ENOTSUP` if libzmq was built without CURVE (Debian's is built with libsodium).
    package static func keyPair() throws(ZMQError) -> (public: String, secret: String) {
        var publicKey = [CChar](repeating: 0, count: 41)
        var secretKey = [CChar](repeating: 0, count: 41)
        try ZMQ.check("zmq_curve_keypair") { zmq_curve_keypair(&publicKey, &secretKey) }
        return (string(publicKey), string(secretKey))
    }

    /// The public key that belongs to a Z85 secret key (`zmq_curve_public`), for a config that stores only
    /// the secret.
    package static func publicKey(fromSecret secret: String) throws(ZMQError) -> String {
        let secret = try Key(z85: secret)
        var publicKey = [CChar](repeating: 0, count: 41)
        try ZMQ.check("zmq_curve_public") { zmq_curve_public(&publicKey, secret.z85) }
        return string(publicKey)
    }

    /// Z85-encodes bytes (`zmq_z85_encode`); the count must be a multiple of 4 (ZMQ RFC 32).
    package static func z85Encode(_ bytes: [UInt8]) throws(ZMQError) -> String {
        guard bytes.count % 4 == 0 else {
            throw ZMQError(
                code: .invalidArgument, call: "zmq_z85_encode",
                message: "Z85 encodes whole 4-byte groups; \(bytes.count) bytes is not a multiple of 4.")
        }
        if bytes.isEmpty { return "" }
        var text = [CChar](repeating: 0, count: bytes.count / 4 * 5 + 1)
        let encoded = bytes.withUnsafeBufferPointer { zmq_z85_encode(&text, $0.baseAddress, $0.count) }
        guard encoded != nil else { throw ZMQError.last("zmq_z85_encode") }
        return string(text)
    }

    /// Decodes Z85 text (`zmq_z85_decode`); the length must be a multiple of 5 and every character from
    /// the Z85 alphabet.
    package static func z85Decode(_ text: String) throws(ZMQError) -> [UInt8] {
        let length = text.utf8.count
        guard length % 5 == 0, text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw ZMQError(
                code: .invalidArgument, call: "zmq_z85_decode",
                message: "Z85 text is printable ASCII in groups of 5 characters; got \(length) characters.")
        }
        if length == 0 { return [] }  // libzmq returns NULL for "", which is not an error
        var bytes = [UInt8](repeating: 0, count: length / 5 * 4)
        let decoded = zmq_z85_decode(&bytes, text)
        guard decoded != nil else {
            throw ZMQError(
                code: .invalidArgument, call: "zmq_z85_decode",
                message: "The text contains a character outside the Z85 alphabet.")
        }
        return bytes
    }

    private static func string(_ characters: [CChar]) -> String {
        String(decoding: characters.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
