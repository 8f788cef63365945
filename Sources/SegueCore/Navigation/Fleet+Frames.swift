extension Fleet {
    /// Closes `frame`: the one path from a fleet and a frame to ticks, taken by the daemon's frame
    /// loop and by replay alike, so that a replay shows what the daemon published (docs/design.md,
    /// "The frame clock": the tick of frame F shows exactly the events of frames ≤ F).
    ///
    /// `advance` first brings the navigators to the frame: live, the clock decides the events due
    /// (`advance(toFrame:)`); in replay, the log's events of frames up to it are applied (`apply`),
    /// since the daemon recorded what its clock decided. Either way the caller queues those events
    /// there, before the ticks that show them. Then the frame's ticks go to `tick` one at a time, in
    /// the order the daemon publishes them, and navigators gone idle leave the active set.
    package mutating func closeFrame<Failure: Error>(
        _ frame: Int64, advance: (inout Fleet) throws(Failure) -> Void, tick: (Tick) -> Void
    ) throws(Failure) {
        try advance(&self)
        takeTicks(closing: frame, tick)
    }
}
