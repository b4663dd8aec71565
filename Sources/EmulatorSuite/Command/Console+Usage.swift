extension Console {
    /// `error: …` on stderr, then either the nearest valid spelling ("did you mean …?") with a
    /// pointer to the help, or, with no close spelling, the command's usage, as argument parsers
    /// print them.
    func fatalUsage(_ error: UsageError) {
        var text = "error: \(error.message)\n"
        if let suggestion = error.suggestion {
            let topic = error.command.map { " \($0.rawValue)" } ?? ""
            text += "Did you mean '\(suggestion)'? Run 'emulators help\(topic)' for usage.\n"
        } else {
            text += "\n" + Usage.text(for: error.command)
        }
        writeError(text)
    }
}
