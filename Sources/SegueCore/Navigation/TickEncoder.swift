/// A reusable buffer that tick bodies are written into, one after another, without allocating.
///
/// The frame loop encodes every tick of every navigator in flight (300,000 a second for 5,000
/// navigators at 60 Hz). `Tick.encoded()` used to allocate a scratch buffer and then an array per
/// tick; the encoder keeps one buffer for the life of the engine and hands out a view of the last
/// body, which the caller sends (libzmq copies it) or copies before the next `encode`.
///
/// The bytes are exactly `tick.json.serializedBytes()`: `encoded()` goes through this writer too, and
/// a test holds the two together over randomized ticks and over one encoder reused across them.
public final class TickEncoder {
    private var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private var count = 0

    public init() {
        capacity = 2048
        base = .allocate(capacity: capacity)
    }

    deinit { base.deallocate() }

    /// The body written by the last `encode`; valid until the next `encode` or the encoder's end.
    public var body: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }

    /// Writes `tick`'s wire body over the previous one.
    public func encode(_ tick: Tick) {
        // The longest body a tick can have: its fixed text and numbers (under 1,000 bytes: 24 at most
        // per double, 20 per integer), plus its strings escaped at worst (`\u00xx`, six bytes per
        // byte). Reserving it once lets every write below skip its own capacity check.
        let bound =
            1280 + 6 * (tick.navigator.utf8.count + tick.fromScreen.utf8.count + tick.toScreen.utf8.count)
            + 6 * tick.operation.rawValue.utf8.count + 6 * tick.phase.rawValue.utf8.count
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
/// Spells every value the way `JSONSerializer` does (its tests pin the spellings; this file's tests
/// pin this writer to it).
struct TickWriter: TextOutputStream {
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
        append("}}")
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

    // MARK: Values, spelled as JSONSerializer spells them

    @inline(__always)
    mutating func append(_ text: StaticString) {
        (base + count).initialize(from: text.utf8Start, count: text.utf8CodeUnitCount)
        count += text.utf8CodeUnitCount
    }

    @inline(__always)
    private mutating func append(_ byte: UInt8) {
        base[count] = byte
        count += 1
    }

    private mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, bytes.count > 0 else { return }
        (base + count).initialize(from: source, count: bytes.count)
        count += bytes.count
    }

    mutating func writeInt(_ value: Int64) {
        if value < 0 { append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var digits = 1
        var rest = magnitude / 10
        while rest != 0 {
            digits += 1
            rest /= 10
        }
        var index = count + digits
        count = index
        repeat {
            index -= 1
            base[index] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
            magnitude /= 10
        } while magnitude != 0
    }

    /// Whole numbers below 10^15 and 0.5 directly (Swift's `description` spells them `n.0` and
    /// `0.5`), everything else through the standard library's shortest round-trip digits.
    mutating func writeDouble(_ value: Double) {
        guard value.isFinite else { return append("null") }
        if value == value.rounded(.towardZero), value.magnitude < 1e15 {
            if value == 0 {
                append(value.sign == .minus ? "-0.0" : "0.0")
            } else {
                writeInt(Int64(value))
                append(".0")
            }
            return
        }
        if value == 0.5 { return append("0.5") }
        value.write(to: &self)
    }

    mutating func writeString(_ string: String) {
        var string = string
        string.withUTF8 { utf8 in
            append(UInt8(ascii: "\""))
            var runStart = 0
            for index in utf8.indices {
                let byte = utf8[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                append(UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
                appendEscape(byte)
                runStart = index + 1
            }
            append(UnsafeBufferPointer(rebasing: utf8[runStart...]))
            append(UInt8(ascii: "\""))
        }
    }

    private mutating func appendEscape(_ byte: UInt8) {
        let letter: UInt8
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): letter = byte
        case 0x08: letter = UInt8(ascii: "b")
        case 0x09: letter = UInt8(ascii: "t")
        case 0x0A: letter = UInt8(ascii: "n")
        case 0x0C: letter = UInt8(ascii: "f")
        case 0x0D: letter = UInt8(ascii: "r")
        default:
            let hexDigits: StaticString = "0123456789abcdef"
            append("\\u00")
            append(hexDigits.utf8Start[Int(byte >> 4)])
            append(hexDigits.utf8Start[Int(byte & 0x0F)])
            return
        }
        append(UInt8(ascii: "\\"))
        append(letter)
    }

    // MARK: TextOutputStream, for `Double.write(to:)`

    /// Not reached by `Double.write(to:)` today (it hands its digits to `_writeASCII`); kept correct
    /// in case a later standard library stops doing so. A double's text is at most 24 bytes, within
    /// the reserved bound.
    mutating func write(_ string: String) {
        var string = string
        string.withUTF8 { append($0) }
    }

    mutating func _writeASCII(_ buffer: UnsafeBufferPointer<UInt8>) {
        append(buffer)
    }
}
