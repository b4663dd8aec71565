import Synchronization

/// The instances `Firestore.firestore()` and `Database.database()` hand out: one per app (and
/// Firestore database ID), so settings such as `useEmulator` stick.
enum DefaultInstances {
    private struct Key: Hashable {
        var app: String
        var database: String
    }

    private static let firestores = Mutex<[Key: Firestore]>([:])
    private static let databases = Mutex<[Key: Database]>([:])

    static func firestore(app: String, database: String, make: () -> Firestore) -> Firestore {
        firestores.withLock { all in
            let key = Key(app: app, database: database)
            if let existing = all[key] { return existing }
            let made = make()
            all[key] = made
            return made
        }
    }

    static func database(app: String, url: String, make: () -> Database) -> Database {
        databases.withLock { all in
            let key = Key(app: app, database: url)
            if let existing = all[key] { return existing }
            let made = make()
            all[key] = made
            return made
        }
    }

    /// Drops the instances of a deleted app; the next call makes new ones.
    static func forget(appName: String) {
        firestores.withLock { all in all = all.filter { $0.key.app != appName } }
        databases.withLock { all in all = all.filter { $0.key.app != appName } }
    }
}
