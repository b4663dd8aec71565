package import EmulatorHTTP
package import EmulatorStorage
package import SecurityRules
import DatabaseEmulator

/// What every emulator is built from: one per running suite, shared by all of them.
///
/// `storage` is the suite's one engine: both emulators, import/export and the data directory
/// use it, so an export is one consistent cut across both.
package struct EmulatorContext: Sendable {
    package var projectId: String
    package var singleProjectMode: Bool
    /// firestore.rules, read at start-up; nil means open rules.
    package var firestoreRules: RulesSource?
    /// database.rules per namespace; a namespace without an entry has open rules.
    package var databaseRules: [DatabaseRulesBinding]
    package var console: Console
    /// The storage engine every emulator of the suite shares.
    package var storage: StorageEngine
    /// The emulators whose rules follow firebase.json's files (hot reload).
    package var liveRules = LiveRules()
    /// Holds gRPC and WebSocket replies of writes until they are durable (live data directory on
    /// an event-loop transport); nil answers at once.
    package var replyGate: ReplyGate?
    /// Every rules decision of both emulators, for the Emulator UI's Requests view (nil without the UI).
    package var requestLog: RulesRequestLog?

    package init(
        projectId: String, singleProjectMode: Bool = true, firestoreRules: RulesSource? = nil,
        databaseRules: [DatabaseRulesBinding] = [], console: Console, storage: StorageEngine = EmulatorContext.suiteStorage()
    ) {
        self.storage = storage
        self.projectId = projectId
        self.singleProjectMode = singleProjectMode
        self.firestoreRules = firestoreRules
        self.databaseRules = databaseRules
        self.console = console
    }
}

extension EmulatorContext {
    /// The engine a suite runs on: history (reads at an earlier time, Firestore's `read_time`)
    /// only where a reader can ask for it, so overwritten and deleted RTDB values are freed when
    /// the commit ends instead of an hour later.
    package static func suiteStorage() -> StorageEngine {
        StorageEngine(keepsHistory: { !DatabaseStorageMapping.isDatabaseNamespace($0) })
    }
}
