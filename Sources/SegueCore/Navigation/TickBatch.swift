/// The compact form of ticks, published on the frames socket (docs/protocol.md, "Frame batches"):
/// one message holds the ticks of one frame, their numbers as raw little-endian bits, so a subscriber
/// to every navigator gets one message a frame instead of one JSON body per tick, and the daemon
/// spells no decimal text.
///
/// The ticks are the very ticks of `tick/<navigator>/`: decoded, each equals its JSON body member for
/// member (doubles bit for bit, since JSON's shortest digits round-trip).
package struct TickBatch: Equatable, Sendable {
    /// The layout's version, the body's first byte; a subscriber refuses a version it does not know.
    package static let version: UInt8 = 1
    /// The topic of every frame batch.
    package static let topic = "frames/"

    package var frame: Int64
    package var time: Int64
    package var presentAt: Int64
    package var ticks: [Tick]

    /// The fixed header: version, frame, time, presentAt, count.
    static let headerBytes = 1 + 8 + 8 + 8 + 4

    // Flag bits of a tick.
    static let isFinal: UInt8 = 1
    static let hasGesture: UInt8 = 2
    static let hasDigest: UInt8 = 4
    static let hasTouch: UInt8 = 8
    static let hasEdge: UInt8 = 16

    // The codes of the enumerations, by position: fixed by the layout, not by the declarations' order.
    static let operations: [TransitionOperation] = [.push, .pop, .present, .dismiss]
    static let phases: [TransitionPhase] = [
        .animating, .interactive, .finishing, .cancelling, .completed, .cancelled, .paused,
    ]
    static let edges: [GestureGeometry.SwipeEdge] = [.left, .right, .top, .bottom, .none]
}

