/// What a reader does with an object member it does not know (docs/protocol.md, "Requests and replies").
///
/// The daemon may add members to what it sends, so a client reads replies, events, ticks and heartbeats
/// as a tolerant reader and ignores what it does not know: an older client keeps working against a
/// newer daemon. A reader that keeps what it reads (`segue import` stores each event as read) must
/// refuse instead, or a member it does not know would be lost without a word.
public enum UnknownMembers: Sendable {
    /// Skips them: a client reading what the daemon sent.
    case ignore
    /// Refuses them, naming the first: a reader that keeps what it reads.
    case reject
}
