package import EmulatorSupport

/// The flags `start` and `exec` share, as given on the command line (not yet validated).
package struct StartOptions: Sendable, Equatable {
    /// `-c/--config`: the firebase.json to read instead of `./firebase.json`.
    package var configPath: String?
    /// `--only`: the raw comma-separated items, in order.
    package var only: [String]?
    /// `-P/--project`: a project ID or a `.firebaserc` alias.
    package var project: String?
    /// `--log-verbosity`.
    package var verbosity: LogVerbosity = .info
    /// `--import <dir>`.
    package var importDirectory: String?
    /// `--export-on-exit [dir]`: `.some(nil)` means "reuse the --import directory".
    package var exportOnExit: String??
    /// `--data-dir <dir>`: keep all data live in this directory (journal + checkpoints).
    package var dataDirectory: String?
    /// False with `--data-dir-no-fsync`: journal with `write` only (survives kill -9, not power loss).
    package var dataDirectoryFsync = true
    /// Whether the Emulator UI may start: for `start` unless firebase.json's
    /// `emulators.ui.enabled` is false; for `exec` only with `--ui`.
    package var showUI = true
    /// `exec --ui`: the UI starts even when firebase.json disables it, as officially.
    package var requiresUI = false

    package init() {}
}
