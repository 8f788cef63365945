/// Bounds the parser enforces so that a hostile or broken peer cannot make it use unbounded stack or
/// memory per value.
///
/// The parser recurses once per nesting level, and the `JSON` values it builds are also released
/// recursively, so `maxDepth` is what keeps a `[[[[...` message from overflowing a thread's stack.
/// Keep it in the hundreds at most. The total input size is bounded elsewhere (ZeroMQ's
/// `ZMQ_MAXMSGSIZE`, the config file reader), so it is not repeated here.
package struct JSONLimits: Sendable, Equatable {
    /// Deepest nesting of arrays and objects accepted; a top-level scalar has depth 0, `[]` depth 1.
    package var maxDepth: Int
    /// Longest string or object key accepted, counted in UTF-8 bytes after unescaping.
    package var maxStringBytes: Int

    package init(maxDepth: Int = 64, maxStringBytes: Int = 1_048_576) {
        self.maxDepth = maxDepth
        self.maxStringBytes = maxStringBytes
    }

    /// 64 levels and 1 MiB strings: far beyond anything the protocol sends, small enough to be safe.
    package static let `default` = JSONLimits()
}
