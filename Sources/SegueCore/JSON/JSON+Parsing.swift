/// Entry points of the strict parser (see `JSONParser` for what "strict" rejects).
extension JSON {
    /// Parses one JSON value from UTF-8 bytes.
    ///
    /// Integers without a fraction or exponent that fit `Int64` become `.int`; other numbers become
    /// `.double`, as does `-0`, so that its sign survives. Numbers whose magnitude rounds to infinity
    /// are rejected; ones that underflow become zero or a subnormal, as RFC 8259 permits. Objects keep
    /// their members in input order. Keys count as duplicates when Swift's `String ==` says they are
    /// equal (canonical equivalence), the comparison `JSONObject`'s subscript uses, so every member of
    /// a parsed object is reachable by key.
    package static func parse(_ bytes: UnsafeRawBufferPointer, limits: JSONLimits = .default) throws(JSONError) -> JSON
    {
        var parser = JSONParser(bytes.assumingMemoryBound(to: UInt8.self), limits: limits)
        return try parser.parseDocument()
    }

    /// Parses one JSON value from UTF-8 bytes held in any collection (`[UInt8]`, `ArraySlice`, ...).
    package static func parse(_ bytes: some Collection<UInt8>, limits: JSONLimits = .default) throws(JSONError) -> JSON
    {
        let result = bytes.withContiguousStorageIfAvailable { buffer in
            Result { () throws(JSONError) -> JSON in
                var parser = JSONParser(buffer, limits: limits)
                return try parser.parseDocument()
            }
        }
        if let result { return try result.get() }
        return try parse(Array(bytes), limits: limits)
    }

    /// Parses one JSON value from text. The text is already valid Unicode, but everything else is
    /// checked exactly as for bytes, and error offsets count UTF-8 bytes.
    package static func parse(_ text: String, limits: JSONLimits = .default) throws(JSONError) -> JSON {
        var text = text
        return try text.withUTF8 { buffer in
            Result { () throws(JSONError) -> JSON in
                var parser = JSONParser(buffer, limits: limits)
                return try parser.parseDocument()
            }
        }.get()
    }
}
