extension Tick {
    /// The tick's wire body, written straight into bytes.
    ///
    /// The frame loop encodes every tick of every navigator in flight each frame, so this skips the
    /// `JSON` tree that `json` builds (a dozen small allocations per tick); the loop itself reuses one
    /// `TickEncoder` and allocates nothing per tick. It must produce exactly `json.serializedBytes()`,
    /// byte for byte, because replay compares bodies; a test holds the two together over randomized
    /// ticks.
    package func encoded() -> [UInt8] {
        let encoder = TickEncoder()
        encoder.encode(self)
        return Array(encoder.body)
    }
}
