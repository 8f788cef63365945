/// Which client a request came from, to keep its replies in order, bound what it queues and group
/// its commits: the connection's routing id, or, behind a broker, every address of the envelope
/// (the broker's connection, then the client's address within it), so that a broker's clients are
/// told apart as clients connected directly are.
enum ClientKey {
    /// The key of `envelope` (the routing id, the addresses brokers pushed, and the delimiter if any;
    /// no body).
    static func of(_ envelope: ArraySlice<[UInt8]>) -> [UInt8] {
        var addresses = envelope
        if addresses.count > 1, addresses.last?.isEmpty == true { addresses.removeLast() }
        guard addresses.count > 1 else { return addresses.first ?? [] }
        // Each address after its length, so that no two envelopes share a key.
        var key: [UInt8] = []
        for address in addresses {
            withUnsafeBytes(of: UInt32(address.count).littleEndian) { key += $0 }
            key += address
        }
        return key
    }
}
