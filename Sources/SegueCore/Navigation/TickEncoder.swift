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
    /// The frame's clock text, shared by every tick of the frame.
    private var frameText = TickWriter.FrameText()

    package init() {
        capacity = 2048
        base = .allocate(capacity: capacity)
    }

    deinit { base.deallocate() }

    /// The body written by the last `encode`; valid until the next `encode` or the encoder's end.
    package var body: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }

    /// Writes `tick`'s wire body over the previous one.
    package func encode(_ tick: Tick) {
        // The longest body a tick can have: its fixed text, names of operation and phase included, and
        // numbers (under 1,000 bytes: 24 at most per double, 20 per integer; a digest's key adds 12),
        // plus its strings escaped at worst (`\u00xx`, six bytes per byte). Reserving it once lets
        // every write below skip its own capacity check.
        let bound =
            1500 + 6 * (tick.navigator.utf8.count + tick.fromScreen.utf8.count + tick.toScreen.utf8.count)
            + 6 * (tick.digest?.utf8.count ?? 0)
        if capacity < bound {
            base.deallocate()
            capacity = max(bound, capacity * 2)
            base = .allocate(capacity: capacity)
        }
        var w = TickWriter(base: base)
        w.write(tick, frameText: &frameText)
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

    /// `,"frame":…,"time":…,"presentAt":…` as last written, with the numbers it spells: every tick of
    /// a frame has the same three, so the frame's first tick writes them and the others copy the text.
    struct FrameText {
        var numbers: (frame: Int64, time: Int64, presentAt: Int64)?
        var bytes: [UInt8] = []
    }

    mutating func write(_ tick: Tick, frameText: inout FrameText) {
        append("{\"navigator\":")
        writeString(tick.navigator)
        append(",\"transition\":")
        writeInt(Int64(tick.transition))
        append(",\"operation\":")
        write(tick.operation)
        let numbers = (tick.frame, tick.time, tick.presentAt)
        if let known = frameText.numbers, known == numbers {
            frameText.bytes.withUnsafeBufferPointer { append($0) }
        } else {
            let start = count
            append(",\"frame\":")
            writeInt(tick.frame)
            append(",\"time\":")
            writeInt(tick.time)
            append(",\"presentAt\":")
            writeInt(tick.presentAt)
            frameText.bytes.removeAll(keepingCapacity: true)
            frameText.bytes.append(contentsOf: UnsafeBufferPointer(start: base + start, count: count - start))
            frameText.numbers = numbers
        }
        append(",\"phase\":")
        write(tick.phase)
        append(",\"fraction\":")
        writeTickDouble(tick.fraction)
        append(",\"progress\":")
        writeTickDouble(tick.progress)
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
        writeTickDouble(v.x)
        // A view in place but for its x offset (both views of a horizontal slide, push or cover): the
        // rest is one of two texts, which the writes below would spell piece by piece.
        if v.y.bitPattern == 0, v.alpha == 1, v.scale == 1, v.rotation.bitPattern == 0, v.rotationY.bitPattern == 0,
            v.mask == 1, v.anchorX == 0.5, v.anchorY == 0.5, v.z == 0 || v.z == 1
        {
            append(",\"y\":0.0,\"alpha\":1.0,\"scale\":1.0,\"rotation\":0.0,\"rotationY\":0.0,\"mask\":1.0,\"z\":")
            append(v.z == 0 ? UInt8(ascii: "0") : UInt8(ascii: "1"))
            return append(",\"anchor\":[0.5,0.5]}")
        }
        append(",\"y\":")
        writeTickDouble(v.y)
        append(",\"alpha\":")
        writeTickDouble(v.alpha)
        append(",\"scale\":")
        writeTickDouble(v.scale)
        append(",\"rotation\":")
        writeTickDouble(v.rotation)
        append(",\"rotationY\":")
        writeTickDouble(v.rotationY)
        append(",\"mask\":")
        writeTickDouble(v.mask)
        append(",\"z\":")
        writeInt(Int64(v.z))
        append(",\"anchor\":[")
        writeTickDouble(v.anchorX)
        append(",")
        writeTickDouble(v.anchorY)
        append("]}")
    }

    /// The raw value as `writeString` spells it (none needs an escape), without reading a `String`.
    private mutating func write(_ operation: TransitionOperation) {
        switch operation {
        case .push: append("\"push\"")
        case .pop: append("\"pop\"")
        case .present: append("\"present\"")
        case .dismiss: append("\"dismiss\"")
        }
    }

    /// The raw value as `writeString` spells it (none needs an escape), without reading a `String`.
    private mutating func write(_ phase: TransitionPhase) {
        switch phase {
        case .animating: append("\"animating\"")
        case .interactive: append("\"interactive\"")
        case .finishing: append("\"finishing\"")
        case .cancelling: append("\"cancelling\"")
        case .completed: append("\"completed\"")
        case .cancelled: append("\"cancelled\"")
        case .paused: append("\"paused\"")
        }
    }

    // MARK: Doubles

    /// "00", "01", … "99", one after another.
    private static var digitPairs: StaticString {
        "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"
    }

    /// Exactly `writeDouble`'s text, sooner for a tick's usual values: 0, 1 and ½ (most members of a
    /// view in place) as constants, and the other non-whole values in `ShortestDecimal`'s range from
    /// its digits; everything else through `writeDouble`.
    @inline(__always)
    mutating func writeTickDouble(_ value: Double) {
        switch value.bitPattern {
        case (0.0 as Double).bitPattern: return append("0.0")
        case (1.0 as Double).bitPattern: return append("1.0")
        case (0.5 as Double).bitPattern: return append("0.5")
        default: break
        }
        guard let (digits, fractionDigits) = ShortestDecimal.digits(of: value) else { return writeDouble(value) }
        if value < 0 { append(UInt8(ascii: "-")) }
        let unit = ShortestDecimal.powersOfTen[fractionDigits]
        // The whole part: mostly a single digit (fractions, progress, offsets in widths).
        let whole = digits / unit
        if whole < 10 {
            append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: whole))
        } else {
            writeInt(Int64(whole))
        }
        append(UInt8(ascii: "."))
        // All `fractionDigits` digits, leading zeros included (the last is never 0: `digits` has no
        // trailing zeros), written from the right.
        var rest = digits % unit
        let start = count
        count += fractionDigits
        var index = count
        // Two digits a step, from "00"…"99".
        while index - start >= 2 {
            let pair = Int(truncatingIfNeeded: rest % 100) &* 2
            rest /= 100
            index -= 2
            base[index] = Self.digitPairs.utf8Start[pair]
            base[index + 1] = Self.digitPairs.utf8Start[pair + 1]
        }
        if index > start {
            base[start] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest)
        }
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
