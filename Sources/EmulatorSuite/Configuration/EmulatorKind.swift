/// The listeners this suite runs. Every kind gets its own port; the hub is always started, the
/// Emulator UI when firebase.json and the command allow it.
///
/// ```swift
/// EmulatorKind(validating: "firestore") // .firestore
/// EmulatorKind.database.defaultPort     // 9000
/// ```
package enum EmulatorKind: String, Sendable, Hashable, CaseIterable, Comparable {
    case hub
    case firestore
    case database
    case ui

    /// The emulators a user can name with `--only` (the hub always runs).
    package static let selectable: [EmulatorKind] = [.firestore, .database]

    /// Every emulator name the official CLI accepts for `--only`.
    package static let officialNames = [
        "apphosting", "auth", "functions", "firestore", "database", "hosting", "pubsub", "storage", "eventarc",
        "dataconnect", "tasks",
    ]

    /// The port the official suite uses when firebase.json sets none.
    package var defaultPort: Int {
        switch self {
        case .hub: 4400
        case .firestore: 8080
        case .database: 9000
        case .ui: 4000
        }
    }

    /// Whether a taken default port moves to the next free one (hub, UI) or is fatal (emulators).
    package var fallsBackToNextFreePort: Bool { self == .hub || self == .ui }

    /// Whether this is a data emulator (listed in the banner's rows, exported), not the hub or the UI.
    package var isEmulator: Bool { self == .firestore || self == .database }

    /// The description the official CLI uses in messages: `Could not start Firestore Emulator, port taken.`
    package var description: String {
        switch self {
        case .hub: "emulator hub"
        case .firestore: "Firestore Emulator"
        case .database: "Database Emulator"
        case .ui: "Emulator UI"
        }
    }

    /// The name shown in the ready table: the description without " Emulator".
    package var tableName: String {
        switch self {
        case .hub: "Emulator Hub"
        case .firestore: "Firestore"
        case .database: "Database"
        case .ui: "Emulator UI"
        }
    }

    /// Start order: the UI after the emulators, the hub last, so that tools which find the hub
    /// find everything ready.
    package static func < (lhs: EmulatorKind, rhs: EmulatorKind) -> Bool {
        lhs.startOrder < rhs.startOrder
    }

    private var startOrder: Int {
        switch self {
        case .firestore: 0
        case .database: 1
        case .ui: 2
        case .hub: 3
        }
    }
}
