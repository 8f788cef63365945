extension EventRecord {
    /// The event's wire body, written straight into bytes: exactly `json.serializedBytes()`.
    ///
    /// The daemon publishes every event it appends, so this skips the outer `JSON` object that
    /// `json` builds around `data`; replay and export compare bodies byte for byte, and a test holds
    /// the two encodings together.
    package func encoded() -> [UInt8] { encodedWithData().bytes }

    /// The wire body, and where `data`'s own encoding lies in it: the store keeps `data` in a
    /// column of its own, and takes those bytes instead of encoding the tree a second time.
    package func encodedWithData() -> EncodedEvent {
        var data = 0..<0
        let bytes = JSONSerializer.withSerializer(
            { w in
                w.append("{\"seq\":")
                w.writeInt(seq)
                w.append(",\"navigator\":")
                w.writeString(navigator)
                w.append(",\"revision\":")
                w.writeInt(revision)
                w.append(",\"type\":")
                w.writeString(type)
                w.append(",\"version\":")
                w.writeInt(Int64(version))
                w.append(",\"frame\":")
                w.writeInt(frame)
                w.append(",\"time\":")
                w.writeInt(time)
                w.append(",\"command\":")
                if let command { w.writeString(command) } else { w.append("null") }
                w.append(",\"data\":")
                let start = w.count
                switch payload {
                case .tree(let data): w.writeCompact(.object(data))
                case .event(let box): box.writeData(&w)
                }
                data = start..<w.count
                switch digestValue {
                case nil: break
                case .hex(let digest)?:
                    w.append(",\"digest\":")
                    w.writeString(digest)
                case .sha256(let digest)?:
                    // Hex digits need no escape.
                    w.append(",\"digest\":\"")
                    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { hex in
                        digest.writeHex(to: hex)
                        w.append(UnsafeBufferPointer(hex))
                    }
                    w.append(UInt8(ascii: "\""))
                }
                w.append(UInt8(ascii: "}"))
            }, { Array($0) })
        return EncodedEvent(bytes: bytes, data: data)
    }
}

/// An event's wire body (`EventRecord.encoded()`) with the range of its `data` member's value.
package struct EncodedEvent: Sendable, Equatable {
    package var bytes: [UInt8]
    package var data: Range<Int>

    package init(bytes: [UInt8], data: Range<Int>) {
        self.bytes = bytes
        self.data = data
    }
}