/// Writes frame batches into one reused buffer: the frame loop appends each tick as it is released
/// and sends the batch when the frame changes, the batch is full, or its actions are done.
package final class TickBatchWriter {
    /// A batch is sent once it holds this many bytes, so a subscriber's messages stay small enough
    /// to allow for (about 300 ticks of short names).
    package static let flushBytes = 64 * 1024

    private var base: UnsafeMutableRawPointer
    private var capacity: Int
    private var count = 0
    private var ticks: UInt32 = 0
    private var header: (frame: Int64, time: Int64, presentAt: Int64)?

    package init() {
        capacity = Self.flushBytes + 4096
        base = .allocate(byteCount: capacity, alignment: 8)
    }

    deinit { base.deallocate() }

    package var isEmpty: Bool { ticks == 0 }

    /// Whether `tick` belongs to another frame than the batch's ticks (the caller sends first).
    package func isOtherFrame(_ tick: Tick) -> Bool {
        guard let header else { return false }
        return header != (tick.frame, tick.time, tick.presentAt)
    }

    /// Whether the batch has reached `flushBytes`.
    package var isFull: Bool { count >= Self.flushBytes }

    /// Appends `tick`; the batch must be empty or of the same frame (`isOtherFrame`).
    package func append(_ tick: Tick) {
        if header == nil {
            header = (tick.frame, tick.time, tick.presentAt)
            count = TickBatch.headerBytes
        }
        let nav = tick.navigator.utf8.count
        let from = tick.fromScreen.utf8.count
        let to = tick.toScreen.utf8.count
        // The most one tick can take: names, fixed fields, two views, the gesture and the digest.
        reserve(count + nav + from + to + 2 * 2 + 2 + 8 + 3 + 24 + 2 * (9 * 8 + 4) + 8 + 16 + 1 + 32)
        var w = Cursor(base: base, offset: count)
        w.string(tick.navigator, length: nav)
        w.int(Int64(tick.transition))
        w.byte(UInt8(TickBatch.operations.firstIndex(of: tick.operation)!))
        w.byte(UInt8(TickBatch.phases.firstIndex(of: tick.phase)!))
        var flags: UInt8 = tick.final ? TickBatch.isFinal : 0
        let digest = tick.digest.flatMap(SHA256.Digest.init(hex:))
        if let gesture = tick.gesture {
            flags |= TickBatch.hasGesture
            if gesture.touch != nil { flags |= TickBatch.hasTouch }
            if gesture.edge != nil { flags |= TickBatch.hasEdge }
        }
        if digest != nil { flags |= TickBatch.hasDigest }
        w.byte(flags)
        w.double(tick.fraction)
        w.double(tick.progress)
        w.int(tick.revision)
        w.view(tick.views.from, screen: tick.fromScreen, length: from)
        w.view(tick.views.to, screen: tick.toScreen, length: to)
        if let gesture = tick.gesture {
            w.double(gesture.velocity)
            if let touch = gesture.touch {
                w.double(touch.x)
                w.double(touch.y)
            }
            if let edge = gesture.edge { w.byte(UInt8(TickBatch.edges.firstIndex(of: edge)!)) }
        }
        if let digest {
            // The 32 bytes in order: each word big-endian, where `int` stores little-endian.
            for word in digest.wordList { w.int(Int64(bitPattern: word.byteSwapped)) }
        }
        count = w.offset
        ticks += 1
    }

    /// Hands the batch's body to `send` (valid only during the call) and empties the batch.
    package func flush(_ send: (UnsafeRawBufferPointer) -> Void) {
        guard let header, ticks > 0 else { return }
        var w = Cursor(base: base, offset: 0)
        w.byte(TickBatch.version)
        w.int(header.frame)
        w.int(header.time)
        w.int(header.presentAt)
        w.base.storeBytes(of: ticks.littleEndian, toByteOffset: w.offset, as: UInt32.self)
        send(UnsafeRawBufferPointer(start: base, count: count))
        self.header = nil
        ticks = 0
        count = 0
    }

    private func reserve(_ needed: Int) {
        guard needed > capacity else { return }
        let grown = UnsafeMutableRawPointer.allocate(byteCount: max(needed, capacity * 2), alignment: 8)
        grown.copyMemory(from: base, byteCount: count)
        base.deallocate()
        base = grown
        capacity = max(needed, capacity * 2)
    }

    /// Unchecked little-endian stores: `append` reserved room for the whole tick.
    private struct Cursor {
        let base: UnsafeMutableRawPointer
        var offset: Int

        mutating func byte(_ value: UInt8) {
            base.storeBytes(of: value, toByteOffset: offset, as: UInt8.self)
            offset += 1
        }

        mutating func int(_ value: Int64) {
            base.storeBytes(of: value.littleEndian, toByteOffset: offset, as: Int64.self)
            offset += 8
        }

        mutating func double(_ value: Double) { int(Int64(bitPattern: value.bitPattern)) }

        /// Names and screen ids are 64 bytes at most (`NavigatorName`, daemon-made ids), far below
        /// the u16 length's limit.
        mutating func string(_ value: String, length: Int) {
            base.storeBytes(of: UInt16(length).littleEndian, toByteOffset: offset, as: UInt16.self)
            offset += 2
            var value = value
            value.withUTF8 { (base + offset).copyMemory(from: $0.baseAddress!, byteCount: length) }
            offset += length
        }

        mutating func view(_ v: ViewProperties, screen: String, length: Int) {
            string(screen, length: length)
            double(v.x)
            double(v.y)
            double(v.alpha)
            double(v.scale)
            double(v.rotation)
            double(v.rotationY)
            double(v.mask)
            double(v.anchorX)
            double(v.anchorY)
            // z is -1000 to 1000 (animator checks): i32 holds it.
            base.storeBytes(of: Int32(truncatingIfNeeded: v.z).littleEndian, toByteOffset: offset, as: Int32.self)
            offset += 4
        }
    }
}

extension TickBatch {
    /// Reads a frame batch's body; a body cut short, of another version, or with a code outside the
    /// layout's tables is `bad_request`, naming the byte where it went wrong.
    package init(decoding body: some Collection<UInt8>) throws(CoreError) {
        var r = Reader(bytes: Array(body))
        let version = try r.byte()
        guard version == Self.version else {
            throw CoreError(
                .badRequest, "frame batch version \(version) is not known (this reader knows \(Self.version))")
        }
        frame = try r.int()
        time = try r.int()
        presentAt = try r.int()
        let count = try r.uint32()
        ticks = []
        ticks.reserveCapacity(Int(min(count, 4096)))
        for _ in 0..<count {
            ticks.append(try r.tick(frame: frame, time: time, presentationDelay: presentAt &- time))
        }
        guard r.offset == r.bytes.count else {
            throw CoreError(.badRequest, "frame batch has \(r.bytes.count - r.offset) bytes after its \(count) ticks")
        }
    }

