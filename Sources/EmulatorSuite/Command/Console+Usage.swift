extension Console {
    /// `error: …` and the command's usage on stderr, as argument parsers print them.
    func fatalUsage(_ error: UsageError) {
        var text = "error: \(error.message)\n\n"
        text += Usage.text(for: error.command)
        writeError(text)
    }
}
