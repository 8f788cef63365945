import CPostgres

/// The parameters of one statement, typed, in one contiguous buffer (no allocation per value).
///
/// Values go in PostgreSQL's binary format where this package knows it (integers big-endian, text
/// and json as their UTF-8 bytes, bytea raw, one-dimensional arrays), which the server reads without
/// parsing; `appendText` sends any other type in its text format for the server to parse.
package struct PostgresParameters: Sendable {
    private(set) var bytes: [UInt8] = []
    /// Each value's bytes in `bytes`, nil for NULL.
    private(set) var ranges: [Range<Int>?] = []
    /// 1 binary, 0 text, per value (libpq's `paramFormats`).
    private(set) var formats: [Int32] = []
    private(set) var types: [PostgresType] = []

    package init() {}

    /// Room for `values` values of `bytes` bytes in all, so a statement's parameters are built
    /// without growing the buffers value by value.
    package init(values: Int, bytes: Int) {
        self.bytes.reserveCapacity(bytes)
        ranges.reserveCapacity(values)
        formats.reserveCapacity(values)
        types.reserveCapacity(values)
    }

    package var count: Int { ranges.count }

    package mutating func append(_ value: Int64) {
        let start = bytes.count
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
        add(start..<bytes.count, .int8, binary: true)
    }

    package mutating func append(_ value: Int64?) {
        guard let value else { return appendNull(.int8) }
        append(value)
    }

    package mutating func append(_ value: Int32) {
        let start = bytes.count
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
        add(start..<bytes.count, .int4, binary: true)
    }

    /// Text (or `json`, whose binary format is its text): the string's UTF-8 bytes.
    package mutating func append(_ value: String?, as type: PostgresType = .text) {
        guard let value else { return appendNull(type) }
        let start = bytes.count
        bytes.append(contentsOf: value.utf8)
        add(start..<bytes.count, type, binary: true)
    }

    /// Raw bytes, as `bytea` (or as any type whose binary format the caller has written).
    package mutating func append(bytes value: some Sequence<UInt8>, as type: PostgresType = .bytea) {
        let start = bytes.count
        bytes.append(contentsOf: value)
        add(start..<bytes.count, type, binary: true)
    }

    /// A one-dimensional array, built with `PostgresArray`.
    package mutating func append(_ array: PostgresArray) {
        append(bytes: array.encoded(), as: array.arrayType)
    }

    /// A value in the type's text format, parsed by the server (`'2024-01-01'`, `'1.5'`).
    package mutating func appendText(_ value: String, as type: PostgresType = .unspecified) {
        let start = bytes.count
        bytes.append(contentsOf: value.utf8)
        add(start..<bytes.count, type, binary: false)
    }

    package mutating func appendNull(_ type: PostgresType) {
        ranges.append(nil)
        formats.append(1)
        types.append(type)
    }

    private mutating func add(_ range: Range<Int>, _ type: PostgresType, binary: Bool) {
        ranges.append(range)
        formats.append(binary ? 1 : 0)
        types.append(type)
    }

    /// Calls `body` with libpq's four parallel arrays (values, lengths, formats, types), valid only
    /// during the call. Text-format values need a terminating NUL, so they are copied with one;
    /// the arrays live on the stack.
    func withLibpqArrays<T>(
        _ body: (
            UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?, UnsafePointer<Int32>?, UnsafePointer<Oid>?
        ) -> T
    ) -> T {
        formats.contains(0) ? withTerminatedText().libpqArrays(body) : libpqArrays(body)
    }

    private func libpqArrays<T>(
        _ body: (
            UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?, UnsafePointer<Int32>?, UnsafePointer<Oid>?
        ) -> T
    ) -> T {
        let count = ranges.count
        return bytes.withUnsafeBufferPointer { buffer in
            let base = UnsafeRawPointer(buffer.baseAddress ?? UnsafePointer(bitPattern: 1)!)
            return withUnsafeTemporaryAllocation(of: UnsafePointer<CChar>?.self, capacity: count) { values in
                withUnsafeTemporaryAllocation(of: Int32.self, capacity: count) { lengths in
                    withUnsafeTemporaryAllocation(of: Oid.self, capacity: count) { oids in
                        for index in 0..<count {
                            let range = ranges[index]
                            values[index] = range.map { (base + $0.lowerBound).assumingMemoryBound(to: CChar.self) }
                            lengths[index] = Int32(range?.count ?? 0)
                            oids[index] = types[index].rawValue
                        }
                        return formats.withUnsafeBufferPointer { formats in
                            body(
                                UnsafePointer(values.baseAddress), UnsafePointer(lengths.baseAddress),
                                formats.baseAddress, UnsafePointer(oids.baseAddress))
                        }
                    }
                }
            }
        }
    }

    /// The same values with every text-format one copied to the end of the buffer with a NUL after
    /// it (libpq reads a text value up to its NUL, not by its length), and sent as that copy.
    private func withTerminatedText() -> PostgresParameters {
        var copy = self
        for (index, range) in ranges.enumerated() where formats[index] == 0 {
            guard let range else { continue }
            let start = copy.bytes.count
            copy.bytes.append(contentsOf: bytes[range])
            copy.bytes.append(0)
            copy.ranges[index] = start..<copy.bytes.count - 1
        }
        return copy
    }
}