    private struct Reader {
        let bytes: [UInt8]
        var offset = 0

        mutating func take(_ n: Int) throws(CoreError) -> ArraySlice<UInt8> {
            guard bytes.count - offset >= n else {
                throw CoreError(
                    .badRequest, "frame batch ends at byte \(bytes.count), inside a field at byte \(offset)")
            }
            defer { offset += n }
            return bytes[offset..<offset + n]
        }

        mutating func byte() throws(CoreError) -> UInt8 { try take(1).first! }

        mutating func uint(_ width: Int) throws(CoreError) -> UInt64 {
            var value: UInt64 = 0
            for (shift, byte) in try take(width).enumerated() { value |= UInt64(byte) << (8 * shift) }
            return value
        }

        mutating func uint32() throws(CoreError) -> UInt32 { UInt32(try uint(4)) }
        mutating func int() throws(CoreError) -> Int64 { Int64(bitPattern: try uint(8)) }
        mutating func double() throws(CoreError) -> Double { Double(bitPattern: try uint(8)) }

        mutating func string() throws(CoreError) -> String {
            let length = Int(try uint(2))
            let at = offset
            guard let text = String(validating: try take(length), as: UTF8.self) else {
                throw CoreError(.badRequest, "frame batch has a name that is not UTF-8 at byte \(at)")
            }
            return text
        }

        mutating func code<T>(_ table: [T], _ what: String) throws(CoreError) -> T {
            let at = offset
            let code = Int(try byte())
            guard code < table.count else {
                throw CoreError(
                    .badRequest, "frame batch has \(what) code \(code) at byte \(at), which is not in the layout")
            }
            return table[code]
        }

        mutating func view() throws(CoreError) -> (screen: String, view: ViewProperties) {
            let screen = try string()
            var v = ViewProperties()
            v.x = try double()
            v.y = try double()
            v.alpha = try double()
            v.scale = try double()
            v.rotation = try double()
            v.rotationY = try double()
            v.mask = try double()
            v.anchorX = try double()
            v.anchorY = try double()
            v.z = Int(Int32(bitPattern: UInt32(try uint(4))))
            return (screen, v)
        }

        mutating func tick(frame: Int64, time: Int64, presentationDelay: Int64) throws(CoreError) -> Tick {
            let navigator = try string()
            let transition = Int(try int())
            let operation = try code(TickBatch.operations, "operation")
            let phase = try code(TickBatch.phases, "phase")
            let flags = try byte()
            let fraction = try double()
            let progress = try double()
            let revision = try int()
            let from = try view()
            let to = try view()
            var tick = Tick(
                navigator: navigator, transition: transition, operation: operation, frame: frame, time: time,
                phase: phase, fraction: fraction, progress: progress, revision: revision,
                final: flags & TickBatch.isFinal != 0, fromScreen: from.screen, toScreen: to.screen,
                views: ViewPair(from: from.view, to: to.view))
            tick.presentationDelay = presentationDelay
            if flags & TickBatch.hasGesture != 0 {
                let velocity = try double()
                var touch: GestureGeometry.Touch?
                if flags & TickBatch.hasTouch != 0 { touch = GestureGeometry.Touch(x: try double(), y: try double()) }
                let edge = flags & TickBatch.hasEdge != 0 ? try code(TickBatch.edges, "edge") : nil
                tick.gesture = TickGesture(touch: touch, edge: edge, velocity: velocity)
            }
            if flags & TickBatch.hasDigest != 0 {
                // The 32 bytes as four big-endian words, spelled by the digest itself.
                var words: [UInt64] = []
                for _ in 0..<4 { words.append(try uint(8).byteSwapped) }
                tick.digest = SHA256.Digest(words[0], words[1], words[2], words[3]).hex
            }
            return tick
        }
    }
}
