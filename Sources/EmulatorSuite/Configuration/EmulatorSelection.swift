import EmulatorSupport

/// `--only` resolution: which emulators start, given what firebase.json configures.
package enum EmulatorSelection {
    /// The emulators to start (the hub is added by the caller).
    ///
    /// - Items are cut at `:` (`database:main` counts as `database`), as the official CLI does.
    /// - A name the official CLI does not know is fatal with its message; a name it knows but this
    ///   suite does not serve (auth, storage, …) is fatal too, so that a script never runs against
    ///   an emulator that is not there.
    /// - A selected emulator that firebase.json does not configure is skipped with the official warning.
    package static func resolve(
        only: [String]?, configured: Set<EmulatorKind>
    ) throws(ConfigurationError) -> (kinds: Set<EmulatorKind>, notices: [SuiteNotice]) {
        guard let only else { return (configured, []) }
        var requested: Set<EmulatorKind> = []
        var notices: [SuiteNotice] = []
        for item in only {
            let name = String((item.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first ?? "").trimmingSpaces)
            if name.isEmpty { continue }
            if let kind = EmulatorKind(rawValue: name) {
                requested.insert(kind)
                continue
            }
            if EmulatorKind.officialNames.contains(name) {
                throw ConfigurationError(
                    .invalidSelection,
                    "\(name) is not supported by this suite, which serves only firestore, database and hub. Remove it from --only.")
            }
            let valid = "[" + EmulatorKind.officialNames.map { "\"\($0)\"" }.joined(separator: ",") + "]"
            throw ConfigurationError(
                .invalidSelection, "\(name) is not a valid emulator name, valid options are: \(valid)")
        }
        var kinds: Set<EmulatorKind> = []
        for kind in requested.sorted() where kind != .hub {
            if configured.contains(kind) {
                kinds.insert(kind)
            } else {
                notices.append(SuiteNotice(
                    .warning, nil, "Not starting the \(kind.rawValue) emulator, make sure you have run firebase init."))
            }
        }
        return (kinds, notices)
    }
}
