extension EventRecord {
    /// The event's wire body, written straight into bytes: exactly `json.serializedBytes()`.
    ///
    /// The daemon publishes every event it appends, so this skips the outer `JSON` object that
    /// `json` builds around `data`; replay and export compare bodies byte for byte, and a test holds
    /// the two encodings together.
    public func encoded() -> [UInt8] {
        JSONSerializer.withSerializer(
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
                w.writeCompact(.object(data))
                w.append(UInt8(ascii: "}"))
            }, { Array($0) })
    }
}
