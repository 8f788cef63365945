/// "Did you mean": the one known name a mistyped word most likely stands for, as git suggests
/// `push` for `git pus`.
extension UsageError {
    /// `Unknown option '--wiat'. Did you mean '--wait'?` when one of `options` is close; a short
    /// option (`-z`) is one letter, too little to guess from.
    package static func unknownOption(_ spelling: String, among options: [OptionSpec]) -> UsageError {
        var error = unknownOption(spelling)
        guard spelling.hasPrefix("--") else { return error }
        let names = options.map(\.name) + ["help"]
        if let name = suggestion(for: String(spelling.dropFirst(2).prefix { $0 != "=" }), among: names) {
            error.message += " Did you mean '--\(name)'?"
        }
        return error
    }

    /// `Unknown command 'pus'. Did you mean 'push'?` when one of `names` is close.
    package static func unknownCommand(_ name: String, in command: String, among names: [String]) -> UsageError {
        var error = unknownCommand(name, in: command)
        if let near = suggestion(for: name, among: names) { error.message += " Did you mean '\(near)'?" }
        return error
    }

    /// The name `word` most likely misspells: the nearest by Damerau–Levenshtein distance when it is
    /// the only one that near and at most 2 edits away (fewer than the word has letters, so `ab`
    /// does not stand for any short name), else the only name `word` begins; nil when none is.
    static func suggestion(for word: String, among names: [String]) -> String? {
        let typed = Array(word.lowercased())
        guard !typed.isEmpty else { return nil }
        let limit = min(2, typed.count - 1)
        // Names whose length differs by more than the limit cannot be near: no table for them (a
        // word of a megabyte costs nothing).
        let near = names.filter { abs($0.count - typed.count) <= limit }
            .map { ($0, distance(typed, Array($0.lowercased()))) }.filter { $0.1 <= limit }
        if let best = near.map(\.1).min() {
            let nearest = near.filter { $0.1 == best }
            if nearest.count == 1 { return nearest[0].0 }
        }
        let extending = names.filter { $0.lowercased().hasPrefix(word.lowercased()) && $0.count > typed.count }
        return extending.count == 1 ? extending[0] : nil
    }

    /// The optimal string alignment distance: insertions, deletions, substitutions and swaps of two
    /// adjacent characters (`wiat` → `wait` is one edit), each character edited at most once.
    static func distance(_ a: [Character], _ b: [Character]) -> Int {
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var d = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { d[i][0] = i }
        for j in 0...b.count { d[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
                }
            }
        }
        return d[a.count][b.count]
    }
}
