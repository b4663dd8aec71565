import Synchronization

/// What identifies a Firebase project to the clients: the project ID (Firestore) and the Realtime
/// Database URL. Pass it to ``FirebaseApp/configure(options:)``.
///
/// ```swift
/// let options = FirebaseOptions(googleAppID: "1:123:ios:abc", gcmSenderID: "123")
/// options.projectID = "demo-books"
/// options.databaseURL = "http://127.0.0.1:9000?ns=demo-books-default-rtdb"
/// FirebaseApp.configure(options: options)
/// ```
public final class FirebaseOptions: Sendable {
    private struct Fields {
        var googleAppID: String
        var gcmSenderID: String
        var apiKey: String?
        var projectID: String?
        var databaseURL: String?
        var storageBucket: String?
    }

    private let fields: Mutex<Fields>

    /// The Apple SDK's initializer; the app and sender IDs are kept but not used by the emulators.
    public init(googleAppID: String, gcmSenderID: String) {
        fields = Mutex(Fields(googleAppID: googleAppID, gcmSenderID: gcmSenderID))
    }

    /// Options naming only what the emulators use.
    public convenience init(projectID: String, databaseURL: String? = nil) {
        self.init(googleAppID: "1:0:emulator:0", gcmSenderID: "0")
        self.projectID = projectID
        self.databaseURL = databaseURL
    }

    /// Options from the environment, as the official emulator suite sets it for `emulators:exec`
    /// scripts: `GCLOUD_PROJECT` (or `GOOGLE_CLOUD_PROJECT`) for the project; the database URL is
    /// left to ``Database/database()``, which derives it from the project and
    /// `FIREBASE_DATABASE_EMULATOR_HOST`.
    public static func fromEnvironment() -> FirebaseOptions {
        let options = FirebaseOptions(googleAppID: "1:0:emulator:0", gcmSenderID: "0")
        options.projectID = EmulatorEnvironment.projectID
        return options
    }

    public var googleAppID: String {
        get { fields.withLock { $0.googleAppID } }
        set { fields.withLock { $0.googleAppID = newValue } }
    }
    public var gcmSenderID: String {
        get { fields.withLock { $0.gcmSenderID } }
        set { fields.withLock { $0.gcmSenderID = newValue } }
    }
    public var apiKey: String? {
        get { fields.withLock { $0.apiKey } }
        set { fields.withLock { $0.apiKey = newValue } }
    }
    /// The Google Cloud project ID: Firestore's `projects/{projectID}`.
    public var projectID: String? {
        get { fields.withLock { $0.projectID } }
        set { fields.withLock { $0.projectID = newValue } }
    }
    /// The Realtime Database URL (`https://<ns>.firebaseio.com`, or `http://host:port?ns=<ns>`).
    public var databaseURL: String? {
        get { fields.withLock { $0.databaseURL } }
        set { fields.withLock { $0.databaseURL = newValue } }
    }
    public var storageBucket: String? {
        get { fields.withLock { $0.storageBucket } }
        set { fields.withLock { $0.storageBucket = newValue } }
    }
}
