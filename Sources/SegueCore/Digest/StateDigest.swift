/// The digest of a navigator's state at a revision, and of a whole fleet (docs/protocol.md, "State
/// digests"): a frontend that folds the events it received recomputes it and compares, as lockstep
/// games exchange state checksums to catch a desync at the frame it happens.
///
/// What is hashed is what a frontend shows and can fold from events alone: the navigator's name, its
/// revision, and the ids and route names of its stack and modals. Not `params`: they are any JSON,
/// whose spelling (number forms, member order, escapes) differs between JSON libraries, and a screen
/// id already names exactly one screen of one route.
package enum StateDigest {
    /// The canonical encoding: the compact JSON array
    /// `[navigator, revision, [[id, name], ...stack, root first], [[id, name], ...modals, bottom first]]`,
    /// with no whitespace. Names and ids are `[A-Za-z0-9._-]`, so no string needs an escape and every
    /// JSON library writes the same bytes (Python: `json.dumps(value, separators=(",", ":"))`).
    package static func canonical(navigator: String, revision: Int64, stack: [Screen], modals: [Screen]) -> [UInt8] {
        JSONSerializer.withSerializer(
            { write(navigator: navigator, revision: revision, stack: stack, modals: modals, into: &$0) }, { Array($0) })
    }

    /// SHA-256 of the canonical encoding of `state`.
    package static func digest(of state: NavigatorState) -> SHA256.Digest {
        JSONSerializer.withSerializer(
            {
                write(
                    navigator: state.name, revision: state.revision, stack: state.stack, modals: state.modals, into: &$0
                )
            },
            { SHA256.hash($0) })
    }

    private static func write(
        navigator: String, revision: Int64, stack: [Screen], modals: [Screen], into w: inout JSONSerializer
    ) {
        w.append(UInt8(ascii: "["))
        w.writeString(navigator)
        w.append(UInt8(ascii: ","))
        w.writeInt(revision)
        w.append(UInt8(ascii: ","))
        write(stack, into: &w)
        w.append(UInt8(ascii: ","))
        write(modals, into: &w)
        w.append(UInt8(ascii: "]"))
    }

    private static func write(_ screens: [Screen], into w: inout JSONSerializer) {
        w.append(UInt8(ascii: "["))
        for (index, screen) in screens.enumerated() {
            if index > 0 { w.append(UInt8(ascii: ",")) }
            w.append(UInt8(ascii: "["))
            w.writeString(screen.id)
            w.append(UInt8(ascii: ","))
            w.writeString(screen.name)
            w.append(UInt8(ascii: "]"))
        }
        w.append(UInt8(ascii: "]"))
    }

    /// The fleet digest from the sum of its navigators' `leading64` (mod 2⁶⁴): 16 lowercase hex digits.
    ///
    /// A sum, not a hash of a sorted list: it does not depend on order, so the daemon keeps it up to
    /// date event by event and a heartbeat costs the same with ten navigators or a million
    /// (an additive multiset hash, Bellare and Micciancio's AdHash).
    package static func fleetHex(_ sum: UInt64) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(16)
        for shift in stride(from: 60, through: 0, by: -4) { out.append(digits[Int(sum >> UInt64(shift) & 0xF)]) }
        return String(decoding: out, as: UTF8.self)
    }
}
