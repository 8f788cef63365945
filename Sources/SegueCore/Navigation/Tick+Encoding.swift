extension Tick {
    /// The tick's wire body, written straight into bytes.
    ///
    /// The frame loop encodes every tick of every navigator in flight each frame, so this skips the
    /// `JSON` tree that `json` builds (a dozen small allocations per tick). It must produce exactly
    /// `json.serializedBytes()`, byte for byte, because replay compares bodies; a test holds the two
    /// together over randomized ticks.
    public func encoded() -> [UInt8] {
        JSONSerializer.withSerializer(
            { w in
                w.append("{\"navigator\":")
                w.writeString(navigator)
                w.append(",\"transition\":")
                w.writeInt(Int64(transition))
                w.append(",\"operation\":")
                w.writeString(operation.rawValue)
                w.append(",\"frame\":")
                w.writeInt(frame)
                w.append(",\"time\":")
                w.writeInt(time)
                w.append(",\"phase\":")
                w.writeString(phase.rawValue)
                w.append(",\"fraction\":")
                w.writeDouble(fraction)
                w.append(",\"progress\":")
                w.writeDouble(progress)
                w.append(",\"revision\":")
                w.writeInt(revision)
                w.append(final ? ",\"final\":true,\"views\":{\"from\":" : ",\"final\":false,\"views\":{\"from\":")
                Self.write(views.from, screen: fromScreen, into: &w)
                w.append(",\"to\":")
                Self.write(views.to, screen: toScreen, into: &w)
                w.append("}}")
            }, { Array($0) })
    }

    private static func write(_ v: ViewProperties, screen: String, into w: inout JSONSerializer) {
        w.append("{\"screen\":")
        w.writeString(screen)
        w.append(",\"x\":")
        w.writeDouble(v.x)
        w.append(",\"y\":")
        w.writeDouble(v.y)
        w.append(",\"alpha\":")
        w.writeDouble(v.alpha)
        w.append(",\"scale\":")
        w.writeDouble(v.scale)
        w.append(",\"rotation\":")
        w.writeDouble(v.rotation)
        w.append(",\"rotationY\":")
        w.writeDouble(v.rotationY)
        w.append(",\"mask\":")
        w.writeDouble(v.mask)
        w.append(",\"z\":")
        w.writeInt(Int64(v.z))
        w.append(",\"anchor\":[")
        w.writeDouble(v.anchorX)
        w.append(UInt8(ascii: ","))
        w.writeDouble(v.anchorY)
        w.append("]}")
    }
}
