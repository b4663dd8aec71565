/// The listeners this suite runs. Every kind gets its own port; the hub is always started.
///
/// ```swift
/// EmulatorKind(validating: "firestore") // .firestore
/// EmulatorKind.database.defaultPort     // 9000
/// ```
package enum EmulatorKind: String, Sendable, Hashable, CaseIterable, Comparable {
    case hub
    case firestore
    case database

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
        }
    }

    /// Whether a taken default port moves to the next free one (hub) or is fatal (emulators).
    package var fallsBackToNextFreePort: Bool { self == .hub }

    /// The description the official CLI uses in messages: `Could not start Firestore Emulator, port taken.`
    package var description: String {
        switch self {
        case .hub: "emulator hub"
        case .firestore: "Firestore Emulator"
        case .database: "Database Emulator"
        }
    }

    /// The name shown in the ready table: the description without " Emulator".
    package var tableName: String {
        switch self {
        case .hub: "Emulator Hub"
        case .firestore: "Firestore"
        case .database: "Database"
        }
    }

    /// Start order: the hub last, so that tools which find the hub find every emulator ready.
    package static func < (lhs: EmulatorKind, rhs: EmulatorKind) -> Bool {
        lhs.startOrder < rhs.startOrder
    }

    private var startOrder: Int {
        switch self {
        case .firestore: 0
        case .database: 1
        case .hub: 2
        }
    }
}
