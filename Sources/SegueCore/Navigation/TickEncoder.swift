/// A reusable buffer that tick bodies are written into, one after another, without allocating.
///
/// The frame loop encodes every tick of every navigator in flight (300,000 a second for 5,000
/// navigators at 60 Hz), so a scratch buffer and an array per tick would be an allocation storm; the
/// encoder keeps one buffer for the life of the engine and hands out a view of the last body, which
/// the caller sends (libzmq copies it) or copies before the next `encode`.
///
/// The bytes are exactly `tick.json.serializedBytes()`: `encoded()` goes through this writer too, and
/// a test holds the two together over randomized ticks and over one encoder reused across them.
package final class TickEncoder {
    private var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private var count = 0

    package init() {
        capacity = 2048
        base = .allocate(capacity: capacity)
    }

    deinit { base.deallocate() }

    /// The body written by the last `encode`; valid until the next `encode` or the encoder's end.
    package var body: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }

    /// Writes `tick`'s wire body over the previous one.
    package func encode(_ tick: Tick) {
        // The longest body a tick can have: its fixed text and numbers (under 1,000 bytes: 24 at most
        // per double, 20 per integer; a digest's key adds 12), plus its strings escaped at worst
        // (`\u00xx`, six bytes per byte). Reserving it once lets every write below skip its own
        // capacity check.
        let bound =
            1500 + 6 * (tick.navigator.utf8.count + tick.fromScreen.utf8.count + tick.toScreen.utf8.count)
            + 6 * tick.operation.rawValue.utf8.count + 6 * tick.phase.rawValue.utf8.count
            + 6 * (tick.digest?.utf8.count ?? 0)
        if capacity < bound {
            base.deallocate()
            capacity = max(bound, capacity * 2)
            base = .allocate(capacity: capacity)
        }
        var w = TickWriter(base: base)
        w.write(tick)
        count = w.count
    }
}

/// The unchecked writer behind `TickEncoder`: the caller has reserved room for the whole body.
///
/// Values are spelled by `JSONValueWriter`, exactly as `JSONSerializer` spells them (tests pin the two
/// together).
struct TickWriter: JSONValueWriter {
    let base: UnsafeMutablePointer<UInt8>
    var count = 0

    init(base: UnsafeMutablePointer<UInt8>) { self.base = base }

    mutating func write(_ tick: Tick) {
        append("{\"navigator\":")
        writeString(tick.navigator)
        append(",\"transition\":")
        writeInt(Int64(tick.transition))
        append(",\"operation\":")
        writeString(tick.operation.rawValue)
        append(",\"frame\":")
        writeInt(tick.frame)
        append(",\"time\":")
        writeInt(tick.time)
        append(",\"presentAt\":")
        writeInt(tick.presentAt)
        append(",\"phase\":")
        writeString(tick.phase.rawValue)
        append(",\"fraction\":")
        writeDouble(tick.fraction)
        append(",\"progress\":")
        writeDouble(tick.progress)
        append(",\"revision\":")
        writeInt(tick.revision)
        append(tick.final ? ",\"final\":true,\"views\":{\"from\":" : ",\"final\":false,\"views\":{\"from\":")
        write(tick.views.from, screen: tick.fromScreen)
        append(",\"to\":")
        write(tick.views.to, screen: tick.toScreen)
        append("}")
        if let gesture = tick.gesture { write(gesture) }
        if let digest = tick.digest {
            append(",\"digest\":")
            writeString(digest)
        }
        append("}")
    }

    private mutating func write(_ v: ViewProperties, screen: String) {
        append("{\"screen\":")
        writeString(screen)
        append(",\"x\":")
        writeDouble(v.x)
        append(",\"y\":")
        writeDouble(v.y)
        append(",\"alpha\":")
        writeDouble(v.alpha)
        append(",\"scale\":")
        writeDouble(v.scale)
        append(",\"rotation\":")
        writeDouble(v.rotation)
        append(",\"rotationY\":")
        writeDouble(v.rotationY)
        append(",\"mask\":")
        writeDouble(v.mask)
        append(",\"z\":")
        writeInt(Int64(v.z))
        append(",\"anchor\":[")
        writeDouble(v.anchorX)
        append(",")
        writeDouble(v.anchorY)
        append("]}")
    }

    // MARK: Appends (the values are spelled by `JSONValueWriter`)

    /// Nothing to do: `TickEncoder.encode` reserved room for the longest body first.
    @inline(__always)
    mutating func reserve(_ extra: Int) {}

    @inline(__always)
    mutating func append(_ text: StaticString) {
        (base + count).initialize(from: text.utf8Start, count: text.utf8CodeUnitCount)
        count += text.utf8CodeUnitCount
    }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        base[count] = byte
        count += 1
    }

    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, bytes.count > 0 else { return }
        (base + count).initialize(from: source, count: bytes.count)
        count += bytes.count
    }
}
