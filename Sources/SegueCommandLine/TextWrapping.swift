extension String {
    /// The text broken at spaces into lines of at most `width` characters, the first `indent` short of
    /// that when it follows a label, the others not; a word longer than a line keeps a line of its own,
    /// whole (a path or URL broken in two cannot be copied). Line breaks in the text are kept.
    package func wrapped(to width: Int, firstLineTakenBy indent: Int = 0) -> [String] {
        var lines: [String] = []
        for paragraph in split(separator: "\n", omittingEmptySubsequences: false) {
            var line = ""
            for word in paragraph.split(separator: " ") {
                let room = width - (lines.isEmpty ? indent : 0)
                if !line.isEmpty && line.count + 1 + word.count > room {
                    lines.append(line)
                    line = ""
                }
                line += line.isEmpty ? String(word) : " " + word
            }
            lines.append(line)
        }
        return lines
    }
}
