extension BinaryInteger {
    /// This count and `noun` as a message writes them: "1 event", "0 events", "3 events". For the
    /// nouns messages count, whose plural adds an s.
    package func counted(_ noun: String) -> String { "\(self) \(noun)\(self == 1 ? "" : "s")" }
}
