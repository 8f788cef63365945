/// A one-dimensional array parameter in PostgreSQL's binary array format (`array_recv`): a header
/// (dimensions, a has-nulls flag, the element type, length and lower bound), then each element as
/// a 4-byte length (-1 for NULL) and its binary value.
///
/// With `unnest($1::bigint[], $2::text[], ...)` one statement inserts any number of rows, bound once.
package struct PostgresArray: Sendable {
    package let elementType: PostgresType
    private var elements: [UInt8] = []
    package private(set) var count: Int32 = 0
    private var hasNulls = false

    /// - Precondition: `elementType` is one this package sends arrays of (int8, text, bytea, json).
    package init(of elementType: PostgresType, reservingBytes: Int = 0) {
        precondition(elementType.arrayType != nil, "no array type for OID \(elementType.rawValue)")
        self.elementType = elementType
        elements.reserveCapacity(reservingBytes)
    }

    var arrayType: PostgresType { elementType.arrayType! }

    package mutating func append(_ value: Int64) {
        precondition(elementType == .int8)
        appendLength(8)
        withUnsafeBytes(of: value.bigEndian) { elements.append(contentsOf: $0) }
        count += 1
    }

    /// Text, json or bytea elements: their bytes.
    package mutating func append(bytes value: some Collection<UInt8>) {
        precondition(elementType != .int8)
        appendLength(Int32(value.count))
        elements.append(contentsOf: value)
        count += 1
    }

    package mutating func append(_ value: String) { append(bytes: value.utf8) }

    package mutating func appendNull() {
        appendLength(-1)
        hasNulls = true
        count += 1
    }

    private mutating func appendLength(_ length: Int32) {
        withUnsafeBytes(of: length.bigEndian) { elements.append(contentsOf: $0) }
    }

    func encoded() -> [UInt8] {
        var header: [Int32] = [count == 0 ? 0 : 1, hasNulls ? 1 : 0, Int32(bitPattern: elementType.rawValue)]
        if count > 0 { header += [count, 1] }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(header.count * 4 + elements.count)
        for field in header { withUnsafeBytes(of: field.bigEndian) { bytes.append(contentsOf: $0) } }
        bytes.append(contentsOf: elements)
        return bytes
    }
}
